"""What extending a tokenizer buys and what it costs, measured on held-out text (``extension_report``).

It buys fewer tokens for the language: tokens per character, and the premium over a parallel
reference text (English), before and after, as a curve over the number of tokens added, so that a
person picks the number where it flattens. The curve comes from the one run's merge order: the
tokenizer with only the first k new tokens is the extension truncated there, and each distinct
held-out piece is encoded once, recording the rank of every join (a merge, or under tiktoken's rule a
pair whose bytes are a token) in order; the first k new tokens give the state before the first join
ranked at or after the k-th new token (the rule always takes the lowest-ranked join first, so a
lower cut-off only stops it earlier). ``tests/analysis/test_extension_report.py`` holds every point
equal to encoding with the truncated tokenizer.

It costs embedding rows (one per new id, plus any gap a chosen ``first_id`` leaves) and, for tokens
the held-out text never uses, rows that will be trained on little. This module trains nothing
(``bpe_core.extend`` does) and draws nothing.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import cast

from bpe_core.analysis.fairness import clean_text, ratio
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer

#: ``extension_report``'s default number of points on the curve (0 and all new tokens included).
CURVE_POINTS = 12
#: ``ExtensionReport.flattens_at``'s default: within 1% of the tokens with every new token.
FLAT_WITHIN = 0.01


@dataclass(frozen=True)
class CurvePoint:
    """The held-out text with the first ``added`` new tokens: its tokens, the reference's (None
    without a reference), tokens per character and the premium (tokens over the reference's)."""

    added: int
    tokens: int
    reference_tokens: int | None
    tokens_per_character: float | None
    premium: float | None


@dataclass(frozen=True)
class ExtensionReport:
    """``extension_report``'s answer: ``curve`` runs from 0 new tokens (the base) to all of them."""

    base: str
    extended: str
    base_ids: int  # the base's highest id in use, plus one: its model's embedding rows
    new_ids: list[int]
    embedding_rows: int  # the rows the model must add: the new ids, and any gap before them
    characters: int
    curve: list[CurvePoint]
    unused: list[int]

    @property
    def added(self) -> int:
        return len(self.new_ids)

    @property
    def before(self) -> CurvePoint:
        return self.curve[0]

    @property
    def after(self) -> CurvePoint:
        return self.curve[-1]

    @property
    def saving(self) -> float | None:
        """The share of the held-out tokens the extension saves (0.4: 40% fewer tokens)."""
        share = ratio(self.after.tokens, self.before.tokens)
        return None if share is None else 1 - share

    def flattens_at(self, within: float = FLAT_WITHIN) -> int:
        """The fewest new tokens from which the held-out tokens stay within ``within`` (a share) of
        their count with all of them: where adding more stops paying."""
        if not 0 <= within < 1:
            raise BpeError(f"within must be a share between 0 and 1 (e.g. 0.01), got {within!r}")
        final = self.after.tokens
        found = self.after.added
        for point in reversed(self.curve):
            if point.tokens > final * (1 + within):
                break
            found = point.added
        return found

    def rows(self) -> list[dict[str, float | int | None]]:
        """The curve as table rows (one per point), for a chart or a CSV file."""
        return [
            {
                "added": point.added,
                "ids": self.base_ids + point.added,
                "tokens": point.tokens,
                "reference_tokens": point.reference_tokens,
                "tokens_per_character": point.tokens_per_character,
                "premium": point.premium,
            }
            for point in self.curve
        ]


def new_token_ids(base: Tokenizer, extended: Tokenizer) -> list[int]:
    """The ids ``extended`` adds to ``base``, in order; a ``BpeError`` unless every id of ``base`` keeps
    its bytes in ``extended`` and every special token its id."""
    if not isinstance(base, Tokenizer) or not isinstance(extended, Tokenizer):
        raise TypeError("base and extended must be bpe_core Tokenizers (see bpe_core.extend)")
    old, new = base.vocab, extended.vocab
    changed = next((i for i, token in old.items() if new.get(i) != token), None)
    if changed is not None or dict(extended.special_tokens) != dict(base.special_tokens):
        raise BpeError(
            f"{extended.name!r} is not an extension of {base.name!r}: "
            + (f"id {changed} differs" if changed is not None else "their special tokens differ")
            + " (bpe_core.extend keeps every id of the base)"
        )
    return sorted(set(new) - set(old))


def extension_report(
    base: Tokenizer,
    extended: Tokenizer,
    heldout: str | Sequence[str],
    *,
    reference: str | Sequence[str] | None = None,
    points: int | Sequence[int] = CURVE_POINTS,
) -> ExtensionReport:
    """Measure ``extended`` (``bpe_core.extend``'s result) against ``base`` on ``heldout`` text of the
    language, not seen in training; ``reference`` is the same text in the reference language (English,
    a parallel translation) for the premium. ``points`` is how many points the curve has (spread
    evenly from 0 to every new token) or the numbers of new tokens to measure at.

    >>> import bpe_core
    >>> gpt2 = bpe_core.load("gpt2")
    >>> hindi = bpe_core.extend(gpt2, ["नमस्ते दुनिया। " * 30], add=6, scripts="Devanagari")
    >>> report = extension_report(gpt2, hindi, ["नमस्ते दुनिया।"], reference=["Hello world."], points=3)
    >>> [(p.added, p.tokens, p.premium) for p in report.curve], report.unused
    ([(0, 25, 8.333333333333334), (3, 21, 7.0), (6, 18, 6.0)], [])
    """
    new_ids = new_token_ids(base, extended)
    texts = [heldout] if isinstance(heldout, str) else list(heldout)
    others = None if reference is None else [reference] if isinstance(reference, str) else list(reference)
    cut_offs = _points(points, len(new_ids))
    counts = _TokenCounter(base, extended, new_ids)
    tokens = counts.curve(texts, cut_offs)
    reference_tokens = counts.curve(others, cut_offs) if others is not None else None
    characters = sum(len(clean_text(text)) for text in texts)
    curve = [
        CurvePoint(
            added,
            tokens[index],
            reference_tokens[index] if reference_tokens else None,
            ratio(tokens[index], characters),
            ratio(tokens[index], reference_tokens[index]) if reference_tokens else None,
        )
        for index, added in enumerate(cut_offs)
    ]
    used = {i for ids in extended.encode_ordinary_batch([clean_text(t) for t in texts], workers=1) for i in ids}
    highest = max([*base.vocab, *base.special_tokens.values()])
    rows = max(new_ids) - highest if new_ids else 0
    return ExtensionReport(
        base.name, extended.name, highest + 1, new_ids, rows, characters, curve, [i for i in new_ids if i not in used]
    )


def _points(points: int | Sequence[int], total: int) -> list[int]:
    if isinstance(points, int) and not isinstance(points, bool):
        if points < 2:
            raise BpeError(f"points must be at least 2 (0 and every new token), got {points}")
        return sorted({round(i * total / (points - 1)) for i in range(points)})
    chosen = sorted(set(cast("Sequence[int]", points)))
    bad = [k for k in chosen if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= total]
    if bad or not chosen:
        raise BpeError(f"points must be numbers of new tokens from 0 to {total:,}, got {bad[0] if bad else 'none'!r}")
    return chosen


class _TokenCounter:
    """Each distinct piece's joins under the extension, once; tokens at any number of new tokens."""

    def __init__(self, base: Tokenizer, extended: Tokenizer, new_ids: list[int]) -> None:
        self.base, self.extended = base, extended
        self.same_pattern = base.pattern == extended.pattern
        self.tiktoken_rule = extended.rule == "tiktoken"
        if self.tiktoken_rule:
            self.ranks: Mapping[bytes, int] = extended._token_to_id
            self.first_rank = [*new_ids, max(self.ranks.values()) + 1]  # the rank the k-th new token starts at
        else:
            inherited = len(base.merges)
            if extended.merges[:inherited] != base.merges:
                raise BpeError(f"{extended.name!r} does not keep {base.name!r}'s merges first: not an extension of it")
            self.first_rank = [inherited + k for k in range(len(new_ids) + 1)]
        self.traces: dict[bytes, tuple[int | None, list[int]]] = {}

    def curve(self, texts: Sequence[str], cut_offs: Sequence[int]) -> list[int]:
        """The tokens of ``texts`` with the first k new tokens, for each k of ``cut_offs``."""
        pieces: Counter[bytes] = Counter()
        for text in texts:
            pieces.update(piece.encode("utf-8") for piece in self.extended.pretokenizer.pieces(clean_text(text)))
        found = []
        for k in cut_offs:
            if k == 0 and not self.same_pattern:  # superwords pre-tokenize differently: the base itself
                found.append(sum(map(len, self.base.encode_ordinary_batch([clean_text(t) for t in texts], workers=1))))
                continue
            limit = self.first_rank[k]
            found.append(sum(self._tokens(piece, limit) * count for piece, count in pieces.items()))
        return found

    def _tokens(self, piece: bytes, limit: int) -> int:
        trace = self.traces.get(piece)
        if trace is None:
            trace = self.traces[piece] = self._trace(piece)
        whole, highest_so_far = trace
        if whole is not None and whole < limit:
            return 1
        return len(piece) - bisect_left(highest_so_far, limit)

    def _trace(self, piece: bytes) -> tuple[int | None, list[int]]:
        """(the rank of ``piece`` as a whole token under tiktoken's rule, else None; the running
        maximum of the ranks of the joins that encode it, in order)."""
        if self.tiktoken_rule:
            whole = self.ranks.get(piece)
            joins = tiktoken_joins(piece, self.ranks)
        else:
            whole, joins = None, self.extended._applied_merge_ranks(piece)
        return whole, list(accumulate(joins, max))


def tiktoken_joins(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """The ranks of the joins tiktoken's rule makes on ``piece`` (no whole-piece look-up), in order:
    the adjacent pair whose bytes are the lowest-ranked token first, the leftmost among equals.

    >>> tiktoken_joins(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"abc": 4})
    [3, 4]
    """
    parts = [piece[i : i + 1] for i in range(len(piece))]
    joins = []
    while len(parts) > 1:
        best, at = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, at = rank, i
        if best is None:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
        joins.append(best)
    return joins
