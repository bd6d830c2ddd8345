"""VersiCode's published JSON files, read as they are.

Completion files (`code_completion/<source>/<source>_<granularity>.json`) and editing files
(`code_editing/code_editing_<direction>.json`) each hold one JSON document, `{"data": [item,
...]}` as published (a bare list is read too); files with model outputs added keep the same
shape. Each item is told apart by its keys (`old_code`/`new_code`: editing; `masked_code`:
completion), so a directory of both kinds loads in one call.

Field mapping, and the quirks it absorbs:
- `version` ("==1.2.3"; the JSON number 2.0 read as text): a pin or an inclusive bound (">=1.0"
  stands for 1.0, the version the snippet is known to work on); an exclusive bound or a range is
  an issue.
- `answer` is the API name at every granularity (`masked_line` holds the hidden line or block),
  so a task's answer is `answer` for tokens and `masked_line` otherwise; a missing one is cut
  out of `code` around the single mask.
- `granularity`, when missing, comes from the mask marker in `masked_code`; `type` gives the
  lifespan (VersiCode writes add/delete/name_change_new/name_change_old, or the paper's words);
  `source`, when missing, comes from the id ("stackoverflow_line_1") or a folder name.
- an item whose answer, put back in `masked_code`, is not `code` (trailing blanks aside) is an
  issue: pinbench executes the restored program.

Items are located by file and line (the line where the item's `{` stands) and their index.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pinbench.problems.loaders.base import DatasetError, LoadIssue, describe_validation_error
from pinbench.problems.normalize import normalize_release_date
from pinbench.versicode.model import (
    CompletionTask,
    EditDirection,
    EditTask,
    Granularity,
    Lifespan,
    MetaInstance,
    Source,
    edit_task,
)

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_PIN = re.compile(r"\s*(?:===?|>=|<=|~=)?\s*v?(\d[^\s,;]*)\s*")
_LIFESPANS = {
    "add": Lifespan.ADDITION,
    "addition": Lifespan.ADDITION,
    "name_change_new": Lifespan.ADDITION,
    "delete": Lifespan.DEPRECATION,
    "deprecation": Lifespan.DEPRECATION,
    "name_change_old": Lifespan.DEPRECATION,
    "general": Lifespan.GENERAL,
}
_VERSICODE_SOURCES = (
    Source.LIBRARY_SOURCE_CODE,
    Source.DOWNSTREAM_APPLICATION_CODE,
    Source.STACKOVERFLOW,
)


@dataclass
class VersiCodeResult:
    """The tasks read from VersiCode files, and one issue per item that could not be read."""

    completion: list[CompletionTask] = field(default_factory=list)
    editing: list[EditTask] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)


def load(path: Path) -> VersiCodeResult:
    """Every task in a VersiCode JSON file, or in every `*.json` under a directory.

    Raises DatasetError when the path is missing or a file is not a JSON document of items.
    """
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    result = VersiCodeResult()
    for file in files:
        for index, (line, item) in enumerate(_items(file)):
            try:
                _read_item(item, file, index, line, result)
            except ValidationError as exc:
                reason = describe_validation_error(exc)
                result.issues.append(LoadIssue(file, line, f"item {index}: {reason}"))
            except ValueError as exc:
                result.issues.append(LoadIssue(file, line, f"item {index}: {exc}"))
    return result


def _read_item(item: Any, path: Path, index: int, line: int, result: VersiCodeResult) -> None:
    if not isinstance(item, dict):
        raise ValueError("not a JSON object")
    language = _text(item, "language", required=False).strip().lower()
    if language not in ("", "python"):
        raise ValueError(f"language {language!r}: only Python is supported")
    origin = f"{path}:{line}"
    item_id = _text(item, "id", required=False).strip() or f"{path.stem}_{index}"
    if "old_code" in item or "new_code" in item:
        result.editing.append(_editing(item, item_id, path, origin))
    elif "masked_code" in item:
        result.completion.append(_completion(item, item_id, path, origin))
    else:
        raise ValueError("neither a completion item (masked_code) nor an editing item (old_code)")


def _completion(item: dict[str, Any], item_id: str, path: Path, origin: str) -> CompletionTask:
    masked_code = _text(item, "masked_code")
    granularity = _granularity(item, masked_code)
    field_name = "answer" if granularity is Granularity.TOKEN else "masked_line"
    code = _text(item, "code", required=False)
    answer = _text(item, field_name, required=False) or _cut(code, masked_code, granularity)
    if not answer:
        raise ValueError(f"missing field {field_name}")
    restored = masked_code.replace(granularity.mask, answer)
    if code and _rstripped(code) != _rstripped(restored):
        raise ValueError(f"{field_name} put back in masked_code does not give code")
    api = _text(item, "answer", required=False).strip() or answer
    meta = _meta(item, path, origin, code=code or restored, api=api)
    return CompletionTask(
        id=item_id,
        meta=meta,
        granularity=granularity,
        masked_code=masked_code,
        answer=answer,
        api=api,
        masked_line=_context_line(masked_code, granularity, answer, api),
    )


def _editing(item: dict[str, Any], item_id: str, path: Path, origin: str) -> EditTask:
    sides = {
        side: _meta(
            item,
            path,
            origin,
            code=_text(item, f"{side}_code"),
            api=_text(item, f"{side}_name", required=False).strip() or None,
            prefix=f"{side}_",
        )
        for side in ("old", "new")
    }
    direction = _direction(item, path)
    return edit_task(item_id, sides["old"], sides["new"], direction, source=sides["old"].source)


def _meta(
    item: dict[str, Any], path: Path, origin: str, *, code: str, api: str | None, prefix: str = ""
) -> MetaInstance:
    """The fields every item has, per side for editing items (`old_version`, `new_time`)."""
    time = _text(item, f"{prefix}time", required=False)
    return MetaInstance(
        library=_text(item, "dependency").strip(),
        version=_version(item, f"{prefix}version"),
        description=_text(item, "description", required=False).strip(),
        code=code,
        api=api,
        release_date=normalize_release_date(time),
        source=_source(item, path),
        lifespan=_LIFESPANS.get(
            _text(item, "type", required=False).strip().lower(), Lifespan.UNKNOWN
        ),
        origin=origin,
    )


def _text(item: dict[str, Any], key: str, *, required: bool = True) -> str:
    """A text field; numbers are read as their text, missing or null optional ones as ''."""
    value = item.get(key)
    if value is None:
        if required:
            raise ValueError(f"missing field {key}")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"field {key} is not text")
    return str(value)


def _version(item: dict[str, Any], key: str) -> str:
    raw = _text(item, key)
    match = _PIN.fullmatch(raw)
    if match is None:
        raise ValueError(f"{key} {raw!r} is neither a pin nor an inclusive bound")
    return match[1]


def _granularity(item: dict[str, Any], masked_code: str) -> Granularity:
    raw = _text(item, "granularity", required=False).strip().lower()
    present = [g for g in Granularity if g.mask in masked_code]
    if raw:
        if raw not in {g.value for g in Granularity}:
            raise ValueError(f"granularity {raw!r} is not token, line or block")
        if Granularity(raw) not in present:
            raise ValueError(f"masked_code has no {Granularity(raw).mask}")
        return Granularity(raw)
    if len(present) != 1:
        found = ", ".join(g.mask for g in present) or "no mask"
        raise ValueError(f"no granularity, and masked_code holds {found}")
    return present[0]


def _cut(code: str, masked_code: str, granularity: Granularity) -> str:
    """The text a single mask stands for, from the code around it; '' when it cannot tell."""
    before, mask, after = masked_code.partition(granularity.mask)
    if not code or mask in after or not (code.startswith(before) and code.endswith(after)):
        return ""
    return code[len(before) : len(code) - len(after)]


def _rstripped(code: str) -> list[str]:
    return [line.rstrip() for line in code.rstrip().splitlines()]


def _context_line(masked_code: str, granularity: Granularity, answer: str, api: str) -> str:
    """The restored line holding the first mask; in a block, the first of its lines naming the
    API (VersiCode does not say which line of a block the API is on)."""
    if granularity is Granularity.BLOCK:
        lines = answer.splitlines()
        named = [line for line in lines if re.search(rf"\b{re.escape(api)}\b", line)]
        return (named or lines)[0].strip()
    start = masked_code.rfind("\n", 0, masked_code.index(granularity.mask)) + 1
    restored = masked_code[start:].replace(granularity.mask, answer)
    return restored.split("\n", 1)[0].strip()


def _source(item: dict[str, Any], path: Path) -> Source:
    """`source`, else the source an id or a folder name starts with."""
    raw = _text(item, "source", required=False).strip().lower()
    hints = [raw, _text(item, "id", required=False).lower(), *reversed(path.parts)]
    for hint in hints:
        for source in _VERSICODE_SOURCES:
            if hint.startswith(source.value):
                return source
    return Source.UNKNOWN


def _direction(item: dict[str, Any], path: Path) -> EditDirection:
    """`edit_order`, else the direction the file is named after."""
    raw = _text(item, "edit_order", required=False).strip().lower()
    for hint in (raw, path.stem.lower()):
        for direction in EditDirection:
            if direction.value in hint:
                return direction
    raise ValueError("no edit_order, and the file name names no direction")


def _items(path: Path) -> list[tuple[int, Any]]:
    """(line, item) for each item of the file's list: the document, or its `data` value."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    try:
        document = json.loads(text, parse_float=str)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    if isinstance(document, list):
        start = _skip(text, 0)
    elif isinstance(document, dict) and isinstance(document.get("data"), list):
        start = _data_value(text)
    else:
        raise DatasetError(f"{path}: neither a JSON list nor an object with a 'data' list")
    return list(_scan_list(text, start))


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
