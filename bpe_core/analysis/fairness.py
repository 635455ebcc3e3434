"""How evenly a tokenizer treats the languages of a parallel text, and how sure we can be of it.

``metrics`` builds its per-text
metrics on the building blocks at the top (``ratio``, ``clean_text``, ``vocab_size_of``,
``token_bytes_of``). Formulas, with x_l = the number of tokens of language l on the parallel text:

* gini                     sum_i sum_j |x_i - x_j| / (2 n^2 mean(x)) over the n languages: 0 = every
                           language needs the same number of tokens (parity), towards 1 = one needs them
                           all (Foroutan et al. 2025 report it for parity-aware BPE). Computed from the
                           sorted values in O(n log n); 0 when every x is 0.
* vocabulary utilisation   distinct ids in the encoded text / |V| (|V| = the tokenizer's vocabulary size,
                           special tokens included), per text and for the union of all texts.
* partial_token_share      tokens that start or end inside a UTF-8 character / N: a sign that a script
                           is split into bytes (Burmese under GPT-2), 0 when every token holds whole
                           characters.
* premium interval         the premium sum_s x_l(s) / sum_s x_ref(s) over the parallel sentences s (each
                           sentence encoded on its own), with a percentile bootstrap interval: sentences
                           are resampled with replacement (the same draw for every language, since they
                           are parallel) and the interval is the middle ``confidence`` share of the
                           resampled premiums. Deterministic for a given ``seed``. A wide interval means
                           the text is too short to conclude anything.

Pure Python: no numpy; nothing here trains or draws.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95

# --------------------------------------------------------------------------------------------------
# building blocks (also used by ``metrics``)


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or None when the denominator is 0."""
    return numerator / denominator if denominator else None


def clean_text(text: str) -> str:
    """``text`` as the tokenizers see it: lone surrogates (not UTF-8 encodable) become U+FFFD."""
    return replace_surrogates(text)


def vocab_size_of(tokenizer: Any) -> int | None:
    """The number of ids of ``tokenizer``: ``vocab_size`` (bpe_core, Hugging Face) or ``n_vocab``
    (tiktoken); None if it has neither."""
    for attribute in ("vocab_size", "n_vocab"):
        value = getattr(tokenizer, attribute, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def token_bytes_of(tokenizer: Any, ids: Sequence[int]) -> list[bytes] | None:
    """The bytes of each id (``decode_tokens_bytes`` or ``decode_single_token_bytes``, as bpe_core
    and tiktoken offer them); None when the tokenizer cannot say."""
    try:
        if hasattr(tokenizer, "decode_tokens_bytes"):
            return list(map(bytes, tokenizer.decode_tokens_bytes(ids)))
        if hasattr(tokenizer, "decode_single_token_bytes"):
            return [bytes(tokenizer.decode_single_token_bytes(i)) for i in ids]
    except (KeyError, ValueError, TypeError):
        return None
    return None


def _encode(tokenizer: Any, text: Any) -> list[int]:
    if not isinstance(text, str):
        raise TypeError(f"texts must be str, not {type(text).__name__}")
    return list(tokenizer.encode_ordinary(clean_text(text)))


# --------------------------------------------------------------------------------------------------
# inequality


def gini(values: Iterable[float]) -> float:
    """The Gini coefficient of non-negative ``values`` (token counts of the languages of a parallel
    text): mean absolute difference / (2 * mean), 0 for parity.

    >>> gini([10, 10, 10]), gini([0, 0, 30]), round(gini([1, 2, 3, 4]), 4)
    (0.0, 0.6666666666666666, 0.25)
    """
    xs = sorted(values)
    if not xs:
        raise BpeError("the Gini coefficient needs at least one value (one token count per language)")
    if xs[0] < 0:
        raise BpeError(f"the Gini coefficient needs non-negative values (token counts), got {xs[0]!r}")
    n = len(xs)
    total = sum(xs)
    if not total:
        return 0.0
    # sum_i sum_j |x_i - x_j| = 2 * sum_i (2i - n - 1) x_(i) for the sorted values (1-based i)
    weighted = sum((2 * i - n - 1) * x for i, x in enumerate(xs, start=1))
    return weighted / (n * total)


# --------------------------------------------------------------------------------------------------
# how much of the vocabulary a text uses, and how many tokens split characters


@dataclass(frozen=True)
class Utilisation:
    """Distinct ids used / ``vocab_size``: for all texts together (``overall``) and per text."""

    vocab_size: int
    overall: float
    distinct: int
    by_text: dict[str, float]


def vocabulary_utilisation(tokenizer: Any, texts: Mapping[str, str]) -> Utilisation:
    """The share of the vocabulary each text uses, and all of them together.

    ``texts`` maps a label to a text; ``tokenizer`` has ``encode_ordinary`` and a vocabulary size.
    """
    size = vocab_size_of(tokenizer)
    if not size:
        raise TypeError(f"{type(tokenizer).__name__} does not say its vocabulary size (vocab_size or n_vocab)")
    used: set[int] = set()
    by_text = {}
    for label, text in texts.items():
        ids = set(_encode(tokenizer, text))
        used |= ids
        by_text[label] = len(ids) / size
    return Utilisation(size, len(used) / size, len(used), by_text)


def partial_token_share(tokenizer: Any, text: str) -> float | None:
    """The share of ``text``'s tokens that start or end inside a UTF-8 character (hold only part of
    one); None for an empty text or a tokenizer that does not give its tokens' bytes.

    >>> import bpe_core
    >>> partial_token_share(bpe_core.load("gpt2"), "ab"), partial_token_share(bpe_core.load("gpt2"), "日本語です")
    (0.0, 0.75)
    """
    text = clean_text(text)
    ids = _encode(tokenizer, text)
    pieces = token_bytes_of(tokenizer, ids)
    data = text.encode("utf-8")
    if not ids or pieces is None or b"".join(pieces) != data:
        return None
    partial = 0
    position = 0
    for piece in pieces:
        end = position + len(piece)
        # a UTF-8 continuation byte (10xxxxxx) never starts a character
        if (data[position] & 0xC0) == 0x80 or (end < len(data) and (data[end] & 0xC0) == 0x80):
            partial += 1
        position = end
    return partial / len(ids)


# --------------------------------------------------------------------------------------------------
# premium with a bootstrap interval


@dataclass(frozen=True)
class PremiumInterval:
    """A language's premium over the reference on parallel sentences, and its bootstrap interval."""

    premium: float
    low: float
    high: float
    sentences: int


def sentence_tokens(tokenizer: Any, sentences: Sequence[str]) -> list[int]:
    """The number of tokens of each sentence, each encoded on its own."""
    if isinstance(sentences, str):
        raise TypeError("sentences must be a list of str (one per parallel sentence), not one str: split it into lines")
    return [len(_encode(tokenizer, sentence)) for sentence in sentences]


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between the order statistics of ``ordered`` (sorted)."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    if ordered[above] == ordered[below] or position == below:  # also keeps inf - inf out
        return ordered[below]
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _check_counts(counts: Mapping[str, Sequence[int]], reference: str) -> int:
    if reference not in counts:
        raise BpeError(f"reference {reference!r} is not among the languages ({', '.join(counts)})")
    sizes = {label: len(values) for label, values in counts.items()}
    n = sizes[reference]
    uneven = [label for label, size in sizes.items() if size != n]
    if uneven:
        raise BpeError(
            f"parallel text needs the same number of sentences in every language: {reference} has {n}, "
            + ", ".join(f"{label} {sizes[label]}" for label in uneven)
        )
    if not n:
        raise BpeError("there are no sentences to compare")
    if not sum(counts[reference]):
        raise BpeError(f"the reference {reference!r} has no tokens: the premium is undefined")
    return n


def premium_intervals(
    counts: Mapping[str, Sequence[int]],
    reference: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> dict[str, PremiumInterval]:
    """Each language's premium over ``reference`` with a bootstrap interval, from per-sentence token
    counts (``counts[label][s]``: tokens of parallel sentence s; see ``sentence_tokens``).

    >>> premium_intervals({"eng": [2, 2], "deu": [3, 3]}, "eng")["deu"]
    PremiumInterval(premium=1.5, low=1.5, high=1.5, sentences=2)
    """
    n = _check_counts(counts, reference)
    if not isinstance(resamples, int) or isinstance(resamples, bool) or resamples < 1:
        raise BpeError(f"resamples must be a positive integer, got {resamples!r}")
    if not 0 < confidence < 1:
        raise BpeError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    rng = random.Random(seed)
    labels = list(counts)
    columns = [list(counts[label]) for label in labels]
    ref_column = list(counts[reference])
    drawn: list[list[float]] = [[] for _ in labels]
    for _ in range(resamples):
        picks = rng.choices(range(n), k=n)
        ref_total = sum(ref_column[i] for i in picks)
        for values, column in zip(drawn, columns, strict=True):
            total = sum(column[i] for i in picks)
            # a draw of only token-less reference sentences has no premium: count it as unbounded
            values.append(total / ref_total if ref_total else float("inf"))
    tail = (1 - confidence) / 2
    ref_sum = sum(ref_column)
    out = {}
    for label, column, values in zip(labels, columns, drawn, strict=True):
        values.sort()
        out[label] = PremiumInterval(sum(column) / ref_sum, _quantile(values, tail), _quantile(values, 1 - tail), n)
    return out


def tokenizer_premium_intervals(
    tokenizer: Any, sentences: Mapping[str, Sequence[str]], reference: str, **options: Any
) -> dict[str, PremiumInterval]:
    """``premium_intervals`` of ``tokenizer`` on parallel ``sentences`` (label -> list of sentences,
    the same count in every language), with its keywords (resamples, confidence, seed)."""
    counts = {label: sentence_tokens(tokenizer, lines) for label, lines in sentences.items()}
    return premium_intervals(counts, reference, **options)
