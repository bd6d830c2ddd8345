"""replay: published outputs in the shapes they come in, mapped onto the dataset's problems."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pinbench.models.base import ModelError, Request
from pinbench.models.replay import ReplayModel, read_answers
from pinbench.problems.loaders import load_dataset

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _gc2() -> list:  # type: ignore[type-arg]
    return load_dataset(FIXTURES / "gitchameleon2").problems


def test_gitchameleon_example_id_rows_map_to_the_loaders_ids(tmp_path: Path) -> None:
    problems = _gc2()
    bare = problems[0].id.removeprefix("gc2-")
    path = tmp_path / "solutions.jsonl"
    path.write_text(json.dumps({"example_id": bare, "answer": "print(1)"}) + "\n")
    answers = read_answers(path, problems)
    assert answers == {(problems[0].id, 0, 0): "print(1)"}


def test_rows_without_sample_index_are_samples_in_file_order(tmp_path: Path) -> None:
    problems = _gc2()
    pid = problems[0].id
    path = tmp_path / "out.jsonl"
    path.write_text(
        "".join(json.dumps({"problem_id": pid, "completion": t}) + "\n" for t in "abc")
        + json.dumps({"task_id": pid, "completions": ["x"], "output": ["d", "e"]})
        + "\n"
    )
    answers = read_answers(path, problems)
    assert [answers[(pid, i, 0)] for i in range(5)] == ["a", "b", "c", "d", "e"]


def test_a_json_object_of_id_to_answers(tmp_path: Path) -> None:
    problems = _gc2()
    path = tmp_path / "results.json"
    path.write_text(json.dumps({problems[0].id: ["one", "two"]}))
    answers = read_answers(path, problems)
    assert answers[(problems[0].id, 1, 0)] == "two"


def test_missing_answers_are_model_errors_not_crashes(tmp_path: Path) -> None:
    problems = _gc2()
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"problem_id": problems[0].id, "response": "x"}) + "\n")
    model = ReplayModel(path, problems)
    generation = asyncio.run(model.generate(Request(problem_id=problems[0].id, sample=3)))
    assert generation.error and "sample 3" in generation.error


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"problem_id": "gc2-x", "response": 1}\n', "neither text"),
        ("{not json\n", r"out.jsonl:1: not valid JSON"),
        ('{"problem_id": "nope", "response": "x"}\n', "no row names a problem"),
        ('{"problem_id": "P", "response": "x", "sample": "two"}\n', "sample must be an integer"),
    ],
)
def test_bad_files_name_the_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    problems = _gc2()
    path = tmp_path / "out.jsonl"
    path.write_text(content.replace('"P"', json.dumps(problems[0].id)))
    with pytest.raises(ModelError, match=message):
        read_answers(path, problems)
