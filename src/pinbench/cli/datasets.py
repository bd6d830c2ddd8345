"""`pinbench datasets list|show|stats`: the datasets, the builtin one included."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pinbench.cli.common import (
    FormatOpt,
    SplitOpt,
    console,
    fail,
    load_or_exit,
    split_or_exit,
)
from pinbench.tasks.generation.loaders import LOADERS
from pinbench.tasks.generation.splits import SPLITS, select_split
from pinbench.tasks.generation.stats import dataset_stats
from pinbench.validation import write_json

datasets_app = typer.Typer(help="List, show and count datasets (the builtin one included).")


@datasets_app.command("list")
def datasets_list() -> None:
    """The datasets pinbench ships, with their splits; any other is given by path."""
    problems = load_or_exit(Path("builtin"), None, False).problems
    table = Table()
    for column in ("dataset", "split", "problems", "pins", "libraries"):
        table.add_column(column)
    for split in SPLITS:
        chosen = select_split(problems, split)
        table.add_row(
            "builtin",
            split,
            str(len(chosen)),
            str(len({(p.library, p.version) for p in chosen})),
            str(len({p.library for p in chosen})),
        )
    console.print(table)
    console.print("Other formats, by path: " + ", ".join(n for n in LOADERS if n != "builtin"))


@datasets_app.command("show")
def datasets_show(
    dataset: Annotated[Path, typer.Argument(help="Dataset file or directory, or `builtin`.")],
    problem_id: Annotated[str | None, typer.Argument(help="Show this problem whole.")] = None,
    fmt: FormatOpt = None,
    split: SplitOpt = "full",
) -> None:
    """A table of a dataset's problems, or one problem whole.

    Examples:

        pinbench datasets show builtin --split quick

        pinbench datasets show builtin numpy-1.25-01
    """
    problems = split_or_exit(load_or_exit(dataset, fmt, False).problems, split)
    if problem_id is not None:
        found = [p for p in problems if p.id == problem_id]
        if not found:
            fail(f"no problem {problem_id!r} in {dataset}", code=1)
        console.print_json(found[0].model_dump_json())
        return
    table = Table()
    for column in ("problem", "pin", "python", "change", "released", "contrast"):
        table.add_column(column, overflow="fold")
    for p in problems:
        table.add_row(
            p.id,
            f"{p.library}=={p.version}",
            p.python_version or "-",
            p.change.category.value,
            p.release_date or "-",
            p.contrast.version if p.contrast else "-",
        )
    console.print(table)


@datasets_app.command("stats")
def datasets_stats(
    dataset: Annotated[Path, typer.Argument(help="Dataset file or directory, or `builtin`.")],
    fmt: FormatOpt = None,
    split: SplitOpt = "full",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the counts.")] = None,
) -> None:
    """Counts by library, pin, interpreter, release year and type of change.

    Examples:

        pinbench datasets stats builtin

        pinbench datasets stats GitChameleon/dataset --json stats.json
    """
    problems = split_or_exit(load_or_exit(dataset, fmt, False).problems, split)
    stats = dataset_stats(str(dataset), split, problems)
    console.print(
        f"{stats.problems} problems, {stats.libraries} libraries, {stats.pins} pins, "
        f"{stats.interpreters} interpreters, {stats.with_contrast} with a contrasting version"
    )
    for title, counts in (
        ("library", stats.by_library),
        ("language", stats.by_language),
        ("python", stats.by_python),
        ("node", stats.by_node),
        ("year", stats.by_year),
        ("type of change", stats.by_change),
    ):
        if not counts:
            continue
        table = Table(title=f"by {title}")
        table.add_column(title)
        table.add_column("problems", justify="right")
        for key, count in counts.items():
            table.add_row(key, str(count))
        console.print(table)
    if json_out:
        write_json(json_out, stats)
