"""Rank correlations of two rankings of the same items without ties, exactly: Spearman's rho (from
the squared rank differences) and Kendall's tau (from the pairs the two rankings order differently).

Both take the second ranking's ranks listed in the order of the first (any distinct numbers: only
their order counts): Spearman's with one sort, Kendall's by counting inversions (insertion into
sorted blocks, then a merge sort whose merges are C sorts and binary searches). Results are exact rationals
turned into one float at the end. This module knows nothing of tokenizers (``vocab_diff`` uses it).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from itertools import repeat

from bpe_core.errors import BpeError

#: Values sorted by insertion before the merges: an insertion moves at most this many pointers (a
#: few kB, cheap in C), and the merge levels a Python loop runs over are fewer.
INSERTION_BLOCK = 1024


def _distinct(ranks: Sequence[int]) -> list[int]:
    values = list(ranks)
    if len(set(values)) != len(values):
        raise BpeError("the ranks must be distinct (a ranking without ties): each item gets its own rank")
    return values


def spearman_rho(ranks: Sequence[int]) -> float | None:
    """Spearman's rho between the order of ``ranks`` (item i is i-th in the first ranking) and the
    order of their values; None below two items.

    >>> spearman_rho([0, 1, 3, 2]), spearman_rho([5, 4, 3]), spearman_rho([7])
    (0.8, -1.0, None)
    """
    values = _distinct(ranks)
    n = len(values)
    if n < 2:
        return None
    # Both rankings are permutations of 0..n-1 once the values are replaced by their order, so
    # sum (i - r_i)^2 = 2 * sum i^2 - 2 * sum i * r_i, and sum i * r_i = sum p * order[p], where
    # order[p] is the first-ranking position of the value that comes p-th.
    order = sorted(range(n), key=values.__getitem__)
    squares = 2 * (n - 1) * n * (2 * n - 1) // 6 - 2 * sum(map(operator.mul, range(n), order))
    return 1 - 6 * squares / (n * (n * n - 1))


def count_inversions(values: Sequence[int]) -> int:
    """The pairs i < j with ``values[i] > values[j]``: within blocks of INSERTION_BLOCK values by
    insertion into a sorted list (each value counts the larger ones before it), then by a bottom-up
    merge of the sorted blocks (each right value counts the left ones above it with a binary search;
    the two runs merged by a C sort).

    >>> count_inversions([3, 1, 2]), count_inversions([1, 2, 3]), count_inversions([])
    (2, 0, 0)
    """
    values = list(values)
    inversions = 0
    runs = []
    for start in range(0, len(values), INSERTION_BLOCK):
        run: list[int] = []
        for value in values[start : start + INSERTION_BLOCK]:
            at = bisect.bisect_right(run, value)
            inversions += len(run) - at
            run.insert(at, value)
        runs.append(run)
    while len(runs) > 1:
        merged = []
        for left, right in zip(runs[0::2], runs[1::2], strict=False):  # an odd run out is kept below
            inversions += len(left) * len(right) - sum(map(bisect.bisect_right, repeat(left), right))
            merged.append(sorted(left + right))  # two sorted runs: a linear merge in timsort
        if len(runs) % 2:
            merged.append(runs[-1])
        runs = merged
    return inversions


def kendall_tau(ranks: Sequence[int]) -> float | None:
    """Kendall's tau (tau-a; with no ties it equals tau-b) between the order of ``ranks`` and the order
    of their values: (concordant pairs - discordant pairs) / all pairs, 1 for the same order, -1 for
    the reverse; None below two items.

    >>> kendall_tau([0, 1, 3, 2]), kendall_tau([5, 4, 3]), kendall_tau([7])
    (0.6666666666666666, -1.0, None)
    """
    values = _distinct(ranks)
    n = len(values)
    if n < 2:
        return None
    pairs = n * (n - 1) // 2
    return (pairs - 2 * count_inversions(values)) / pairs
