"""Confidence intervals over problems: percentile bootstrap of a mean, or of the difference of
two means (paired, on shared problems; or of two independent groups of problems)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel
from scipy import stats

from pinbench.core.outcome import NOT_SCORED
from pinbench.core.records import SampleRecord
from pinbench.metrics.scores import at_round, chains_of

RESAMPLES = 2000


class Interval(BaseModel):
    """A mean over `problems` with its 95 % percentile-bootstrap interval."""

    mean: float
    low: float
    high: float
    problems: int


def interval_text(value: Interval | None, signed: bool = False) -> str:
    """`62.5 [50.0, 75.0] (n=8)` in percent (points when `signed`)."""
    if value is None:
        return "n/a"
    form = "{:+.1f}" if signed else "{:.1f}"
    low, high = (form.format(100 * v) for v in (value.low, value.high))
    return f"{form.format(100 * value.mean)} [{low}, {high}] (n={value.problems})"


def mean_interval(values: Sequence[float]) -> Interval | None:
    """The mean of per-problem values (a paired difference is one value per problem)."""
    if not values:
        return None
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) < 2 or float(data.std()) == 0.0:
        return Interval(mean=mean, low=mean, high=mean, problems=len(data))
    result = stats.bootstrap(
        (data,), np.mean, n_resamples=RESAMPLES, method="percentile", random_state=0
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return Interval(mean=mean, low=low, high=high, problems=len(data))


def difference_interval(a: Sequence[float], b: Sequence[float]) -> Interval | None:
    """mean(a) − mean(b) for two independent groups of problems."""
    if not a or not b:
        return None
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    mean = float(x.mean() - y.mean())
    if len(x) < 2 or len(y) < 2 or (float(x.std()) == 0.0 and float(y.std()) == 0.0):
        return Interval(mean=mean, low=mean, high=mean, problems=len(x) + len(y))
    result = stats.bootstrap(
        (x, y),
        lambda u, v, axis: np.mean(u, axis=axis) - np.mean(v, axis=axis),
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=0,
        vectorized=True,
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return Interval(mean=mean, low=low, high=high, problems=len(x) + len(y))


def problem_rates(records: list[SampleRecord], round_: int = 0) -> dict[str, float]:
    """Each problem's pass rate over its scored samples at `round_` (pass@1 per problem)."""
    tallies: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (pid, _, _), chain in chains_of(records).items():
        record = at_round(chain, round_)
        if record is not None and record.status not in NOT_SCORED:
            tallies[pid][0] += 1
            tallies[pid][1] += record.passed
    return {pid: c / n for pid, (n, c) in tallies.items() if n}
