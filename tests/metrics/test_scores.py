"""Scores from sample records: rounds, seeds, and infrastructure kept out of denominators."""

from __future__ import annotations

import pytest

from pinbench.core.records import SampleRecord
from pinbench.metrics.scores import score


def _rec(
    problem: str, seed: int, sample: int, round_: int, status: str, **kw: object
) -> SampleRecord:
    return SampleRecord(
        problem_id=problem,
        seed=seed,
        sample=sample,
        round=round_,
        status=status,
        compiles=kw.pop("compiles", True),
        **kw,  # type: ignore[arg-type]
    )


def test_infrastructure_outcomes_leave_the_denominator_and_are_counted() -> None:
    records = [
        _rec("a", 0, 0, 0, "passed"),
        _rec("b", 0, 0, 0, "failed", exc_type="AttributeError"),
        _rec("c", 0, 0, 0, "model_error"),
        _rec("d", 0, 0, 0, "environment_error"),
    ]
    scores = score(records, (1,), rounds=0, seeds=1)
    assert scores.rounds[0].pass_at[0].mean == pytest.approx(0.5)  # a and b only
    assert scores.rounds[0].scored == 2
    assert scores.infrastructure == {"model_error": 1, "environment_error": 1}
    assert scores.exceptions == {"AttributeError": 1}


def test_a_chain_that_stopped_keeps_its_outcome_in_later_rounds() -> None:
    records = [
        _rec("a", 0, 0, 0, "passed"),  # visible passed: no round 1
        _rec("b", 0, 0, 0, "failed"),
        _rec("b", 0, 0, 1, "passed"),  # fixed by feedback
        _rec("c", 0, 0, 0, "failed", compiles=False),
        _rec("c", 0, 0, 1, "failed"),
    ]
    scores = score(records, (1,), rounds=1, seeds=1)
    assert [r.pass_at[0].mean for r in scores.rounds] == pytest.approx([1 / 3, 2 / 3])
    assert scores.rounds[0].compile_rate == pytest.approx(2 / 3)
    assert scores.rounds[1].compile_rate == pytest.approx(1.0)


def test_seeds_give_mean_and_std_of_per_seed_scores() -> None:
    records = [
        _rec("a", 0, 0, 0, "passed"),
        _rec("a", 0, 1, 0, "failed"),
        _rec("a", 1, 0, 0, "failed"),
        _rec("a", 1, 1, 0, "failed"),
    ]
    scores = score(records, (1, 2), rounds=0, seeds=2)
    one, two = scores.rounds[0].pass_at
    assert one.per_seed == pytest.approx([0.5, 0.0])
    assert one.mean == pytest.approx(0.25)
    assert one.std == pytest.approx(0.3535533, rel=1e-5)
    assert two.per_seed == pytest.approx([1.0, 0.0])
