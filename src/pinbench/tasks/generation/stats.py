"""Counts of a dataset by library, pin, language, interpreter or Node release, release year
and type of change
(`pinbench datasets stats`; the JSON schema is documented in docs/datasets-stats.md)."""

from __future__ import annotations

import re
from collections import Counter

from pydantic import BaseModel

from pinbench.tasks.generation.problem import Language, Problem


class DatasetStats(BaseModel):
    schema_version: int = 1
    dataset: str
    split: str
    problems: int
    libraries: int
    pins: int
    interpreters: int
    with_contrast: int
    by_library: dict[str, int]
    by_pin: dict[str, int]
    by_python: dict[str, int]
    by_node: dict[str, int] = {}
    by_language: dict[str, int] = {}
    by_year: dict[str, int]
    by_change: dict[str, int]
    by_tag: dict[str, int]


def _sorted(counter: Counter[str]) -> dict[str, int]:
    """Keys in natural order: 3.6 before 3.10, numpy==1.9 before numpy==1.10."""

    def natural(key: str) -> list[tuple[int, int | str]]:
        return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", key)]

    return dict(sorted(counter.items(), key=lambda item: natural(item[0])))


def dataset_stats(dataset: str, split: str, problems: list[Problem]) -> DatasetStats:
    python = [p for p in problems if p.language is Language.PYTHON]
    node = [p for p in problems if p.language is not Language.PYTHON]
    pins = Counter(
        f"{p.library}=={p.version}" if p.language is Language.PYTHON else f"{p.library}@{p.version}"
        for p in problems
    )
    pythons = Counter(p.python_version or "any" for p in python)
    nodes = Counter(p.node_version or "machine" for p in node)
    return DatasetStats(
        dataset=dataset,
        split=split,
        problems=len(problems),
        libraries=len({p.library for p in problems}),
        pins=len(pins),
        interpreters=len(pythons) + len(nodes),
        with_contrast=sum(p.contrast is not None for p in problems),
        by_library=_sorted(Counter(p.library for p in problems)),
        by_pin=_sorted(pins),
        by_python=_sorted(pythons),
        by_node=_sorted(nodes),
        by_language=_sorted(Counter(p.language.value for p in problems)),
        by_year=_sorted(Counter((p.release_date or "unknown")[:4] for p in problems)),
        by_change=_sorted(Counter(p.change.category.value for p in problems)),
        by_tag=_sorted(Counter(t for p in problems for t in p.tags if ":" not in t)),
    )
