"""Dataset loaders: auto-detection by content, or an explicit `--format`."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.datasets import DatasetError, LoadIssue
from pinbench.tasks.generation.loaders import builtin, gitchameleon1, gitchameleon2, native
from pinbench.tasks.generation.loaders.base import Loader, LoadResult
from pinbench.tasks.generation.problem import Problem

LOADERS: dict[str, Loader] = {
    native.name: native,
    gitchameleon1.name: gitchameleon1,
    gitchameleon2.name: gitchameleon2,
    builtin.name: builtin,
}


def detect_format(path: Path) -> str:
    """The name of the only loader that recognises `path`."""
    if builtin.sniff(path):
        return builtin.name
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    matches = [name for name, loader in LOADERS.items() if loader.sniff(path)]
    if not matches:
        raise DatasetError(
            f"{path}: not a recognised dataset (formats: {', '.join(LOADERS)}); pass --format"
        )
    return matches[0]


def load_dataset(
    path: Path,
    fmt: str | None = None,
    *,
    strict: bool = False,
    allow_direct_references: bool = False,
) -> LoadResult:
    """Load every readable problem; malformed rows become issues, or an error under `strict`.
    A problem whose pins are direct references (`name @ file:…`, a URL, a repository) is one
    too, unless allowed: uv would build it from the dataset's own files."""
    name = fmt or detect_format(path)
    loader = LOADERS.get(name)
    if loader is None:
        raise DatasetError(f"unknown format {name!r} (formats: {', '.join(LOADERS)})")
    if not path.exists() and name != builtin.name:
        raise DatasetError(f"{path}: no such file or directory")
    result = _drop_duplicates(loader.load(path), path)
    if not allow_direct_references:
        result = _refuse_direct_references(result, path)
    result.issues.sort(key=lambda issue: (str(issue.path), issue.line))
    if strict and result.issues:
        raise DatasetError("\n".join(str(issue) for issue in result.issues))
    return result


def _refuse_direct_references(result: LoadResult, path: Path) -> LoadResult:
    kept = LoadResult(issues=list(result.issues))
    for problem in result.problems:
        direct = problem.direct_references
        if not direct:
            kept.problems.append(problem)
            continue
        where, line = _location(problem.origin, path)
        reason = f"{problem.id}: direct references {', '.join(direct)} (--allow-direct-references)"
        kept.issues.append(LoadIssue(where, line, reason))
    return kept


def _drop_duplicates(result: LoadResult, path: Path) -> LoadResult:
    """Keep the first problem of each id; every later one becomes an issue where it was read."""
    first: dict[str, Problem] = {}
    kept: list[Problem] = []
    issues = list(result.issues)
    for problem in result.problems:
        earlier = first.get(problem.id)
        if earlier is None:
            first[problem.id] = problem
            kept.append(problem)
            continue
        where, line = _location(problem.origin, path)
        reason = f"duplicate problem id {problem.id!r} (first at {earlier.origin}); row dropped"
        issues.append(LoadIssue(where, line, reason))
    return LoadResult(problems=kept, issues=issues)


def _location(origin: str, fallback: Path) -> tuple[Path, int]:
    """The (file, line) of a 'file:line' origin; the dataset path, line 0, when it has none."""
    where, _, line = origin.rpartition(":")
    if where and line.isdigit():
        return Path(where), int(line)
    return fallback, 0


__all__ = ["LOADERS", "DatasetError", "LoadIssue", "LoadResult", "detect_format", "load_dataset"]
