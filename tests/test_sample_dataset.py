"""The shipped sample dataset (README's main job) loads cleanly and every problem is sound."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.problems.loaders import load_dataset
from pinbench.problems.model import ChangeCategory, TestKind
from pinbench.validate import Verdict, validate

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
