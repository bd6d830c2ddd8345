"""Knowledge cutoffs: a model's cutoff month (given, or from a table of known models that a user
can extend), and a run's pass@1 split into library releases before and after it — overall and
in every breakdown — with 95 % bootstrap intervals over problems."""

from __future__ import annotations

import fnmatch
import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from pinbench.core.paths import cache_root, package_data
from pinbench.core.records import ItemMeta
from pinbench.metrics.intervals import Interval, difference_interval, mean_interval

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
BEFORE, AFTER, UNDATED = "before", "after", "undated"


class CutoffError(ValueError):
    """A cutoff or a cutoff table that cannot be used; the message names the file."""


class KnownCutoff(BaseModel):
    pattern: str = Field(description="shell-style pattern of model names")
    cutoff: str = Field(description="YYYY-MM")
    source: str = ""


class _Table(BaseModel):
    about: str = ""
    models: list[KnownCutoff]


class Cutoff(BaseModel):
    month: str
    source: str = Field(description="where it came from: --cutoff, or a table entry")


class CutoffRow(BaseModel):
    """One group of a breakdown: pass@1 on releases before and after the cutoff."""

    name: str
    before: Interval | None
    after: Interval | None


class CutoffSplit(BaseModel):
    """pass@1 (round 0, mean over problems) on libraries released up to the cutoff month and
    after it; `gap` is after − before."""

    cutoff: Cutoff
    before: Interval | None
    after: Interval | None
    gap: Interval | None
    undated: int = Field(description="problems whose release date is unknown (in neither)")
    breakdowns: dict[str, list[CutoffRow]] = Field(
        description="library, change and the task's own breakdowns, each split"
    )


def month(text: str, where: str = "--cutoff") -> str:
    if not _MONTH.match(text):
        raise CutoffError(f"{where}: {text!r} is not a month like 2023-10")
    return text


def load_table(extra: Path | None = None) -> list[KnownCutoff]:
    """The user's entries first (`extra`, then $PINBENCH_HOME/cutoffs.json), then pinbench's."""
    paths = [p for p in (extra, cache_root() / "cutoffs.json") if p is not None and p.exists()]
    if extra is not None and not extra.exists():
        raise CutoffError(f"{extra}: no such cutoff table")
    entries: list[KnownCutoff] = []
    for path in [*paths, package_data() / "cutoffs" / "models.json"]:
        try:
            table = _Table.model_validate_json(path.read_text())
        except (OSError, ValidationError, json.JSONDecodeError) as exc:
            raise CutoffError(f"{path}: not a cutoff table ({_first_line(exc)})") from None
        for entry in table.models:
            month(entry.cutoff, f"{path}: {entry.pattern}")
        entries.extend(table.models)
    return entries


def cutoff_for(model_name: str, table: list[KnownCutoff]) -> Cutoff | None:
    """The first entry whose pattern matches the model's name (with or without its backend
    prefix, as in `openai:gpt-4o`), case-insensitively."""
    names = {model_name.lower(), model_name.split(":", 1)[-1].lower()}
    for entry in table:
        if any(fnmatch.fnmatchcase(name, entry.pattern.lower()) for name in names):
            source = f"table: {entry.pattern}" + (f" ({entry.source})" if entry.source else "")
            return Cutoff(month=entry.cutoff, source=source)
    return None


def side(meta: ItemMeta, cutoff: str) -> str:
    """Whether the item's library release came out up to the cutoff month or after it."""
    released = (meta.release_date or "")[:7]
    if not _MONTH.match(released):
        return UNDATED
    return BEFORE if released <= cutoff else AFTER


def split(
    cutoff: Cutoff,
    rates: dict[str, float],
    metas: dict[str, ItemMeta],
    breakdowns: dict[str, Callable[[ItemMeta], str]],
) -> CutoffSplit:
    """`rates`: each problem's round-0 pass rate; `breakdowns`: name -> the group of an item."""
    sides = {pid: side(metas[pid], cutoff.month) for pid in rates if pid in metas}
    values: dict[str, list[float]] = defaultdict(list)
    for pid, where in sides.items():
        values[where].append(rates[pid])
    before, after = values[BEFORE], values[AFTER]
    rows: dict[str, list[CutoffRow]] = {}
    for name, group_of in breakdowns.items():
        grouped: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for pid, where in sides.items():
            if where != UNDATED:
                grouped[group_of(metas[pid])][where].append(rates[pid])
        rows[name] = [
            CutoffRow(
                name=group,
                before=mean_interval(found[BEFORE]),
                after=mean_interval(found[AFTER]),
            )
            for group, found in sorted(grouped.items())
        ]
    return CutoffSplit(
        cutoff=cutoff,
        before=mean_interval(before),
        after=mean_interval(after),
        gap=difference_interval(after, before),
        undated=len(values[UNDATED]),
        breakdowns=rows,
    )


def _first_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines()]
    return " ".join(lines[:3])[:300] or type(exc).__name__
