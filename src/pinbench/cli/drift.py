"""`pinbench drift RUN`."""

from __future__ import annotations

import json
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
from pinbench.core.tests import Fallback
from pinbench.drift import (
    Compatibility,
    DriftSummary,
    compatibility,
    drift,
    minor_releases,
    version_key,
)
from pinbench.evaluation.config import RunConfig
from pinbench.execution.local import ExecutionService, default_jobs
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.problem import Problem


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
    matrix: Annotated[
        bool,
        typer.Option(
            "--matrix",
            help="Execute every sample (not only failures) on each version of its library: "
            "each sample's range of working versions, the model's range profile, a heatmap "
            "per library. Versions: --versions, --between, else every minor release between "
            "the lowest and highest version the run's problems pin.",
        ),
    ] = False,
    between: Annotated[
        list[str] | None,
        typer.Option(
            "--between",
            help="With --matrix: every minor release (its latest patch) of a library between "
            "two versions: `numpy=1.21..1.26` (repeatable).",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j")] = default_jobs(),
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary.")] = None,
    results: ResultsOpt = None,
) -> None:
    """Execute every failed sample of a run against its problem's contrasting version (and
    `--versions`): a program that passes elsewhere was written for the wrong version. The
    summary is kept with the run and shown by `pinbench report`.

    Examples: `pinbench drift latest --versions numpy=1.21.6,1.26.4` ·
    `pinbench drift latest --matrix --between numpy=1.21..1.26`
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
        if matrix:
            tried = _matrix_versions(problems, _versions(versions or []), _ranges(between or []))
            with ExecutionService(jobs=jobs) as service, progress_bar() as progress:
                task = progress.add_task("executions", total=None)
                summary, compat = compatibility(
                    row.id, row.model_name, records, problems, service, tried,
                    last_round=config.feedback_rounds, limits=limits, jobs=jobs,
                    in_process=_graded(row.summary, "in_process"),
                    shares_state=_graded(row.summary, "shares_state"),
                    on_execution=lambda: progress.advance(task),
                )  # fmt: skip
            kept = summary.model_dump(mode="json")
            kept["compatibility"] = compat.model_dump(mode="json")
            store.record_drift(row.id, kept)
            print_drift(summary)
            print_compatibility(compat)
            if json_path is not None:
                _write_json(json_path, kept)
            return
        with ExecutionService(jobs=jobs) as service, progress_bar() as progress:
            task = progress.add_task("failures", total=None)
            summary = drift(
                row.id, row.model_name, records, problems, service,
                versions=_versions(versions or []), last_round=config.feedback_rounds,
                limits=limits, jobs=jobs, on_check=lambda: progress.advance(task),
                in_process=_graded(row.summary, "in_process"),
                shares_state=_graded(row.summary, "shares_state"),
            )  # fmt: skip
        store.record_drift(row.id, summary.model_dump(mode="json"))
    print_drift(summary)
    if json_path is not None:
        _write_json(json_path, summary.model_dump(mode="json"))


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1))
    err.print(f"wrote {path}")


def _ranges(specs: list[str]) -> dict[str, tuple[str, str]]:
    chosen: dict[str, tuple[str, str]] = {}
    for spec in specs:
        library, sep, span = spec.partition("=")
        low, dots, high = span.partition("..")
        if not sep or not dots or not library.strip() or not low.strip() or not high.strip():
            fail(f"--between takes LIBRARY=LOW..HIGH, got {spec!r}")
        chosen[library.strip()] = (low.strip(), high.strip())
    return chosen


def _matrix_versions(
    problems: list[Problem], listed: dict[str, list[str]], spans: dict[str, tuple[str, str]]
) -> dict[str, list[str]]:
    """Per library: the versions listed, else every minor release in its span (given, or the
    lowest to the highest version its problems and their contrasts pin)."""
    pinned: dict[str, list[str]] = {}
    example: dict[str, Problem] = {}
    for problem in problems:
        pinned.setdefault(problem.library, []).append(problem.version)
        if problem.contrast is not None:
            pinned[problem.library].append(problem.contrast.version)
        example.setdefault(problem.library, problem)
    unknown = sorted((set(listed) | set(spans)) - set(pinned))
    if unknown:
        fail(f"no problem of this run pins {', '.join(unknown)}")
    chosen: dict[str, list[str]] = {}
    for library, versions in pinned.items():
        if library in listed:
            chosen[library] = sorted(set(listed[library]), key=version_key)
            continue
        low, high = spans.get(library) or (min(versions, key=version_key),
                                            max(versions, key=version_key))  # fmt: skip
        try:
            found = minor_releases(example[library], low, high)
        except ValueError as exc:
            fail(str(exc))
        chosen[library] = sorted({*found, *versions} if library not in spans else set(found),
                                 key=version_key)  # fmt: skip
    return chosen


def print_compatibility(compat: Compatibility) -> None:
    p = compat.profile
    rates = ", ".join(
        f"{kind.replace('_', ' ')} {100 * (p.rate(kind) or 0):.1f}%"
        for kind in ("exact", "too_old", "too_new", "both", "never", "portable")
    )
    console.print(
        f"range profile of {p.samples} samples over {compat.executions} executions "
        f"({compat.seconds:.0f}s): {rates}"
        + (f" · {compat.infrastructure} executions could not run" if compat.infrastructure else "")
    )
    for lib in compat.libraries:
        table = Table(title=f"{lib.library}: pass rate by pinned version (rows) and version run")
        table.add_column("pinned")
        for version in lib.versions:
            table.add_column(version, justify="right")
        for pinned, row in lib.cells.items():
            cells = [
                f"{100 * row[v][0] / row[v][1]:.0f}%" if v in row and row[v][1] else ""
                for v in lib.versions
            ]
            table.add_row(pinned, *cells)
        console.print(table)


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


def _graded(summary: dict[str, Any] | None, fallback: Fallback) -> frozenset[str]:
    """The items the run graded so: in the program's own process, or with its pyplot (its
    stored summary says)."""
    grading = Grading.model_validate((summary or {}).get("grading") or {})
    return frozenset(getattr(grading, fallback))


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
