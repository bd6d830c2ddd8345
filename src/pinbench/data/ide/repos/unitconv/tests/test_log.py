import datetime as dt

import pytest
from dateutil import tz

from unitconv.log import ConversionLog, LogEntry, parse_timestamp


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2023-06-01T12:00:00Z", dt.datetime(2023, 6, 1, 12, 0, tzinfo=tz.UTC)),
        ("2023-06-01T14:00:00+02:00", dt.datetime(2023, 6, 1, 12, 0, tzinfo=tz.UTC)),
        ("1 June 2023 12:00", dt.datetime(2023, 6, 1, 12, 0, tzinfo=tz.UTC)),
    ],
)
def test_parse_timestamp(text, expected):
    assert parse_timestamp(text) == expected


def test_parse_timestamp_default_tz():
    stamp = parse_timestamp("2023-06-01 12:00", default_tz=tz.tzoffset(None, 3600))
    assert stamp.hour == 11


def test_parse_timestamp_rejects_garbage():
    with pytest.raises(ValueError):
        parse_timestamp("not a time")


def test_entry_line_round_trip(conversion_log):
    entry = next(iter(conversion_log))
    assert LogEntry.from_line(entry.to_line() + "\n") == entry


def test_entry_needs_five_fields():
    with pytest.raises(ValueError, match="5 tab-separated"):
        LogEntry.from_line("2023-06-01\t1\tkm")


class TestConversionLog:
    def test_record(self, conversion_log):
        assert len(conversion_log) == 3
        results = [round(entry.result, 3) for entry in conversion_log]
        assert results == [3.107, 212.0, 1.243]

    def test_between(self, conversion_log):
        entries = list(conversion_log.between("2023-06-01", "2023-06-02"))
        assert [entry.source for entry in entries] == ["km", "degC"]

    def test_counts_by_pair(self, conversion_log):
        assert conversion_log.counts_by_pair() == {("km", "mi"): 2, ("degC", "degF"): 1}

    def test_save_and_load(self, conversion_log, tmp_path):
        path = tmp_path / "conversions.log"
        conversion_log.save(str(path))
        loaded = ConversionLog.load(str(path))
        assert list(loaded) == list(conversion_log)

    def test_naive_datetime_is_utc(self):
        log = ConversionLog()
        entry = log.record(1, "m", "cm", when=dt.datetime(2023, 1, 1, 0, 0))
        assert entry.timestamp.tzinfo is not None
        assert entry.result == pytest.approx(100)
