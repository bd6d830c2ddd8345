"""The `pinbench` command line: parses, calls the library, prints. No logic of its own."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel
from rich.table import Table

from pinbench import __version__
from pinbench.cli.common import (
    FormatOpt,
    Group,
    SplitOpt,
    StrictOpt,
    console,
    detect_or_exit,
    err,
    error,
    fail,
    load_or_exit,
    progress_bar,
    split_or_exit,
)
from pinbench.cli.drift import drift_cmd
from pinbench.cli.ide import ide_app
from pinbench.cli.mine import mine_cmd
from pinbench.cli.report import compare_cmd, report_cmd
from pinbench.cli.run import run_cmd, runs_app
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Limits
from pinbench.envs.python import builder
from pinbench.execution.local import ExecutionService, default_jobs
from pinbench.sandbox.probe import detect
from pinbench.tasks.generation.loaders import LOADERS
from pinbench.tasks.generation.splits import SPLITS, select_split
from pinbench.tasks.generation.stats import dataset_stats
from pinbench.validate import (
    ProblemReport,
    Verdict,
    environment_count,
    specs_for,
    validate,
    write_json,
)

app = typer.Typer(
    cls=Group,  # errors on one line, `--help` as wide as the terminal
    help="pinbench: evaluate code models on pinned library versions by executing their code.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
envs_app = typer.Typer(help="Build, list, locate and garbage-collect pinned environments.")
app.add_typer(envs_app, name="envs")
datasets_app = typer.Typer(help="List, show and count datasets (the builtin one included).")
app.add_typer(datasets_app, name="datasets")
app.add_typer(runs_app, name="runs")
app.add_typer(ide_app, name="ide")
app.command("run")(run_cmd)
app.command("report")(report_cmd)
app.command("compare")(compare_cmd)
app.command("drift")(drift_cmd)
app.command("mine")(mine_cmd)


class ValidationRun(BaseModel):
    """The `--json` document of `pinbench validate` (schema: docs/validate-json.md)."""

    schema_version: int = 1
    pinbench_version: str = __version__
    dataset: str
    format: str
    isolation: str
    started_at: str
    seconds: float
    summary: dict[str, int]
    load_issues: list[str]
    executions: dict[str, int]
    problems: list[ProblemReport]


@app.command("validate")
def validate_cmd(
    dataset: Annotated[Path, typer.Argument(help="Dataset file or directory, or `builtin`.")],
    fmt: FormatOpt = None,
    strict: StrictOpt = False,
    split: SplitOpt = "default",
    discriminative: Annotated[
        bool,
        typer.Option(
            "--discriminative",
            help="Also prove each problem depends on its version: the reference fails on the "
            "contrasting version, whose own solution passes there and fails on the pin.",
        ),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", help="Parallel builds and executions (default: cores + 1)."),
    ] = default_jobs(),
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write per-problem outcomes.")
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            help="Cap on an execution's wall seconds; the reference's runtime calibrates "
            "the deadline below it."
        ),
    ] = 60.0,
    cold: Annotated[
        bool, typer.Option("--cold", help="A fresh interpreter per execution (no warm servers).")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Ignore and do not fill the outcome cache.")
    ] = False,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Validate only these problem ids.")
    ] = None,
) -> None:
    """Prove every problem sound: starter compiles, pins import, reference passes its tests.

    Examples:

        pinbench validate data/sample/problems.jsonl

        pinbench validate builtin --split quick --discriminative

        pinbench validate GitChameleon/dataset --jobs 4 --json out/validate.json

        pinbench validate gitchameleon.csv --format gitchameleon1 --strict
    """
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    fmt = fmt or detect_or_exit(dataset)
    loaded = load_or_exit(dataset, fmt, strict)
    problems = [p for p in split_or_exit(loaded.problems, split) if not only or p.id in only]
    if not problems:
        fail("no problem to validate")
    isolation = detect()
    err.print(
        f"validating {len(problems)} problems in "
        f"{environment_count(problems, discriminative)} environments "
        f"(isolation: {isolation.level}, jobs: {jobs})"
    )
    limits = Limits(wall_seconds=timeout, cpu_seconds=max(1, int(timeout)))
    with progress_bar() as progress:
        envs_task = progress.add_task(
            "environments", total=environment_count(problems, discriminative)
        )
        probs_task = progress.add_task("problems", total=len(problems))

        def on_progress(event: str, _report: ProblemReport | None) -> None:
            progress.advance(envs_task if event == "built" else probs_task)

        service = ExecutionService(
            jobs=jobs, warm=not cold, cache=not no_cache, isolation=isolation
        )
        try:
            reports = validate(
                problems,
                jobs=jobs,
                limits=limits,
                service=service,
                discriminative=discriminative,
                on_progress=on_progress,
            )
        finally:
            service.close()
    _print_reports(reports)
    summary = {v.value: sum(r.verdict is v for r in reports) for v in Verdict}
    summary["problems"] = len(reports)
    if json_out:
        write_json(
            json_out,
            ValidationRun(
                dataset=str(dataset),
                format=fmt,
                isolation=isolation.level,
                started_at=started_at,
                seconds=round(time.monotonic() - started, 3),
                summary=summary,
                load_issues=[str(i) for i in loaded.issues],
                executions=service.stats(),
                problems=reports,
            ),
        )
    stats = service.stats()
    not_disc = f", {summary['not_discriminative']} not discriminative" if discriminative else ""
    console.print(
        f"{summary['sound']}/{len(reports)} sound, {summary['unsound']} unsound, "
        f"{summary['unverified']} unverified (infrastructure){not_disc} "
        f"in {time.monotonic() - started:.1f}s"
    )
    err.print(
        f"executions: {stats['cache_hits']} cached, {stats['cache_misses']} run; "
        f"{stats['warm_servers_started']} warm servers "
        f"(peak {stats['warm_peak_rss_bytes'] / 2**20:.0f} MB), "
        f"{stats['warm_fallbacks']} cold fallbacks"
    )
    if summary["sound"] != len(reports):
        raise typer.Exit(1)


_STYLE = {
    Verdict.SOUND: "green",
    Verdict.UNSOUND: "red",
    Verdict.UNVERIFIED: "yellow",
    Verdict.NOT_DISCRIMINATIVE: "magenta",
}


def _print_reports(reports: list[ProblemReport]) -> None:
    table = Table(title="validation", show_lines=False)
    for column in ("problem", "pin", "python", "verdict", "detail"):
        table.add_column(column, overflow="fold")
    for report in reports:
        details = [f"{name}: {report.checks[name].detail}" for name in report.failing]
        if report.substitution:
            details.append(report.substitution)
        table.add_row(
            report.id,
            f"{report.library}=={report.version}",
            report.python or "-",
            f"[{_STYLE[report.verdict]}]{report.verdict.value}[/]",
            "; ".join(details)[:300],
        )
    console.print(table)


# ----------------------------------------------------------------------------------- envs


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
) -> None:
    """Build environments (each once; rebuilt only when its spec changes).

    Examples:

        pinbench envs build data/sample/problems.jsonl

        pinbench envs build --pin numpy==1.21.6 --python 3.9
    """
    specs: list[EnvSpec] = []
    if dataset is not None:
        problems = split_or_exit(load_or_exit(dataset, fmt, False).problems, split)
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
        note = f" [yellow]{env.resolution.substitution}[/]" if env.resolution.substitution else ""
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


# ------------------------------------------------------------------------------- datasets


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
        ("python", stats.by_python),
        ("year", stats.by_year),
        ("type of change", stats.by_change),
    ):
        table = Table(title=f"by {title}")
        table.add_column(title)
        table.add_column("problems", justify="right")
        for key, count in counts.items():
            table.add_row(key, str(count))
        console.print(table)
    if json_out:
        write_json(json_out, stats)
