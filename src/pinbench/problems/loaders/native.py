"""pinbench's own JSONL format: one Problem per line (schema in docs/dataset-format.md)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from pinbench.problems.loaders.base import LoadIssue, LoadResult, describe_validation_error
from pinbench.problems.model import Problem
from pinbench.problems.normalize import normalize_change, normalize_release_date

name = "pinbench"


def sniff(path: Path) -> bool:
    """A .jsonl file whose first non-blank row has pinbench's required keys."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    return False
                return isinstance(row, dict) and {"id", "hidden_test", "solution"} <= row.keys()
    return False


def load(path: Path) -> LoadResult:
    result = LoadResult()
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("row is not a JSON object")
                result.problems.append(_problem(row, f"{path}:{lineno}"))
            except json.JSONDecodeError as exc:
                result.issues.append(LoadIssue(path, lineno, f"invalid JSON: {exc.msg}"))
            except ValidationError as exc:
                result.issues.append(LoadIssue(path, lineno, describe_validation_error(exc)))
            except ValueError as exc:
                result.issues.append(LoadIssue(path, lineno, str(exc)))
    return result


def _problem(row: dict[str, object], origin: str) -> Problem:
    """Accept the change type and release date as free text too, normalised like other formats."""
    row = dict(row)
    change = row.get("change")
    if isinstance(change, str) or change is None:
        row["change"] = normalize_change(change if isinstance(change, str) else None)
    date = row.get("release_date")
    if isinstance(date, str):
        normal = normalize_release_date(date)
        if normal is None:
            raise ValueError(f"release_date {date!r} is not a recognisable date")
        row["release_date"] = normal
    row["origin"] = origin
    return Problem.model_validate(row)
