"""A row nested past the JSON decoder's depth is that row's `file:line` error: the rest of the
dataset loads, in every format that reads JSON lines (native, GitChameleon 2.0, IDE cases)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.ide import dataset as ide_dataset

REPO = Path(__file__).resolve().parent.parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
BOMB = "[" * 100_000 + "\n"


def test_a_nested_row_in_a_native_dataset_is_one_issue(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines(keepends=True)
    path = tmp_path / "problems.jsonl"
    path.write_text(lines[0] + BOMB + "".join(lines[1:]))
    loaded = load_dataset(path)
    assert len(loaded.problems) == len(lines)
    assert [str(i) for i in loaded.issues] == [f"{path}:2: invalid JSON: nested too deeply"]


def test_a_nested_answer_row_of_gitchameleon2_is_one_issue(tmp_path: Path) -> None:
    source = REPO / "tests" / "fixtures" / "gitchameleon2"
    target = tmp_path / "gc2"
    shutil.copytree(source, target)
    path = target / "dataset.jsonl"
    first, *rest = path.read_text().splitlines(keepends=True)
    path.write_text(first + BOMB + "".join(rest))
    loaded = load_dataset(target)
    assert any(":2: invalid JSON: nested too deeply" in str(i) for i in loaded.issues)
    assert len(loaded.problems) >= 1


def test_a_nested_row_of_ide_cases_is_one_issue(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"scenario": "doc", "snapshot": "x"}) + "\n" + BOMB)
    cases, issues = ide_dataset.read(path)
    assert cases == [] and f"{path}:2: invalid JSON: nested too deeply" in [str(i) for i in issues]
