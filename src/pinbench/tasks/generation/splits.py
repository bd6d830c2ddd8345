"""Named subsets of a dataset, chosen by tags and language: `heavy` problems (torch,
tensorflow: gigabytes to install) stay out of `default`; `quick` problems make a smoke-test
split for CI. `default` and `quick` are Python's; JavaScript and TypeScript problems are in
`js` and `js-quick`; `full` is everything."""

from __future__ import annotations

from pinbench.tasks.generation.problem import Language, Problem

SPLITS = ("default", "full", "quick", "js", "js-quick")


def select_split(problems: list[Problem], split: str) -> list[Problem]:
    if split == "full":
        return list(problems)
    python = [p for p in problems if p.language is Language.PYTHON]
    node = [p for p in problems if p.language is not Language.PYTHON]
    if split == "default":
        return [p for p in python if "heavy" not in p.tags]
    if split == "quick":
        return [p for p in python if "quick" in p.tags and "heavy" not in p.tags]
    if split == "js":
        return [p for p in node if "heavy" not in p.tags]
    if split == "js-quick":
        return [p for p in node if "quick" in p.tags and "heavy" not in p.tags]
    raise ValueError(f"unknown split {split!r} (splits: {', '.join(SPLITS)})")
