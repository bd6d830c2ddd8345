"""pinbench: evaluate code models on pinned library versions by executing their code.

From Python, the same entry points the command line calls:

    import pinbench
    summary = pinbench.run(model="reference", split="quick")      # pinbench run
    checked = pinbench.validate("builtin", split="quick")          # pinbench validate

(`pinbench.evaluation.api` and `pinbench.validation` hold the finer-grained steps.)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pinbench.core.version import VERSION

__version__ = VERSION

if TYPE_CHECKING:
    from pinbench.evaluation.config import RunSummary
    from pinbench.validation import ValidationRun


def run(
    *,
    results: str | Path | None = None,
    jobs: int | None = None,
    **plan: Any,
) -> RunSummary:
    """Plan and run an evaluation (`evaluation.api.plan`'s arguments: model, dataset, task,
    split, only, preset and any RunConfig field) into the store under `results`; returns the
    summary. Raises `evaluation.api.RunError` with one line when it cannot start."""
    from pinbench.evaluation import api

    where = Path(results) if results is not None else None
    return api.run(api.plan(jobs=jobs, **plan), results=where, jobs=jobs)


def validate(
    dataset: str | Path,
    *,
    fmt: str | None = None,
    split: str = "default",
    language: str | None = None,
    only: tuple[str, ...] = (),
    allow_direct_references: bool = False,
    **options: Any,
) -> ValidationRun:
    """Validate a dataset's problems (`validation.validate_dataset`'s options: jobs, timeout,
    warm, cache, discriminative); raises `core.datasets.DatasetError` when it cannot be read."""
    from pinbench.tasks.generation.loaders import detect_format, load_dataset
    from pinbench.tasks.generation.splits import select_split
    from pinbench.validation import validate_dataset

    path = Path(dataset)
    fmt = fmt or detect_format(path)
    loaded = load_dataset(path, fmt, allow_direct_references=allow_direct_references)
    problems = [
        p for p in select_split(loaded.problems, split, language) if not only or p.id in only
    ]
    issues = [str(issue) for issue in loaded.issues]
    return validate_dataset(problems, dataset=str(path), fmt=fmt, load_issues=issues, **options)
