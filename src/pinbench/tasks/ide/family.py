"""The IDE family: cases from a file `pinbench ide collect` wrote, or the builtin repositories'
cases (collected once per version of them); the split picks one scenario."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.datasets import DatasetError
from pinbench.core.paths import cache_root
from pinbench.execution.local import ExecutionService
from pinbench.tasks.base import Loaded, Settings
from pinbench.tasks.ide import dataset
from pinbench.tasks.ide.cases import Case, Kind, Language
from pinbench.tasks.ide.collect import builtin_repositories, collect_repositories
from pinbench.tasks.ide.task import IdeTask, item_of

ALL = ("default", "all")  # the splits that keep every scenario


class IdeFamily:
    items = "IDE cases"

    def claims(self, path: Path) -> bool:
        return dataset.looks_like(path)

    def load(self, name: str, settings: Settings) -> Loaded:
        path = settings.dataset
        if str(path) == "builtin":
            path = builtin_cases(settings.jobs)
        cases, issues = dataset.read(path)
        kinds = {k.value for k in Kind}
        if settings.split not in ALL and settings.split not in kinds:
            raise DatasetError(f"--split for IDE cases: all or one of {', '.join(sorted(kinds))}")
        languages = {k.value for k in Language}
        if settings.language is not None and settings.language not in languages:
            raise DatasetError(f"--language for IDE cases: one of {', '.join(sorted(languages))}")
        chosen = [
            c
            for c in cases
            if (settings.split in ALL or c.scenario.value == settings.split)
            and _speaks(c.language, settings.language)
        ]
        return Loaded(IdeTask(), [item_of(c) for c in chosen], "ide", [str(i) for i in issues])


def _speaks(language: Language, wanted: str | None) -> bool:
    """Whether a case is in the language asked for (JavaScript includes TypeScript, as for
    every task)."""
    if wanted is None or language.value == wanted:
        return True
    return wanted == Language.JAVASCRIPT and language is Language.TYPESCRIPT


def builtin_cases(jobs: int) -> Path:
    """The cases of the shipped repositories, collected once per version of them."""
    sources = builtin_repositories()
    digest = hashlib.sha256("".join(snapshots.take(p).digest for p in sources).encode())
    path = cache_root() / "ide" / f"builtin-{digest.hexdigest()[:12]}.jsonl"
    if path.exists():
        return path
    with ExecutionService(jobs=jobs) as service:
        results = collect_repositories(sources, list(Kind), service)
    for result in results:
        if result.rejected:
            raise DatasetError(f"builtin repository {result.source.name}: {result.rejected}")
    cases: list[Case] = [c for r in results for c in r.cases]
    dataset.write(cases, path)
    return path


FAMILY = IdeFamily()
