"""Every run, report and validation states how its verdicts were reached: trusted by default, or
in-process (PINBENCH_GRADING=in-process), marked forgeable everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.sandbox.grade import MODE_VARIABLE, current_grading, grading_digest

pytestmark = pytest.mark.integration


def test_the_modes_are_stated_and_keyed_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    default = current_grading()
    assert (default.mode, default.forgeable) == ("trusted", False)
    monkeypatch.setenv(MODE_VARIABLE, "in-process")
    in_process = current_grading()
    assert (in_process.mode, in_process.forgeable) == ("in-process", True)
    assert in_process.digest != default.digest  # the outcome cache keys apart
    monkeypatch.setenv(MODE_VARIABLE, "bogus")
    with pytest.raises(ValueError, match="PINBENCH_GRADING"):
        current_grading()


def test_run_report_and_validate_state_the_grading_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODE_VARIABLE, "in-process")
    row = {
        "id": "grading-mode",
        "library": "packaging",
        "version": "22.0",
        "python_version": "3.11",
        "problem": "Return packaging's version.",
        "solution": "import packaging\n\n\ndef v():\n    return packaging.__version__\n",
        "hidden_test": {"kind": "script", "code": "assert v() == '22.0'"},
    }
    dataset = tmp_path / "one.jsonl"
    dataset.write_text(json.dumps(row) + "\n")
    expected = {"mode": "in-process", "forgeable": True, "digest": grading_digest()}
    runner = CliRunner()

    checked = runner.invoke(app, ["validate", str(dataset), "--json", str(tmp_path / "v.json")])
    assert checked.exit_code == 0, checked.output
    assert "grading: in-process (forgeable" in checked.output
    assert json.loads((tmp_path / "v.json").read_text())["grading"] == expected

    results = str(tmp_path / "results")
    ran = runner.invoke(
        app,
        ["run", "-m", "reference", "-d", str(dataset), "--results", results,
         "--json", str(tmp_path / "r.json")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert "grading: in-process (forgeable: a program written to defeat the grader" in ran.output
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["grading"] == expected

    html, report = tmp_path / "r.html", tmp_path / "p.json"
    shown = runner.invoke(
        app, ["report", "latest", "--results", results, "--json", str(report), "--html", str(html)]
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(report.read_text())["summary"]["grading"] == expected
    assert 'id="grading">grading: in-process (forgeable' in html.read_text()
