"""The VersiCode family: completion and editing items from VersiCode's own JSON files as
published, or derived from any problem dataset (its reference and contrasting-version
solutions are exactly such pairs)."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.datasets import DatasetError
from pinbench.tasks.base import Loaded, Settings
from pinbench.tasks.generation.loaders import detect_format, load_dataset
from pinbench.tasks.generation.splits import select_split
from pinbench.tasks.versicode.builtin import derive
from pinbench.tasks.versicode.loaders import load
from pinbench.tasks.versicode.metrics import Variant
from pinbench.tasks.versicode.model import CompletionTask, EditTask, Granularity
from pinbench.tasks.versicode.task import VersiCodeTask, items_of


class VersiCodeFamily:
    items = "VersiCode tasks"

    def claims(self, dataset: Path) -> bool:
        return False  # its JSON files are read by --task completion and editing alike

    @staticmethod
    def published(dataset: Path) -> bool:
        """Whether the path looks like VersiCode's own files (else: a problem dataset)."""
        if dataset.is_dir():
            return any(dataset.rglob("*.json")) and not (dataset / "dataset.jsonl").exists()
        return dataset.suffix == ".json"

    def load(self, name: str, settings: Settings) -> Loaded:
        """`completion` (the granularities asked for, all by default) or `editing` items."""
        try:
            variant = Variant(settings.metric_variant)
            levels = {Granularity(g) for g in settings.granularity} or set(Granularity)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
        skipped: list[str] = []
        if settings.format == "versicode" or (
            settings.format is None and self.published(settings.dataset)
        ):
            loaded = load(settings.dataset)
            skipped = [str(issue) for issue in loaded.issues]
            completion, editing, fmt = loaded.completion, loaded.editing, "versicode"
        else:
            fmt = settings.format or detect_format(settings.dataset)
            dataset = load_dataset(
                settings.dataset, fmt, allow_direct_references=settings.allow_direct_references
            )
            skipped = [str(issue) for issue in dataset.issues]
            try:
                problems = select_split(dataset.problems, settings.split, settings.language)
            except ValueError as exc:
                raise DatasetError(str(exc)) from None
            derived = derive(problems)
            completion, editing = derived.completion, derived.editing
        tasks: list[CompletionTask | EditTask] = (
            [t for t in completion if t.granularity in levels]
            if name == "completion"
            else [*editing]
        )
        return Loaded(VersiCodeTask(variant=variant), items_of(tasks), fmt, skipped)


FAMILY = VersiCodeFamily()
