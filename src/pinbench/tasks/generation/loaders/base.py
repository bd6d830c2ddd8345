"""What every loader returns: the problems it could read and one issue per row it could not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from pinbench.core.datasets import DatasetError, LoadIssue, describe_validation_error, json_row
from pinbench.tasks.generation.problem import Problem


@dataclass
class LoadResult:
    problems: list[Problem] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)


class Loader(Protocol):
    """One dataset format: `sniff` says whether a path looks like it, `load` reads it."""

    name: str

    def sniff(self, path: Path) -> bool: ...

    def load(self, path: Path) -> LoadResult: ...


def load_jsonl(
    path: Path,
    build: Callable[[dict[str, Any], str], Problem],
    result: LoadResult | None = None,
    *,
    parse_float: Callable[[str], Any] | None = None,
) -> LoadResult:
    """One problem per JSON object line, via `build(row, origin)`; a bad row becomes an issue."""
    result = result if result is not None else LoadResult()
    try:
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    row = json_row(line, parse_float)
                    if not isinstance(row, dict):
                        raise ValueError("row is not a JSON object")
                    result.problems.append(build(row, f"{path}:{lineno}"))
                except ValidationError as exc:
                    result.issues.append(LoadIssue(path, lineno, describe_validation_error(exc)))
                except ValueError as exc:
                    result.issues.append(LoadIssue(path, lineno, str(exc)))
                except Exception as exc:  # whatever a row makes go wrong is that row's error
                    result.issues.append(LoadIssue(path, lineno, f"{type(exc).__name__}: {exc}"))
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    return result
