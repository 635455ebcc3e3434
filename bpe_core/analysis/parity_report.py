"""Standard BPE against parity-aware BPE on the same data at the same vocabulary size, measured on
held-out parallel sentences: premium per language with bootstrap intervals, the maximum premium, the
Gini coefficient of token counts, what the reference language (English) pays, and one plain sentence
("Parity-aware training cut the worst premium from 4.1x (Burmese) to 2.3x (Amharic); English costs
2% more."). Other tokenizers (GPT-2, cl100k, ...) can be measured beside them on the same sentences.

``compare_training`` trains both ways and measures; ``measure_fairness`` measures any tokenizer. The
formulas are ``fairness``'s; nothing here draws (the Compare page does).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bpe_core.analysis.fairness import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    PremiumInterval,
    gini,
    premium_intervals,
    sentence_tokens,
)
from bpe_core.analysis.vocab_sweep import premium_by_vocab_size
from bpe_core.corpora.samples import get_sample, sample_ids
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.engine import ProgressCallback
from bpe_core.training.parity import train_parity
from bpe_core.training.trainer import train

STANDARD = "standard BPE"
PARITY = "parity-aware BPE"


@dataclass(frozen=True)
class Fairness:
    """One tokenizer on parallel held-out sentences: per-language premium (with its interval) and
    token count, the worst language and its premium, and the Gini coefficient of the token counts."""

    premiums: dict[str, PremiumInterval]
    tokens: dict[str, int]
    worst: str
    max_premium: float
    gini: float


def measure_fairness(
    tokenizer: Any,
    sentences: Mapping[str, Sequence[str]],
    reference: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> Fairness:
    """``tokenizer`` (anything with ``encode_ordinary``) on parallel ``sentences`` (language -> its
    sentences, the same number in each), premiums relative to ``reference``.

    >>> import bpe_core
    >>> sentences = {"eng": ["Hello world", "Thank you"], "deu": ["Hallo Welt", "Danke"]}
    >>> f = measure_fairness(bpe_core.load("gpt2"), sentences, "eng")
    >>> f.tokens, f.worst, f.max_premium, f.gini
    ({'eng': 4, 'deu': 6}, 'deu', 1.5, 0.1)
    """
    counts = {label: sentence_tokens(tokenizer, lines) for label, lines in sentences.items()}
    premiums = premium_intervals(counts, reference, resamples=resamples, confidence=confidence, seed=seed)
    tokens = {label: sum(values) for label, values in counts.items()}
    worst = max(premiums, key=lambda label: premiums[label].premium)  # ties: the first given
    return Fairness(premiums, tokens, worst, premiums[worst].premium, gini(tokens.values()))


@dataclass(frozen=True)
class ParityComparison:
    """``compare_training``'s result. ``fairness`` holds ``STANDARD``, ``PARITY`` and any other
    tokenizers measured, by label; ``reference_cost`` is parity's tokens on the reference language /
    standard's - 1 (0.02: 2% more)."""

    standard: Tokenizer
    parity: Tokenizer
    reference: str
    names: dict[str, str]
    fairness: dict[str, Fairness]
    reference_cost: float
    sentence: str
    seconds: dict[str, float] = field(default_factory=dict)
    heldout: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def rows(self) -> list[dict[str, Any]]:
        """One row per (tokenizer, language): premium with its interval (low, high), tokens, and
        whether the language is the tokenizer's worst; for a chart with error bars or a table."""
        return [
            {
                "tokenizer": label,
                "language": language,
                "name": self.names.get(language, language),
                "premium": interval.premium,
                "low": interval.low,
                "high": interval.high,
                "tokens": result.tokens[language],
                "worst": language == result.worst,
            }
            for label, result in self.fairness.items()
            for language, interval in result.premiums.items()
        ]

    def premium_curves(self, steps: int = 20) -> list[dict[str, Any]]:
        """Premium against vocabulary size for every language, from the two trained tokenizers
        (``vocab_sweep.premium_by_vocab_size`` on the held-out text), with a ``tokenizer`` key."""
        texts = {language: "\n".join(lines) for language, lines in self.heldout.items()}
        rows = []
        for label, tokenizer in ((STANDARD, self.standard), (PARITY, self.parity)):
            for row in premium_by_vocab_size(tokenizer, texts, self.reference, steps):
                rows.append({"tokenizer": label, **row})
        return rows


def language_names(languages: Iterable[str]) -> dict[str, str]:
    """Display names: a built-in sample's label (``"eng"`` -> ``"English"``), else the id itself."""
    known = set(sample_ids("natural"))
    return {language: get_sample(language).label if language in known else language for language in languages}


def _times(premium: float) -> str:
    """A premium as shown: two decimals below 2x (1.36x), one above (4.1x)."""
    return f"{premium:.2f}x" if premium < 2 else f"{premium:.1f}x"


def summary(before: Fairness, after: Fairness, reference_cost: float, names: Mapping[str, str], reference: str) -> str:
    """The plain sentence: what parity-aware training did to the worst premium and to the reference.

    >>> b = Fairness({}, {}, "mya", 4.1, 0.3)
    >>> a = Fairness({}, {}, "amh", 2.3, 0.1)
    >>> summary(b, a, 0.02, {"eng": "English", "mya": "Burmese", "amh": "Amharic"}, "eng")
    'Parity-aware training cut the worst premium from 4.1x (Burmese) to 2.3x (Amharic); English costs 2% more.'
    """
    old, new = _times(before.max_premium), _times(after.max_premium)
    verb = "cut" if after.max_premium < before.max_premium else "raised"
    if new == old:  # equal as shown: say so rather than "cut from 1.4x to 1.4x"
        first = f"Parity-aware training kept the worst premium at {new}"
    else:
        first = (
            f"Parity-aware training {verb} the worst premium from {old} ({names.get(before.worst, before.worst)}) "
            f"to {new} ({names.get(after.worst, after.worst)})"
        )
    cost = round(100 * reference_cost)
    who = names.get(reference, reference)
    if cost == 0:
        second = f"{who} costs about the same"
    else:
        second = f"{who} costs {abs(cost)}% {'more' if cost > 0 else 'less'}"
    return f"{first}; {second}."


def _phase(progress: ProgressCallback | None, prefix: str) -> ProgressCallback | None:
    if progress is None:
        return None
    return lambda phase, done, total: progress(f"{prefix}: {phase}", done, total)


def _flatten(texts: Mapping[str, str | Iterable[str]]) -> list[str]:
    documents: list[str] = []
    for value in texts.values():
        documents.extend([value] if isinstance(value, str) else value)
    return documents


def compare_training(
    texts: Mapping[str, str | Sequence[str]],
    heldout: Mapping[str, Sequence[str]],
    vocab_size: int,
    *,
    dev: Mapping[str, str | Sequence[str]] | None = None,
    reference: str = "eng",
    others: Mapping[str, Any] | None = None,
    parity_options: Mapping[str, Any] | None = None,
    names: Mapping[str, str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> ParityComparison:
    """Train standard BPE (``train`` on all of ``texts``, languages in order) and parity-aware BPE
    (``train_parity``) at the same ``vocab_size``, and measure both, and ``others`` (label ->
    tokenizer), on the parallel ``heldout`` sentences (language -> sentences not trained on).

    ``dev`` is the parity development text (default: ``texts``, which must then be parallel; none
    when ``parity_options`` gives target rates, ``ratio``).
    ``parity_options`` are ``train_parity``'s own keywords (variant, global_merges, window, alpha,
    convention, ratio);
    ``options`` are the keywords both trainings share (min_frequency, pattern, special_tokens,
    tie_break, workers). ``progress`` receives phases prefixed "standard: " and "parity: ", then
    "measure". ``names`` maps language ids to display names (default: the built-in labels).
    """
    if not isinstance(texts, Mapping) or not isinstance(heldout, Mapping):
        raise TypeError("texts and heldout must map each language to its text (dicts)")
    texts = {language: value if isinstance(value, (str, bytes)) else list(value) for language, value in texts.items()}
    if reference not in heldout:
        raise BpeError(f"the reference language {reference!r} has no held-out sentences ({', '.join(heldout)})")
    if dev is None and (parity_options or {}).get("ratio") is None:
        dev = texts
    started = time.perf_counter()
    standard = train(_flatten(texts), vocab_size, progress=_phase(progress, "standard"), name=STANDARD, **options)
    middle = time.perf_counter()
    parity = train_parity(
        texts,
        dev,
        vocab_size,
        progress=_phase(progress, "parity"),
        name=PARITY,
        **dict(parity_options or {}),
        **options,
    )
    ended = time.perf_counter()
    tokenizers = {STANDARD: standard, PARITY: parity, **dict(others or {})}
    fairness = {}
    for step, (label, tokenizer) in enumerate(tokenizers.items()):
        if progress:
            progress("measure", step, len(tokenizers))
        fairness[label] = measure_fairness(
            tokenizer, heldout, reference, resamples=resamples, confidence=confidence, seed=seed
        )
    if progress:
        progress("measure", len(tokenizers), len(tokenizers))
    before, after = fairness[STANDARD], fairness[PARITY]
    cost = after.tokens[reference] / before.tokens[reference] - 1
    shown = {**language_names(heldout), **dict(names or {})}
    return ParityComparison(
        standard,
        parity,
        reference,
        shown,
        fairness,
        cost,
        summary(before, after, cost, shown, reference),
        {"standard": round(middle - started, 3), "parity": round(ended - middle, 3)},
        {language: list(lines) for language, lines in heldout.items()},
    )
