"""Calibrated deadlines: a factor of the reference's runtime, between a floor and a cap."""

from __future__ import annotations

import pytest

from pinbench.execution.timeouts import Calibration, retry_at_cap


@pytest.mark.parametrize(
    ("reference", "deadline"),
    [(0.05, 5.0), (0.7, 7.0), (3.0, 30.0), (100.0, 60.0)],
)
def test_deadline_scales_between_floor_and_cap(reference: float, deadline: float) -> None:
    assert Calibration(reference_seconds=reference).deadline == deadline


def test_custom_factor_floor_cap() -> None:
    calibration = Calibration(reference_seconds=2, factor=3, floor_seconds=1, cap_seconds=5)
    assert calibration.deadline == 5
    assert Calibration(reference_seconds=0.1, factor=3, floor_seconds=1).deadline == 1


@pytest.mark.parametrize(
    ("timed_out", "deadline", "cap", "retry"),
    [(True, 5.0, 60.0, True), (True, 60.0, 60.0, False), (False, 5.0, 60.0, False)],
)
def test_only_a_timeout_at_the_cap_counts(
    timed_out: bool, deadline: float, cap: float, retry: bool
) -> None:
    assert retry_at_cap(timed_out, deadline, cap) is retry
