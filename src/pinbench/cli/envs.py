"""`pinbench envs build|list|path|gc`: the pinned environments."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pinbench.cli.common import (
    DirectOpt,
    FormatOpt,
    SplitOpt,
    console,
    error,
    fail,
    load_or_exit,
    split_or_exit,
)
from pinbench.core.env import EnvError, EnvSpec
from pinbench.envs.python import builder
from pinbench.validation import specs_for

envs_app = typer.Typer(help="Build, list, locate and garbage-collect pinned environments.")


@envs_app.command("build")
def envs_build(
    dataset: Annotated[
        Path | None, typer.Argument(help="Build every environment of a dataset.")
    ] = None,
    pin: Annotated[
        list[str] | None, typer.Option("--pin", help="A pin, e.g. numpy==1.21.6.")
    ] = None,
    python: Annotated[str | None, typer.Option(help="Interpreter version, e.g. 3.9.")] = None,
    fmt: FormatOpt = None,
    split: SplitOpt = "default",
    discriminative: Annotated[
        bool, typer.Option("--discriminative", help="Also the contrasting versions' envs.")
    ] = False,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Builds at once (default: cores).")
    ] = os.cpu_count() or 2,
    allow_direct_references: DirectOpt = False,
) -> None:
    """Build environments (each once; rebuilt only when its spec changes).

    Examples:

        pinbench envs build data/sample/problems.jsonl

        pinbench envs build --pin numpy==1.21.6 --python 3.9
    """
    specs: list[EnvSpec] = []
    if dataset is not None:
        loaded = load_or_exit(dataset, fmt, False, allow_direct_references)
        problems = split_or_exit(loaded.problems, split)
        specs += list(dict.fromkeys(s for p in problems for s in specs_for(p, discriminative)))
    if pin:
        specs.append(EnvSpec(version=python, pins=tuple(pin)))
    if not specs:
        fail("give a dataset or --pin")

    def build_one(spec: EnvSpec) -> bool:
        started = time.monotonic()
        try:
            env = builder.ensure(spec)
        except EnvError as exc:
            log = f" (log: {exc.log})" if exc.log else ""
            error(f"{' '.join(spec.pins)}: {exc}{log}", label="failed")
            return False
        state = "reused" if env.reused else "built"
        note = f" ({env.resolution.substitution})" if env.resolution.substitution else ""
        console.print(
            f"{state} {env.key} python {env.resolution.interpreter.minor} "
            f"{' '.join(spec.pins)} in {time.monotonic() - started:.2f}s{note}"
        )
        return True

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(build_one, specs))
    if not all(results):
        raise typer.Exit(1)


@envs_app.command("list")
def envs_list() -> None:
    """List built environments."""
    table = Table()
    for column in ("key", "python", "pins", "as of", "last used"):
        table.add_column(column, overflow="fold")
    for row in builder.list_envs():
        used = datetime.fromtimestamp(float(str(row["last_used"])), UTC).strftime("%Y-%m-%d %H:%M")
        pins = row.get("pins")
        table.add_row(
            str(row["key"]),
            str(row.get("python_version")),
            " ".join(map(str, pins)) if isinstance(pins, list) else "",
            str(row.get("as_of") or "-"),
            used,
        )
    console.print(table)


@envs_app.command("path")
def envs_path(
    key: Annotated[str, typer.Argument(help="An environment key or its prefix.")],
) -> None:
    """Print the directory of an environment."""
    try:
        console.print(str(builder.find(key)), soft_wrap=True)
    except EnvError as exc:
        fail(str(exc), code=1)


@envs_app.command("gc")
def envs_gc(
    older_than: Annotated[
        float | None, typer.Option(help="Only environments unused for this many days.")
    ] = None,
) -> None:
    """Remove environments (all, or those unused for --older-than days) and build leftovers."""
    removed = builder.gc(older_than)
    console.print(f"removed {len(removed)} directories")
