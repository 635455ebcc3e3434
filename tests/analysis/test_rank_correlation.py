"""Spearman's rho and Kendall's tau of two rankings without ties, against the textbook O(n^2)
definitions on small inputs (with the insertion blocks shrunk so that every merge level runs)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.analysis import rank_correlation as rc


def naive_kendall(values: list[int]) -> float | None:
    """(concordant - discordant) / pairs, every pair looked at."""
    n = len(values)
    if n < 2:
        return None
    signs = [(j - i) * (values[j] - values[i]) for i in range(n) for j in range(i + 1, n)]
    return (sum(s > 0 for s in signs) - sum(s < 0 for s in signs)) / len(signs)


def naive_spearman(values: list[int]) -> float | None:
    """1 - 6 * sum d^2 / (n (n^2 - 1)) with the values replaced by their ranks."""
    n = len(values)
    if n < 2:
        return None
    rank = {value: position for position, value in enumerate(sorted(values))}
    return 1 - 6 * sum((i - rank[v]) ** 2 for i, v in enumerate(values)) / (n * (n * n - 1))


def naive_inversions(values: list[int]) -> int:
    return sum(values[i] > values[j] for i in range(len(values)) for j in range(i + 1, len(values)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 200), unique=True, max_size=60), st.sampled_from([1, 2, 3, 7, 1024]))
def test_equal_to_the_definitions(values, block):
    original = rc.INSERTION_BLOCK
    rc.INSERTION_BLOCK = block  # small blocks: the merge levels run even on a few values
    try:
        assert rc.count_inversions(values) == naive_inversions(values)
        tau, rho = rc.kendall_tau(values), rc.spearman_rho(values)
    finally:
        rc.INSERTION_BLOCK = original
    for found, want in ((tau, naive_kendall(values)), (rho, naive_spearman(values))):
        assert (found is None) == (want is None)
        if want is not None:
            assert math.isclose(found, want, abs_tol=1e-12)


def test_a_ranking_longer_than_one_block():
    rng = random.Random(7)
    values = list(range(1_500))
    for _ in range(3_000):  # mostly in order, with local swaps
        i = rng.randrange(len(values) - 10)
        j = i + rng.randrange(1, 10)
        values[i], values[j] = values[j], values[i]
    assert rc.count_inversions(values) == naive_inversions(values)
    assert math.isclose(rc.kendall_tau(values), naive_kendall(values), abs_tol=1e-12)


def test_known_values_and_the_edges():
    assert rc.kendall_tau(range(10)) == rc.spearman_rho(range(10)) == 1.0
    assert rc.kendall_tau(range(10, 0, -1)) == rc.spearman_rho(range(10, 0, -1)) == -1.0
    assert rc.kendall_tau([0, 2, 1]) == pytest.approx(1 / 3)  # 2 concordant, 1 discordant of 3 pairs
    assert rc.kendall_tau([]) is None and rc.spearman_rho([4]) is None


def test_ties_are_refused_with_what_to_do():
    for correlation in (rc.kendall_tau, rc.spearman_rho):
        with pytest.raises(ValueError, match="distinct"):
            correlation([1, 2, 2])
