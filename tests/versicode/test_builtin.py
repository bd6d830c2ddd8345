"""Tasks derived from the 120 builtin problems: counts, round trips, and the environments."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Language, Problem
from pinbench.tasks.versicode.builtin import BuiltinTasks, contrast_meta, derive, pinned_meta
from pinbench.tasks.versicode.model import EditDirection, Granularity, Lifespan, Source, Transition
from pinbench.tasks.versicode.task import VersiCodeTask, item_of


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    problems = load_dataset(Path("builtin")).problems
    return {p.id: p for p in problems if p.language is Language.PYTHON}


@pytest.fixture(scope="module")
def derived(problems: dict[str, Problem]) -> BuiltinTasks:
    return derive(problems.values())


def test_counts(problems: dict[str, Problem], derived: BuiltinTasks) -> None:
    assert len(problems) == 120
    granularities = Counter(t.granularity for t in derived.completion)
    assert granularities == {Granularity.TOKEN: 83, Granularity.LINE: 112, Granularity.BLOCK: 62}
    assert len(derived.editing) == 220  # 110 problems with a contrast solution, both ways
    assert Counter(t.transition for t in derived.editing) == {
        Transition.MINOR_TO_MINOR: 210,
        Transition.MAJOR_TO_MINOR: 5,
        Transition.MINOR_TO_MAJOR: 5,
    }
    assert len(derived.skipped) == 3 * 120 - len(derived.completion) + 10


def test_every_completion_answer_restores_the_reference_solution(
    problems: dict[str, Problem], derived: BuiltinTasks
) -> None:
    for task in derived.completion:
        problem_id, granularity = task.id.rsplit("/", 1)
        assert granularity == task.granularity.value
        assert task.restore() == problems[problem_id].solution, task.id
        assert task.masked_code.count(task.granularity.mask) == 1
        assert task.meta == pinned_meta(problems[problem_id])


def test_every_edit_goes_between_the_two_solutions(
    problems: dict[str, Problem], derived: BuiltinTasks
) -> None:
    for task in derived.editing:
        problem = problems[task.id.split("/", 1)[0]]
        assert problem.contrast is not None
        assert {task.old.code, task.new.code} == {problem.solution, problem.contrast.solution}
        edited_to = task.to_meta
        expected = (
            problem.solution
            if edited_to.version == problem.version
            else (problem.contrast.solution)
        )
        assert edited_to.code == expected


def test_a_renamed_api_is_masked_at_all_granularities(derived: BuiltinTasks) -> None:
    tasks = {t.id: t for t in derived.completion}
    assert tasks["numpy-2.0-01/token"].answer == "trapezoid"
    assert tasks["numpy-2.0-01/line"].answer == "r = np.trapezoid(y, x=x, dx=dx)"
    assert tasks["numpy-2.0-01/block"].answer.startswith("r = np.trapezoid(")
    assert tasks["sklearn-1.4-01/token"].answer == "sparse_output"  # a renamed keyword
    assert "sklearn-1.4-01/token" in tasks and "numpy-1.17-01/token" in tasks  # an api: tag


def test_both_sides_carry_the_hidden_test_and_their_environment(
    problems: dict[str, Problem],
) -> None:
    problem = problems["sklearn-1.4-01"]
    assert problem.contrast is not None
    pinned, contrast = pinned_meta(problem), contrast_meta(problem)
    assert contrast is not None
    assert pinned.test == contrast.test == problem.hidden_test
    assert (pinned.version, pinned.python_version) == ("1.4.2", "3.12")
    assert (contrast.version, contrast.python_version) == ("1.1.3", "3.11")
    assert (pinned.lifespan, contrast.lifespan) == (Lifespan.ADDITION, Lifespan.DEPRECATION)
    assert pinned.source is contrast.source is Source.BUILTIN
    assert pinned.api == "sklearn.preprocessing.OneHotEncoder"


def test_problems_without_a_contrast_solution_make_no_editing_pair(
    problems: dict[str, Problem], derived: BuiltinTasks
) -> None:
    assert contrast_meta(problems["numpy-1.17-01"]) is None
    assert "numpy-1.17-01/edit: no contrast solution" in derived.skipped
    directions = Counter(t.direction for t in derived.editing)
    assert directions == {EditDirection.OLD_TO_NEW: 110, EditDirection.NEW_TO_OLD: 110}


def test_exact_edits_score_full_marks_whatever_the_api_label(derived: BuiltinTasks) -> None:
    """A problem's `api:` label is often dotted ('sklearn.metrics.root_mean_squared_error'),
    which the code does not hold verbatim: the gate reads its name, so an exact edit is not
    gated to ISM 0."""
    dotted = [
        t
        for t in derived.editing
        if t.to_meta.api and "." in t.to_meta.api and t.to_meta.api not in t.to_meta.code
    ]
    assert len(dotted) >= 10
    task = VersiCodeTask()
    for edit in dotted:
        item = item_of(edit)
        scores = task.score(item, task.reference_answer(item), None)
        assert scores["em"] == 1.0 and scores["ism"] == 1.0 and scores["pm"] == 1.0, edit.id
