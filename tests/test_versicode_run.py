"""The VersiCode tasks through `pinbench run --task completion|editing`: string metrics beside
execution, on tasks derived from the builtin benchmark and on VersiCode's own file format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.splits import select_split
from pinbench.tasks.versicode.builtin import derive
from pinbench.tasks.versicode.model import Granularity

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "versicode"
pytestmark = pytest.mark.integration


def _run(tmp_path: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = tmp_path / "run.json"
    result = CliRunner().invoke(app, ["run", *args, "--results", str(tmp_path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_reference_completion_matches_and_executes(tmp_path: Path) -> None:
    document = _run(tmp_path, "-m", "reference", "--task", "completion", "--split", "quick",
                    "--granularity", "line")  # fmt: skip
    scores = document["summary"]["scores"]
    assert scores["rounds"][0]["pass_at"][0]["mean"] == 1.0  # every restored program passes
    assert scores["strings"]["em"][0]["mean"] == 1.0
    assert scores["strings"]["ism"][0]["mean"] == 1.0
    assert scores["agreement"] == {"samples": scores["samples"], "string_only": 0,
                                   "execution_only": 0}  # fmt: skip
    assert document["summary"]["config"]["task"] == "completion"
    assert all(s["outcome"] == "passed" for s in document["samples"])


def test_string_metrics_and_execution_disagree_on_respaced_lines(tmp_path: Path) -> None:
    """A line answer with different spacing is no exact match, yet the program passes."""
    problems = select_split(load_dataset(Path("builtin")).problems, "quick")
    tasks = [t for t in derive(problems).completion if t.granularity is Granularity.LINE]
    rows = []
    for task in tasks:
        respaced = re.sub(r"\(", "( ", task.answer, count=1)
        rows.append({"problem_id": task.id, "response": f"<start>{respaced}<end>"})
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    document = _run(tmp_path, "-m", f"replay:{answers}", "--task", "completion", "--split",
                    "quick", "--granularity", "line")  # fmt: skip
    agreement = document["summary"]["scores"]["agreement"]
    changed = sum("(" in t.answer for t in tasks)
    assert agreement["execution_only"] == changed > 0
    assert agreement["string_only"] == 0
    assert document["summary"]["scores"]["strings"]["em"][0]["mean"] < 1.0


def test_reference_editing_both_directions(tmp_path: Path) -> None:
    document = _run(tmp_path, "-m", "reference", "--task", "editing", "--split", "quick")
    scores = document["summary"]["scores"]
    assert scores["rounds"][0]["pass_at"][0]["mean"] == 1.0
    assert scores["strings"]["em"][0]["mean"] == 1.0
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        app, ["report", "latest", "--json", str(report), "--results", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    by_tag = json.loads(report.read_text())["by_tag"]
    assert {"direction", "transition", "lifespan", "source"} <= set(by_tag)
    assert {g["name"] for g in by_tag["direction"]} == {"old_to_new", "new_to_old"}


def test_versicode_files_are_scored_by_strings_without_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    monkeypatch.setattr("pinbench.envs.ensure", lambda spec: built.append(spec))
    document = _run(tmp_path, "-m", "reference", "--task", "completion", "-d", str(FIXTURES))
    assert built == []  # no test to run: no environment is built
    scores = document["summary"]["scores"]
    assert scores["samples"] > 0
    assert {s["outcome"] for s in document["samples"]} == {"generated"}  # nothing to execute
    assert scores["strings"]["em"][0]["mean"] == 1.0
    assert scores["rounds"][0]["pass_at"][0]["mean"] is None
    assert scores["agreement"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--task", "translation"), "unknown task"),
        (("--task", "completion", "--granularity", "paragraph"), "paragraph"),
        (("--task", "completion", "--metric-variant", "lenient"), "lenient"),
    ],
)
def test_bad_task_options_get_one_clear_error(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = CliRunner().invoke(app, ["run", "-m", "reference", "--results", str(tmp_path), *args])
    assert result.exit_code == 2 and message in result.output
