"""A real recorded run to report on: the sample dataset's packaging problems, replayed with a
wrong first answer and a fixed second one (so error feedback has something to show), plus a
reference run to compare against."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset

REPO = Path(__file__).resolve().parent.parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
IDS = ("packaging-22.0-01", "packaging-22.0-02", "packaging-22.0-03")


def _wrong(starter: str) -> str:
    name = starter.split("def ", 1)[1].split("(", 1)[0]
    return f"```python\ndef {name}(*args, **kwargs):\n    return undefined_name\n```"


@pytest.fixture(scope="session")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory holding a feedback run (id in `runs.txt`, first line) and a
    reference run (second line)."""
    root = tmp_path_factory.mktemp("report")
    problems = [p for p in load_dataset(SAMPLE).problems if p.id in IDS]
    answers = root / "answers.jsonl"
    rows = []
    for index, problem in enumerate(problems):
        for sample in range(2):
            first = (
                problem.solution if (index == 0 and sample == 0) else _wrong(problem.starter_code)
            )
            rows.append({"problem_id": problem.id, "sample": sample, "round": 0, "response": first})
            rows.append(
                {
                    "problem_id": problem.id,
                    "sample": sample,
                    "round": 1,
                    "response": problem.solution,
                }
            )
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ids = []
    only = [arg for pid in IDS for arg in ("--only", pid)]
    for model, extra in (
        (f"replay:{answers}", ["-n", "2", "--feedback-rounds", "1"]),
        ("reference", []),
    ):
        out = root / f"{len(ids)}.json"
        result = CliRunner().invoke(
            app,
            [
                "run",
                "-d",
                str(SAMPLE),
                *only,
                "-m",
                model,
                *extra,
                "--results",
                str(root),
                "--json",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        ids.append(json.loads(out.read_text())["summary"]["run_id"])
    (root / "runs.txt").write_text("\n".join(ids))
    return root


def run_ids(results: Path) -> list[str]:
    return (results / "runs.txt").read_text().split()
