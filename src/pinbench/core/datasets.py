"""What every dataset reader shares: a malformed row located by file and line, a dataset that
cannot be read at all, and JSON documents read item by item with the line each item starts on."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

_WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class LoadIssue:
    """A malformed row, located precisely enough to fix by hand."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


def json_row(line: str, parse_float: Callable[[str], Any] | None = None) -> Any:
    """One JSON line of a dataset, or ValueError saying why it is none: invalid JSON, or nested
    deeper than the decoder goes (which would otherwise escape as RecursionError)."""
    try:
        return json.loads(line, parse_float=parse_float)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None


def first_row(path: Path) -> dict[str, Any] | None:
    """The first non-blank line of a JSON-lines file as an object, or None when the file cannot
    be read, the line is not JSON, or it is not an object: what a format's sniffer looks at.
    Bytes that are not UTF-8 are replaced: the loader, not the sniffer, reports them by line."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            line = next((line for line in fh if line.strip()), "")
        row = json_row(line)
    except (OSError, ValueError):
        return None
    return row if isinstance(row, dict) else None


class DatasetError(Exception):
    """The dataset cannot be read at all (missing, unknown format, or malformed under --strict)."""


def describe_validation_error(exc: ValidationError) -> str:
    """One line per pydantic error: 'field: message'."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "row"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def located_items(path: Path) -> tuple[list[tuple[int, Any]], int | None]:
    """(line, item) for each item of the file's list: the document, or its `data` value; and
    the document's `count`, when it states one."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    try:
        document = json.loads(text, parse_float=str)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    except RecursionError:
        raise DatasetError(f"{path}: invalid JSON: nested too deeply") from None
    count = None
    if isinstance(document, list):
        start = _skip(text, 0)
    elif isinstance(document, dict) and isinstance(document.get("data"), list):
        start = _data_value(text)
        stated = document.get("count")
        count = stated if isinstance(stated, int) and not isinstance(stated, bool) else None
    else:
        raise DatasetError(f"{path}: neither a JSON list nor an object with a 'data' list")
    return list(_scan_list(text, start)), count


_DECODER = json.JSONDecoder(parse_float=str)


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _data_value(text: str) -> int:
    """Offset of the top-level object's (last) `data` value; the text is known to be valid."""
    pos, found = _skip(text, _skip(text, 0) + 1), -1
    while text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # past the ':'
        if key == "data":
            found = pos
        _value, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return found


def _scan_list(text: str, start: int) -> Iterator[tuple[int, Any]]:
    """Each item of the JSON list opening at `start`, with the line it starts on."""
    pos, line, counted = _skip(text, start + 1), 1, 0
    while text[pos] != "]":
        line += text.count("\n", counted, pos)
        counted = pos
        item, pos = _DECODER.raw_decode(text, pos)
        yield line, item
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
