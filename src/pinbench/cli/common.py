"""What every command shares: the consoles, the one way an error or a warning is printed, the
command group (usage errors and `--help` width), dataset options, and loading that exits with
one clear message instead of a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
import typer.rich_utils
from rich.console import Console, ConsoleDimensions
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text
from typer.core import TyperGroup

from pinbench.core.datasets import DatasetError
from pinbench.report.cutoffs import Cutoff
from pinbench.report.data import Report, build_report
from pinbench.store.runs import RunRow, RunStore
from pinbench.tasks.generation.loaders import LOADERS, LoadResult, detect_format, load_dataset
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.splits import LANGUAGES, SPLITS, select_split

HELP_WIDTH = 120  # `--help` written to a pipe or a file: wide enough that the options breathe
_UNBOUNDED = 10_000  # "no width": a line of text or a table row is never wrapped below this


class _Console(Console):
    """A console that fits its output to a terminal, and only to a terminal.

    Written to a pipe or a file (a log, `| less`, a test capturing it) output is as wide as
    its content, whatever COLUMNS says (it describes a terminal; a file has no width): a line
    stays one line and a table keeps every cell whole, so what a script or a test reads does
    not depend on the width of the terminal or the length of a path."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        return size if self.is_terminal else ConsoleDimensions(_UNBOUNDED, size.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self.width, self.height = new_size


# Never markup: problem ids, messages, paths and program output are data, and text such as
# `[/x]` would be read as markup (and crash). Styles are given as `Text` objects instead.
console = _Console(markup=False)
err = _Console(stderr=True, markup=False)


def say(label: str, style: str, message: str) -> None:
    """One message on stderr as one line: `label message`, never hard-wrapped (a terminal
    wraps it as it likes; a log keeps it whole) and never read as markup (paths and exception
    texts have brackets)."""
    err.print(Text.assemble((label, style), " ", message), soft_wrap=True)


def error(message: str, label: str = "error:") -> None:
    """The one way pinbench prints an error."""
    say(label, "red", message)


def warn(message: str, label: str = "warning:") -> None:
    """The one way pinbench prints a warning (something skipped or degraded, not fatal)."""
    say(label, "yellow", message)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error and end the command: exit 2 for what the user asked wrongly, 1 for what
    could not be done."""
    error(message)
    raise typer.Exit(code)


def help_width() -> int | None:
    """The width `--help` is laid out in: TERMINAL_WIDTH if set (typer's own setting), a
    terminal's width (None: rich measures it), or HELP_WIDTH when not a terminal, instead of
    rich's 80 columns."""
    configured = os.environ.get("TERMINAL_WIDTH", "")
    if configured.isdigit():
        return int(configured)
    isatty = getattr(sys.stdout, "isatty", None)
    return None if isatty is not None and isatty() else HELP_WIDTH


@contextmanager
def _help_laid_out(width: int | None) -> Iterator[None]:
    saved = typer.rich_utils.MAX_WIDTH
    typer.rich_utils.MAX_WIDTH = width
    try:
        yield
    finally:
        typer.rich_utils.MAX_WIDTH = saved


class Group(TyperGroup):
    """pinbench's command group: `--help` as wide as the terminal (or HELP_WIDTH when not a
    terminal), and usage errors (an unknown option, a missing argument, a bad value) as one
    `error:` line like every other error, instead of a box wrapped to the width."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        with _help_laid_out(help_width()):
            try:
                code = super().main(args, prog_name, complete_var, False, **extra)
            except typer.Abort:
                error("aborted")
                sys.exit(1)
            except typer.TyperException as exc:  # click's exceptions: usage errors and kin
                _usage_error(exc)
                sys.exit(getattr(exc, "exit_code", 2))
        sys.exit(code if isinstance(code, int) else 0)


def _usage_error(exc: typer.TyperException) -> None:
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":
        return  # the help itself, already printed
    hint = ""
    if ctx is not None:
        err.print(ctx.get_usage(), soft_wrap=True, markup=False, highlight=False)
        if ctx.command.get_help_option(ctx) is not None:
            hint = f"; see `{ctx.command_path} {ctx.help_option_names[0]}`"
    error(exc.format_message().rstrip(".") + hint)


FormatOpt = Annotated[
    str | None,
    typer.Option("--format", help=f"Dataset format ({', '.join(LOADERS)}); default: detect."),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Any malformed row is fatal (exit 2).")]
DirectOpt = Annotated[
    bool,
    typer.Option(
        "--allow-direct-references",
        help="Accept pins that name a file, URL or repository (`pkg @ file:...`): uv builds "
        "them from the dataset's own files. Refused by default, with the row's file:line.",
    ),
]
SplitOpt = Annotated[
    str,
    typer.Option(
        "--split",
        help=f"Subset: {', '.join(SPLITS)}. default/quick: Python (no heavy problems); "
        "js/js-quick: JavaScript and TypeScript; full: everything.",
    ),
]

LanguageOpt = Annotated[
    str | None,
    typer.Option(
        "--language",
        help=f"Only problems in this language ({', '.join(LANGUAGES)}; javascript includes "
        "TypeScript); the split then applies within it.",
    ),
]


def detect_or_exit(dataset: Path) -> str:
    try:
        return detect_format(dataset)
    except DatasetError as exc:
        fail(str(exc))


def split_or_exit(
    problems: list[Problem], split: str, language: str | None = None
) -> list[Problem]:
    try:
        chosen = select_split(problems, split, language)
    except ValueError as exc:
        fail(str(exc))
    if not chosen and language is None and split in ("default", "quick") and problems:
        fail(f"split {split!r} holds the Python problems and there are none: try --split js")
    return chosen


def load_or_exit(
    dataset: Path, fmt: str | None, strict: bool, allow_direct_references: bool = False
) -> LoadResult:
    try:
        result = load_dataset(
            dataset, fmt, strict=strict, allow_direct_references=allow_direct_references
        )
    except DatasetError as exc:
        fail(str(exc))
    for issue in result.issues:
        warn(str(issue), "skipped:")
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


def find_run_or_exit(store: RunStore, run: str) -> RunRow:
    """A run by id, unique prefix or `latest`, or one clear error (exit 2)."""
    row = store.run(run)
    if row is None:
        fail(f"no run {run!r} (see `pinbench runs list`)")
    return row


def load_report(
    store: RunStore,
    run: str,
    details: bool = True,
    cutoff_of: Callable[[RunRow], Cutoff | None] | None = None,
) -> Report:
    """`cutoff_of`: the knowledge cutoff to split the run's scores at, if any."""
    row = find_run_or_exit(store, run)
    try:
        return build_report(store, row, details, cutoff_of(row) if cutoff_of else None)
    except ValueError as exc:
        fail(str(exc))
