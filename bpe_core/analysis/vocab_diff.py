"""A vocabulary diff of two tokenizers: which tokens only one has, how much the first k tokens of
each share as k grows, and where their merge orders agree.

Tokens are compared by their bytes (special tokens apart, by their text). A token's *rank* is its
position among the tokenizer's ordinary tokens in id order (special tokens left out): for trained
tokenizers, GPT-2, cl100k, o200k and the other built-ins that is the order the tokens joined the
vocabulary (the single bytes, then one token per merge, whole-word tokens at their tiktoken rank).
External tokenizers (WordPiece, Unigram, SentencePiece: ``bpe_core.pretrained.external``) have no merge list and
their ids are no learning order, so only their token sets are compared (``Vocabulary.unordered``
says why); their tokens are the bytes the library reports, with SentencePiece's ``▁`` read as the
space it stands for (WordPiece's ``##`` continuation mark stays).

What a tokenizer's vocabulary is, as compared here, is ``vocab_view``'s (``Vocabulary``, ``vocabulary``).
This module only computes; it draws nothing and loads no tokenizer (pass them in).
"""

from __future__ import annotations

import bisect
import operator
from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat, zip_longest
from typing import Any, TypeVar, cast

from bpe_core.analysis.rank_correlation import kendall_tau, spearman_rho
from bpe_core.analysis.vocab_view import Vocabulary, vocabulary
from bpe_core.errors import BpeError

#: ``rank_agreement``'s default: ranks within 10% of the larger one count as close.
RANK_TOLERANCE = 0.1


# ------------------------------------------------------------------------------------------------
# token sets


@dataclass(frozen=True)
class TokenSets:
    """Ordinary tokens only in A (with A's rank, by rank), only in B (B's rank, by rank), in both
    (A's rank, B's rank; by A's rank), and special tokens by text (sorted)."""

    only_a: list[tuple[bytes, int]]
    only_b: list[tuple[bytes, int]]
    shared: list[tuple[bytes, int, int]]
    specials_only_a: list[str]
    specials_only_b: list[str]
    specials_shared: list[str]

    @property
    def counts(self) -> dict[str, int]:
        """How many tokens each list holds, by the list's name."""
        return {
            name: len(getattr(self, name))
            for name in ("only_a", "only_b", "shared", "specials_only_a", "specials_only_b", "specials_shared")
        }


def token_sets(a: Any, b: Any) -> TokenSets:
    """Which ordinary tokens only A has, only B has, both have (by bytes), and the same for special
    tokens (by text). Works for every tokenizer, external ones included.

    >>> a = Vocabulary("a", (b"x", b"y", b"xy"), (0, 1, 2), (("<s>", 3),))
    >>> b = Vocabulary("b", (b"y", b"x", b"yx"), (0, 1, 2), (("<s>", 3), ("</s>", 4)))
    >>> sets = token_sets(a, b)
    >>> sets.only_a, sets.only_b, sets.shared, sets.specials_only_b
    ([(b'xy', 2)], [(b'yx', 2)], [(b'x', 0, 1), (b'y', 1, 0)], ['</s>'])
    """
    a, b = vocabulary(a), vocabulary(b)
    ranks_a, ranks_b = _match(a.rank_of, b.rank_of)
    tokens = list(map(a.tokens.__getitem__, ranks_a))
    specials_a, specials_b = {text for text, _ in a.specials}, {text for text, _ in b.specials}
    shared = list(zip(tokens, ranks_a, ranks_b, strict=True))
    return TokenSets(
        _others(a, ranks_a),
        _others(b, ranks_b),
        shared,
        sorted(specials_a - specials_b),
        sorted(specials_b - specials_a),
        sorted(specials_a & specials_b),
    )


Item = TypeVar("Item", bound=Hashable)


def _match(rank_a: Mapping[Item, int], rank_b: Mapping[Item, int]) -> tuple[list[int], list[int]]:
    """The ranks in A (increasing) and in B of the items both hold (item -> rank dicts whose keys are
    in rank order). One lookup per item of the smaller dict, the rest maps, compress and sort (its time
    on two 200k vocabularies: bench/PERFORMANCE.md, "Figures behind choices in the code")."""
    small, large = (rank_a, rank_b) if len(rank_a) <= len(rank_b) else (rank_b, rank_a)
    found = list(map(large.get, small))
    held = list(map(operator.is_not, found, repeat(None)))
    in_small = list(compress(small.values(), held))
    in_large = cast("list[int]", list(compress(found, held)))  # the Nones are left out
    if small is rank_a:
        return in_small, in_large
    order = sorted(range(len(in_large)), key=in_large.__getitem__)  # into A's rank order
    return list(map(in_large.__getitem__, order)), list(map(in_small.__getitem__, order))


def _others(vocab: Vocabulary, shared_ranks: list[int]) -> list[tuple[bytes, int]]:
    """(token, rank) of the vocabulary's tokens whose ranks are not among ``shared_ranks``, by rank."""
    missing = bytearray(b"\x01") * len(vocab.tokens)
    deque(map(missing.__setitem__, shared_ranks, repeat(0)), maxlen=0)  # marks set in C, no sort
    ranks = list(compress(range(len(vocab.tokens)), missing))
    return list(zip(map(vocab.tokens.__getitem__, ranks), ranks, strict=True))


# ------------------------------------------------------------------------------------------------
# overlap as the vocabulary grows


@dataclass(frozen=True)
class OverlapPoint:
    """The first ``k`` tokens (or merges) of each: how many both hold, ``jaccard`` = shared / union
    (union = 2k - shared) and ``share`` = shared / k."""

    k: int
    shared: int
    jaccard: float
    share: float


def curve_sizes(limit: int, *, start: int = 256, steps: Sequence[int] = (1, 2, 5)) -> list[int]:
    """Sizes k for an overlap curve up to ``limit``: ``start``, then ``start`` plus 10, 20, 50, 100,
    200, 500, 1,000, ... (``steps`` in each power of ten) below ``limit``, then ``limit``. When
    ``limit`` is at most ``start`` the sizes count from 0 instead. About 3 points per power of ten.

    >>> curve_sizes(50_257)
    [256, 266, 276, 306, 356, 456, 756, 1256, 2256, 5256, 10256, 20256, 50256, 50257]
    >>> curve_sizes(100), curve_sizes(3)
    ([1, 2, 5, 10, 20, 50, 100], [1, 2, 3])
    """
    limit, start = _count(limit, "limit"), _count(start, "start", least=0)
    if not steps or any(isinstance(s, bool) or not isinstance(s, int) or not 1 <= s < 10 for s in steps):
        raise BpeError(f"steps must be whole numbers from 1 to 9 (e.g. (1, 2, 5)), not {steps!r}")
    if limit <= start:
        start = 0
    sizes = {limit} | ({start} if start else set())
    scale = 1 if start == 0 else 10
    while start + scale < limit:
        sizes.update(start + s * scale for s in steps if start + s * scale < limit)
        scale *= 10
    return sorted(sizes)


def _count(value: Any, name: str, *, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__} {value!r}")
    if value < least:
        raise BpeError(f"{name} must be at least {least}, not {value}")
    return value


def overlap_counts(rank_a: dict, rank_b: dict, sizes: Iterable[int]) -> list[OverlapPoint]:
    """The overlap of two ranked lists (item -> rank, ranks 0..n-1) at each size k: an item is in the
    first k of both when the larger of its two ranks is below k, so one pass over the shared items and
    one sort give every k (a binary search each).

    >>> [p.shared for p in overlap_counts({"x": 0, "y": 1, "z": 2}, {"y": 0, "x": 1, "w": 2}, [1, 2, 3])]
    [0, 2, 2]
    """
    ranks_a, ranks_b = _match(rank_a, rank_b)
    return _curve(ranks_a, ranks_b, min(len(rank_a), len(rank_b)), sizes)


def _curve(
    ranks_a: list[int], ranks_b: list[int], limit: int, sizes: Iterable[int] | None, start: int = 256
) -> list[OverlapPoint]:
    """The overlap curve (tokens or merges) of the shared items' ranks; ``curve_sizes(limit, start=start)``
    by default."""
    larger = sorted(map(max, ranks_a, ranks_b))
    points = []
    for k in curve_sizes(limit, start=start) if sizes is None else sizes:
        k = _count(k, "a size k")
        if k > limit:
            raise BpeError(f"size {k:,} is past the shorter list ({limit:,}): pick sizes up to {limit:,}")
        shared = bisect.bisect_left(larger, k)
        points.append(OverlapPoint(k, shared, shared / (2 * k - shared), shared / k))
    return points


def _ordered(vocab: Vocabulary) -> Vocabulary:
    """The vocabulary, or a ValueError saying why it has no rank order."""
    if vocab.unordered:
        raise BpeError(f"{vocab.name} has no rank order to compare: {vocab.unordered}")
    return vocab


def overlap_curve(a: Any, b: Any, *, sizes: Iterable[int] | None = None) -> list[OverlapPoint]:
    """How much the first k tokens (in rank order) of A and of B share, for each k in ``sizes``
    (default ``curve_sizes`` up to the smaller vocabulary). A ValueError for an external tokenizer
    (no rank order) or a size past the smaller vocabulary.

    >>> a = Vocabulary("a", (b"x", b"y", b"xy", b"yy"), (0, 1, 2, 3))
    >>> b = Vocabulary("b", (b"x", b"y", b"yy", b"xy"), (0, 1, 2, 3))
    >>> [(p.k, p.shared, round(p.jaccard, 2)) for p in overlap_curve(a, b, sizes=[2, 3, 4])]
    [(2, 2, 1.0), (3, 2, 0.5), (4, 4, 1.0)]
    """
    a, b = _ordered(vocabulary(a)), _ordered(vocabulary(b))
    if sizes is None:
        sizes = curve_sizes(min(len(a.tokens), len(b.tokens)))
    return overlap_counts(a.rank_of, b.rank_of, sizes)


# ------------------------------------------------------------------------------------------------
# where the merge orders agree


@dataclass(frozen=True)
class RankAgreement:
    """How alike the ranks of the tokens both have are: ``spearman`` (Spearman's rho of the two
    rankings of the shared tokens: from the squared rank differences), ``kendall`` (Kendall's tau:
    the share of token pairs in the same order minus the share in the reverse order; both None below
    two tokens) and ``close`` (the share of shared tokens whose ranks differ by at most ``tolerance``
    times the larger rank)."""

    shared: int
    spearman: float | None
    close: float | None
    tolerance: float
    kendall: float | None = None


def rank_agreement(a: Any, b: Any, *, tolerance: float = RANK_TOLERANCE) -> RankAgreement:
    """Spearman's rho, Kendall's tau and the share of close ranks over the ordinary tokens both have.

    >>> a = Vocabulary("a", (b"x", b"y", b"z", b"w"), (0, 1, 2, 3))
    >>> b = Vocabulary("b", (b"x", b"y", b"w", b"z"), (0, 1, 2, 3))
    >>> agreement = rank_agreement(a, b, tolerance=0.1)
    >>> agreement.spearman, agreement.kendall, agreement.close
    (0.8, 0.6666666666666666, 0.5)
    """
    tolerance = _tolerance(tolerance)
    a, b = _ordered(vocabulary(a)), _ordered(vocabulary(b))
    ranks_a, ranks_b = _match(a.rank_of, b.rank_of)
    return _agreement(ranks_a, ranks_b, tolerance)


def _tolerance(tolerance: Any) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
        raise TypeError(f"tolerance must be a number such as 0.1 (10%), not {type(tolerance).__name__}")
    if not 0 <= tolerance <= 1:  # NaN fails this too
        raise BpeError(f"tolerance is a fraction of the larger rank, from 0 to 1 (0.1 is 10%), not {tolerance}")
    return float(tolerance)


def _agreement(ranks_a: list[int], ranks_b: list[int], tolerance: float) -> RankAgreement:
    """Rank agreement from the shared tokens' ranks (``ranks_a`` increasing, so B's ranks in that order
    are all the correlations need: ``rank_correlation``)."""
    n = len(ranks_a)
    if n == 0:
        return RankAgreement(0, None, None, tolerance)
    gaps = map(abs, map(operator.sub, ranks_a, ranks_b))
    allowed = map(tolerance.__mul__, map(max, ranks_a, ranks_b))
    close = sum(map(operator.le, gaps, allowed)) / n
    return RankAgreement(n, spearman_rho(ranks_b), close, tolerance, kendall_tau(ranks_b))


@dataclass(frozen=True)
class MergeAgreement:
    """Where two merge lists agree: ``common_prefix`` (how many merges, from the first, are the same
    (left, right) pair in the same order), ``same_rank`` (ranks holding the same pair), ``shared_pairs``
    (pairs in both lists, at any rank), ``divergences`` (the first ranks that differ: rank, A's merge,
    B's merge; None past a list's end), the merge counts, and ``curve``: of the first k merges of each,
    how many pairs both make (as ``overlap_curve`` for tokens; k from ``curve_sizes(.., start=0)``)."""

    merges_a: int
    merges_b: int
    common_prefix: int
    same_rank: int
    shared_pairs: int
    divergences: list[tuple[int, tuple[bytes, bytes] | None, tuple[bytes, bytes] | None]]
    curve: list[OverlapPoint]


def merge_agreement(a: Any, b: Any, *, shown: int = 10, sizes: Iterable[int] | None = None) -> MergeAgreement:
    """Compare the merge lists of A and B, rank by rank. A ValueError for a tokenizer without merges
    (an external one, or one with no merges learned).

    >>> a = Vocabulary("a", (b"x", b"y", b"xy", b"yy"), (0, 1, 2, 3), merges=((b"x", b"y"), (b"y", b"y")))
    >>> b = Vocabulary("b", (b"x", b"y", b"xy", b"xx"), (0, 1, 2, 3), merges=((b"x", b"y"), (b"x", b"x")))
    >>> m = merge_agreement(a, b)
    >>> m.common_prefix, m.same_rank, m.shared_pairs, m.divergences, [p.shared for p in m.curve]
    (1, 1, 1, [(1, (b'y', b'y'), (b'x', b'x'))], [1, 1])
    """
    shown = _count(shown, "shown", least=0)
    a, b = vocabulary(a), vocabulary(b)
    for vocab in (a, b):
        if not vocab.merges:
            why = vocab.unordered or "it has no merges (nothing was learned, or its file holds none)"
            raise BpeError(f"{vocab.name}'s merge order cannot be compared: {why}")
    # Up to the shorter list's end; past it, the lengths differ and `prefix` stops there.
    unequal = (rank for rank, (x, y) in enumerate(zip(a.merges, b.merges, strict=False)) if x != y)
    prefix = next(unequal, min(len(a.merges), len(b.merges)))
    same_rank = sum(map(operator.eq, a.merges, b.merges))
    ranks_a, ranks_b = _match(a.merge_rank_of, b.merge_rank_of)
    limit = min(len(a.merge_rank_of), len(b.merge_rank_of))
    curve = _curve(ranks_a, ranks_b, limit, sizes, start=0)
    rest = enumerate(zip_longest(a.merges[prefix:], b.merges[prefix:]), prefix)
    divergences = list(islice(((rank, x, y) for rank, (x, y) in rest if x != y), shown))
    return MergeAgreement(len(a.merges), len(b.merges), prefix, same_rank, len(ranks_a), divergences, curve)


@dataclass(frozen=True)
class VocabDiff:
    """``diff``'s answer: the two vocabularies, their token sets, and (None when it cannot be
    computed, with the reason in ``notes``) the overlap curve, rank agreement and merge agreement."""

    a: Vocabulary
    b: Vocabulary
    sets: TokenSets
    curve: list[OverlapPoint] | None
    ranks: RankAgreement | None
    merges: MergeAgreement | None
    notes: list[str]


def diff(a: Any, b: Any, *, sizes: Iterable[int] | None = None, shown: int = 10) -> VocabDiff:
    """Everything this module compares, for two tokenizers (or vocabularies). Parts that need a
    rank order or merges are None for tokenizers without them, and ``notes`` says why.

    >>> import bpe_core
    >>> one = bpe_core.train("ab ab ab", 258, min_frequency=1, pattern=None)
    >>> two = bpe_core.train("xab xab ab", 258, min_frequency=1, pattern=None)
    >>> d = diff(one, two)
    >>> d.sets.counts["only_a"], d.merges.common_prefix, d.curve[-1].shared, d.notes
    (1, 1, 257, [])
    """
    a, b = vocabulary(a), vocabulary(b)
    sets = token_sets(a, b)
    notes = [vocab.note for vocab in (a, b) if vocab.note]
    merges = None
    unordered = [f"{vocab.name}: {vocab.unordered}" for vocab in (a, b) if vocab.unordered]
    if unordered:
        notes += [f"No overlap curve, rank or merge agreement: {why}." for why in unordered]
        return VocabDiff(a, b, sets, None, None, None, notes)
    ranks_a, ranks_b = list(map(operator.itemgetter(1), sets.shared)), list(map(operator.itemgetter(2), sets.shared))
    limit = min(len(a.tokens), len(b.tokens))
    curve = _curve(ranks_a, ranks_b, limit, sizes)
    ranks = _agreement(ranks_a, ranks_b, RANK_TOLERANCE)
    try:
        merges = merge_agreement(a, b, shown=shown)
    except ValueError as exc:
        notes.append(f"No merge agreement: {exc}.")
    return VocabDiff(a, b, sets, curve, ranks, merges, notes)
