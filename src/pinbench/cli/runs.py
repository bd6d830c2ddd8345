"""`pinbench runs list|show|export`: the recorded runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pinbench.cli.common import ResultsOpt, console, err, fail, find_run_or_exit
from pinbench.evaluation.config import RunSummary
from pinbench.report.terminal import print_summary
from pinbench.store.runs import RunStore

runs_app = typer.Typer(help="List, show and export recorded runs.")


@runs_app.command("list")
def runs_list(results: ResultsOpt = None) -> None:
    """Every recorded run, oldest first."""
    with RunStore.at(results) as store:
        rows = store.runs()
    table = Table(title="runs")
    for column in ("id", "model", "dataset", "split", "status", "pass@1 %", "samples"):
        table.add_column(column)
    for row in rows:
        scores = (row.summary or {}).get("scores") or {}
        rounds = scores.get("rounds") or [{}]
        first = next((s for s in rounds[-1].get("pass_at", []) if s["k"] == 1), None)
        value = "n/a" if not first or first["mean"] is None else f"{100 * first['mean']:.1f}"
        table.add_row(
            row.id,
            row.model_name or row.config.get("model", ""),
            str(row.config.get("dataset", "")),
            str(row.config.get("split", "")),
            row.status,
            value,
            str(scores.get("samples", "")),
        )
    console.print(table)


@runs_app.command("show")
def runs_show(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    results: ResultsOpt = None,
) -> None:
    """A run's summary."""
    with RunStore.at(results) as store:
        row = find_run_or_exit(store, run)
    if row.summary is None:
        fail(f"run {row.id} has no summary yet ({row.status})", code=1)
    summary = RunSummary.model_validate(row.summary)
    if as_json:
        console.print_json(summary.model_dump_json())
    else:
        print_summary(console, summary)
        console.print(f"status: {row.status}")


@runs_app.command("export")
def runs_export(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file.")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
    results: ResultsOpt = None,
) -> None:
    """Every sample with its prompt, raw response, program and outcome. The JSONL export is
    readable by `--model replay:PATH`."""
    if fmt not in ("jsonl", "csv"):
        fail(f"--format is jsonl or csv, not {fmt!r}")
    count = 0
    with RunStore.at(results) as store:
        row = find_run_or_exit(store, run)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", newline="") as handle:
            writer: csv.DictWriter[str] | None = None
            for record in store.export_rows(row.id):
                record = {"run_id": row.id, "model": row.model_name, **record}
                count += 1
                if fmt == "jsonl":
                    handle.write(json.dumps(record) + "\n")
                    continue
                record["request"] = json.dumps(record["request"])
                if writer is None:
                    writer = csv.DictWriter(handle, fieldnames=list(record))
                    writer.writeheader()
                writer.writerow(record)
    err.print(f"wrote {count} samples to {out}")
