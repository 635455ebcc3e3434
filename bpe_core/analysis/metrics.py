"""How well a tokenizer compresses a text, and how fairly it treats languages.

Works with anything that has ``encode_ordinary(text) -> list[int]``: a bpe_core ``Tokenizer`` or a
``tiktoken.Encoding``. Pure Python (no streamlit, plotly, pandas or numpy). For one text, with
N = number of tokens, C = characters (Unicode code points), B = UTF-8 bytes, W = words:

* tokens            N = len(tokenizer.encode_ordinary(text))
* chars_per_token   C / N                      (higher: better compression)
* bytes_per_token   B / N
* bytes_per_char    B / C                      (a property of the text and its script, not the tokenizer)
* premium           N(sample) / N(reference)   over parallel text; reference = English by default
                                               (Petrov et al. 2023, "Language Model Tokenizers Introduce
                                               Unfairness Between Languages")
* words             W = whitespace-separated chunks with leading and trailing punctuation (Unicode
                    category P*) stripped; chunks that are all punctuation are not words (counted,
                    with the split words, by ``words.word_metrics`` in C-level passes)
* fertility         N / W                      (all tokens of the text, punctuation and newlines included)
* split_share       (words covered by >= 2 tokens) / W; a token covers a word when its byte span in the
                    text overlaps the word's byte span (token spans come from the tokens' bytes, which
                    concatenate to the text's UTF-8 bytes for byte-level BPE)
* renyi_efficiency  H_a(p) / ln|V|, H_a(p) = ln(sum_i p_i^a) / (1 - a), a = 2.5 (Zouhar et al. 2023,
                    "Tokenization and the Noiseless Channel"); p_i = count of token id i in the encoded
                    text / N, over the ids that occur; |V| = the tokenizer's full vocabulary size
                    (``vocab_size`` of a Tokenizer, ``n_vocab`` of a tiktoken Encoding; special tokens
                    included). Natural logs (the base cancels). Note that the reference implementation
                    (tokenization-scorer) defaults |V| to the number of distinct tokens observed; we
                    use the tokenizer's vocabulary, so values on a short text are small (H_a <= ln N).
* renyi_efficiency_observed, avg_token_rank, zipf_slope, zipf_mae, zipf_auc, unique_tokens: the intrinsic
                    metrics of ``intrinsic`` on the text's token counts (H_a / ln V_obs as tokenization-scorer
                    divides; TokEval's average token rank; Lotz et al. 2025's Zipf fit: slope, power-law MAE,
                    Simpson area; tokka-bench's distinct tokens). Formulas and sources are in ``intrinsic``,
                    which computes every one of them (``intrinsic.distribution``, renyi_efficiency too):
                    this module computes none itself.

Across the languages of a parallel text (formulas in ``fairness``): the Gini
coefficient of token counts, vocabulary utilisation, the share of tokens holding part of a UTF-8
character, and bootstrap confidence intervals of the premium. Compression against vocabulary size is
``vocab_sweep``'s. Word metrics (words, fertility, split_share) are None for languages written
without spaces between words (``spaced=False``: Chinese, Japanese, Thai, Burmese). Ratios are None when their
denominator is 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bpe_core.analysis import intrinsic
from bpe_core.analysis.fairness import clean_text, ratio, token_bytes_of, vocab_size_of
from bpe_core.analysis.words import class_image, word_metrics
from bpe_core.corpora.samples import get_sample, sample_ids
from bpe_core.errors import BpeError

RENYI_ALPHA = intrinsic.RENYI_ALPHA
DEFAULT_REFERENCE = "eng"

# The metrics ``compare`` rows carry, in display order.
METRIC_NAMES = (
    "tokens",
    "chars_per_token",
    "bytes_per_token",
    "bytes_per_char",
    "premium",
    "fertility",
    "split_share",
    "renyi_efficiency",
)


@dataclass(frozen=True)
class TextMetrics:
    """The metrics of one text under one tokenizer (see the module docstring for the formulas)."""

    characters: int
    bytes: int
    tokens: int
    unique_tokens: int
    words: int | None
    chars_per_token: float | None
    bytes_per_token: float | None
    bytes_per_char: float | None
    fertility: float | None
    split_share: float | None
    renyi_efficiency: float | None
    vocab_size: int | None
    renyi_efficiency_observed: float | None
    avg_token_rank: float | None
    zipf_slope: float | None
    zipf_mae: float | None
    zipf_auc: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------------------------------
# one text


def measure(
    tokenizer: Any, text: str, *, spaced: bool = True, alpha: float = RENYI_ALPHA, vocab_size: int | None = None
) -> TextMetrics:
    """The metrics of ``text`` under ``tokenizer`` (anything with ``encode_ordinary``).

    ``spaced=False`` (languages without spaces between words) leaves the word metrics None.
    ``vocab_size`` overrides |V| of the Rényi efficiency (default: the tokenizer's own size).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    text = clean_text(text)
    ids = list(tokenizer.encode_ordinary(text))
    return _metrics(tokenizer, text, ids, spaced=spaced, alpha=alpha, vocab_size=vocab_size)


def _token_bytes(tokenizer: Any, ids: list[int]) -> Sequence[bytes] | None:
    """``token_bytes_of`` without copying each token into ``bytes`` (``word_metrics`` only joins and
    measures them, which any bytes-like object allows; the time saved: bench/PERFORMANCE.md, "Figures
    behind choices in the code")."""
    if hasattr(tokenizer, "decode_tokens_bytes"):
        try:
            tokens = tokenizer.decode_tokens_bytes(ids)
            return tokens if isinstance(tokens, list) else list(tokens)  # a generator or tuple from other tools
        except (KeyError, ValueError, TypeError):
            return None
    return token_bytes_of(tokenizer, ids)


def _metrics(
    tokenizer: Any,
    text: str,
    ids: list[int],
    *,
    spaced: bool,
    alpha: float,
    vocab_size: int | None,
    image: bytes | None = None,
) -> TextMetrics:
    """``measure``'s figures for the ids of the cleaned ``text``; ``image`` is the text's
    ``class_image`` when the caller keeps it for several tokenizers."""
    encoded = text.encode("utf-8")
    n_tokens = len(ids)
    n_chars = len(text)
    n_bytes = len(encoded)
    size = vocab_size if vocab_size is not None else vocab_size_of(tokenizer)
    counts = Counter(ids)
    distribution = intrinsic.distribution(counts, size, alpha=alpha)
    words = fertility = split_share = None
    if spaced:
        words, split_share = word_metrics(text, encoded, _token_bytes(tokenizer, ids), image=image)
        fertility = ratio(n_tokens, words)
    return TextMetrics(
        characters=n_chars,
        bytes=n_bytes,
        tokens=n_tokens,
        unique_tokens=distribution.unique_tokens,
        words=words,
        chars_per_token=ratio(n_chars, n_tokens),
        bytes_per_token=ratio(n_bytes, n_tokens),
        bytes_per_char=ratio(n_bytes, n_chars),
        fertility=fertility,
        split_share=split_share,
        renyi_efficiency=distribution.renyi_efficiency,
        vocab_size=size,
        renyi_efficiency_observed=distribution.renyi_efficiency_observed,
        avg_token_rank=distribution.avg_token_rank,
        zipf_slope=distribution.zipf_slope,
        zipf_mae=distribution.zipf_mae,
        zipf_auc=distribution.zipf_auc,
    )


# --------------------------------------------------------------------------------------------------
# many tokenizers x many samples


@dataclass(frozen=True)
class _Text:
    id: str
    label: str
    kind: str | None
    script: str | None
    spaced: bool
    text: str


def _as_text(sample: Any) -> _Text:
    if isinstance(sample, (tuple, list)):
        if len(sample) not in (2, 3) or not isinstance(sample[0], str) or not isinstance(sample[1], str):
            raise BpeError(f"a sample tuple must be (label, text) or (label, text, spaced), got {sample!r:.80}")
        spaced = bool(sample[2]) if len(sample) == 3 else True
        return _Text(sample[0], sample[0], None, None, spaced, sample[1])
    try:
        return _Text(sample.id, sample.label, sample.kind, sample.script, bool(sample.spaced), sample.text)
    except AttributeError:
        raise TypeError(
            f"samples must be bpe_core.corpora.samples.Sample objects or (label, text[, spaced]) tuples, "
            f"not {type(sample).__name__}"
        ) from None


def _find_reference(reference: str, texts: list[_Text]) -> tuple[_Text, bool]:
    """The reference text and whether it is one of ``texts``."""
    for text in texts:
        if text.id == reference:
            return text, True
    for text in texts:
        if text.label == reference:
            return text, True
    if reference in sample_ids():
        return _as_text(get_sample(reference)), False
    raise BpeError(
        f"reference {reference!r} is neither among the samples ({', '.join(t.id for t in texts)}) "
        "nor a built-in sample id"
    )


def compare(
    tokenizers: Mapping[str, Any],
    samples: Sequence[Any],
    reference: str | None = DEFAULT_REFERENCE,
    *,
    alpha: float = RENYI_ALPHA,
) -> list[dict[str, Any]]:
    """One row per (tokenizer, sample), tokenizers in the outer loop, with every metric.

    ``samples`` are ``Sample`` objects or ``(label, text)`` / ``(label, text, spaced)`` tuples (the
    label doubles as the id). ``reference`` is the id or label of the sample the premium is relative
    to (default ``"eng"``; a built-in sample id works even when it is not among ``samples``; None: no
    premium). The premium is left None for code and data samples, which are not parallel text.

    Row keys: tokenizer, sample, label, kind, script, spaced, reference, the ``TextMetrics`` fields and
    premium.
    """
    texts = [_as_text(s) for s in samples]
    seen: set[str] = set()
    for text in texts:
        if text.id in seen:
            raise BpeError(f"two samples share the id {text.id!r}: ids must be unique")
        seen.add(text.id)
    ref = None
    ref_is_sample = False
    if reference is not None:
        ref, ref_is_sample = _find_reference(reference, texts)
    rows = []
    cleaned = {text.id: clean_text(text.text) for text in texts}
    images: dict[str, bytes] = {}  # class images: the same for every tokenizer
    for tokenizer_label, tokenizer in tokenizers.items():
        cache: dict[str, TextMetrics] = {}
        for text in texts:
            clean = cleaned[text.id]
            if text.spaced and text.id not in images:
                images[text.id] = class_image(clean)
            ids = list(tokenizer.encode_ordinary(clean))
            cache[text.id] = _metrics(
                tokenizer, clean, ids, spaced=text.spaced, alpha=alpha, vocab_size=None, image=images.get(text.id)
            )
        ref_tokens = None
        if ref is not None:
            if ref_is_sample:
                ref_tokens = cache[ref.id].tokens
            else:
                ref_tokens = measure(tokenizer, ref.text, spaced=ref.spaced, alpha=alpha).tokens
        for text in texts:
            metrics = cache[text.id]
            premium = None
            if ref_tokens and text.kind in (None, "natural"):
                premium = metrics.tokens / ref_tokens
            rows.append(
                {
                    "tokenizer": tokenizer_label,
                    "sample": text.id,
                    "label": text.label,
                    "kind": text.kind,
                    "script": text.script,
                    "spaced": text.spaced,
                    "reference": ref.label if ref is not None else None,
                    **metrics.as_dict(),
                    "premium": premium,
                }
            )
    return rows


# --------------------------------------------------------------------------------------------------
# one sentence for a reader


def _format(value: float, metric: str) -> str:
    if metric == "split_share":
        return f"{value:.0%}"
    if metric == "tokens":
        return f"{value:,.0f}"
    if metric == "renyi_efficiency":
        return f"{value:.2f}"
    return f"{value:.1f}"


# One sentence per metric: {tok} the tokenizer, {top}/{low} the labels with the highest/lowest value,
# {hi}/{lo} those values formatted.
_SENTENCES = {
    "chars_per_token": "{tok} fits the most characters into a token for {top} ({hi}) and the fewest for {low} ({lo}).",
    "bytes_per_token": "{tok} fits the most bytes into a token for {top} ({hi}) and the fewest for {low} ({lo}).",
    "bytes_per_char": "{top} needs the most UTF-8 bytes per character ({hi}) and {low} the fewest ({lo}).",
    "tokens": "{tok} uses the most tokens for {top} ({hi}) and the fewest for {low} ({lo}).",
    "fertility": "{tok} uses the most tokens per word for {top} ({hi}) and the fewest for {low} ({lo}).",
    "split_share": "{tok} splits {hi} of {top} words into several tokens but only {lo} of {low} words.",
    "renyi_efficiency": (
        "{tok}'s token distribution is most even for {top} (Rényi efficiency {hi}) and least even for {low} ({lo})."
    ),
}


def summary_sentence(rows: Sequence[Mapping[str, Any]], tokenizer_label: str, metric: str = "premium") -> str:
    """A plain sentence about ``tokenizer_label``'s rows from ``compare`` for one metric, e.g.
    "GPT-2 needs 7.5x more tokens for Hindi than for English." ValueError if there is nothing to say."""
    if metric not in METRIC_NAMES:
        raise BpeError(f"unknown metric {metric!r}: choose one of {', '.join(METRIC_NAMES)}")
    mine = [r for r in rows if r.get("tokenizer") == tokenizer_label and r.get(metric) is not None]
    if metric == "premium":
        mine = [r for r in mine if r.get("label") != r.get("reference")]
    if not mine:
        known = sorted({str(r.get("tokenizer")) for r in rows})
        raise BpeError(
            f"no rows with a {metric} for tokenizer {tokenizer_label!r} "
            f"(tokenizers in the rows: {', '.join(known) or 'none'})"
        )
    top = max(mine, key=lambda r: r[metric])
    low = min(mine, key=lambda r: r[metric])
    tok = tokenizer_label
    if metric == "premium":
        reference = top.get("reference")
        premium = top[metric]
        if premium >= 1.05:
            return f"{tok} needs {premium:.1f}x more tokens for {top['label']} than for {reference}."
        if premium > 0.95:
            return f"{tok} needs about as many tokens for every language as for {reference}."
        return (
            f"{tok} needs fewer tokens for every language than for {reference} "
            f"(at most {premium:.2f}x, for {top['label']})."
        )
    hi, lo = _format(top[metric], metric), _format(low[metric], metric)
    return _SENTENCES[metric].format(tok=tok, top=top["label"], low=low["label"], hi=hi, lo=lo)
