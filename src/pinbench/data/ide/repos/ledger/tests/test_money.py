from decimal import Decimal

import pytest

from ledger.money import CurrencyMismatch, Money, minor_exponent, parse_amount


@pytest.mark.parametrize(
    "text, expected",
    [
        ("12", Decimal("12")),
        ("1,234.50", Decimal("1234.50")),
        ("(12.00)", Decimal("-12.00")),
        ("1_000", Decimal("1000")),
        ("   ", 0),
    ],
)
def test_parse_amount(text, expected):
    assert parse_amount(text) == expected


def test_parse_amount_rejects_garbage():
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount("twelve")


@pytest.mark.parametrize(
    "currency, quantum",
    [("USD", Decimal("0.01")), ("jpy", Decimal("1")), ("KWD", Decimal("0.001"))],
)
def test_minor_exponent(currency, quantum):
    assert minor_exponent(currency) == quantum


def test_minor_exponent_unknown_currency():
    with pytest.raises(KeyError):
        minor_exponent("XXX")


class TestMoney:
    def test_rounds_half_even_on_construction(self):
        assert Money("0.125").amount == Decimal("0.12")
        assert Money("0.135").amount == Decimal("0.14")

    def test_addition_is_exact(self, usd):
        assert usd("0.10") + usd("0.20") == usd("0.30")

    def test_mixing_currencies_fails(self, usd):
        with pytest.raises(CurrencyMismatch):
            _ = usd("1") + Money("1", "EUR")

    def test_parse_with_currency_suffix(self):
        assert Money.parse("(1,200.5) EUR") == Money("-1200.50", "EUR")
        assert Money.parse("7", "jpy") == Money(7, "JPY")

    def test_total(self, usd):
        assert Money.total([usd("1.25"), usd("2.75")]) == usd("4.00")
        assert Money.total([], "EUR") == Money.zero("EUR")

    def test_str_and_repr(self, usd):
        assert str(usd("-1234.5")) == "-1,234.50 USD"
        assert repr(usd("3")) == "Money('3.00', 'USD')"

    def test_multiply_rejects_float(self, usd):
        with pytest.raises(TypeError):
            _ = usd("1") * 1.5

    def test_convert_rounds_half_up_to_target_minor_unit(self):
        assert Money("100.00", "USD").convert("EUR") == Money("91.66", "EUR")
        assert Money("10.00", "USD").convert("JPY") == Money(1445, "JPY")

    def test_convert_same_currency_is_identity(self, usd):
        amount = usd("5")
        assert amount.convert("usd") is amount


@pytest.mark.parametrize(
    "amount, parts, expected",
    [
        ("10.00", 3, ["3.34", "3.33", "3.33"]),
        ("0.05", 2, ["0.03", "0.02"]),
        ("9.00", 1, ["9.00"]),
    ],
)
def test_split_evenly(amount, parts, expected):
    shares = list(Money(amount).split_evenly(parts))
    assert [str(share.amount) for share in shares] == expected
    assert Money.total(shares) == Money(amount)


def test_split_evenly_needs_a_part():
    with pytest.raises(ValueError):
        list(Money("1").split_evenly(0))
