"""What every command shares: the consoles, dataset options, and loading that exits with one
clear message instead of a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pinbench.paths import cache_root
from pinbench.problems.loaders import LOADERS, DatasetError, LoadResult, detect_format, load_dataset
from pinbench.problems.model import Problem
from pinbench.problems.splits import SPLITS, select_split
from pinbench.store.runs import RunRow, RunStore

console = Console()
err = Console(stderr=True)

FormatOpt = Annotated[
    str | None,
    typer.Option("--format", help=f"Dataset format ({', '.join(LOADERS)}); default: detect."),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Any malformed row is fatal (exit 2).")]
SplitOpt = Annotated[
    str, typer.Option("--split", help=f"Subset by tags: {', '.join(SPLITS)} (no heavy problems).")
]


def detect_or_exit(dataset: Path) -> str:
    try:
        return detect_format(dataset)
    except DatasetError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc


def split_or_exit(problems: list[Problem], split: str) -> list[Problem]:
    try:
        return select_split(problems, split)
    except ValueError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc


def load_or_exit(dataset: Path, fmt: str | None, strict: bool) -> LoadResult:
    try:
        result = load_dataset(dataset, fmt, strict=strict)
    except DatasetError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    for issue in result.issues:
        err.print(f"[yellow]skipped[/] {issue}")
    return result


def progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description:>12}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )


ResultsOpt = Annotated[
    Path | None,
    typer.Option("--results", help="Results directory (default: $PINBENCH_HOME/results)."),
]


def open_store(results: Path | None) -> RunStore:
    return RunStore((results or cache_root() / "results") / "pinbench.sqlite")


def find_run_or_exit(store: RunStore, run: str) -> RunRow:
    """A run by id, unique prefix or `latest`, or one clear error (exit 2)."""
    row = store.run(run)
    if row is None:
        err.print(f"[red]error:[/] no run {run!r} (see `pinbench runs list`)")
        raise typer.Exit(2)
    return row
