"""What every loader returns: the problems it could read and one issue per row it could not."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from pinbench.problems.model import Problem


@dataclass(frozen=True)
class LoadIssue:
    """A malformed row, located precisely enough to fix by hand."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class LoadResult:
    problems: list[Problem] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)


class DatasetError(Exception):
    """The dataset cannot be read at all (missing, unknown format, or malformed under --strict)."""


class Loader(Protocol):
    """One dataset format: `sniff` says whether a path looks like it, `load` reads it."""

    name: str

    def sniff(self, path: Path) -> bool: ...

    def load(self, path: Path) -> LoadResult: ...


def describe_validation_error(exc: ValidationError) -> str:
    """One line per pydantic error: 'field: message'."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "row"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)
