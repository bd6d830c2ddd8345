"""Text from programs and datasets is data on the host, never terminal markup: ids, messages and
program output with brackets (`[/x]`, `[bold]`) print as they are, and every `--json` is written
before anything is printed (a rendering failure could otherwise lose the results)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app

pytestmark = pytest.mark.integration

PASSING = "markup-[/x]-ok"
FAILING = "[bold]markup[/bold]-[red]"
MESSAGE = "[/oops] expected [red]1[/red]"


def _dataset(tmp_path: Path) -> Path:
    rows = [
        {
            "id": problem_id,
            "library": "packaging",
            "version": "22.0",
            "python_version": "3.11",
            "problem": "Return packaging's version [as a string].",
            "solution": "import packaging\n\n\ndef v():\n    return packaging.__version__\n",
            "hidden_test": {"kind": "script", "code": test},
        }
        for problem_id, test in (
            (PASSING, "assert v() == '22.0'"),
            (FAILING, f"assert v() == '0', {MESSAGE!r}"),
        )
    ]
    path = tmp_path / "brackets.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_validate_run_and_report_print_bracketed_text_as_it_is(tmp_path: Path) -> None:
    dataset, results = _dataset(tmp_path), str(tmp_path / "results")
    runner = CliRunner()
    checked = runner.invoke(app, ["validate", str(dataset), "--json", str(tmp_path / "v.json")])
    assert checked.exit_code == 1, checked.output  # one problem is unsound: not a crash
    assert "MarkupError" not in checked.output and "Traceback" not in checked.output
    assert FAILING in checked.output and "[/oops]" in checked.output
    document = json.loads((tmp_path / "v.json").read_text())
    assert document["summary"] == {
        "sound": 1, "unsound": 1, "unverified": 0, "not_discriminative": 0, "flaky": 0,
        "problems": 2,
    }  # fmt: skip

    ran = runner.invoke(
        app,
        ["run", "-m", "reference", "-d", str(dataset), "--results", results,
         "--json", str(tmp_path / "r.json")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    samples = {s["problem_id"]: s for s in json.loads((tmp_path / "r.json").read_text())["samples"]}
    assert samples[PASSING]["passed"] and not samples[FAILING]["passed"]
    reported = runner.invoke(
        app, ["report", "latest", "--results", results, "--json", str(tmp_path / "p.json")]
    )
    assert reported.exit_code == 0, reported.output
    problems = {p["id"]: p for p in json.loads((tmp_path / "p.json").read_text())["problems"]}
    assert MESSAGE in problems[FAILING]["trace"]
