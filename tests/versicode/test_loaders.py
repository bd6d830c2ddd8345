"""VersiCode's JSON files as published: both kinds, their quirks, and malformed items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinbench.core.datasets import DatasetError
from pinbench.tasks.versicode import loaders
from pinbench.tasks.versicode.model import EditDirection, Granularity, Lifespan, Source, Transition

ROOT = Path(__file__).parent.parent / "fixtures" / "versicode"
COMPLETION = ROOT / "code_completion"
TOKEN = COMPLETION / "library_source_code" / "library_source_code_token.json"
LINE = COMPLETION / "stackoverflow" / "stackoverflow_line.json"
BLOCK = COMPLETION / "downstream_application_code" / "downstream_application_code_block.json"
EDITING = ROOT / "code_editing" / "code_editing_old_to_new.json"


@pytest.fixture(scope="module")
def loaded() -> loaders.VersiCodeResult:
    return loaders.load(ROOT)


def test_a_directory_loads_both_kinds(loaded: loaders.VersiCodeResult) -> None:
    assert [t.id for t in loaded.completion] == [
        "downstream_application_code_block_1",
        "library_source_code_token_1",
        "library_source_code_token_2",
        "library_source_code_token_4",  # '<2.0': a constraint, read as one
        "stackoverflow_line_1",
        "stackoverflow_line_2",
    ]
    assert [t.id for t in loaded.editing] == [
        "code_editing_old_to_new_1",
        "code_editing_old_to_new_2",
    ]


def test_malformed_items_are_issues_naming_file_line_and_index(
    loaded: loaders.VersiCodeResult,
) -> None:
    assert [str(issue) for issue in loaded.issues] == [
        f"{BLOCK}:18: item 1: neither a completion item (masked_code) nor an editing item "
        "(old_code)",
        f"{TOKEN}:34: item 2: missing field dependency",
        f"{TOKEN}:66: item 4: answer put back in masked_code does not give code",
        f"{TOKEN}:82: item 5: language 'java': only Python is supported",
        f"{LINE}:31: item 2: masked_code holds no mask (<token_mask>, <line_mask>, <block_mask>)",
        f"{EDITING}:38: item 2: missing field new_code",
        f"{EDITING}:55: item 3: new_version 'latest' is not a version or a version constraint: "
        "'latest' is not a version",
    ]


def test_token_items(loaded: loaders.VersiCodeResult) -> None:
    tasks = {t.id: t for t in loaded.completion}
    first = tasks["library_source_code_token_1"]
    assert first.granularity is Granularity.TOKEN
    assert (first.answer, first.api, first.meta.api) == ("isin", "isin", "isin")
    assert first.masked_code.count("<token_mask>") == 2  # VersiCode masks every occurrence
    assert first.restore() == first.meta.code
    assert first.masked_line == "mask = torch.isin(elements, test_elements)"
    assert (first.meta.library, first.meta.version, first.meta.release_date) == (
        "torch",
        "1.10.0",
        "2021-10",
    )
    assert (first.source, first.lifespan) == (Source.LIBRARY_SOURCE_CODE, Lifespan.ADDITION)
    assert first.origin == f"{TOKEN}:3"
    second = tasks["library_source_code_token_2"]
    # '>=1.8.0' is a constraint, no release chosen; no granularity field: the id says token
    assert (second.meta.version, second.meta.constraint) == (None, ">=1.8.0")
    assert second.meta.requirement == "torch>=1.8.0"
    assert second.granularity is Granularity.TOKEN
    assert second.lifespan is Lifespan.DEPRECATION  # type: name_change_old
    bounded = tasks["library_source_code_token_4"]
    assert (bounded.meta.version, bounded.meta.constraint) == (None, "<2.0")


def test_line_items(loaded: loaders.VersiCodeResult) -> None:
    tasks = {t.id: t for t in loaded.completion}
    first = tasks["stackoverflow_line_1"]
    assert first.answer == "lambda x, y: (tf.image.resize(x, (64, 64)), y)"
    assert first.api == "resize"  # VersiCode's `answer` names the API at every granularity
    assert "\n    <line_mask>\n" in first.masked_code
    assert first.restore() == first.meta.code
    assert first.lifespan is Lifespan.UNKNOWN  # stackoverflow items have no `type`
    second = tasks["stackoverflow_line_2"]
    assert second.meta.version == "2.0"  # the JSON number 2.0, read as text
    assert second.source is Source.STACKOVERFLOW  # no `source`: read from the id
    assert second.answer == "with tf.compat.v1.Session() as sess:"  # no masked_line: cut out


def test_block_items_in_a_bare_list(loaded: loaders.VersiCodeResult) -> None:
    block = next(t for t in loaded.completion if t.granularity is Granularity.BLOCK)
    assert block.answer.startswith("squared = frame.applymap(")
    assert block.masked_line == "squared = frame.applymap(lambda value: value ** 2)"
    assert block.restore() == block.meta.code
    assert (block.source, block.lifespan) == (
        Source.DOWNSTREAM_APPLICATION_CODE,
        Lifespan.GENERAL,
    )
    assert block.origin == f"{BLOCK}:2"


def test_editing_items(loaded: loaders.VersiCodeResult) -> None:
    first, second = loaded.editing
    assert first.direction is EditDirection.OLD_TO_NEW
    assert (first.old.version, first.new.version) == ("1.26.0", "2.0.0")
    assert (first.old.api, first.new.api) == ("trapz", "trapezoid")
    assert (first.old.release_date, first.new.release_date) == ("2023-09", "2024-06")
    assert first.from_meta is first.old and first.to_meta is first.new
    assert first.transition is Transition.MINOR_TO_MAJOR
    assert first.source is Source.LIBRARY_SOURCE_CODE
    # no edit_order: the file name says old_to_new
    assert second.direction is EditDirection.OLD_TO_NEW
    assert second.old.library == "pandas"


def test_a_single_file_loads(loaded: loaders.VersiCodeResult) -> None:
    result = loaders.load(LINE)
    assert [t.id for t in result.completion] == ["stackoverflow_line_1", "stackoverflow_line_2"]
    assert len(result.issues) == 1


def write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_direction_the_file_cannot_tell_is_an_issue(tmp_path: Path) -> None:
    item = {
        "dependency": "numpy",
        "old_version": "==1.26.0",
        "new_version": "==2.0.0",
        "old_code": "a",
        "new_code": "b",
    }
    result = loaders.load(write(tmp_path, "editing.json", [item]))
    assert [i.reason for i in result.issues] == [
        "item 0: no edit_order, and the file name names no direction"
    ]
    result = loaders.load(write(tmp_path, "code_editing_new_to_old.json", {"data": [item]}))
    assert result.editing[0].direction is EditDirection.NEW_TO_OLD
    assert result.editing[0].transition is Transition.MAJOR_TO_MINOR


def test_items_that_are_not_objects_or_have_odd_fields(tmp_path: Path) -> None:
    items = [
        "oops",
        {
            "dependency": "numpy",
            "version": "==1",
            "masked_code": "b = <line_mask>",
            "code": "a = 1",
        },
        {"dependency": "numpy", "version": "==1", "masked_code": "x", "granularity": "word"},
        {"dependency": "numpy", "version": "==1", "masked_code": "<token_mask><line_mask>"},
        {"dependency": "numpy", "version": "==1", "masked_code": "np.<token_mask>"},
    ]
    result = loaders.load(write(tmp_path, "odd.json", {"data": items}))
    assert [i.reason for i in result.issues] == [
        "item 0: not a JSON object",
        "item 1: missing field masked_line",  # and `code` is not around the mask to cut it out
        "item 2: granularity 'word' is not token, line or block",
        "item 3: no granularity, and masked_code holds <token_mask>, <line_mask>",
        "item 4: missing field answer",
    ]
    assert [i.line for i in result.issues] == [1, 1, 1, 1, 1]  # one line of JSON


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"data": [', "odd.json:1: invalid JSON"),
        ('{"rows": []}', "neither a JSON list nor an object with a 'data' list"),
        ("3", "neither a JSON list nor an object with a 'data' list"),
    ],
)
def test_unreadable_files_are_dataset_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        loaders.load(path)


def test_a_missing_path_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        loaders.load(tmp_path / "absent.json")


def test_the_data_key_is_found_among_others_and_a_bom_is_ignored(tmp_path: Path) -> None:
    item = {"dependency": "numpy", "version": "==1.0", "masked_code": "<token_mask>()"}
    text = json.dumps({"meta": {"data": 1}, "data": [item, item]}, indent=2)
    path = tmp_path / "wrapped.json"
    path.write_text("\ufeff" + text, encoding="utf-8")
    result = loaders.load(path)
    assert [(i.line, i.reason) for i in result.issues] == [
        (6, "item 0: missing field answer"),
        (11, "item 1: missing field answer"),
    ]
