"""Converting values between units and parsing quantities such as ``"3.5 km"``."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Iterable, Iterator, NamedTuple, Optional, Tuple

from unitconv.units import IncompatibleUnitsError, Registry, Unit

_QUANTITY_RE = re.compile(
    r"^\s*(?P<value>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(?P<unit>[^\d\s.,+-]\S*)\s*$"
)


@lru_cache(maxsize=None)
def default_registry() -> Registry:
    return Registry.default()


def _pair(source: str, target: str, registry: Optional[Registry]) -> Tuple[Unit, Unit]:
    reg = registry or default_registry()
    src, dst = reg.get(source), reg.get(target)
    if src.dimension != dst.dimension:
        raise IncompatibleUnitsError(
            f"cannot convert {src.symbol} ({src.dimension}) to {dst.symbol} ({dst.dimension})"
        )
    return src, dst


def convert(value: float, source: str, target: str, registry: Optional[Registry] = None) -> float:
    """Convert ``value`` from unit ``source`` to unit ``target``.

    The value goes through the dimension's SI base unit,
    ``dst.from_base(src.to_base(value))``, so temperature offsets are applied
    on the way in and removed on the way out. No rounding is done.

    :param value: The number to convert.
    :param source: Symbol or alias of the unit ``value`` is in.
    :param target: Symbol or alias of the unit wanted.
    :param registry: Where to look units up; the default registry if omitted.
    :returns: ``value`` expressed in ``target``.
    :raises UnknownUnitError: If either unit is not registered.
    :raises IncompatibleUnitsError: If the units measure different dimensions.
    """
    src, dst = _pair(source, target, registry)
    if src is dst:
        return value
    base = src.to_base(value)
    return dst.from_base(base)


def convert_many(
    values: Iterable[float], source: str, target: str, registry: Optional[Registry] = None
) -> Iterator[float]:
    """Convert a stream of values, looking the two units up only once.

    :param values: Numbers in ``source`` units; consumed lazily.
    :param source: Symbol or alias of the input unit.
    :param target: Symbol or alias of the output unit.
    :param registry: Where to look units up; the default registry if omitted.
    :returns: A generator of converted values, in input order.
    :raises IncompatibleUnitsError: On the first ``next()`` if the units
        measure different dimensions.
    """
    src, dst = _pair(source, target, registry)
    for value in values:
        base = src.to_base(value)
        yield dst.from_base(base)


class Quantity(NamedTuple):
    """A value together with the symbol of its unit."""

    value: float
    unit: str

    def to(self, target: str, registry: Optional[Registry] = None) -> Quantity:
        return Quantity(convert(self.value, self.unit, target, registry), target)

    def __str__(self) -> str:
        return format_quantity(self.value, self.unit)


def parse_quantity(text: str) -> Quantity:
    """Parse text such as ``"3.5 km"``, ``"-40degF"`` or ``"1e3 g"``.

    The unit is kept as written; it is resolved only when the quantity is
    converted, so aliases like ``"miles"`` are accepted.

    :param text: A number, optional whitespace, then a unit.
    :returns: The parsed quantity.
    :raises ValueError: If the text does not start with a number followed by
        a unit.
    """
    match = _QUANTITY_RE.match(text)
    if match is None:
        raise ValueError(f"not a quantity: {text!r}")
    value = float(match.group("value"))
    return Quantity(value, match.group("unit"))


def format_quantity(value: float, unit: str, precision: int = 3) -> str:
    if math.isfinite(value) and value == round(value):
        return f"{int(value)} {unit}"
    else:
        text = f"{value:.{precision}f}".rstrip("0").rstrip(".")
        return f"{text} {unit}"


def humanize(
    value: float,
    source: str,
    choices: Optional[Iterable[str]] = None,
    registry: Optional[Registry] = None,
) -> Quantity:
    reg = registry or default_registry()
    unit_in = reg.get(source)
    base = unit_in.to_base(value)
    if choices is None:
        candidates = list(reg.units_for(unit_in.dimension))
    else:
        candidates = [reg.get(name) for name in choices]
    for unit in sorted(candidates, key=lambda item: -item.factor):
        if abs(unit.from_base(base)) >= 1:
            chosen = unit
            break
    return Quantity(chosen.from_base(base), chosen.symbol)
