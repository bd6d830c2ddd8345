"""`pinbench report` and `pinbench compare`: terminal, JSON, CSV, and the numbers in them."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.records import SampleRecord
from pinbench.report.data import category
from tests.report.conftest import IDS, run_ids


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_json_and_csv_carry_the_breakdowns(results: Path, tmp_path: Path) -> None:
    feedback_run = run_ids(results)[0]
    out, table = tmp_path / "r.json", tmp_path / "p.csv"
    output = _invoke(
        "report", feedback_run, "--json", str(out), "--csv", str(table), "--results", str(results)
    )
    report = json.loads(out.read_text())
    assert report["schema_version"] == 1 and report["run_id"] == feedback_run
    (library,) = report["by_library"]
    assert library["name"] == "packaging" and library["problems"] == 3
    assert library["baseline"] == 1 / 6  # one of six first answers was right
    assert library["feedback"] == 1.0  # every second answer is the solution
    assert report["errors"]["baseline"] == {"NameError": 5}  # `undefined_name`
    assert report["errors"]["feedback"] == {}
    assert sorted(report["difficulty"]["baseline"]) == [0.0, 0.0, 0.5]
    rows = list(csv.DictReader(table.open()))
    assert [r["id"] for r in rows] == list(IDS)
    assert rows[0]["pass_rate"] == "0.5" and rows[1]["error"] == ""
    details = {p["id"]: p for p in report["problems"]}
    assert "NameError" in details[IDS[1]]["prompt"]  # its round-1 prompt shows the error
    assert details[IDS[1]]["program"].strip() and "visible test" in details[IDS[1]]["test"]
    assert "weakest libraries: packaging" in output


def test_compare_ranks_runs_and_gives_intervals(results: Path, tmp_path: Path) -> None:
    feedback_run, reference_run = run_ids(results)
    out = tmp_path / "c.json"
    output = _invoke(
        "compare", feedback_run, reference_run, "--json", str(out), "--results", str(results)
    )
    comparison = json.loads(out.read_text())
    assert comparison["shared_problems"] == 3
    assert [e["run_id"] for e in comparison["leaderboard"]] == [reference_run, feedback_run]
    (pair,) = comparison["pairs"]
    assert pair["a"] == reference_run and pair["difference"] == 1 - 1 / 6
    assert pair["low"] <= pair["difference"] <= pair["high"] <= 1.0
    assert "95 % CI" in output


def test_compare_needs_two_runs_and_names_unknown_ones(results: Path) -> None:
    one = CliRunner().invoke(app, ["compare", "latest", "--results", str(results)])
    assert one.exit_code == 2 and "at least two" in one.output
    bad = CliRunner().invoke(app, ["compare", "nope", "latest", "--results", str(results)])
    assert bad.exit_code == 2 and "no run 'nope'" in bad.output


def _record(status: str, exc: str | None) -> SampleRecord:
    return SampleRecord(problem_id="p", seed=0, sample=0, round=0, status=status, exc_type=exc)


def test_error_categories_follow_the_papers_tables() -> None:
    assert category(_record("failed", "ModuleNotFoundError")) == "ImportError"
    assert category(_record("timeout", None)) == "Timeout"
    assert category(_record("syntax_error", None)) == "SyntaxError"
    assert category(_record("syntax_error", "TabError")) == "IndentationError"
    assert category(_record("failed", "ZeroDivisionError")) == "Other"
    assert category(_record("resource_limit", "MemoryError")) == "ResourceLimit"


def test_spearman_ranks_models_across_two_datasets(tmp_path: Path) -> None:
    """Three models (replays solving 0, 1 and 2 of three problems) on two datasets (the same
    rows in two files): their ranks agree, so ρ = 1."""
    from tests.report.conftest import SAMPLE, _wrong

    rows = [line for line in SAMPLE.read_text().splitlines() if '"packaging-22.0-0' in line]
    datasets = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(rows) + "\n")
        datasets.append(path)
    problems = [json.loads(r) for r in rows]
    run_ids_ = []
    for solved in range(3):
        answers = tmp_path / f"model{solved}.jsonl"
        answers.write_text(
            "".join(
                json.dumps(
                    {
                        "problem_id": p["id"],
                        "response": p["solution"] if i < solved else _wrong(p["starter_code"]),
                    }
                )
                + "\n"
                for i, p in enumerate(problems)
            )
        )
        for dataset in datasets:
            out = tmp_path / "run.json"
            _invoke(
                "run", "-d", str(dataset), "-m", f"replay:{answers}", "--results", str(tmp_path),
                "--json", str(out),
            )  # fmt: skip
            run_ids_.append(json.loads(out.read_text())["summary"]["run_id"])
    out = tmp_path / "c.json"
    _invoke("compare", *run_ids_, "--json", str(out), "--results", str(tmp_path))
    correlation = json.loads(out.read_text())["correlation"]
    assert correlation["rho"] == 1.0 and len(correlation["models"]) == 3
    assert correlation["datasets"][0].startswith(str(datasets[0]))
