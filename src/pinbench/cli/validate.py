"""`pinbench validate DATASET`: prove every problem sound."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from pinbench.cli.common import (
    DirectOpt,
    FormatOpt,
    LanguageOpt,
    SplitOpt,
    StrictOpt,
    console,
    detect_or_exit,
    err,
    fail,
    load_or_exit,
    progress_bar,
    split_or_exit,
)
from pinbench.execution.local import default_jobs
from pinbench.sandbox.grade import current_grading
from pinbench.sandbox.probe import detect
from pinbench.validation import (
    ProblemReport,
    Verdict,
    environment_count,
    validate_dataset,
    write_json,
)


def validate_cmd(
    dataset: Annotated[Path, typer.Argument(help="Dataset file or directory, or `builtin`.")],
    fmt: FormatOpt = None,
    strict: StrictOpt = False,
    allow_direct_references: DirectOpt = False,
    split: SplitOpt = "default",
    language: LanguageOpt = None,
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
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat",
            min=0,
            help="Run each reference's hidden test N more times (half in turn, half at once, "
            "never from the cache): a problem whose outcomes disagree is flaky, and runs "
            "re-execute its samples instead of scoring one outcome.",
        ),
    ] = 0,
) -> None:
    """Prove every problem sound: starter compiles, pins import, reference passes its tests.

    Examples:

        pinbench validate data/sample/problems.jsonl

        pinbench validate builtin --split quick --discriminative

        pinbench validate builtin --language javascript --discriminative

        pinbench validate GitChameleon/dataset --jobs 4 --json out/validate.json

        pinbench validate gitchameleon.csv --format gitchameleon1 --strict

        pinbench validate builtin --repeat 5
    """
    fmt = fmt or detect_or_exit(dataset)
    loaded = load_or_exit(dataset, fmt, strict, allow_direct_references)
    problems = [
        p for p in split_or_exit(loaded.problems, split, language) if not only or p.id in only
    ]
    if not problems:
        fail("no problem to validate")
    isolation = detect()
    environments = environment_count(problems, discriminative)
    err.print(
        f"validating {len(problems)} problems in {environments} environments "
        f"(isolation: {isolation.level}, jobs: {jobs}); {current_grading().describe()}"
    )
    with progress_bar() as progress:
        envs_task = progress.add_task("environments", total=environments)
        probs_task = progress.add_task("problems", total=len(problems))

        def on_progress(event: str, _report: ProblemReport | None) -> None:
            progress.advance(envs_task if event == "built" else probs_task)

        done = validate_dataset(
            problems,
            dataset=str(dataset),
            fmt=fmt,
            load_issues=[str(i) for i in loaded.issues],
            isolation=isolation,
            jobs=jobs,
            timeout=timeout,
            warm=not cold,
            cache=not no_cache,
            discriminative=discriminative,
            on_progress=on_progress,
            repeat=repeat,
        )
    if json_out:  # written before anything is printed
        write_json(json_out, done)
    _print_reports(done.problems)
    summary, stats = done.summary, done.executions
    not_disc = f", {summary['not_discriminative']} not discriminative" if discriminative else ""
    flaky = f", {summary['flaky']} flaky over {repeat + 1} runs each" if repeat else ""
    console.print(
        f"{summary['sound']}/{len(done.problems)} sound, {summary['unsound']} unsound, "
        f"{summary['unverified']} unverified (infrastructure){not_disc}{flaky} "
        f"in {done.seconds:.1f}s"
    )
    if done.grading.in_process:
        console.print(
            f"{len(done.grading.in_process)} graded in-process, forgeable (their reference "
            "passes only with the test in the program's own process)"
        )
    if done.grading.shares_state:
        console.print(
            f"{len(done.grading.shares_state)} graded with state shared (the program's pyplot "
            "as the test's; the test's own apps and script globals as the program's): their "
            "reference needs it; what the test computes through pyplot is the program's, and "
            "the program may read the test's globals"
        )
    err.print(
        f"executions: {stats['cache_hits']} cached, {stats.get('executed', 0)} run; "
        f"{stats['warm_servers_started']} warm servers "
        f"(peak {stats['warm_peak_rss_bytes'] / 2**20:.0f} MB), "
        f"{stats['warm_fallbacks']} cold fallbacks"
    )
    if summary["sound"] != len(done.problems):
        raise typer.Exit(1)


_STYLE = {
    Verdict.SOUND: "green",
    Verdict.UNSOUND: "red",
    Verdict.UNVERIFIED: "yellow",
    Verdict.NOT_DISCRIMINATIVE: "magenta",
    Verdict.FLAKY: "yellow",
}


def _print_reports(reports: list[ProblemReport]) -> None:
    table = Table(title="validation", show_lines=False)
    for column in ("problem", "pin", "runtime", "verdict", "detail"):
        table.add_column(column, overflow="fold")
    for report in reports:
        details = [f"{name}: {report.checks[name].detail}" for name in report.failing]
        if report.in_process:
            details.insert(0, "graded in-process (its test needs the program's objects)")
        if report.shares_state:
            details.insert(0, "graded with state shared (its test needs the other side's)")
        if report.substitution:
            details.append(report.substitution)
        if report.repeats is not None and report.repeats.flaky:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(report.repeats.outcomes.items()))
            details.insert(0, f"hidden test over {report.repeats.runs} runs: {counts}")
        table.add_row(
            report.id,
            f"{report.library}@{report.version}"
            if report.language != "python"
            else f"{report.library}=={report.version}",
            f"node {report.node}" if report.node else (report.python or "-"),
            Text(report.verdict.value, _STYLE[report.verdict]),
            "; ".join(details)[:300],
        )
    console.print(table)
