"""`pinbench report RUN` and `pinbench compare RUN…`."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pinbench.cli.common import ResultsOpt, console, err, fail, load_report
from pinbench.metrics.intervals import interval_text
from pinbench.report.compare import Comparison, compare, compare_html
from pinbench.report.cutoffs import Cutoff, CutoffError, cutoff_for, load_table, month
from pinbench.report.html import pct, report_html
from pinbench.report.terminal import print_summary
from pinbench.store.runs import RunRow, RunStore

RunArg = Annotated[str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")]
_CSV_FIELDS = (
    "id", "library", "version", "year", "change", "samples", "pass_rate", "pass_rate_feedback",
    "error", "infrastructure",
)  # fmt: skip


CutoffOpt = Annotated[
    str | None,
    typer.Option(
        "--cutoff",
        help="The model's knowledge cutoff (YYYY-MM): scores split into library releases up to "
        "that month and after it. Unless given, looked up by model name in the cutoff table.",
    ),
]
CutoffsOpt = Annotated[
    Path | None,
    typer.Option(
        "--cutoffs",
        help='A cutoff table of your own (JSON: {"models": [{"pattern": "*my-model*", '
        '"cutoff": "2024-03"}]}), searched before $PINBENCH_HOME/cutoffs.json and '
        "pinbench's table of known models.",
    ),
]


def _cutoff_of(given: str | None, table: Path | None) -> Callable[[RunRow], Cutoff | None]:
    try:
        fixed = Cutoff(month=month(given), source="--cutoff") if given else None
        known = [] if fixed else load_table(table)
    except CutoffError as exc:
        fail(str(exc))
    return lambda row: fixed or cutoff_for(row.model_name, known)


def report_cmd(
    run: RunArg = "latest",
    html: Annotated[Path | None, typer.Option("--html", help="Write the HTML report.")] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the report as JSON (docs/report-json.md).")
    ] = None,
    csv_path: Annotated[
        Path | None, typer.Option("--csv", help="Write per-problem results as CSV.")
    ] = None,
    cutoff: CutoffOpt = None,
    cutoffs: CutoffsOpt = None,
    results: ResultsOpt = None,
) -> None:
    """Summarise a run in the terminal; optionally write an HTML report, JSON and CSV.

    Examples: `pinbench report` · `pinbench report latest --html report.html` ·
    `pinbench report 9f8687f7 --json summary.json --csv problems.csv`
    """
    cutoff_of = _cutoff_of(cutoff, cutoffs)
    with RunStore.at(results) as store:
        wanted = html is not None or json_path is not None
        report = load_report(store, run, details=wanted, cutoff_of=cutoff_of)
    if json_path is not None:  # written before anything is printed
        _write(json_path, report.model_dump_json(indent=1))
    if html is not None:
        _write(html, report_html(report))
    print_summary(console, report.summary, report)
    if csv_path is not None:
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        with csv_path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=_CSV_FIELDS)
            writer.writeheader()
            for problem in report.problems:
                writer.writerow(problem.model_dump(include=set(_CSV_FIELDS)))
        err.print(f"wrote {csv_path}")


def compare_cmd(
    runs: Annotated[list[str], typer.Argument(help="Two or more run ids (or prefixes).")],
    html: Annotated[Path | None, typer.Option("--html", help="Write the HTML comparison.")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write it as JSON.")] = None,
    cutoff: CutoffOpt = None,
    cutoffs: CutoffsOpt = None,
    results: ResultsOpt = None,
) -> None:
    """Compare runs on the problems they share: leaderboard, pairwise differences with 95 %
    bootstrap confidence intervals, Spearman rank correlation across datasets or splits."""
    if len(runs) < 2:
        fail("compare needs at least two runs")
    with RunStore.at(results) as store:
        cutoff_of = _cutoff_of(cutoff, cutoffs)
        reports = [load_report(store, run, details=False, cutoff_of=cutoff_of) for run in runs]
        records = {r.run_id: store.samples(r.run_id) for r in reports}
    comparison = compare(reports, records)
    table = Table(title=f"leaderboard · {comparison.shared_problems} shared problems")
    for column in ("#", "run", "model", "dataset", "pass@1 %", "± std"):
        table.add_column(column)
    for index, entry in enumerate(comparison.leaderboard, start=1):
        table.add_row(
            str(index), entry.run_id, entry.model_name, f"{entry.dataset} ({entry.split})",
            pct(entry.pass_at_1), pct(entry.std),
        )  # fmt: skip
    console.print(table)
    _print_cutoffs(comparison)
    for pair in comparison.pairs:
        console.print(
            f"{pair.a} − {pair.b}: {100 * pair.difference:+.1f} points "
            f"[{100 * pair.low:+.1f}, {100 * pair.high:+.1f}] 95 % CI over {pair.problems} problems"
        )
    if comparison.correlation is not None:
        c = comparison.correlation
        console.print(f"Spearman ρ {c.rho:.3f} (p {c.p_value:.3g}) over {len(c.models)} models")
    if html is not None:
        _write(html, compare_html(comparison, reports))
    if json_path is not None:
        _write(json_path, json.dumps(comparison.model_dump(mode="json"), indent=1))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    err.print(f"wrote {path} ({len(text.encode()) / 1e6:.2f} MB)")


def _print_cutoffs(comparison: Comparison) -> None:
    rows = [e for e in comparison.leaderboard if e.cutoff is not None]
    if not rows:
        return
    table = Table(title="knowledge cutoff: pass@1 on releases before and after it (95 % CI)")
    for column in ("run", "model", "cutoff", "before %", "after %", "gap (points)"):
        table.add_column(column)
    for entry in rows:
        split = entry.cutoff
        assert split is not None
        table.add_row(
            entry.run_id, entry.model_name, split.cutoff.month, interval_text(split.before),
            interval_text(split.after), interval_text(split.gap, signed=True),
        )  # fmt: skip
    console.print(table)
