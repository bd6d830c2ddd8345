"""pinbench's own benchmark, shipped in the package: every *.jsonl under pinbench/data/builtin,
addressed as `builtin` wherever a dataset is accepted."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.paths import package_data
from pinbench.tasks.generation.loaders import native
from pinbench.tasks.generation.loaders.base import LoadResult

name = "builtin"
DATA = package_data() / "builtin"


def sniff(path: Path) -> bool:
    return str(path) == name and not path.exists()


def load(path: Path) -> LoadResult:
    result = LoadResult()
    for part in sorted(DATA.glob("*.jsonl")):
        loaded = native.load(part)
        result.problems += loaded.problems
        result.issues += loaded.issues
    return result
