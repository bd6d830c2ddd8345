"""pinbench's own JSONL format: one Problem per line (schema in docs/dataset-format.md)."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.datasets import first_row
from pinbench.tasks.generation.loaders.base import LoadResult, load_jsonl
from pinbench.tasks.generation.normalize import normalize_change, normalize_release_date
from pinbench.tasks.generation.problem import Problem

name = "pinbench"


def sniff(path: Path) -> bool:
    """A .jsonl file whose first non-blank row has pinbench's required keys."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    row = first_row(path)
    return row is not None and {"id", "hidden_test", "solution"} <= row.keys()


def load(path: Path) -> LoadResult:
    return load_jsonl(path, _problem)


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
