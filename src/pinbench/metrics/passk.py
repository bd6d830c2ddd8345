"""pass@k as Chen et al. (2021) define it, unbiased, and its aggregation over problems and seeds."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from functools import lru_cache


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


@lru_cache(maxsize=4096)
def _order_weights(n: int, k: int) -> tuple[float, ...]:
    """P(the i-th smallest of n is the maximum of k drawn without replacement), i = 1..n:
    C(i-1, k-1) / C(n, k), each an exactly rounded ratio of integers."""
    total = math.comb(n, k)
    return tuple(math.comb(i - 1, k - 1) / total for i in range(1, n + 1))


def expected_best_at_k(scores: Sequence[float], k: int) -> float:
    """The expected maximum of k scores drawn without replacement from the n given: VersiCode's
    ``get_score`` (ISM@k, PM@k) and, on 0/1 scores, the unbiased pass@k its token script uses.

    Both variants compute this one estimator. k must be in 1..n: with k > n the token script
    answers 1.0 whatever the scores and ``get_score`` divides by zero; neither is a number to
    report, so this refuses.
    """
    n = len(scores)
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    return math.fsum(map(float.__mul__, _order_weights(n, k), map(float, sorted(scores))))
