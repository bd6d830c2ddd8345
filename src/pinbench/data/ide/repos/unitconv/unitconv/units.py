"""Unit objects and the registry that looks them up by symbol or alias."""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional

from unitconv._generated_units import ALIASES, UNITS, Row


class UnknownUnitError(KeyError):
    """Raised when a symbol or alias is not in the registry."""


class IncompatibleUnitsError(ValueError):
    """Raised when converting between units of different dimensions."""


class Unit:
    """A linear unit: ``value_in_base = value * factor``."""

    def __init__(self, symbol: str, name: str, dimension: str, factor: float) -> None:
        if factor <= 0:
            raise ValueError(f"{symbol}: factor must be positive, got {factor}")
        self.symbol = symbol
        self.name = name
        self.dimension = dimension
        self.factor = factor

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.symbol!r}, {self.dimension!r})"

    @property
    def is_base(self) -> bool:
        return self.factor == 1.0

    @classmethod
    def from_row(cls, row: Row) -> Unit:
        """Build a unit from one row of the generated unit table.

        Temperature rows become :class:`TemperatureUnit` so that their offset
        is applied; every other row becomes a plain, linear :class:`Unit`.

        :param row: ``(symbol, name, dimension, factor, offset)``.
        :returns: The unit described by the row.
        """
        symbol, name, dimension, factor, offset = row
        if dimension == "temperature":
            return TemperatureUnit(symbol, name, dimension, factor, offset)
        return cls(symbol, name, dimension, factor)

    def to_base(self, value: float) -> float:
        return value * self.factor

    def from_base(self, value: float) -> float:
        return value / self.factor


class TemperatureUnit(Unit):
    """An affine unit: ``kelvin = value * factor + offset``."""

    def __init__(
        self, symbol: str, name: str, dimension: str, factor: float, offset: float
    ) -> None:
        super().__init__(symbol, name, dimension, factor)
        self.offset = offset

    def to_base(self, value: float) -> float:
        return value * self.factor + self.offset

    def from_base(self, value: float) -> float:
        return (value - self.offset) / self.factor


def describe(unit: Unit) -> str:
    text = f"{unit.symbol} ({unit.name}): 1 {unit.symbol} = {unit.factor:g} base {unit.dimension}"
    if unit.dimension == "temperature":
        text += f", offset {unit.offset:g}"
    return text


class Registry:
    """Units by symbol, plus case-insensitive aliases."""

    def __init__(self) -> None:
        self._units: Dict[str, Unit] = {}
        self._aliases: Dict[str, str] = {}

    @classmethod
    def default(cls) -> Registry:
        registry = cls()
        for row in UNITS:
            registry.register(Unit.from_row(row))
        for alias, symbol in ALIASES.items():
            registry.add_alias(alias, symbol)
        return registry

    def register(self, unit: Unit, aliases: Iterable[str] = (), overwrite: bool = False) -> None:
        if unit.symbol in self._units:
            raise ValueError(f"unit {unit.symbol!r} is already registered")
        self._units[unit.symbol] = unit
        for alias in aliases:
            self.add_alias(alias, unit.symbol)

    def add_alias(self, alias: str, symbol: str) -> None:
        if symbol not in self._units:
            raise UnknownUnitError(symbol)
        self._aliases[alias.lower()] = symbol

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve(name) is not None

    def resolve(self, name: str) -> Optional[str]:
        """Return the symbol that ``name`` refers to, or ``None``.

        Symbols are matched exactly first (``"mm"`` and ``"Mm"`` differ),
        then aliases case-insensitively, and finally a trailing ``"s"`` is
        dropped so that plurals of aliases such as ``"Kelvins"`` resolve.

        :param name: A symbol, alias or plural alias.
        :returns: The registered symbol, or ``None`` when nothing matches.
        """
        key = name.strip()
        if key in self._units:
            return key
        lowered = key.lower()
        if lowered in self._aliases:
            return self._aliases[lowered]
        if lowered.endswith("s") and lowered[:-1] in self._aliases:
            return self._aliases[lowered[:-1]]
        return None

    def get(self, name: str) -> Unit:
        """Look up a unit by symbol or alias.

        See :meth:`resolve` for the matching rules.

        :param name: A symbol such as ``"km"`` or an alias such as ``"miles"``.
        :returns: The registered unit.
        :raises UnknownUnitError: If nothing matches ``name``.
        """
        symbol = self.resolve(name)
        if symbol is None:
            raise UnknownUnitError(name)
        return self._units[symbol]

    def units_for(self, dimension: str) -> Iterator[Unit]:
        """Yield the units of one dimension, smallest first.

        :param dimension: For example ``"length"`` or ``"temperature"``.
        :returns: A generator of units ordered by ascending ``factor``;
            empty for an unknown dimension.
        """
        for unit in sorted(self._units.values(), key=lambda item: item.factor):
            if unit.dimension == dimension:
                yield unit

    def dimensions(self) -> List[str]:
        return sorted({unit.dimension for unit in self._units.values()})
