"""Named subsets of a dataset, chosen by tags: `heavy` problems (torch, tensorflow: gigabytes
to install) stay out of `default`; `quick` problems make a smoke-test split for CI."""

from __future__ import annotations

from pinbench.tasks.generation.problem import Problem

SPLITS = ("default", "full", "quick")


def select_split(problems: list[Problem], split: str) -> list[Problem]:
    if split == "full":
        return list(problems)
    if split == "default":
        return [p for p in problems if "heavy" not in p.tags]
    if split == "quick":
        return [p for p in problems if "quick" in p.tags and "heavy" not in p.tags]
    raise ValueError(f"unknown split {split!r} (splits: {', '.join(SPLITS)})")
