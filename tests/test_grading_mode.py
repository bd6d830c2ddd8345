"""Every run, report and validation states how its verdicts were reached: trusted by default, or
in-process (PINBENCH_GRADING=in-process), marked forgeable everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    expected = {
        "mode": "in-process",
        "forgeable": True,
        "digest": grading_digest(),
        "in_process": [],
        "shares_state": [],
    }
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


def test_an_item_whose_reference_needs_one_process_is_graded_there_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trusted grading, decided per item by its reference alone: a test that asks the
    program's class questions only one process can answer is graded in-process and listed as
    forgeable; every other item stays trusted, where an object that equals everything fails."""
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    base = {"library": "packaging", "version": "22.0", "python_version": "3.11"}
    rows = [
        {
            **base,
            "id": "value",
            "problem": "Return packaging's version.",
            "solution": "import packaging\n\n\ndef v():\n    return packaging.__version__\n",
            "hidden_test": {"kind": "script", "code": "assert v() == '22.0'"},
        },
        {
            **base,
            "id": "klass",
            "problem": "Return a class named Widget.",
            "solution": "def make():\n    class Widget:\n        pass\n    return Widget\n",
            "hidden_test": {
                "kind": "script",
                "code": "W = make()\nassert isinstance(W, type) and W.__name__ == 'Widget'",
            },
        },
        {
            **base,
            "id": "visible",
            "problem": "Return a class named Widget.",
            "solution": "def make():\n    class Widget:\n        pass\n    return Widget\n",
            "hidden_test": {"kind": "script", "code": "assert make().__name__ == 'Widget'"},
            "visible_test": {"kind": "script", "code": "assert isinstance(make(), type)"},
        },
    ]
    dataset = tmp_path / "three.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runner = CliRunner()
    checked = runner.invoke(app, ["validate", str(dataset), "--json", str(tmp_path / "v.json")])
    assert checked.exit_code == 0, checked.output
    document = json.loads((tmp_path / "v.json").read_text())
    assert document["grading"]["mode"] == "trusted"
    assert document["grading"]["in_process"] == ["klass", "visible"]  # either test decides
    assert {p["id"]: p["in_process"] for p in document["problems"]} == {
        "value": False,
        "klass": True,
        "visible": True,
    }
    assert "2 graded in-process, forgeable" in checked.output
    why = {p["id"]: p["out_of_process"] for p in document["problems"]}
    assert why["value"] is None and set(why["visible"]) == {"visible_test"}  # what failed
    assert (
        set(why["klass"]) == {"hidden_test"} and why["klass"]["hidden_test"]["status"] == "failed"
    )

    cheat = "class Any:\n    def __eq__(self, other):\n        return True\n\n\ndef v():\n"
    cheat += "    return Any()\n"
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps({"problem_id": "value", "response": f"```python\n{cheat}```"})
        + "\n"
        + json.dumps({"problem_id": "klass", "response": f"```python\n{rows[1]['solution']}```"})
        + "\n"
        + json.dumps({"problem_id": "visible", "response": f"```python\n{rows[2]['solution']}```"})
        + "\n"
    )
    ran, run = _replay(runner, tmp_path, dataset, answers)
    assert run["summary"]["grading"]["in_process"] == ["klass", "visible"]
    outcomes = {s["problem_id"]: s["outcome"] for s in run["samples"]}
    assert outcomes == {"value": "failed", "klass": "passed", "visible": "passed"}
    assert "2 item(s) in-process, forgeable" in ran.output


def test_an_item_whose_reference_needs_the_programs_pyplot_shares_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test that finds the program's figure through pyplot (`plt.gca()`) needs the
    program's pyplot: its item is graded out of the program's process with pyplot shared,
    listed as such (not as in-process), and a wrong figure still fails; an item whose
    reference passes without it keeps its own pyplot."""
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    base = {"library": "matplotlib", "version": "3.8.0", "python_version": "3.11"}
    draw = "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\n\n"
    draw += "def draw(values):\n    plt.plot(values)\n    plt.title('values')\n"
    rows = [
        {
            **base,
            "id": "figure",
            "problem": "Plot the values with the title 'values'.",
            "solution": draw,
            "hidden_test": {
                "kind": "script",
                "code": "import matplotlib.pyplot as plt\ndraw([1, 2])\n"
                "assert plt.gca().get_title() == 'values'",
            },
        },
        {
            **base,
            "id": "own",
            "problem": "Plot the values with the title 'values'.",
            "solution": draw,
            "hidden_test": {
                "kind": "script",
                "code": "import matplotlib.pyplot as plt\ndraw([1, 2])\n"
                "assert plt.get_fignums() == []  # the test's own pyplot: no figure of its own",
            },
        },
    ]
    dataset = tmp_path / "two.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runner = CliRunner()
    checked = runner.invoke(app, ["validate", str(dataset), "--json", str(tmp_path / "v.json")])
    assert checked.exit_code == 0, checked.output
    document = json.loads((tmp_path / "v.json").read_text())
    assert document["grading"]["shares_state"] == ["figure"]
    assert document["grading"]["in_process"] == []
    assert "1 graded with state shared (the program's pyplot" in checked.output
    reports = {p["id"]: p for p in document["problems"]}
    assert reports["figure"]["shares_state"] and not reports["figure"]["in_process"]
    assert set(reports["figure"]["out_of_process"]) == {"hidden_test"}
    assert not reports["own"]["shares_state"]

    wrong = draw.replace("plt.title('values')", "plt.title('other')")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"problem_id": i, "response": f"```python\n{program}```"}) + "\n"
            for i, program in (("figure", wrong), ("own", draw))
        )
    )
    ran, run = _replay(runner, tmp_path, dataset, answers)
    assert run["summary"]["grading"]["shares_state"] == ["figure"]
    outcomes = {s["problem_id"]: s["outcome"] for s in run["samples"]}
    assert outcomes == {"figure": "failed", "own": "passed"}
    assert "1 item(s) with state shared (the program's pyplot" in ran.output


def _replay(
    runner: CliRunner, tmp_path: Path, dataset: Path, answers: Path
) -> tuple[Any, dict[str, Any]]:
    """`pinbench run` of `answers` (replayed) on `dataset`: its result and its `--json`."""
    ran = runner.invoke(
        app,
        ["run", "-m", f"replay:{answers}", "-d", str(dataset), "--results",
         str(tmp_path / "results"), "--json", str(tmp_path / "r.json")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    return ran, json.loads((tmp_path / "r.json").read_text())
