"""`pinbench drift RUN`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from pinbench.cli.common import (
    ResultsOpt,
    console,
    err,
    fail,
    find_run_or_exit,
    load_or_exit,
    progress_bar,
    split_or_exit,
)
from pinbench.core.outcome import Grading, Limits
from pinbench.drift import DriftSummary, drift
from pinbench.evaluation.config import RunConfig
from pinbench.execution.local import ExecutionService, default_jobs
from pinbench.store.runs import RunStore


def drift_cmd(
    run: Annotated[
        str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")
    ] = "latest",
    versions: Annotated[
        list[str] | None,
        typer.Option(
            "--versions",
            help="More versions to try, per library: `numpy=1.21.6,1.23.5` (repeatable).",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j")] = default_jobs(),
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary.")] = None,
    results: ResultsOpt = None,
) -> None:
    """Execute every failed sample of a run against its problem's contrasting version (and
    `--versions`): a program that passes elsewhere was written for the wrong version. The
    summary is kept with the run and shown by `pinbench report`.

    Example: `pinbench drift latest --versions numpy=1.21.6,1.26.4`
    """
    with RunStore.at(results) as store:
        row = find_run_or_exit(store, run)
        config = RunConfig.model_validate(row.config)
        if config.task != "generation":
            fail(f"drift needs a generation run, not {config.task!r}")
        path = Path(config.dataset)
        problems = split_or_exit(
            load_or_exit(path, config.dataset_format, False).problems,
            config.split,
            config.language,
        )
        if config.only:
            problems = [p for p in problems if p.id in set(config.only)]
        records = store.samples(row.id)
        limits = Limits(wall_seconds=config.timeout_cap, cpu_seconds=int(config.timeout_cap))
        with ExecutionService(jobs=jobs) as service, progress_bar() as progress:
            task = progress.add_task("failures", total=None)
            summary = drift(
                row.id, row.model_name, records, problems, service,
                versions=_versions(versions or []), last_round=config.feedback_rounds,
                limits=limits, jobs=jobs, on_check=lambda: progress.advance(task),
                in_process=_graded_in_process(row.summary),
            )  # fmt: skip
        store.record_drift(row.id, summary.model_dump(mode="json"))
    print_drift(summary)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(summary.model_dump_json(indent=1))
        err.print(f"wrote {json_path}")


def _versions(specs: list[str]) -> dict[str, list[str]]:
    chosen: dict[str, list[str]] = {}
    for spec in specs:
        library, sep, listed = spec.partition("=")
        if not sep or not library.strip() or not listed.strip():
            fail(f"--versions takes LIBRARY=V1,V2, got {spec!r}")
        chosen.setdefault(library.strip(), []).extend(
            v.strip() for v in listed.split(",") if v.strip()
        )
    return chosen


def _graded_in_process(summary: dict[str, Any] | None) -> frozenset[str]:
    """The items the run graded in the program's own process (its stored summary says)."""
    grading = Grading.model_validate((summary or {}).get("grading") or {})
    return frozenset(grading.in_process)


def print_drift(summary: DriftSummary) -> None:
    rate = "n/a" if summary.rate is None else f"{100 * summary.rate:.1f}%"
    console.print(
        f"version confusion: {summary.confused} of {summary.checked} failures pass on another "
        f"version ({rate}): {summary.too_new} too new, {summary.too_old} too old"
        + (f" · {summary.infrastructure} checks could not run" if summary.infrastructure else "")
    )
    for library, rows in sorted(summary.matrix.items()):
        columns = sorted({c for cells in rows.values() for c in cells})
        table = Table(title=f"{library}: pinned version → version the program works on")
        table.add_column("pinned")
        for column in columns:
            table.add_column(column, justify="right")
        for pinned, cells in sorted(rows.items()):
            table.add_row(pinned, *(str(cells.get(c, "")) for c in columns))
        console.print(table)
