"""A timestamped log of conversions, stored as one tab-separated line per entry."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

from dateutil import parser as date_parser
from dateutil import tz

from unitconv.convert import convert
from unitconv.units import Registry

Stamp = Union[str, dt.datetime]


def parse_timestamp(text: str, default_tz: dt.tzinfo = tz.UTC) -> dt.datetime:
    """Parse a timestamp in any format ``dateutil`` understands.

    ISO 8601 (``"2023-06-01T12:00:00+02:00"``) and looser forms such as
    ``"1 June 2023 12:00"`` are both accepted. Naive timestamps are taken to
    be in ``default_tz``; the result is always converted to UTC.

    :param text: The timestamp text.
    :param default_tz: Time zone assumed when ``text`` names none.
    :returns: An aware datetime in UTC.
    :raises ValueError: If ``dateutil`` cannot parse ``text``.
    """
    stamp = date_parser.parse(text)
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=default_tz)
    return stamp.astimezone(tz.UTC)


def _as_utc(stamp: Stamp) -> dt.datetime:
    if isinstance(stamp, str):
        return parse_timestamp(stamp)
    if stamp.tzinfo is None:
        return stamp.replace(tzinfo=tz.UTC)
    return stamp.astimezone(tz.UTC)


@dataclass(frozen=True)
class LogEntry:
    """One conversion: when it happened, the input and the result."""

    timestamp: dt.datetime
    value: float
    source: str
    target: str
    result: float

    def to_line(self) -> str:
        fields = [self.timestamp.isoformat(), repr(self.value), self.source, self.target]
        return "\t".join(fields + [repr(self.result)])

    @classmethod
    def from_line(cls, line: str) -> LogEntry:
        """Parse a line written by :meth:`to_line`.

        The timestamp field goes through :func:`parse_timestamp`, so lines
        edited by hand with timestamps like ``"2023-06-01 09:30"`` also load.

        :param line: Five tab-separated fields, with or without a newline.
        :returns: The entry.
        :raises ValueError: If the line does not have five fields or a field
            does not parse.
        """
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 5:
            raise ValueError(f"expected 5 tab-separated fields, got {len(fields)}")
        stamp, value, source, target, result = fields
        return cls(parse_timestamp(stamp), float(value), source, target, float(result))


class ConversionLog:
    """An in-memory list of :class:`LogEntry` that can be saved and loaded."""

    def __init__(self, entries: Iterable[LogEntry] = ()) -> None:
        self._entries: List[LogEntry] = sorted(entries, key=lambda entry: entry.timestamp)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[LogEntry]:
        return iter(self._entries)

    def record(
        self,
        value: float,
        source: str,
        target: str,
        when: Optional[Stamp] = None,
        registry: Optional[Registry] = None,
    ) -> LogEntry:
        """Convert a value and log the conversion.

        :param value: The number to convert.
        :param source: Unit of ``value``.
        :param target: Unit wanted.
        :param when: Timestamp text, a datetime (naive means UTC), or ``None``
            for the current time.
        :param registry: Passed on to :func:`~unitconv.convert.convert`.
        :returns: The new entry, whose ``result`` is the converted value.
        :raises IncompatibleUnitsError: If the units measure different
            dimensions; nothing is logged then.
        """
        stamp = dt.datetime.now(tz.UTC) if when is None else _as_utc(when)
        result = convert(value, source, target, registry)
        entry = LogEntry(stamp, value, source, target, result)
        self._entries.append(entry)
        self._entries.sort(key=lambda item: item.timestamp)
        return entry

    def between(self, start: Stamp, end: Stamp) -> Iterator[LogEntry]:
        """Yield the entries logged from ``start`` up to, not including, ``end``.

        Args:
            start: First instant included, as text or a datetime.
            end: First instant excluded, as text or a datetime.

        Yields:
            Entries in time order.
        """
        low, high = _as_utc(start), _as_utc(end)
        for entry in self._entries:
            if entry.timestamp >= high:
                break
            if entry.timestamp >= low:
                yield entry

    def counts_by_pair(self) -> Dict[Tuple[str, str], int]:
        counts: Dict[Tuple[str, str], int] = {}
        for entry in self._entries:
            key = (entry.source, entry.target)
            counts[key] = counts.get(key, 0) + 1
        return counts

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# unitconv log v1\n")
            for entry in self._entries:
                handle.write(entry.to_line() + "\n")

    @classmethod
    def load(cls, path: str) -> ConversionLog:
        entries = []
        with open(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip() or line.startswith("#"):
                    continue
                entries.append(LogEntry.from_line(line))
        return cls(entries)
