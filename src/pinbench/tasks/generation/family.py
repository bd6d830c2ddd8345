"""The generation family: reads any problem dataset (pinbench's JSONL, GitChameleon 1.0 and 2.0,
`builtin`) into generation items."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.datasets import DatasetError
from pinbench.tasks.base import Loaded, Settings
from pinbench.tasks.generation.loaders import detect_format, load_dataset
from pinbench.tasks.generation.splits import select_split
from pinbench.tasks.generation.task import GenerationTask, item_of
from pinbench.tasks.generation.templates import Style


class GenerationFamily:
    items = "problems"

    def claims(self, dataset: Path) -> bool:
        return False  # a problem dataset's formats are sniffed, not claimed

    def load(self, name: str, settings: Settings) -> Loaded:
        fmt = settings.format or detect_format(settings.dataset)
        loaded = load_dataset(
            settings.dataset, fmt, allow_direct_references=settings.allow_direct_references
        )
        try:
            problems = select_split(loaded.problems, settings.split, settings.language)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
        task = GenerationTask(style=Style(settings.style), docs=settings.docs, cot=settings.cot)
        return Loaded(task, [item_of(p) for p in problems], fmt, [str(i) for i in loaded.issues])


FAMILY = GenerationFamily()
