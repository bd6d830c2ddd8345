"""pinbench's own benchmark, shipped in the package: every *.jsonl under pinbench/data/builtin
(Python) and pinbench/data/builtin-js (JavaScript and TypeScript), addressed as `builtin`
wherever a dataset is accepted (the splits choose the language: `default`, `js`)."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.paths import package_data
from pinbench.tasks.generation.loaders import native
from pinbench.tasks.generation.loaders.base import LoadResult

name = "builtin"
DATA = package_data() / "builtin"
JS_DATA = package_data() / "builtin-js"


def sniff(path: Path) -> bool:
    return str(path) == name and not path.exists()


def load(path: Path) -> LoadResult:
    result = LoadResult()
    for part in [*sorted(DATA.glob("*.jsonl")), *sorted(JS_DATA.glob("*.jsonl"))]:
        loaded = native.load(part)
        result.problems += loaded.problems
        result.issues += loaded.issues
    return result
