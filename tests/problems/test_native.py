"""pinbench's own JSONL: free-text conveniences, row issues, and a lossless round trip."""

from __future__ import annotations

from pathlib import Path

from pinbench.tasks.generation.loaders import gitchameleon1, gitchameleon2, native
from pinbench.tasks.generation.problem import ChangeCategory, Problem

FIXTURES = Path(__file__).parent.parent / "fixtures"
JSONL = FIXTURES / "native" / "problems.jsonl"


def test_rows_and_issues() -> None:
    result = native.load(JSONL)
    assert [problem.id for problem in result.problems] == ["np-round", "pd-concat"]
    assert [str(issue) for issue in result.issues] == [
        f"{JSONL}:2: invalid JSON: Expecting property name enclosed in double quotes",
        f"{JSONL}:3: python_version: Value error, python_version '3' is not like '3.9'",
    ]


def test_free_text_change_and_date_are_normalised() -> None:
    first, second = native.load(JSONL).problems
    assert first.change.category is ChangeCategory.NAME
    assert first.change.raw == "\nname chnage\n"
    assert first.release_date == "2023-06"
    assert second.change.category is ChangeCategory.NAME
    assert first.origin == f"{JSONL}:1"
    assert second.origin == f"{JSONL}:4"


def _every_fixture_problem() -> list[Problem]:
    return [
        *native.load(JSONL).problems,
        *gitchameleon1.load(FIXTURES / "gitchameleon1" / "mini.csv").problems,
        *gitchameleon2.load(FIXTURES / "gitchameleon2").problems,
    ]


def test_round_trip_through_native_jsonl(tmp_path: Path) -> None:
    originals = _every_fixture_problem()
    path = tmp_path / "out.jsonl"
    path.write_text("".join(problem.model_dump_json() + "\n" for problem in originals))
    assert native.sniff(path)
    result = native.load(path)
    assert result.issues == []
    assert len(result.problems) == len(originals)
    for lineno, (original, loaded) in enumerate(zip(originals, result.problems, strict=True), 1):
        assert loaded.origin == f"{path}:{lineno}"
        assert loaded.model_copy(update={"origin": original.origin}) == original
