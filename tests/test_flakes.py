"""Flaky problems: `validate --repeat N` runs each reference's hidden test N more times (never
from the cache, partly at once) and marks those whose outcomes disagree; a run then executes
each sample of such a problem several times and scores none whose outcomes disagree."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestKind, TestSpec
from pinbench.store.flakes import FlakeRegistry, flake_key

# a coin: with 21 runs, all alike has a probability of 2**-20
COIN = "import random\nassert random.random() < 0.5, 'tails'\n"


def _problem(pid: str, hidden: str) -> dict[str, object]:
    return {
        "id": pid,
        "library": "packaging",
        "version": "22.0",
        "python_version": "3.11",
        "problem": "Write `major(v)`.",
        "starter_code": "def major(v):\n",
        "solution": "def major(v):\n    return int(v.split('.')[0])\n",
        "hidden_test": {"kind": "script", "code": hidden},
    }


def test_repeat_marks_the_flaky_reference_and_a_run_does_not_score_its_samples(
    tmp_path: Path,
) -> None:
    rows = [
        _problem("steady", "assert major('3.1') == 3\n"),
        _problem("coin", f"assert major('3.1') == 3\n{COIN}"),
        _problem("broken", "assert major('3.1') == 4\n"),
    ]
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "validate.json"
    result = CliRunner().invoke(
        app, ["validate", str(dataset), "--repeat", "20", "--json", str(out)]
    )
    assert result.exit_code == 1, result.output  # not every problem is sound
    assert "1 flaky over 21 runs each" in result.output
    reports = {p["id"]: p for p in json.loads(out.read_text())["problems"]}
    assert reports["steady"]["verdict"] == "sound"
    assert reports["steady"]["repeats"]["runs"] == reports["steady"]["repeats"]["passed"] == 21
    assert reports["coin"]["verdict"] == "flaky"
    assert 0 < reports["coin"]["repeats"]["passed"] < reports["coin"]["repeats"]["runs"] == 21
    assert reports["broken"]["verdict"] == "unsound" and reports["broken"]["repeats"]["passed"] == 0

    registry = FlakeRegistry()
    spec = EnvSpec(version="3.11", pins=("packaging==22.0",))
    keys = {
        pid: flake_key(spec, TestSpec(kind=TestKind.SCRIPT, code=row["hidden_test"]["code"]),  # type: ignore[index]
                       str(row["solution"]))
        for pid, row in (("steady", rows[0]), ("coin", rows[1]))
    }  # fmt: skip
    assert registry.flaky(list(keys.values())) == {keys["coin"]}

    answers = tmp_path / "answers.jsonl"
    reference = "```python\ndef major(v):\n    return int(v.split('.')[0])\n```"
    answers.write_text(
        "".join(
            json.dumps({"problem_id": p, "sample": 0, "round": 0, "response": reference}) + "\n"
            for p in ("steady", "coin")
        )
    )
    summary_path = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        ["run", "-d", str(dataset), "-m", f"replay:{answers}", "--only", "steady", "--only",
         "coin", "--flaky-runs", "16", "--results", str(tmp_path / "res"),
         "--json", str(summary_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "known-flaky problems: 1 samples executed 16 times each, 1 disagreed" in result.output
    scores = json.loads(summary_path.read_text())["summary"]["scores"]
    assert scores["statuses"] == {"passed": 1, "flaky": 1}
    assert scores["flakes"] == {"reexecuted": 1, "flaky": 1}
    assert scores["rounds"][0]["pass_at"][0]["mean"] == 1.0  # the flaky sample is not scored
