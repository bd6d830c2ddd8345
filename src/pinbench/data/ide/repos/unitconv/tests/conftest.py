import datetime as dt

import pytest
from dateutil import tz

from unitconv.log import ConversionLog
from unitconv.units import Registry


@pytest.fixture
def registry():
    """A fresh default registry, safe to modify in a test."""
    return Registry.default()


@pytest.fixture
def conversion_log():
    """A log with three conversions on 1 and 2 June 2023 (UTC)."""
    log = ConversionLog()
    log.record(5, "km", "mi", when="2023-06-01T08:00:00Z")
    log.record(100, "degC", "degF", when=dt.datetime(2023, 6, 1, 12, 30, tzinfo=tz.UTC))
    log.record(2, "km", "mi", when="2 June 2023 09:15")
    return log
