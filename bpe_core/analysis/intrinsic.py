"""Intrinsic tokenizer metrics: numbers computed from the tokens a tokenizer produces on a text, with
no model trained on them. Pure functions over token counts (a ``Counter`` of ids, or the counts
themselves) or id sequences; they neither encode nor draw. Notation: c(v) = how often token type v
occurs in the tokenized text, N = sum of c(v), p(v) = c(v) / N (the unigram distribution of the
tokens), V_obs = the number of types with c(v) > 0, |V| = the tokenizer's vocabulary size.

* ``renyi_entropy``       H_a(p) = log(sum_v p(v)^a) / (1 - a); Shannon entropy for a = 1, -log max p
                          for a = inf.
* ``renyi_efficiency``    H_a(p) / log|V| (Zouhar et al. 2023), a = 2.5 by default; or H_a(p) / log V_obs
                          (``normalize_by="observed"``, the default of their tokenization-scorer package).
* ``zipf_fit``            the slope, fit error and area under the log-log rank-frequency curve (Lotz et
                          al. 2025); ``cardinality`` is V_obs.
* ``unique_tokens``       V_obs of an id sequence (tokka-bench).
* ``average_token_rank``  sum_v c(v) rank(v) / N, rank 1 = most frequent type (SwissAI TokEval).
* ``fertility``           tokens per word over several texts, pooled or averaged per text (TokEval's
                          mean); words are ``words.word_spans``'s, the same as ``metrics``' fertility.
* ``distribution``        all of the above that depend on the counts alone, at once: what the
                          comparisons of ``metrics`` (Compare, ``python -m bpe_core compare``) and of
                          ``variants`` (the Lab, ``python -m bpe_core variants``) report.

This is the one home of these formulas: the other analysis modules call them and compute none of
their own. Undefined values (no tokens, a fit through fewer than two types) are None.
Distribution metrics take counts, so they cost O(V_obs) whatever the text's length. Logarithms are
natural unless a ``base`` is given; efficiencies and slopes do not depend on the base.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bpe_core.errors import BpeError

RENYI_ALPHA = 2.5
NORMALIZATIONS = ("vocabulary", "observed")
AVERAGES = ("pooled", "macro")

#: A ``Counter`` of token ids (any hashable types), or the counts themselves.
Counts = Mapping[Hashable, int] | Iterable[int]


def _positive_counts(counts: Counts) -> list[int]:
    """The counts above zero (a Mapping's values, or the iterable itself); TypeError for
    non-integers, BpeError for negative ones."""
    if isinstance(counts, (str, bytes)):
        raise TypeError("counts must be a Counter of token ids or a list of counts, not a string")
    values = counts.values() if isinstance(counts, Mapping) else counts
    out = []
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"token counts must be integers, got {value!r} ({type(value).__name__})")
        if value < 0:
            raise BpeError(f"token counts cannot be negative, got {value}")
        if value:
            out.append(value)
    return out


def _check_base(base: float) -> float:
    if not isinstance(base, (int, float)) or isinstance(base, bool) or not base > 0 or base == 1:
        raise BpeError(f"the logarithm base must be a positive number other than 1, got {base!r}")
    return math.log(base)


# --------------------------------------------------------------------------------------------------
# Rényi entropy and efficiency


def renyi_entropy(counts: Counts, alpha: float = RENYI_ALPHA, *, base: float = math.e) -> float:
    """Rényi entropy of order ``alpha`` of the distribution p(v) = c(v) / N of ``counts``:
    H_a(p) = log(sum_v p(v)^a) / (1 - a); Shannon's -sum p log p for a = 1; -log max_v p(v) for
    a = inf. In nats unless ``base`` is given. BpeError for no counts or a < 0.

    >>> from collections import Counter
    >>> round(renyi_entropy(Counter("aabc"), 2.5, base=2), 7)  # p = (1/2, 1/4, 1/4)
    1.3754988
    >>> renyi_entropy([1, 1, 1, 1], 1, base=2), renyi_entropy([7], 3)
    (2.0, 0.0)
    """
    values = _positive_counts(counts)
    log_base = _check_base(base)
    if not values:
        raise BpeError("the Rényi entropy of an empty distribution is undefined (no tokens were counted)")
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or math.isnan(alpha):
        raise TypeError(f"alpha must be a number, not {alpha!r}")
    if alpha < 0:
        raise BpeError(f"alpha must be >= 0, got {alpha}")
    total = sum(values)
    if len(values) == 1:
        return 0.0
    probabilities = [c / total for c in values]
    if alpha == 1:
        entropy = -math.fsum(p * math.log(p) for p in probabilities)
    elif math.isinf(alpha):
        entropy = -math.log(max(probabilities))
    else:
        entropy = math.log(math.fsum(p**alpha for p in probabilities)) / (1 - alpha)
    return entropy / log_base


def renyi_efficiency(
    counts: Counts,
    vocab_size: int | None = None,
    *,
    alpha: float = RENYI_ALPHA,
    normalize_by: Literal["vocabulary", "observed"] = "vocabulary",
) -> float | None:
    """Rényi efficiency (Zouhar, Meister, Gastaldi, Du, Sachan, Cotterell 2023, "Tokenization and
    the Noiseless Channel", ACL): E_a = H_a(p) / log|V|, in [0, 1], 1 when the tokens are spread
    evenly over the whole vocabulary. The paper finds a = 2.5 correlates best with translation
    quality. Two normalisations, chosen explicitly:

    * ``normalize_by="vocabulary"`` (default, the paper's): |V| = ``vocab_size``, the tokenizer's
      vocabulary size (required). Types the text does not use count against it, so a short text
      scores low.
    * ``normalize_by="observed"``: |V| = V_obs, the number of distinct tokens in ``counts``, as the
      reference package tokenization-scorer 1.1.8 does when given no vocabulary (its default
      ``power`` is 3.0, not 2.5). Leave ``vocab_size`` None.

    None when nothing was counted, or when log|V| = 0 (|V| = 1). BpeError if ``vocab_size`` is
    smaller than V_obs. The value is clamped to [0, 1] against rounding (the bounds are exact).

    >>> from collections import Counter
    >>> round(renyi_efficiency(Counter("aabc"), 4), 7)  # the note's example: H_2.5 / log2(4)
    0.6877494
    >>> round(renyi_efficiency(Counter("aabc"), normalize_by="observed"), 7)
    0.8678431
    >>> renyi_efficiency(Counter("abcd"), 16), renyi_efficiency(Counter("abcd"), 16, alpha=1)
    (0.5, 0.5)
    """
    if normalize_by not in NORMALIZATIONS:
        raise BpeError(f"normalize_by must be one of {', '.join(NORMALIZATIONS)}, not {normalize_by!r}")
    values = _positive_counts(counts)
    if normalize_by == "observed":
        if vocab_size is not None:
            raise BpeError("normalize_by='observed' divides by the distinct tokens seen: leave vocab_size None")
        size = len(values)
    else:
        if vocab_size is None:
            raise BpeError(
                "renyi_efficiency needs the tokenizer's vocab_size (the paper's log|V|), "
                "or normalize_by='observed' to divide by the number of distinct tokens seen"
            )
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
            raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
        if vocab_size < len(values):
            raise BpeError(
                f"vocab_size {vocab_size} is smaller than the {len(values)} distinct tokens counted: "
                "pass the tokenizer's full vocabulary size"
            )
        size = vocab_size
    if not values or size < 2:
        return None
    efficiency = renyi_entropy(values, alpha) / math.log(size)
    return min(1.0, max(0.0, efficiency))


# --------------------------------------------------------------------------------------------------
# Zipf: the rank-frequency curve


@dataclass(frozen=True)
class ZipfFit:
    """A least-squares line through the log-log rank-frequency points of a token distribution, and
    the area under those points (see ``zipf_fit``)."""

    cardinality: int  # V_obs, the number of points
    slope: float  # b of log c_r = a + b log r; -1 for an exact Zipf law
    intercept: float  # a
    power_law_mae: float  # mean |log c_r - (a + b log r)|: 0 for an exact power law
    auc_simpson: float  # area under the points from log 1 to log V_obs, composite Simpson
    auc_trapezoid: float  # the same area by the trapezoidal rule


def zipf_fit(counts: Counts, *, base: float = math.e) -> ZipfFit | None:
    """The Zipf-based metrics of Lotz, Lopes, Peitz, Setiawan, Emili 2025 ("Beyond Text
    Compression: Evaluating Tokenizers Across Scales", ACL; arXiv 2506.03101): cardinality, the
    slope of the rank-frequency curve, its deviation from a power law, and the area under it.

    Taken from the paper (through its abstract and a secondary summary; no code was released): the
    four quantities, the log-log rank-frequency curve, a linear fit, mean absolute error as the
    deviation, Simpson's rule for the area. Chosen here, because the sources do not say: ranks
    r = 1..V_obs over the types sorted by count, most frequent first (ties in any order: their
    values are equal); x_r = log r, y_r = log c_r with raw counts (not relative frequencies); all
    ranks (no window); ordinary least squares y = a + b x over every rank; the area is composite
    Simpson for unevenly spaced points as ``scipy.integrate.simpson`` computes it (scipy >= 1.11:
    for an even number of points, Cartwright's correction on the last interval), with the
    trapezoid area beside it. ``base`` (natural by default) scales the MAE by 1/log(base) and the
    areas by 1/log(base)^2; the slope does not change. None for fewer than two types.

    >>> from collections import Counter
    >>> fit = zipf_fit(Counter("aaaaaabbbcc"))  # counts 6, 3, 2: an exact Zipf law 6 / r
    >>> round(fit.slope, 9), round(fit.power_law_mae, 9), round(fit.auc_simpson, 6), fit.cardinality
    (-1.0, 0.0, 1.364974, 3)
    >>> fit = zipf_fit([4, 2, 1])
    >>> round(fit.slope, 6), round(fit.power_law_mae, 6), round(fit.auc_simpson, 6), round(fit.auc_trapezoid, 6)
    (-1.233662, 0.078867, 0.904224, 0.861203)
    """
    log_base = _check_base(base)
    values = sorted(_positive_counts(counts), reverse=True)
    if len(values) < 2:
        return None
    xs = [math.log(rank) / log_base for rank in range(1, len(values) + 1)]
    ys = [math.log(count) / log_base for count in values]
    n = len(xs)
    mean_x, mean_y = math.fsum(xs) / n, math.fsum(ys) / n
    sxx = math.fsum((x - mean_x) ** 2 for x in xs)
    sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    mae = math.fsum(abs(y - (intercept + slope * x)) for x, y in zip(xs, ys, strict=True)) / n
    return ZipfFit(n, slope, intercept, mae, simpson_area(xs, ys), trapezoid_area(xs, ys))


def trapezoid_area(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Area under the points (x_i, y_i) by the trapezoidal rule (``xs`` increasing).

    >>> trapezoid_area([0, 1, 3], [0, 1, 1])
    2.5
    """
    return math.fsum((x1 - x0) * (y0 + y1) / 2 for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:], strict=False))


def _simpson_pairs(xs: Sequence[float], ys: Sequence[float], stop: int) -> list[float]:
    """The parabola areas over the interval pairs (i, i + 1, i + 2), i = 0, 2, .. < ``stop``."""
    parts = []
    for i in range(0, stop, 2):
        h0, h1 = xs[i + 1] - xs[i], xs[i + 2] - xs[i + 1]
        total = h0 + h1
        parts.append(
            total / 6 * (ys[i] * (2 - h1 / h0) + ys[i + 1] * total * total / (h0 * h1) + ys[i + 2] * (2 - h0 / h1))
        )
    return parts


def simpson_area(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Area under the points (x_i, y_i), ``xs`` strictly increasing, by composite Simpson's rule for
    uneven spacing, as ``scipy.integrate.simpson(ys, x=xs)`` (scipy >= 1.11) computes it: one
    parabola per pair of intervals; with an odd number of intervals, Simpson on all but the last
    and Cartwright's three-point correction for the last one; two points: a trapezoid. Exact for
    quadratics.

    >>> simpson_area([0, 1, 2], [0, 1, 4]), simpson_area([0, 1, 3, 4], [0, 1, 9, 16])
    (2.6666666666666665, 21.333333333333332)
    """
    n = len(xs)
    if n != len(ys):
        raise BpeError(f"simpson_area needs as many x as y values, got {n} and {len(ys)}")
    if n < 2:
        return 0.0
    if n == 2:
        return trapezoid_area(xs, ys)
    if n % 2:
        return math.fsum(_simpson_pairs(xs, ys, n - 2))
    parts = _simpson_pairs(xs, ys, n - 3)
    h0, h1 = xs[-2] - xs[-3], xs[-1] - xs[-2]
    alpha = (2 * h1 * h1 + 3 * h0 * h1) / (6 * (h0 + h1))
    beta = (h1 * h1 + 3 * h0 * h1) / (6 * h0)
    eta = h1**3 / (6 * h0 * (h0 + h1))
    parts.append(alpha * ys[-1] + beta * ys[-2] - eta * ys[-3])
    return math.fsum(parts)


# --------------------------------------------------------------------------------------------------
# every figure of one distribution


@dataclass(frozen=True)
class Distribution:
    """The intrinsic metrics of one token distribution (see ``distribution``)."""

    unique_tokens: int  # V_obs
    renyi_efficiency: float | None  # H_a / log|V|; None without a vocabulary size of at least 2
    renyi_efficiency_observed: float | None  # H_a / log V_obs
    avg_token_rank: float | None
    zipf_slope: float | None
    zipf_mae: float | None
    zipf_auc: float | None  # Simpson's area


def distribution(counts: Mapping[Any, int], vocab_size: int | None, *, alpha: float = RENYI_ALPHA) -> Distribution:
    """Every intrinsic metric of the token counts ``counts`` (a ``Counter`` of ids) for a tokenizer of
    ``vocab_size`` ids (None when unknown: no Rényi efficiency over the vocabulary).

    >>> from collections import Counter
    >>> d = distribution(Counter("aabc"), 4)
    >>> d.unique_tokens, round(d.renyi_efficiency, 7), round(d.renyi_efficiency_observed, 7), d.avg_token_rank
    (3, 0.6877494, 0.8678431, 1.75)
    """
    zipf = zipf_fit(counts)
    known = vocab_size is not None and vocab_size >= 2
    return Distribution(
        unique_tokens=sum(1 for count in counts.values() if count),
        renyi_efficiency=renyi_efficiency(counts, vocab_size, alpha=alpha) if known and counts else None,
        renyi_efficiency_observed=renyi_efficiency(counts, alpha=alpha, normalize_by="observed"),
        avg_token_rank=average_token_rank(counts),
        zipf_slope=zipf.slope if zipf else None,
        zipf_mae=zipf.power_law_mae if zipf else None,
        zipf_auc=zipf.auc_simpson if zipf else None,
    )


# --------------------------------------------------------------------------------------------------
# counts of types, ranks, fertility


def unique_tokens(ids: Iterable[Hashable]) -> int:
    """The number of distinct tokens in ``ids`` (tokka-bench's "unique tokens", bgub/tokka-bench
    ``fast_benchmark.py``: ``len(set(tokenizer.encode(text)))`` on 2 MB of text per language). It
    grows with the text's length: compare it only on samples of equal size. Pass content tokens
    (``encode_ordinary``): tokka-bench's count includes any BOS/EOS ids the tokenizer adds.

    >>> unique_tokens([5, 5, 7, 9, 5])
    3
    """
    if isinstance(ids, (str, bytes)):
        raise TypeError("ids must be a sequence of token ids, not a string")
    return len(set(ids))


def average_token_rank(counts: Counts) -> float | None:
    """The average rank of a token occurrence (SwissAI TokEval, swiss-ai/tokenizer-intrinsic-evals,
    ``compute_unigram_distribution_metrics``): types ranked by count, rank 1 = the most frequent,
    then (1 / N) sum_v c(v) rank(v). Lower = the text's tokens concentrate on few types. Ties do
    not change the value (equal counts swap equal terms), so only the counts matter. None for no
    tokens.

    >>> from collections import Counter
    >>> average_token_rank(Counter("abacab"))  # ranks a=1, b=2, c=3: (3*1 + 2*2 + 1*3) / 6
    1.6666666666666667
    """
    values = sorted(_positive_counts(counts), reverse=True)
    if not values:
        return None
    return sum(rank * count for rank, count in enumerate(values, start=1)) / sum(values)


def fertility(
    token_counts: Sequence[int], word_counts: Sequence[int], *, average: Literal["pooled", "macro"] = "pooled"
) -> float | None:
    """Tokens per word over texts i = 1..n, given each text's number of tokens and of words.

    * ``average="pooled"``: sum_i tokens_i / sum_i words_i, the fertility of the texts joined (what
      ``metrics.measure`` reports for one text: all tokens, punctuation and newlines included).
    * ``average="macro"``: the mean of tokens_i / words_i over the texts with at least one word, as
      SwissAI TokEval reports it (``metrics/basic.py:_compute_fertility_stats``).

    Words are counted by the caller; use ``len(words.word_spans(text))`` (bpe_core's words: runs of
    non-space with punctuation stripped, all-punctuation runs dropped), as ``metrics`` does. TokEval
    splits on white space (``str.split``), which also counts all-punctuation chunks. None when
    there are no words.

    >>> from bpe_core.analysis.words import word_spans
    >>> words = [len(word_spans(t)) for t in ("the cat sat", "hello world")]
    >>> fertility([4, 3], words), round(fertility([4, 3], words, average="macro"), 6)
    (1.4, 1.416667)
    """
    if average not in AVERAGES:
        raise BpeError(f"average must be one of {', '.join(AVERAGES)}, not {average!r}")
    tokens, words = list(token_counts), list(word_counts)
    if len(tokens) != len(words):
        raise BpeError(f"fertility needs one word count per token count, got {len(tokens)} and {len(words)}")
    for value in tokens + words:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"token and word counts must be integers, got {value!r}")
        if value < 0:
            raise BpeError(f"token and word counts cannot be negative, got {value}")
    if average == "pooled":
        return sum(tokens) / sum(words) if sum(words) else None
    ratios = [t / w for t, w in zip(tokens, words, strict=True) if w]
    return sum(ratios) / len(ratios) if ratios else None
