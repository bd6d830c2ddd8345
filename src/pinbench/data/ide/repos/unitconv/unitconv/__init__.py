"""unitconv: convert values between units and keep a log of conversions."""

from unitconv.convert import Quantity, convert, convert_many, parse_quantity
from unitconv.log import ConversionLog, LogEntry, parse_timestamp
from unitconv.units import IncompatibleUnitsError, Registry, Unit, UnknownUnitError

__all__ = [
    "ConversionLog",
    "IncompatibleUnitsError",
    "LogEntry",
    "Quantity",
    "Registry",
    "Unit",
    "UnknownUnitError",
    "convert",
    "convert_many",
    "parse_quantity",
    "parse_timestamp",
]

__version__ = "0.9.0"
