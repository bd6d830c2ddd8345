"""The shipped sample dataset (README's main job) loads cleanly and every problem is sound."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pinbench.core.tests import TestKind
from pinbench.execution.local import ExecutionService
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import ChangeCategory
from pinbench.validation import Verdict, validate

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "problems.jsonl"


def test_sample_shape() -> None:
    loaded = load_dataset(SAMPLE, strict=True)
    problems = loaded.problems
    assert len(problems) == 30 and not loaded.issues
    assert len({(p.library, p.version) for p in problems}) == 10
    assert len({p.python_version for p in problems}) >= 2
    assert {p.change.category for p in problems} == set(ChangeCategory) - {ChangeCategory.UNKNOWN}
    assert any(p.hidden_test.kind is TestKind.PYTEST for p in problems)
    assert all(p.visible_test is not None and p.docs and p.release_date for p in problems)


@pytest.mark.integration
def test_every_sample_problem_is_sound() -> None:
    problems = load_dataset(SAMPLE, strict=True).problems
    reports = validate(problems, jobs=2)
    unsound = {
        r.id: {k: c.detail for k, c in r.checks.items() if c.detail}
        for r in reports
        if r.verdict is not Verdict.SOUND
    }
    assert not unsound
    assert len(reports) == 30


@pytest.mark.integration
def test_warm_and_cold_paths_agree_on_real_problems() -> None:
    """The warm servers must grade exactly as the cold path, the reference, on real problems,
    including a wrong solution for each (the reference's starter code with a `pass` body)."""
    problems = load_dataset(SAMPLE, strict=True).problems[::3]  # one problem per pin
    broken = [
        p.model_copy(update={"id": p.id + "-wrong", "solution": _with_pass_body(p.starter_code)})
        for p in problems
    ]
    outcomes = {}
    for warm in (False, True):
        service = ExecutionService(jobs=2, warm=warm, cache=False)
        try:
            reports = validate(problems + broken, jobs=2, service=service)
            assert service.stats()["warm_fallbacks"] == 0
        finally:
            service.close()
        outcomes[warm] = {(r.id, k): c.status for r in reports for k, c in r.checks.items()}
        assert {r.path for r in reports} == {"warm" if warm else "cold"}
    assert outcomes[True] == outcomes[False]
    assert any(status.value == "failed" for status in outcomes[True].values())


def _with_pass_body(starter: str) -> str:
    """The starter as a program: as it is when it parses (a docstring body), else with `pass`."""
    try:
        ast.parse(starter)
        return starter
    except SyntaxError:
        lines = starter.rstrip().splitlines()
        indent = lines[-1][: len(lines[-1]) - len(lines[-1].lstrip())]
        return starter.rstrip() + "\n" + indent + "    pass\n"
