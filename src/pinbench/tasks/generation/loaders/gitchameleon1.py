"""GitChameleon 1.0: one CSV, a row per problem, code with escaped newlines.

The mapping onto Problem, and the id scheme, are documented in docs/dataset-format.md. Rows are
located by the physical line their CSV record starts on, because records span many lines.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from pinbench.core.datasets import DatasetError, LoadIssue, describe_validation_error
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.generation.loaders.base import LoadResult
from pinbench.tasks.generation.normalize import (
    is_blank,
    join_program,
    normalize_change,
    normalize_release_date,
    split_pins,
    unescape_literal_newlines,
)
from pinbench.tasks.generation.problem import Problem

if TYPE_CHECKING:
    from _csv import Reader

name = "gitchameleon1"

REQUIRED_COLUMNS = ("library", "version", "problem", "starting_code", "solution", "test")
"""Without these a row cannot become a problem; the other known columns may be absent."""

OPTIONAL_COLUMNS = (
    "name_of_class_or_func",
    "type_of_change",
    "additional_dependencies",
    "release_date",
    "python_version",  # absent from the published file; present (and empty) in later copies
)

_SIGNATURE = frozenset({"starting_code", "solution", "test"})


def sniff(path: Path) -> bool:
    """A .csv file whose header names GitChameleon's code columns."""
    if not path.is_file() or path.suffix.lower() != ".csv":
        return False
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            header = next(csv.reader(fh), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return header is not None and {column.strip() for column in header} >= _SIGNATURE


def load(path: Path) -> LoadResult:
    """Every readable row; malformed records become issues at the line the record starts on."""
    result = LoadResult()
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, strict=True)
            columns = _header(path, reader)
            for index, start, fields in _records(path, reader, result.issues):
                _add_row(result, path, columns, index, start, fields)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    return result


def _add_row(
    result: LoadResult, path: Path, columns: list[str], index: int, start: int, fields: list[str]
) -> None:
    if len(fields) != len(columns):
        reason = f"expected {len(columns)} fields, found {len(fields)}"
        result.issues.append(LoadIssue(path, start, reason))
        return
    row = dict(zip(columns, fields, strict=True))
    try:
        result.problems.append(_problem(row, index, f"{path}:{start}"))
    except ValidationError as exc:
        result.issues.append(LoadIssue(path, start, describe_validation_error(exc)))
    except ValueError as exc:
        result.issues.append(LoadIssue(path, start, str(exc)))


def _header(path: Path, reader: Reader) -> list[str]:
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise DatasetError(f"{path}:1: unreadable CSV header: {exc}") from exc
    if header is None:
        raise DatasetError(f"{path}: empty file, no CSV header")
    columns = [column.strip() for column in header]
    missing = [column for column in REQUIRED_COLUMNS if column not in columns]
    if missing:
        raise DatasetError(f"{path}: missing required column(s): {', '.join(missing)}")
    return columns


def _records(
    path: Path, reader: Reader, issues: list[LoadIssue]
) -> Iterator[tuple[int, int, list[str]]]:
    """(row index, start line, fields) per data record.

    The index counts records the way pandas numbers rows (blank lines skipped, all-empty rows
    counted), so `gc1-<index>` names the row GitChameleon's own pandas-based tools give that
    number. A record the CSV parser rejects still takes its number, keeping later ids stable.
    """
    index = 0
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            issues.append(LoadIssue(path, start, f"malformed CSV record: {exc}"))
            index += 1
            continue
        if not fields:
            continue
        # Spreadsheet exports leave all-empty rows behind: nothing to load, but numbered.
        if all(not field.strip() for field in fields):
            index += 1
            continue
        yield index, start, fields
        index += 1


def _problem(row: dict[str, str], index: int, origin: str) -> Problem:
    def cell(column: str) -> str:
        return row.get(column) or ""

    empty = [
        column
        for column in REQUIRED_COLUMNS
        if column != "starting_code" and is_blank(cell(column))
    ]
    if empty:
        raise ValueError(f"empty required field(s): {', '.join(empty)}")
    raw_date = cell("release_date")
    release_date = normalize_release_date(raw_date)
    if release_date is None and not is_blank(raw_date):
        raise ValueError(f"release_date {raw_date.strip()!r} is not a recognisable date")
    starter = unescape_literal_newlines(cell("starting_code"))
    solution = unescape_literal_newlines(cell("solution"))
    target = cell("name_of_class_or_func").strip()
    return Problem(
        id=f"gc1-{index}",
        library=cell("library").strip(),
        version=cell("version").strip(),
        python_version=None if is_blank(cell("python_version")) else cell("python_version").strip(),
        extra_pins=split_pins(cell("additional_dependencies")),
        problem=cell("problem").strip(),
        starter_code=starter,
        solution=join_program(starter, solution),
        visible_test=None,
        hidden_test=TestSpec(kind=TestKind.SCRIPT, code=unescape_literal_newlines(cell("test"))),
        change=normalize_change(cell("type_of_change")),
        release_date=release_date,
        tags=() if is_blank(target) else (f"target:{target}",),
        origin=origin,
    )
