"""The task registry: `pinbench run --task NAME` -> the family that reads its datasets. Adding a
task family is one folder under `tasks/` and one line here (docs/architecture.md)."""

from __future__ import annotations

from pinbench.core.datasets import DatasetError
from pinbench.tasks.base import Family, Loaded, Settings
from pinbench.tasks.generation.family import FAMILY as GENERATION
from pinbench.tasks.ide.family import FAMILY as IDE
from pinbench.tasks.versicode.family import FAMILY as VERSICODE

TASKS: dict[str, Family] = {
    "generation": GENERATION,  # GitChameleon: complete the starter code for the pinned version
    "completion": VERSICODE,  # VersiCode: fill a masked token, line or block
    "editing": VERSICODE,  # VersiCode: rewrite code of one version for another
    "ide": IDE,  # doc, fix, generate, test, workspace on repositories
}


def load(task: str, settings: Settings) -> Loaded:
    """The task's items from the dataset; DatasetError (one line) when it cannot be read."""
    family = TASKS.get(task)
    if family is None:
        raise DatasetError(f"unknown task {task!r} ({', '.join(TASKS)})")
    for name, other in TASKS.items():
        if other is not family and other.claims(settings.dataset):
            raise DatasetError(f"{settings.dataset} holds {other.items}: run it with --task {name}")
    return family.load(task, settings)
