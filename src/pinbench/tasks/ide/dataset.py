"""IDE cases on disk, in pinbench's format: `cases.jsonl` (one case per line, `scenario` says
which) with the repository snapshots they name beside it in `cases.repos/DIGEST.tar.gz`, so
the file can be moved to another machine and run there."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from pinbench.core import snapshots
from pinbench.core.datasets import DatasetError, LoadIssue, first_row, json_row
from pinbench.tasks.ide.cases import CASE, Case


def repos_dir(path: Path) -> Path:
    return path.with_name(path.stem + ".repos")


def write(cases: list[Case], path: Path) -> None:
    """Write the cases and export every snapshot they name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for case in cases:
            fh.write(CASE.dump_json(case).decode() + "\n")
    archives = repos_dir(path)
    archives.mkdir(exist_ok=True)
    for digest in sorted({case.snapshot for case in cases}):
        target = archives / f"{digest}.tar.gz"
        if not target.exists():
            snapshots.export(digest, target)


def looks_like(path: Path) -> bool:
    """A JSONL file whose first row is an IDE case."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    row = first_row(path)
    return row is not None and "scenario" in row and "snapshot" in row


def read(path: Path) -> tuple[list[Case], list[LoadIssue]]:
    """The cases of a file (a malformed row is an issue naming its line), their snapshots
    restored from the archives beside it when this machine does not have them yet."""
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    cases: list[Case] = []
    issues: list[LoadIssue] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                cases.append(CASE.validate_python(json_row(line)))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "row"
                issues.append(LoadIssue(path, lineno, f"{where}: {first['msg']}"))
            except ValueError as exc:
                issues.append(LoadIssue(path, lineno, str(exc)))
    for digest in sorted({case.snapshot for case in cases}):
        archive = repos_dir(path) / f"{digest}.tar.gz"
        try:
            if archive.exists():
                snapshots.import_archive(archive, digest)
            else:
                snapshots.load(digest)
        except snapshots.SnapshotError as exc:
            raise DatasetError(f"{path}: repository snapshot {digest} unavailable: {exc}") from exc
    return cases, issues
