"""pass@k against its definition: the brute-force probability over all k-subsets."""

from __future__ import annotations

import itertools
import math

import pytest

from pinbench.metrics.passk import mean_pass_at_k, mean_std, pass_at_k


def _brute_force(n: int, c: int, k: int) -> float:
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_pass_at_k_matches_the_definition(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(_brute_force(n, c, k))


def test_pass_at_1_is_the_fraction_correct() -> None:
    assert pass_at_k(20, 7, 1) == pytest.approx(7 / 20)


def test_large_n_is_numerically_stable() -> None:
    value = pass_at_k(200, 3, 100)
    expected = 1 - math.comb(197, 100) / math.comb(200, 100)
    assert value == pytest.approx(expected)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_impossible_inputs_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_problems_with_fewer_than_k_scored_samples_are_left_out() -> None:
    # the second problem lost 4 of its 5 samples to infrastructure: it cannot say pass@2
    assert mean_pass_at_k([(5, 5), (1, 0)], 2) == pytest.approx(1.0)
    assert mean_pass_at_k([(5, 5), (1, 0)], 1) == pytest.approx(0.5)
    assert mean_pass_at_k([(1, 0)], 2) is None


def test_mean_std_uses_the_sample_deviation() -> None:
    mean, std = mean_std([0.2, 0.4, 0.6])
    assert mean == pytest.approx(0.4)
    assert std == pytest.approx(0.2)
    assert mean_std([0.5]) == (0.5, 0.0)
