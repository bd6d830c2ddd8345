"""The IDE family: cases from a file `pinbench ide collect` wrote, or the builtin repositories'
cases (each repository collected once per version of it, only those in the language asked
for); the split picks one scenario."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pinbench.core import snapshots
from pinbench.core.datasets import DatasetError
from pinbench.core.paths import cache_root
from pinbench.execution.local import ExecutionService
from pinbench.tasks.base import Loaded, Settings
from pinbench.tasks.ide import dataset
from pinbench.tasks.ide.build import languages
from pinbench.tasks.ide.cases import Case, Kind, Language
from pinbench.tasks.ide.collect import builtin_repositories, collect_repositories
from pinbench.tasks.ide.task import IdeTask, item_of

ALL = ("default", "all")  # the splits that keep every scenario


class IdeFamily:
    items = "IDE cases"

    def claims(self, path: Path) -> bool:
        return dataset.looks_like(path)

    def load(self, name: str, settings: Settings) -> Loaded:
        if str(settings.dataset) == "builtin":
            builtin = builtin_cases(settings.jobs, settings.language)
            cases, issues = builtin.cases, [*builtin.issues, *builtin.rejected]
        else:
            read, found = dataset.read(settings.dataset)
            cases, issues = read, [str(i) for i in found]
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
        return Loaded(IdeTask(), [item_of(c) for c in chosen], "ide", issues)


def _speaks(language: Language, wanted: str | None) -> bool:
    """Whether a case is in the language asked for (JavaScript includes TypeScript, as for
    every task)."""
    if wanted is None or language.value == wanted:
        return True
    return wanted == Language.JAVASCRIPT and language is Language.TYPESCRIPT


@dataclass(frozen=True)
class Builtin:
    cases: list[Case]
    paths: list[Path]  # one file of cases per repository collected
    issues: list[str]  # malformed rows of those files
    rejected: list[str]  # "builtin repository NAME: why" (a toolchain missing, ...)


def builtin_cases(jobs: int, language: str | None = None) -> Builtin:
    """The cases of the shipped repositories in `language` (all: None). Each repository is
    collected once per version of it; one that cannot be (its toolchain is missing, say) is
    named with the reason, not kept, and the others go on."""
    wanted: dict[Path, Path] = {}  # repository -> its file of cases
    for source in builtin_repositories():
        snap = snapshots.take(source)
        if any(_speaks(found, language) for found in languages(snap)):
            wanted[source] = cache_root() / "ide" / f"builtin-{snap.digest[:16]}.jsonl"
    missing = [source for source, path in wanted.items() if not path.exists()]
    rejected = []
    if missing:
        with ExecutionService(jobs=jobs) as service:
            for result in collect_repositories(missing, list(Kind), service):
                if result.rejected:
                    rejected.append(f"builtin repository {result.source.name}: {result.rejected}")
                else:
                    dataset.write(result.cases, wanted[result.source])
    found = Builtin([], [], [], rejected)
    for path in wanted.values():
        if path.exists():
            cases, issues = dataset.read(path)
            found.cases.extend(cases)
            found.paths.append(path)
            found.issues.extend(str(i) for i in issues)
    return found


FAMILY = IdeFamily()
