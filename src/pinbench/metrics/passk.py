"""pass@k as Chen et al. (2021) define it, unbiased, and its aggregation over problems and seeds."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n, of which c
    are correct, passes: 1 - C(n-c, k) / C(n, k), computed as a stable product."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if k < 1 or k > n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass@k averaged over problems, given (n, c) per problem; problems with fewer than k
    scored samples (infrastructure failures took the rest) are left out. None: no problem has k."""
    scores = [pass_at_k(n, c, k) for n, c in counts if n >= k]
    return sum(scores) / len(scores) if scores else None


def mean_std(values: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value), as papers report ± over seeds."""
    if not values:
        return math.nan, math.nan
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0
