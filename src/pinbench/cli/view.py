"""`pinbench view`, and the live view `pinbench run --view` serves while a run goes."""

from __future__ import annotations

import os
import sqlite3
import sys
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from pinbench.cli.common import ResultsOpt, console, err, fail, say, warn
from pinbench.store.runs import RunStore
from pinbench.view.server import ViewServer


def view_cmd(
    results: ResultsOpt = None,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Requests must still name localhost, 127.0.0.1, [::1] "
            "or this host (DNS rebinding is refused); reach it from elsewhere through an SSH "
            "tunnel.",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port; 0 picks a free one.")] = 8765,
    open_browser: Annotated[
        bool | None,
        typer.Option("--open/--no-open", help="Open a browser (default: when there is a display)."),
    ] = None,
) -> None:
    """Browse the results store in a local web app: runs, breakdowns and plots, every sample
    with its prompt, program, tests and each feedback round's diff, comparisons, and the
    progress of a run still going. Offline; nothing leaves this machine.

    Examples: `pinbench view` · `pinbench view --port 0 --no-open` ·
    `pinbench view --results runs/ --port 9000`
    """
    path = RunStore.path_at(results)
    if not path.is_file():
        fail(f"no results store at {path}: `pinbench run` records runs there (or give --results)")
    _migrate(path)
    server = _serve(path, host, port)
    console.print(server.url, soft_wrap=True)
    err.print(Text.assemble(("pinbench view", "bold"), f" of {path} · Ctrl-C stops it"))
    if open_browser if open_browser is not None else _has_display():
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


@contextmanager
def serving_run(results: Path | None, run_id: str, enabled: bool) -> Iterator[None]:
    """While the body runs, the view of `results` on a free local port, its URL (the run's
    page) printed to stderr; nothing when not `enabled`."""
    if not enabled:
        yield
        return
    with RunStore.at(results) as store:  # the store exists (and is current) before the run
        path = store.path
    try:
        server = ViewServer(path).start()
    except OSError as exc:
        warn(f"--view: cannot serve the view: {exc}")
        yield
        return
    say("view:", "green", f"{server.url}#/run/{run_id}")
    try:
        yield
    finally:
        server.close()


def _migrate(path: Path) -> None:
    """Bring an older store's indexes up to date (the view reads through `samples_browse`);
    a store this user cannot write is read as it is."""
    try:
        RunStore(path).close()
    except sqlite3.OperationalError as exc:
        warn(f"could not update {path} ({exc}): pages of large runs may be slow")


def _serve(path: Path, host: str, port: int) -> ViewServer:
    try:
        return ViewServer(path, host, port)
    except OSError as exc:
        hint = " (try --port 0 for a free one)" if port else ""
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}")


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
