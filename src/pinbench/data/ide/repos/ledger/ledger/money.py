"""Fixed-point money values.

Amounts are stored as :class:`decimal.Decimal` quantized to the minor unit of
their currency, so ``Money("0.10") + Money("0.20")`` is exactly ``Money("0.30")``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Iterable, Iterator, Union

from ledger._generated_rates import MINOR_UNITS, rate_for

Number = Union[int, str, Decimal]


class CurrencyMismatch(ValueError):
    """Raised when two amounts in different currencies are combined."""


def minor_exponent(currency: str) -> Decimal:
    """Return the quantum used to round amounts in ``currency``.

    Args:
        currency: ISO 4217 code such as ``"USD"`` or ``"JPY"`` (any case).

    Returns:
        ``Decimal("0.01")`` for a currency with two minor digits,
        ``Decimal("1")`` for one without minor units, and so on.

    Raises:
        KeyError: If the currency is not in the generated rates table.
    """
    code = currency.upper()
    if code not in MINOR_UNITS:
        raise KeyError(f"unknown currency: {currency}")
    digits = MINOR_UNITS[code]
    return Decimal(1).scaleb(-digits)


def parse_amount(text: str) -> Decimal:
    """Parse a user-entered amount such as ``"1,234.50"`` or ``"(12.00)"``.

    Thousands separators and underscores are ignored and an amount written in
    parentheses is negative, as in accounting statements.

    Args:
        text: The amount as typed by a user or read from a statement.

    Returns:
        The parsed, unrounded amount. Blank input counts as zero.

    Raises:
        ValueError: If the text is not a number.
    """
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned:
        return 0
    negative = cleaned.startswith("(") and cleaned.endswith(")")
    if negative:
        cleaned = cleaned[1:-1]
    try:
        value = Decimal(cleaned)
    except InvalidOperation as exc:
        raise ValueError(f"not an amount: {text!r}") from exc
    return -value if negative else value


class Money:
    """An amount in a single currency, rounded to that currency's minor unit.

    Construction rounds half to even (banker's rounding); see :meth:`convert`
    for the rounding used between currencies.
    """

    __slots__ = ("_amount", "currency")

    def __init__(self, amount: Number, currency: str = "USD") -> None:
        self.currency = currency.upper()
        quantum = minor_exponent(self.currency)
        self._amount = Decimal(amount).quantize(quantum, rounding=ROUND_HALF_EVEN)

    @property
    def amount(self) -> Decimal:
        """The rounded amount as a Decimal."""
        return self._amount

    @classmethod
    def zero(cls, currency: str = "USD") -> Money:
        return cls(0, currency)

    @classmethod
    def parse(cls, text: str, currency: str = "USD") -> Money:
        """Build a Money from user input, e.g. ``Money.parse("(1,200.5) EUR")``.

        Args:
            text: Amount text accepted by :func:`parse_amount`, optionally
                followed by a currency code that overrides ``currency``.
            currency: Currency of the amount when the text names none.

        Returns:
            The amount rounded to the currency's minor unit.
        """
        pieces = text.split()
        if len(pieces) == 2 and pieces[1].isalpha():
            text, currency = pieces
        value = parse_amount(text)
        return cls(value, currency)

    @staticmethod
    def total(items: Iterable[Money], currency: str = "USD") -> Money:
        """Add up amounts that all share ``currency``.

        Args:
            items: Amounts to add; may be empty.
            currency: Currency of the result, used when ``items`` is empty.

        Returns:
            The sum, in ``currency``.

        Raises:
            CurrencyMismatch: If any item is in another currency.
        """
        result = Money.zero(currency)
        for item in items:
            result = result + item
        return result

    def _check(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"expected Money, got {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self._amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self._amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self._amount, self.currency)

    def __mul__(self, factor: Union[int, Decimal]) -> Money:
        if isinstance(factor, float):
            raise TypeError("multiply by int or Decimal, not float")
        product = self._amount * Decimal(factor)
        return Money(product, self.currency)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Money):
            return NotImplemented
        return (self._amount, self.currency) == (other.amount, other.currency)

    def __lt__(self, other: Money) -> bool:
        self._check(other)
        return self._amount < other.amount

    def __hash__(self) -> int:
        return hash((self._amount, self.currency))

    def __repr__(self) -> str:
        return f"Money({str(self._amount)!r}, {self.currency!r})"

    def __str__(self) -> str:
        sign = "-" if self._amount < 0 else ""
        return f"{sign}{abs(self._amount):,} {self.currency}"

    def is_zero(self) -> bool:
        return self._amount == 0

    def convert(self, currency: str) -> Money:
        """Convert to another currency using the generated reference rates.

        The amount goes through USD at full Decimal precision and is rounded
        once, to the target currency's minor unit, with ``ROUND_HALF_UP``
        (commercial rounding), unlike construction, which rounds half to even.

        Args:
            currency: Target ISO 4217 code.

        Returns:
            A new Money in ``currency``; ``self`` if the currency is unchanged.

        Raises:
            KeyError: If either currency has no reference rate.
        """
        target = currency.upper()
        if target == self.currency:
            return self
        in_usd = self._amount / rate_for(self.currency)
        raw = in_usd * rate_for(target)
        rounded = raw.quantize(minor_exponent(target), rounding=ROUND_HALF_UP)
        return Money(rounded, target)

    def split_evenly(self, parts: int) -> Iterator[Money]:
        """Split the amount into ``parts`` shares that add up exactly.

        Each share gets the amount divided down to the minor unit; the
        remainder is handed out one minor unit at a time to the first shares,
        so ``Money("10.00").split_evenly(3)`` yields 3.34, 3.33 and 3.33.

        Args:
            parts: Number of shares, at least 1.

        Yields:
            The shares, largest first.

        Raises:
            ValueError: If ``parts`` is less than 1.
        """
        if parts < 1:
            raise ValueError("parts must be at least 1")
        quantum = minor_exponent(self.currency)
        units = int(self._amount / quantum)
        base, remainder = divmod(units, parts)
        for index in range(parts):
            extra = 1 if index < remainder else 0
            yield Money((base + extra) * quantum, self.currency)
