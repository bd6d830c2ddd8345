"""`pinbench.run` and `pinbench.validate` are what the command line calls: the same options name
the same run (one run id, resumed rather than redone), and bad input is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pinbench
from pinbench.cli import app
from pinbench.core.datasets import DatasetError
from pinbench.evaluation.api import RunError

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
ONLY = ("packaging-22.0-01", "packaging-22.0-02")

pytestmark = pytest.mark.integration


def test_the_library_and_the_cli_run_the_same_run(tmp_path: Path) -> None:
    summary = pinbench.run(model="reference", dataset=str(SAMPLE), only=ONLY, results=tmp_path)
    assert summary.scores.rounds[0].pass_at[0].mean == 1.0 and not summary.resumed
    out = tmp_path / "run.json"
    args = ["run", "-m", "reference", "-d", str(SAMPLE), "--results", str(tmp_path)]
    result = CliRunner().invoke(
        app, [*args, "--only", ONLY[1], "--only", ONLY[0], "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["summary"]["run_id"] == summary.run_id  # --only order is not identity
    assert document["summary"]["resumed"] is True
    assert document["summary"]["requests"] == {"asked": 0, "cached": 0, "errors": 0}


def test_bad_input_to_the_library_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="unknown preset 'fast'"):
        pinbench.run(model="reference", dataset=str(SAMPLE), preset="fast", results=tmp_path)
    with pytest.raises(RunError, match=r"pass@k needs k <= n \(k=\(1, 10\), n=1\)"):
        pinbench.run(model="reference", dataset=str(SAMPLE), k=(1, 10), results=tmp_path)
    with pytest.raises(RunError, match="no such file"):
        pinbench.run(model="reference", dataset=str(tmp_path / "none.jsonl"), results=tmp_path)
    with pytest.raises(DatasetError, match="no such file"):
        pinbench.validate(tmp_path / "none.jsonl")


def test_validate_from_the_library_proves_problems_sound() -> None:
    fixture = REPO / "tests" / "fixtures" / "validate" / "problems.jsonl"
    checked = pinbench.validate(fixture, only=("sound-script",))
    assert checked.summary["sound"] == checked.summary["problems"] == 1
    assert checked.problems[0].id == "sound-script" and checked.format == "pinbench"
