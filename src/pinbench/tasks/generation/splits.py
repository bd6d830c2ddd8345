"""Named subsets of a dataset, chosen by tags and language: `heavy` problems (torch,
tensorflow: gigabytes to install) stay out of `default`; `quick` problems make a smoke-test
split for CI. `default` and `quick` are Python's; JavaScript and TypeScript problems are in
`js` and `js-quick`; `full` is everything.

A language, when given, chooses first and the split then applies within it (`--language
javascript --split quick` is the JavaScript smoke test): `javascript` is the Node toolchain's
problems, TypeScript ones included (TypeScript is JavaScript with types, run by the same
Node); `typescript` is TypeScript only; `python` is Python."""

from __future__ import annotations

from pinbench.tasks.generation.problem import Language, Problem

SPLITS = ("default", "full", "quick", "js", "js-quick")
LANGUAGES = ("python", "javascript", "typescript")


def _in_language(problem: Problem, language: str) -> bool:
    if language == "javascript":
        return problem.language is not Language.PYTHON
    return problem.language.value == language


_LANGUAGE_OF_SPLIT = {
    "default": "python",
    "quick": "python",
    "js": "javascript",
    "js-quick": "javascript",
}


def select_split(problems: list[Problem], split: str, language: str | None = None) -> list[Problem]:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (splits: {', '.join(SPLITS)})")
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r} (languages: {', '.join(LANGUAGES)})")
    language = language or _LANGUAGE_OF_SPLIT.get(split)  # `full` alone: every language
    chosen = [p for p in problems if language is None or _in_language(p, language)]
    if split in ("quick", "js-quick"):
        chosen = [p for p in chosen if "quick" in p.tags]
    return chosen if split == "full" else [p for p in chosen if "heavy" not in p.tags]
