import pytest

from unitconv.units import Registry, TemperatureUnit, Unit, UnknownUnitError, describe


def test_from_row_builds_temperature_units():
    unit = Unit.from_row(("degC", "degree Celsius", "temperature", 1.0, 273.15))
    assert isinstance(unit, TemperatureUnit)
    assert unit.to_base(0) == pytest.approx(273.15)
    assert type(Unit.from_row(("m", "metre", "length", 1.0, 0.0))) is Unit


def test_factor_must_be_positive():
    with pytest.raises(ValueError):
        Unit("x", "broken", "length", 0)


@pytest.mark.parametrize(
    "name, symbol",
    [("km", "km"), ("Miles", "mi"), ("CELSIUS", "degC"), ("kelvins", "K"), ("\u00b0F", "degF")],
)
def test_resolve(registry, name, symbol):
    assert registry.resolve(name) == symbol
    assert registry.get(name).symbol == symbol


def test_resolve_is_case_sensitive_for_symbols(registry):
    assert registry.resolve("mm") == "mm"
    assert registry.resolve("Mm") is None
    assert "Mm" not in registry


def test_get_unknown(registry):
    with pytest.raises(UnknownUnitError):
        registry.get("furlong")


class TestRegistry:
    def test_register_custom_unit(self, registry):
        registry.register(Unit("fur", "furlong", "length", 201.168), aliases=["furlongs"])
        assert registry.get("Furlongs").factor == 201.168

    def test_duplicate_symbol(self, registry):
        with pytest.raises(ValueError):
            registry.register(Unit("km", "kilometre", "length", 1000.0))

    def test_alias_needs_unit(self):
        with pytest.raises(UnknownUnitError):
            Registry().add_alias("x", "nope")

    def test_units_for_is_sorted(self, registry):
        symbols = [unit.symbol for unit in registry.units_for("time")]
        assert symbols == ["ms", "s", "min", "h", "d", "wk"]
        assert list(registry.units_for("luminosity")) == []

    def test_dimensions(self, registry):
        assert "temperature" in registry.dimensions()
        assert registry.get("m").is_base


def test_describe(registry):
    assert describe(registry.get("km")) == "km (kilometre): 1 km = 1000 base length"
    assert describe(registry.get("degC")).endswith("offset 273.15")
