"""replay: published outputs in the shapes they come in, mapped onto the dataset's problems."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from pinbench.models.base import ModelError, Request
from pinbench.models.replay import ReplayModel, read_answers
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.versicode import loaders
from pinbench.tasks.versicode.task import items_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _gc2() -> list:  # type: ignore[type-arg]
    return load_dataset(FIXTURES / "gitchameleon2").problems


def test_gitchameleon_example_id_rows_map_to_the_loaders_ids(tmp_path: Path) -> None:
    problems = _gc2()
    bare = problems[0].id.removeprefix("gc2-")
    path = tmp_path / "solutions.jsonl"
    path.write_text(json.dumps({"example_id": bare, "answer": "print(1)"}) + "\n")
    answers = read_answers(path, [p.id for p in problems])
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
    answers = read_answers(path, [p.id for p in problems])
    assert [answers[(pid, i, 0)] for i in range(5)] == ["a", "b", "c", "d", "e"]


def test_a_json_object_of_id_to_answers(tmp_path: Path) -> None:
    problems = _gc2()
    path = tmp_path / "results.json"
    path.write_text(json.dumps({problems[0].id: ["one", "two"]}))
    answers = read_answers(path, [p.id for p in problems])
    assert answers[(problems[0].id, 1, 0)] == "two"


def test_missing_answers_are_model_errors_not_crashes(tmp_path: Path) -> None:
    problems = _gc2()
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"problem_id": problems[0].id, "response": "x"}) + "\n")
    model = ReplayModel(path, [p.id for p in problems])
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
        read_answers(path, [p.id for p in problems])


# --- VersiCode's result files: dataset items with `model_output` added --------------------

VERSICODE = FIXTURES / "replay" / "results_line.json"  # crafted, in the published shape


def _versicode(path: Path = VERSICODE) -> list[str]:
    return [item.id for item in items_of(loaders.load(path).completion)]


def test_a_versicode_result_file_is_read_as_published() -> None:
    answers = read_answers(VERSICODE, _versicode())
    assert answers == {
        # the text of a Python list, quotes and all; element i is sample i
        ("results_line_a", 0, 0): "<start>x = np.zeros(3)<end>",
        ("results_line_a", 1, 0): "<start>x = np.ones(3)  # it's<end>",
        # a real JSON list
        ("results_line_b", 0, 0): "<start>y = np.sum(a)<end>",
        # no id: the loader's name for it
        ("results_line_3", 0, 0): "<start>s = np.std(a)<end>",
        ("results_line_3", 1, 0): "<start>s = a.std()<end>",
    }  # results_line_c has only the gold `answer`: no reply


def test_the_gold_answer_is_never_the_reply(tmp_path: Path) -> None:
    ids = _versicode()
    items = json.loads(VERSICODE.read_text())["data"]
    bare = tmp_path / "results_line.json"  # a bare list, as VersiCode's loader also reads
    bare.write_text(json.dumps(items, indent=2))
    model = ReplayModel(bare, ids)
    first = asyncio.run(model.generate(Request(problem_id="results_line_a", sample=1)))
    assert first.text == "<start>x = np.ones(3)  # it's<end>"
    gold = asyncio.run(model.generate(Request(problem_id="results_line_c", sample=0)))
    assert not gold.text and gold.error and "no answer for results_line_c" in gold.error
    # a VersiCode file without any outputs is not replayed as its own gold answers
    for item in items:
        item.pop("model_output", None)
    bare.write_text(json.dumps({"data": items}))
    with pytest.raises(ModelError, match="VersiCode items without model outputs"):
        read_answers(bare, ids)


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("'<start>x<end>'", "must be a list of strings, got str"),
        ("('<start>x<end>',)", "must be a list of strings, got tuple"),
        ("['<start>x<end>', 2]", "must be a list of strings, got a list holding int"),
        (["<start>x<end>", None], "must be a list of strings, got a list holding NoneType"),
        ({"a": "b"}, "must be a list of strings, got dict"),
        ("['<start>x<end>'", "not the text of a Python list of strings"),
        ("<start>x = 1<end>", "not the text of a Python list of strings"),
        # never evaluated: a call is not a literal
        ("__import__('os').system('touch pwned')", "not the text of a Python list of strings"),
        ("[str(1)]", "not the text of a Python list of strings"),
    ],
)
def test_a_model_output_that_is_not_a_list_of_strings_names_file_line_and_item(
    tmp_path: Path, output: object, message: str
) -> None:
    items = json.loads(VERSICODE.read_text())["data"]
    items[1]["model_output"] = output
    path = tmp_path / "results_line.json"
    path.write_text(json.dumps({"data": items}, indent=4))
    line = 1 + path.read_text().splitlines().index("        {", 3)  # item 1's opening brace
    with pytest.raises(ModelError, match=rf"results_line\.json:{line}: item 1: model_output"):
        read_answers(path, _versicode())
    with pytest.raises(ModelError, match=re.escape(message)):
        read_answers(path, _versicode())
    assert not (tmp_path / "pwned").exists()


def test_item_ids_are_the_loader_s(tmp_path: Path) -> None:
    items = json.loads(VERSICODE.read_text())["data"]
    items[0]["id"] = "  results_line_a "  # the loader strips it
    items[1]["id"] = ""  # ... and names a blank one by stem and index, like a missing one
    path = tmp_path / "results_line.json"
    path.write_text(json.dumps({"data": items}))
    ids = _versicode(path)
    assert set(ids) == {"results_line_a", "results_line_1", "results_line_c", "results_line_3"}
    answers = read_answers(path, ids)
    assert {pid for pid, _, _ in answers} == {"results_line_a", "results_line_1", "results_line_3"}


def test_existing_formats_are_unchanged_by_versicode_files(tmp_path: Path) -> None:
    """Without VersiCode items, `answer` is still a reply (GitChameleon's files) and an object
    with a `data` key of texts is still id -> answers."""
    problems = _gc2()
    pid = problems[0].id
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{"problem_id": pid, "answer": "print(1)"}], indent=4))
    assert read_answers(path, [p.id for p in problems]) == {(pid, 0, 0): "print(1)"}
    path.write_text(json.dumps({pid: ["a", "b"], "data": ["c"]}))
    assert read_answers(path, [p.id for p in problems]) == {(pid, 0, 0): "a", (pid, 1, 0): "b"}
