"""A task family is one module and one registry entry: the worked example of
docs/architecture.md, read from the page itself, runs end to end through `pinbench.evaluation.api`
(real environment, real sandbox, real store), with its own string metric and breakdown."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pinbench.core.outcome import Status
from pinbench.evaluation import api
from pinbench.report.data import build_report
from pinbench.store.runs import RunStore
from pinbench.tasks import registry

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "architecture.md"

pytestmark = pytest.mark.integration

QUESTIONS = [
    {
        "id": "quiz-version",
        "library": "packaging",
        "version": "22.0",
        "python": "3.11",
        "question": "Define version() returning packaging's version string.",
        "solution": "import packaging\n\n\ndef version():\n    return packaging.__version__\n",
        "test": "assert version() == '22.0'",
        "topic": "strings",
    },
    {
        "id": "quiz-major",
        "library": "packaging",
        "version": "22.0",
        "python": "3.11",
        "question": "Define major() returning packaging's major version as an int.",
        "solution": (
            "import packaging\n\n\ndef major():\n"
            "    return int(packaging.__version__.split('.')[0])\n"
        ),
        "test": "assert major() == 22",
        "topic": "numbers",
    },
]


def _example(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The family module exactly as the page shows it."""
    page = PAGE.read_text(encoding="utf-8")
    section = page[page.index("## Adding a task family") :]
    code = re.search(r"^```python\n(\"\"\"Quiz.*?)^```$", section, re.DOTALL | re.MULTILINE)
    assert code is not None, "the worked example is gone from docs/architecture.md"
    spec = importlib.util.spec_from_loader("quiz_family", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "quiz_family", module)  # pydantic resolves names there
    exec(compile(code.group(1), str(PAGE), "exec"), module.__dict__)
    return module


@pytest.fixture
def quiz(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setitem(
        registry.TASKS, "quiz", _example(monkeypatch).FAMILY
    )  # the one registry line
    path = tmp_path / "questions.jsonl"
    rows = [json.dumps(q) for q in QUESTIONS] + ['{"id": "broken"}']
    path.write_text("\n".join(rows) + "\n")
    return path


def test_the_worked_example_runs_scores_and_reports_like_a_builtin_task(
    quiz: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    planned = api.plan(model="reference", dataset=str(quiz), task="quiz")
    assert [item.id for item in planned.loaded.items] == ["quiz-version", "quiz-major"]
    assert len(planned.skipped) == 1 and f"{quiz}:3:" in planned.skipped[0]
    summary = api.run(planned, results=results, jobs=2)
    assert summary.scores.rounds[0].pass_at[0].mean == 1.0
    assert summary.scores.strings["exact"][0].mean == 1.0
    assert summary.scores.statuses == {Status.PASSED: 2}

    wrong = tmp_path / "wrong.jsonl"
    answers = {
        "quiz-version": "```python\n" + QUESTIONS[0]["solution"] + "```",
        "quiz-major": "```python\ndef major():\n    return 21\n```",  # runs, and fails its test
    }
    wrong.write_text(
        "".join(json.dumps({"id": k, "response": v}) + "\n" for k, v in answers.items())
    )
    replayed = api.run(
        api.plan(model=f"replay:{wrong}", dataset=str(quiz), task="quiz"), results=results, jobs=2
    )
    assert replayed.run_id != summary.run_id
    assert replayed.scores.rounds[0].pass_at[0].mean == 0.5
    assert replayed.scores.strings["exact"][0].mean == 0.5
    with RunStore.at(results) as store:
        samples = {s.problem_id: s for s in store.samples(replayed.run_id)}
        assert samples["quiz-major"].status is Status.FAILED
        assert samples["quiz-major"].exc_type == "AssertionError"
        row = store.run(replayed.run_id)
        assert row is not None
        report = build_report(store, row)
    topics = {g.name: g.baseline for g in report.by_tag["topic"]}
    assert topics == {"strings": 1.0, "numbers": 0.0}


def test_an_unknown_task_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(api.RunError, match=r"unknown task 'quizz' \(generation, completion"):
        api.plan(model="reference", dataset=str(tmp_path), task="quizz")
