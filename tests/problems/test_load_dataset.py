"""Format detection, --strict, and duplicate ids across every loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.core.datasets import DatasetError
from pinbench.tasks.generation.loaders import detect_format, load_dataset

FIXTURES = Path(__file__).parent.parent / "fixtures"
GC1 = FIXTURES / "gitchameleon1" / "mini.csv"
GC2 = FIXTURES / "gitchameleon2"
NATIVE = FIXTURES / "native" / "problems.jsonl"


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (GC1, "gitchameleon1"),
        (GC2, "gitchameleon2"),
        (GC2 / "dataset.jsonl", "gitchameleon2"),
        (NATIVE, "pinbench"),
    ],
)
def test_detects_each_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt
    assert load_dataset(path).problems


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.txt", "library,version,starting_code,solution,test\n"),
        ("other.csv", "name,value\nx,1\n"),
        ("other.jsonl", '{"question": "q", "answer": "a"}\n'),
        ("empty.jsonl", ""),
    ],
)
def test_unknown_file_is_a_clear_error(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DatasetError, match=r"not a recognised dataset \(formats: pinbench, "):
        load_dataset(path)


def test_a_solutions_file_alone_is_not_a_dataset() -> None:
    with pytest.raises(DatasetError, match="not a recognised dataset"):
        detect_format(GC2 / "ground_truth_solutions.jsonl")


def test_missing_path_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file or directory"):
        load_dataset(tmp_path / "absent.csv")
    with pytest.raises(DatasetError, match="unknown format 'versicode'"):
        load_dataset(GC1, "versicode")


@pytest.mark.parametrize("path", [GC1, GC2, NATIVE])
def test_strict_raises_with_every_issue(path: Path) -> None:
    issues = load_dataset(path).issues
    assert issues
    with pytest.raises(DatasetError) as caught:
        load_dataset(path, strict=True)
    assert str(caught.value) == "\n".join(str(issue) for issue in issues)


def test_duplicate_id_is_an_issue_and_the_later_row_is_dropped() -> None:
    result = load_dataset(GC2)
    assert [problem.id for problem in result.problems] == ["gc2-0", "gc2-1"]
    assert result.problems[0].origin == f"{GC2 / 'dataset.jsonl'}:1"
    assert (
        f"{GC2 / 'dataset.jsonl'}:7: duplicate problem id 'gc2-0' "
        f"(first at {GC2 / 'dataset.jsonl'}:1); row dropped"
    ) in [str(issue) for issue in result.issues]
    lines = [(str(i.path), i.line) for i in result.issues]
    assert lines == sorted(lines)  # reported in file order


def test_duplicate_alone_fails_strict(tmp_path: Path) -> None:
    row = NATIVE.read_text().splitlines()[0]
    path = tmp_path / "dupes.jsonl"
    path.write_text(f"{row}\n\n{row}\n")
    result = load_dataset(path)
    assert len(result.problems) == 1
    assert [str(issue) for issue in result.issues] == [
        f"{path}:3: duplicate problem id 'np-round' (first at {path}:1); row dropped"
    ]
    with pytest.raises(DatasetError, match="duplicate problem id 'np-round'"):
        load_dataset(path, strict=True)
