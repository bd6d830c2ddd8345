"""Dataset loaders: auto-detection by content, or an explicit `--format`."""

from __future__ import annotations

from pathlib import Path

from pinbench.problems.loaders import gitchameleon1, gitchameleon2, native
from pinbench.problems.loaders.base import DatasetError, Loader, LoadIssue, LoadResult

LOADERS: dict[str, Loader] = {
    native.name: native,
    gitchameleon1.name: gitchameleon1,
    gitchameleon2.name: gitchameleon2,
}


def detect_format(path: Path) -> str:
    """The name of the only loader that recognises `path`."""
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    matches = [name for name, loader in LOADERS.items() if loader.sniff(path)]
    if not matches:
        raise DatasetError(
            f"{path}: not a recognised dataset (formats: {', '.join(LOADERS)}); pass --format"
        )
    return matches[0]


def load_dataset(path: Path, fmt: str | None = None, *, strict: bool = False) -> LoadResult:
    """Load every readable problem; malformed rows become issues, or an error under `strict`."""
    name = fmt or detect_format(path)
    loader = LOADERS.get(name)
    if loader is None:
        raise DatasetError(f"unknown format {name!r} (formats: {', '.join(LOADERS)})")
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    result = loader.load(path)
    if strict and result.issues:
        raise DatasetError("\n".join(str(issue) for issue in result.issues))
    seen: set[str] = set()
    for problem in result.problems:
        if problem.id in seen:
            raise DatasetError(f"{problem.origin}: duplicate problem id {problem.id!r}")
        seen.add(problem.id)
    return result


__all__ = ["LOADERS", "DatasetError", "LoadIssue", "LoadResult", "detect_format", "load_dataset"]
