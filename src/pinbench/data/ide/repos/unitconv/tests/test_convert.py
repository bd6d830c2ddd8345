import pytest

from unitconv.convert import (
    Quantity,
    convert,
    convert_many,
    format_quantity,
    humanize,
    parse_quantity,
)
from unitconv.units import IncompatibleUnitsError, UnknownUnitError


@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (1, "km", "m", 1000),
        (1, "mi", "km", 1.609344),
        (100, "degC", "degF", 212),
        (-40, "degF", "degC", -40),
        (0, "degC", "K", 273.15),
        (1, "kWh", "kJ", 3600),
        (36, "km/h", "m/s", 10),
        (3, "feet", "inches", 36),
    ],
)
def test_convert(value, source, target, expected):
    assert convert(value, source, target) == pytest.approx(expected)


def test_convert_same_unit_returns_value():
    assert convert(7.5, "kg", "kg") == 7.5


def test_incompatible_units():
    with pytest.raises(IncompatibleUnitsError, match="length"):
        convert(1, "km", "kg")


def test_unknown_unit():
    with pytest.raises(UnknownUnitError):
        convert(1, "parsec", "km")


def test_convert_many_is_lazy(registry):
    results = convert_many(iter([1, 2, 3]), "h", "min", registry)
    assert next(results) == 60
    assert list(results) == [120, 180]
    with pytest.raises(IncompatibleUnitsError):
        next(convert_many([1], "h", "m"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3.5 km", Quantity(3.5, "km")),
        ("-40degF", Quantity(-40.0, "degF")),
        ("1e3 g", Quantity(1000.0, "g")),
        ("  .5 miles ", Quantity(0.5, "miles")),
    ],
)
def test_parse_quantity(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("text", ["km", "", "3.5"])
def test_parse_quantity_rejects(text):
    with pytest.raises(ValueError):
        parse_quantity(text)


class TestQuantity:
    def test_to(self):
        assert parse_quantity("2 lb").to("kg").value == pytest.approx(0.90718474)

    def test_str(self):
        assert str(Quantity(2.0, "m")) == "2 m"
        assert str(Quantity(1 / 3, "h")) == "0.333 h"

    def test_format_precision(self):
        assert format_quantity(2.5, "kg", precision=1) == "2.5 kg"


@pytest.mark.parametrize(
    "value, source, choices, expected",
    [
        (2500, "m", ["mm", "m", "km"], Quantity(2.5, "km")),
        (90, "min", None, Quantity(1.5, "h")),
        (0.5, "kg", ["g", "kg", "t"], Quantity(500, "g")),
    ],
)
def test_humanize(value, source, choices, expected, registry):
    result = humanize(value, source, choices, registry)
    assert result.unit == expected.unit
    assert result.value == pytest.approx(expected.value)
