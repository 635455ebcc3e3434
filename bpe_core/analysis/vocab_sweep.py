"""Compression as the vocabulary grows: characters per token at every vocabulary size up to a
tokenizer's own, from one BPE pass per distinct pre-token (the first k merges of a BPE tokenizer are
a tokenizer too); the premium of every language of a parallel text at each size, and where each
language stops improving. The per-text metrics themselves are ``metrics``'. Nothing here trains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from bpe_core.analysis.fairness import clean_text, ratio
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer

#: ``stops_improving``'s default: within 1% of the tokens at the full vocabulary.
IMPROVEMENT_TOLERANCE = 0.01


def _merge_counts_to_try(total: int, steps: int, spacing: str) -> list[int]:
    if steps < 2:
        raise BpeError(f"steps must be at least 2, got {steps}")
    if total == 0:
        return [0]
    if spacing == "linear":
        values = {round(i * total / (steps - 1)) for i in range(steps)}
    elif spacing == "log":
        # 0, then steps - 1 points spread geometrically from 1 to total
        values = {0, total}
        if steps > 2:
            values.update(round(total ** (i / (steps - 2))) for i in range(steps - 1))
    else:
        raise BpeError(f"spacing must be 'linear' or 'log', got {spacing!r}")
    return sorted(min(max(v, 0), total) for v in values)


def compression_by_vocab_size(
    tokenizer: Any,
    texts: Mapping[str, str],
    steps: int = 20,
    *,
    merges: Sequence[int] | None = None,
    spacing: Literal["linear", "log"] = "linear",
) -> list[dict[str, Any]]:
    """Characters per token of each text at several vocabulary sizes up to the tokenizer's own.

    The tokenizer of size ``vocab_size - (total merges - k)`` is ``tokenizer.truncated(k)``: the
    first k merges (256 bytes + special tokens + k). Rather than rebuilding and re-encoding with each
    truncated tokenizer, every distinct pre-token is run through BPE once, recording the rank of
    each merge it applies; the token count at k follows from how many of those ranks are below k
    (equal to ``truncated(k).encode_ordinary`` by construction, see ``Tokenizer.applied_merge_ranks``).
    A Picky BPE tokenizer has no such prefixes: BpeError.

    ``texts`` maps a label to a text. By default ``steps`` merge counts are spread evenly (or
    geometrically with ``spacing="log"``) from 0 to all merges; ``merges`` lists them explicitly.
    A ``tiktoken.Encoding`` is converted with ``Tokenizer.from_tiktoken`` first.

    Rows (text-major, merge counts increasing): text, merges, vocab_size, characters, bytes, tokens,
    chars_per_token, bytes_per_token.
    """
    tokenizer = _as_tokenizer(tokenizer)
    total = len(tokenizer.merge_records)
    points = _merge_counts_to_try(total, steps, spacing) if merges is None else _checked_points(merges, total)
    full_size = tokenizer.vocab_size
    traces: dict[bytes, list[int]] = {}  # piece bytes -> ranks of the merges BPE applies to it
    rows = []
    for label, text in texts.items():
        text = clean_text(text)
        n_chars = len(text)
        n_bytes = len(text.encode("utf-8"))
        applied_by_rank = _applied_by_rank(tokenizer, text, traces)
        sorted_ranks = sorted(applied_by_rank.items())
        index = 0
        applied_below = 0
        for k in points:
            while index < len(sorted_ranks) and sorted_ranks[index][0] < k:
                applied_below += sorted_ranks[index][1]
                index += 1
            tokens = n_bytes - applied_below
            rows.append(
                {
                    "text": label,
                    "merges": k,
                    "vocab_size": full_size - (total - k),
                    "characters": n_chars,
                    "bytes": n_bytes,
                    "tokens": tokens,
                    "chars_per_token": ratio(n_chars, tokens),
                    "bytes_per_token": ratio(n_bytes, tokens),
                }
            )
    return rows


def _as_tokenizer(tokenizer: Any) -> Tokenizer:
    if getattr(tokenizer, "rule", None) == "picky":
        raise BpeError(
            f"{tokenizer.name!r} is a Picky BPE tokenizer: a prefix of its events is no smaller tokenizer (later "
            "events remove tokens), so it has no compression by vocabulary size; compare it at its own size"
        )
    if hasattr(tokenizer, "merge_records"):
        return tokenizer
    if hasattr(tokenizer, "_mergeable_ranks"):
        return Tokenizer.from_tiktoken(tokenizer)
    raise TypeError(
        f"compression_by_vocab_size needs a bpe_core Tokenizer (or a tiktoken Encoding), not {type(tokenizer).__name__}"
    )


def _checked_points(merges: Sequence[int], total: int) -> list[int]:
    points = sorted(set(merges))
    bad = [k for k in points if not isinstance(k, int) or isinstance(k, bool) or k < 0 or k > total]
    if bad:
        raise BpeError(f"merge counts must be integers in 0..{total}, got {bad[0]!r}")
    return points


def _applied_by_rank(tokenizer: Tokenizer, text: str, traces: dict[bytes, list[int]]) -> Counter:
    """How many merges of each rank BPE applies to ``text`` (one BPE pass per distinct piece)."""
    applied: Counter = Counter()
    for piece in tokenizer.pretokenizer.pieces(text):
        data = piece.encode("utf-8")
        trace = traces.get(data)
        if trace is None:
            trace = traces[data] = tokenizer._applied_merge_ranks(data)
        applied.update(trace)
    return applied


def premium_by_vocab_size(
    tokenizer: Any,
    texts: Mapping[str, str],
    reference: str,
    steps: int = 20,
    *,
    merges: Sequence[int] | None = None,
    spacing: Literal["linear", "log"] = "linear",
) -> list[dict[str, Any]]:
    """``compression_by_vocab_size`` with each row's ``premium``: its tokens / the ``reference``
    text's tokens at the same vocabulary size (``texts`` is parallel; ``reference`` is one of its
    labels). One line per language when drawn against ``vocab_size``.

    >>> import bpe_core
    >>> tok = bpe_core.train("ab ab ab cd cd", 257, min_frequency=1)  # one merge: a + b
    >>> [(r["text"], r["merges"], r["premium"]) for r in premium_by_vocab_size(tok, {"x": "ab", "y": "cd"}, "x", 2)]
    [('x', 0, 1.0), ('x', 1, 1.0), ('y', 0, 1.0), ('y', 1, 2.0)]
    """
    if reference not in texts:
        raise BpeError(f"reference {reference!r} is not among the texts ({', '.join(texts)})")
    rows = compression_by_vocab_size(tokenizer, texts, steps, merges=merges, spacing=spacing)
    reference_tokens = {row["merges"]: row["tokens"] for row in rows if row["text"] == reference}
    for row in rows:
        row["premium"] = ratio(row["tokens"], reference_tokens[row["merges"]])
    return rows


def stops_improving(rows: Sequence[Mapping[str, Any]], tolerance: float = IMPROVEMENT_TOLERANCE) -> dict[str, int]:
    """For each text of ``compression_by_vocab_size`` rows, the smallest vocabulary size from which
    its token count stays within ``tolerance`` (a share) of its count at the largest size measured:
    where the extra merges stop helping that text.

    >>> rows = [{"text": "t", "vocab_size": v, "tokens": n} for v, n in [(256, 100), (300, 60), (400, 50), (500, 50)]]
    >>> stops_improving(rows)
    {'t': 400}
    """
    if not 0 <= tolerance < 1:
        raise BpeError(f"tolerance must be a share between 0 and 1 (e.g. 0.01), got {tolerance!r}")
    by_text: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        by_text.setdefault(row["text"], []).append((row["vocab_size"], row["tokens"]))
    out = {}
    for label, points in by_text.items():
        points.sort()
        final = points[-1][1]
        size = points[-1][0]
        for vocab_size, tokens in reversed(points):
            if tokens > final * (1 + tolerance):
                break
            size = vocab_size
        out[label] = size
    return out
