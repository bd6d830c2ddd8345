"""VersiCode's published JSON files, read as they are.

Completion files (`code_completion/<source>/<source>_<granularity>.json`) and editing files
(`code_editing/code_editing_<direction>.json`) each hold one JSON document, `{"data": [item,
...]}` as published (a bare list is read too); files with model outputs added keep the same
shape. Each item is told apart by its keys (`old_code`/`new_code`: editing; `masked_code`:
completion), so a directory of both kinds loads in one call.

Field mapping, and the quirks it absorbs:
- `version` ("==1.2.3"; the JSON number 2.0 read as text; "1.2.3" with no operator): a pin; any
  other constraint ("<0.25", ">0.11", ">=1.2", "==1.x", ">=1.2,<2") is kept as a PEP 440
  specifier in `MetaInstance.constraint` (see `versicode.versions` for the spellings repaired);
  no release is chosen here, so loading needs no package index.
- `answer` is the API name at every granularity (`masked_line` holds the hidden line or block),
  so a task's answer is `answer` for tokens and `masked_line` otherwise; a missing one is cut
  out of `code` around the single mask.
- the mask marker is whichever of `<token_mask>`, `<line_mask>`, `<block_mask>` `masked_code`
  holds: the published block-level files mask with `<line_mask>` (the paper says
  `<block_mask>`), so `granularity` names the task and the marker is read from the code.
- `granularity`, when missing, comes from the id or file name ("stackoverflow_block_3"), else
  from the mask marker in `masked_code`; `type` gives the lifespan (VersiCode writes
  add/delete/name_change_new/name_change_old, or the paper's words; an editing item's
  name_change makes its old side a deprecation and its new side an addition);
  `source`, when missing, comes from the id ("stackoverflow_line_1") or a folder name.
- a block-level item is, as VersiCode's scripts run it, a whole program to write from the
  description and the requirement, scored against `code` (`whole_program`); its `masked_code`
  and `masked_line` are the core line their CDC metric reads, kept as they are.
- an item whose answer, put back in `masked_code`, is not `code` (trailing blanks aside) is an
  issue: pinbench executes the restored program.
- fields that are not text (a list, an object) where text is expected are issues naming the
  field; a document whose `count` disagrees with its `data` list is reported (its items are
  still read).

Items are located by file and line (the line where the item's `{` stands) and their index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pinbench.core.datasets import DatasetError, LoadIssue, describe_validation_error, located_items
from pinbench.tasks.generation.normalize import normalize_release_date
from pinbench.tasks.versicode import versions
from pinbench.tasks.versicode.model import (
    CompletionTask,
    EditDirection,
    EditTask,
    Granularity,
    Lifespan,
    MetaInstance,
    Source,
    edit_task,
)

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
        items, count = located_items(file)
        if count is not None and count != len(items):
            result.issues.append(
                LoadIssue(file, 1, f"'count' is {count} but 'data' holds {len(items)} items")
            )
        for index, (line, item) in enumerate(items):
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
    granularity, mask = _granularity(item, masked_code, path)
    field_name = "answer" if granularity is Granularity.TOKEN else "masked_line"
    code = _text(item, "code", required=False)
    answer = _text(item, field_name, required=False) or _cut(code, masked_code, mask)
    if not answer:
        raise ValueError(f"missing field {field_name}")
    restored = masked_code.replace(mask, answer)
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
        masked_line=_context_line(masked_code, granularity, mask, answer, api),
        whole_program=granularity is Granularity.BLOCK,
        mask=mask,
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
    requirement = _version(item, f"{prefix}version")
    return MetaInstance(
        library=_text(item, "dependency").strip(),
        version=requirement.pin,
        constraint=requirement.constraint,
        description=_text(item, "description", required=False).strip(),
        code=code,
        api=api,
        release_date=normalize_release_date(time),
        source=_source(item, path),
        lifespan=_lifespan(_text(item, "type", required=False).strip().lower(), prefix),
        origin=origin,
    )


def _lifespan(kind: str, prefix: str) -> Lifespan:
    """VersiCode's `type`. An editing item's "name_change" is an API renamed between its two
    versions: the old side uses the name that went away, the new side the one that came."""
    if kind == "name_change" and prefix:
        return Lifespan.DEPRECATION if prefix == "old_" else Lifespan.ADDITION
    return _LIFESPANS.get(kind, Lifespan.UNKNOWN)


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


def _version(item: dict[str, Any], key: str) -> versions.Requirement:
    raw = _text(item, key)
    try:
        return versions.parse(raw)
    except ValueError as exc:
        raise ValueError(f"{key} {raw!r} is not a version or a version constraint: {exc}") from None


def _granularity(item: dict[str, Any], masked_code: str, path: Path) -> tuple[Granularity, str]:
    """The task's granularity and the marker `masked_code` uses for it.

    The granularity is the declared one, else the one the id or the file name names
    ("stackoverflow_block_3", "library_source_code_block.json"), else the marker's. The marker
    is that granularity's own when present, else the one marker kind the code holds (block
    items are published with <line_mask>).
    """
    raw = _text(item, "granularity", required=False).strip().lower()
    if raw and raw not in {g.value for g in Granularity}:
        raise ValueError(f"granularity {raw!r} is not token, line or block")
    present = [g for g in Granularity if g.mask in masked_code]
    raw = raw or _named_granularity(_text(item, "id", required=False), path.stem)
    if not present:
        raise ValueError("masked_code holds no mask (<token_mask>, <line_mask>, <block_mask>)")
    declared = Granularity(raw) if raw else None
    if declared in present:
        return declared, declared.mask
    if len(present) > 1:
        found = ", ".join(g.mask for g in present)
        what = f"granularity {raw}" if raw else "no granularity"
        raise ValueError(f"{what}, and masked_code holds {found}")
    return declared or present[0], present[0].mask


def _named_granularity(*names: str) -> str:
    """The granularity a name spells as one of its `_`- or `-`-separated words, or ''."""
    for name in names:
        words = set(re.split(r"[_\-.\s]+", name.lower()))
        named = [g.value for g in Granularity if g.value in words]
        if len(named) == 1:
            return named[0]
    return ""


def _cut(code: str, masked_code: str, marker: str) -> str:
    """The text a single mask stands for, from the code around it; '' when it cannot tell."""
    before, mask, after = masked_code.partition(marker)
    if not code or mask in after or not (code.startswith(before) and code.endswith(after)):
        return ""
    return code[len(before) : len(code) - len(after)]


def _rstripped(code: str) -> list[str]:
    return [line.rstrip() for line in code.rstrip().splitlines()]


def _context_line(
    masked_code: str, granularity: Granularity, mask: str, answer: str, api: str
) -> str:
    """The restored line holding the first mask; in a block, the first of its lines naming the
    API (VersiCode does not say which line of a block the API is on)."""
    if granularity is Granularity.BLOCK:
        lines = answer.splitlines() or [answer]
        named = [line for line in lines if re.search(rf"\b{re.escape(api)}\b", line)]
        return (named or lines)[0].strip()
    start = masked_code.rfind("\n", 0, masked_code.index(mask)) + 1
    restored = masked_code[start:].replace(mask, answer)
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
