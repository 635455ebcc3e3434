"""BPE variants side by side: standard BPE, SuperBPE, Picky BPE and parity-aware BPE trained on one
corpus at one vocabulary size, then measured on held-out text per language and per programming
language.

``parse_variants("bpe,superbpe:0.8,picky:0.9,parity")`` names what to train (2 to 6 variants: a
SuperBPE transition as a share of the vocabulary or a number of merges, a Picky threshold);
``train_variants`` trains them (the same pre-tokenization, ``min_frequency`` and tie rule for all but
SuperBPE, whose recipe sets its own two patterns; by default the others use SuperBPE's stage-1 pattern,
so that BPE is SuperBPE without stage 2, the paper's baseline); ``compare_variants`` encodes the
held-out samples (by default the built-in parallel text's held-out sentences in 21 languages and the
41 code and data samples, none of which the built-in training text contains) and gives one row per
variant and sample and one per variant and group (natural, code, data, all): tokens per byte, the
tokens saved against BPE (1 - tokens / BPE's tokens), fertility and the intrinsic metrics of
``intrinsic`` (Rényi efficiency, unique tokens, average token rank, Zipf slope, fit error and area),
with examples of SuperBPE's superwords and of Picky BPE's removed tokens, as CSV and as a LaTeX table.
Formulas and sources: docs/library/variants.md. Nothing here draws or reads files.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bpe_core.analysis import intrinsic, metrics
from bpe_core.analysis.csv_export import csv_text
from bpe_core.analysis.fairness import clean_text
from bpe_core.analysis.words import word_spans
from bpe_core.corpora.samples import get_sample, load_samples, parallel_text
from bpe_core.display.marks import token_display
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.engine import ProgressCallback
from bpe_core.training.parity import train_parity
from bpe_core.training.picky import train_picky
from bpe_core.training.superbpe import RECIPES, train_superbpe, word_count
from bpe_core.training.trainer import train

KINDS = ("bpe", "superbpe", "picky", "parity")
#: The pre-tokenization of every variant but SuperBPE: SuperBPE's stage 1 (BPE is then its baseline).
DEFAULT_PATTERN = RECIPES["paper"].stage1_pattern
EXAMPLES = 12
ROW_FIELDS = (
    "variant",
    "sample",
    "label",
    "kind",
    "bytes",
    "tokens",
    "tokens_per_byte",
    "bytes_per_token",
    "saved_vs_bpe",
    "fertility",
    "renyi_efficiency",
    "renyi_efficiency_observed",
    "unique_tokens",
    "avg_token_rank",
    "zipf_slope",
    "zipf_mae",
    "zipf_auc",
    "superword_share",
)


@dataclass(frozen=True)
class VariantSpec:
    """One variant to train: ``kind`` in ``KINDS`` and its ``value`` (SuperBPE's transition: a share
    of the vocabulary, or a number of merges; Picky BPE's IoS threshold; None for the others)."""

    kind: str
    value: float | int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise BpeError(f"unknown variant {self.kind!r}: the variants are {', '.join(KINDS)}")
        value = self.value
        if self.kind == "picky" and value is not None:
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number or not value > 0:  # NaN is not above 0 either
                raise BpeError(
                    f"Picky BPE's threshold must be above 0 (e.g. picky:0.9; an IoS is at most 1, so 1 or more "
                    f"never removes a token), got {value!r}"
                )

    @property
    def label(self) -> str:
        if self.kind == "superbpe":
            return f"SuperBPE t={self.value}"
        if self.kind == "picky":
            return f"Picky T={self.value}"
        return {"bpe": "BPE", "parity": "parity-aware BPE"}[self.kind]

    @classmethod
    def parse(cls, text: str) -> VariantSpec:
        """``"bpe"``, ``"superbpe:0.8"`` (or ``superbpe:25000`` merges), ``"picky:0.9"``, ``"parity"``.

        >>> VariantSpec.parse("superbpe:0.8").label, VariantSpec.parse("picky").value
        ('SuperBPE t=0.8', 0.9)
        """
        kind, _, value = text.strip().partition(":")
        if kind not in KINDS:
            raise BpeError(f"unknown variant {text!r}: write bpe, superbpe:0.8, picky:0.9 or parity")
        if kind in ("bpe", "parity"):
            if value:
                raise BpeError(f"the variant {kind!r} takes no value, got {text!r}")
            return cls(kind)
        if not value:
            return cls(kind, 0.9)
        try:
            number: float | int = int(value) if value.lstrip("+-").isdigit() else float(value)
        except ValueError:
            raise BpeError(f"{text!r}: {value!r} is not a number (superbpe:0.8, picky:0.9)") from None
        return cls(kind, number)


def _variant(variant: VariantSpec | str) -> VariantSpec:
    if isinstance(variant, VariantSpec):
        return variant
    if isinstance(variant, str):
        return VariantSpec.parse(variant)
    raise BpeError(f"a variant is a VariantSpec or its text (bpe, superbpe:0.8, picky:0.9, parity), not {variant!r}")


def parse_variants(specs: str | Sequence[str]) -> list[VariantSpec]:
    """2 to 6 distinct variants from ``"bpe,superbpe:0.8,..."`` or a list of such names.

    >>> [v.label for v in parse_variants("bpe, superbpe:0.8, picky:0.9, parity")]
    ['BPE', 'SuperBPE t=0.8', 'Picky T=0.9', 'parity-aware BPE']
    """
    parts = specs.split(",") if isinstance(specs, str) else list(specs)
    variants = [VariantSpec.parse(part) for part in parts if part.strip()]
    labels = [v.label for v in variants]
    if not 2 <= len(variants) <= 6 or len(set(labels)) != len(labels):
        raise BpeError(f"give 2 to 6 different variants (e.g. bpe,superbpe:0.8,picky:0.9), got {labels}")
    return variants


def train_variants(
    texts: Mapping[str, Sequence[str]],
    vocab_size: int,
    variants: Sequence[VariantSpec],
    *,
    pattern: str | None = DEFAULT_PATTERN,
    min_frequency: int = 2,
    tie_break: str = "huggingface",
    progress: Callable[[str, str, int, int], None] | None = None,
) -> dict[str, Tokenizer]:
    """Each variant trained on ``texts`` (language -> documents; parity-aware BPE serves the languages
    and uses them as its development text, so they should be parallel; the others see all documents)
    at ``vocab_size``, by label. ``progress(label, phase, done, total)`` as training goes."""
    if not isinstance(texts, Mapping) or not texts:
        raise BpeError("texts must map each language (or source) to its documents, e.g. {'eng': [...]}")
    variants = [_variant(variant) for variant in variants]
    documents = [document for docs in texts.values() for document in docs]
    options: dict[str, Any] = {"min_frequency": min_frequency, "tie_break": tie_break}
    trained = {}
    for variant in variants:
        report: ProgressCallback | None = None
        if progress:
            report = lambda phase, done, total, label=variant.label: progress(label, phase, done, total)  # noqa: E731
        if variant.kind == "bpe":
            tokenizer = train(documents, vocab_size, pattern=pattern, progress=report, name=variant.label, **options)
        elif variant.kind == "superbpe":
            value = variant.value if variant.value is not None else 0.9
            tokenizer = train_superbpe(
                documents, vocab_size, transition=value, progress=report, name=variant.label, **options
            )
        elif variant.kind == "picky":
            tokenizer = train_picky(
                documents,
                vocab_size,
                threshold=float(variant.value if variant.value is not None else 0.9),
                pattern=pattern,
                progress=report,
                name=variant.label,
                **options,
            )
        else:
            tokenizer = train_parity(
                texts,
                texts,
                vocab_size,
                variant="window",
                pattern=pattern,
                progress=report,
                name=variant.label,
                **options,
            )
        trained[variant.label] = tokenizer
    return trained


# --------------------------------------------------------------------------------------------------
# measuring


@dataclass(frozen=True)
class HeldOutSample:
    """A text to measure on: ``kind`` is its group in the summary (the built-in ``natural``, ``code`` and
    ``data``, ``held-out`` for the held-out part of the user's corpus, or any other name); ``spaced`` is
    False for languages written without spaces."""

    id: str
    label: str
    kind: str
    text: str
    spaced: bool = True


def builtin_heldout() -> list[HeldOutSample]:
    """The built-in parallel text's held-out sentences (lines 91-120) in its 21 languages, and the 41
    code and data samples: text the built-in training split (lines 1-90) never holds."""
    found = []
    for language, sentences in parallel_text(split="heldout").items():
        sample = get_sample(language)
        found.append(HeldOutSample(language, sample.label, "natural", "\n".join(sentences), sample.spaced))
    found += [HeldOutSample(s.id, s.label, s.kind, s.text, s.spaced) for s in load_samples() if s.kind != "natural"]
    return found


@dataclass(frozen=True)
class VariantComparison:
    """``compare_variants``' result: ``rows`` (a variant on a sample) and ``summary`` (a variant on a
    group of samples, pooled, the kinds in order and then ``all``: tokens and bytes added, token counts
    added before the intrinsic metrics),
    both dicts with ``ROW_FIELDS`` (``sample`` is the group in the summary); ``superwords`` (SuperBPE:
    its most frequent multi-word tokens on the samples, with counts) and ``removed`` (Picky BPE: its
    removed tokens, first removed first), by variant; ``baseline`` is the BPE variant savings are
    against (None: no savings); ``alpha`` the order of the Rényi efficiencies."""

    rows: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    superwords: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)
    baseline: str | None = None
    alpha: float = intrinsic.RENYI_ALPHA

    def to_csv(self, *, summary: bool = False) -> str:
        """The rows (or the summary) as CSV, ``ROW_FIELDS`` as the header; spreadsheet-safe
        (``csv_export``: a sample named ``=cmd...`` is written as text, never as a formula)."""
        return csv_text(ROW_FIELDS, self.summary if summary else self.rows)

    def to_latex(self, groups: Sequence[str] = ("natural", "code", "all")) -> str:
        """The summary of ``groups`` as a LaTeX ``tabular`` (booktabs rules: ``\\usepackage{booktabs}``)."""
        renyi = f"R\\'enyi eff. ($\\alpha$={self.alpha:g})"
        columns = [
            ("tokens/byte", "tokens_per_byte", "{:.3f}"),
            ("saved", "saved_vs_bpe", "{:+.1%}"),
            (renyi, "renyi_efficiency", "{:.3f}"),
            ("unique", "unique_tokens", "{:,}"),
            ("avg rank", "avg_token_rank", "{:.0f}"),
            ("fertility", "fertility", "{:.2f}"),
            ("Zipf slope", "zipf_slope", "{:.2f}"),
        ]
        header = " & ".join(["Variant", "Text"] + [title for title, _, _ in columns]) + " \\\\"
        lines = ["\\begin{tabular}{ll" + "r" * len(columns) + "}", "\\toprule", header, "\\midrule"]
        for row in (r for r in self.summary if r["sample"] in groups):
            cells = [_latex(row["variant"]), _latex(row["sample"])]
            cells += [_latex(_formatted(row[key], fmt)) for _, key, fmt in columns]
            lines.append(" & ".join(cells) + " \\\\")
        return "\n".join([*lines, "\\bottomrule", "\\end{tabular}", ""])


def _formatted(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    return fmt.format(value)


_LATEX = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
}


def _latex(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, in one pass.

    >>> print(_latex("50% of a_b"))
    50\\% of a\\_b
    """
    return "".join(_LATEX.get(char, char) for char in text)


def superword_ids(tokenizer: Any) -> dict[int, bytes]:
    """A SuperBPE tokenizer's *superwords*: its stage-2 tokens of two or more words, which bridge a
    space (id -> bytes); empty for any other tokenizer."""
    training = getattr(tokenizer, "training", {}) or {}
    if training.get("settings", {}).get("algorithm") != "superbpe":
        return {}
    inherited = training.get("superbpe", {}).get("inherited_merges", 0)
    return {
        tokenizer.encode_single_token(left + right): left + right
        for left, right in tokenizer.merges[inherited:]
        if word_count(left + right) >= 2
    }


def _row(
    variant: str,
    sample: str,
    label: str,
    kind: str,
    counts: Counter,
    size: int,
    words: int | None,
    tokenizer: Any,
    superwords: dict[int, bytes],
    alpha: float,
) -> dict[str, Any]:
    tokens = sum(counts.values())
    figures = intrinsic.distribution(counts, metrics.vocab_size_of(tokenizer), alpha=alpha)
    return {
        "variant": variant,
        "sample": sample,
        "label": label,
        "kind": kind,
        "bytes": size,
        "tokens": tokens,
        "tokens_per_byte": tokens / size if size else None,
        "bytes_per_token": size / tokens if tokens else None,
        "saved_vs_bpe": None,
        "fertility": tokens / words if words else None,
        "renyi_efficiency": figures.renyi_efficiency,
        "renyi_efficiency_observed": figures.renyi_efficiency_observed,
        "unique_tokens": figures.unique_tokens,
        "avg_token_rank": figures.avg_token_rank,
        "zipf_slope": figures.zipf_slope,
        "zipf_mae": figures.zipf_mae,
        "zipf_auc": figures.zipf_auc,
        "superword_share": sum(counts[i] for i in superwords) / tokens if superwords and tokens else None,
    }


def compare_variants(
    tokenizers: Mapping[str, Any],
    samples: Sequence[HeldOutSample] | None = None,
    *,
    baseline: str | None = "BPE",
    alpha: float = intrinsic.RENYI_ALPHA,
) -> VariantComparison:
    """Each tokenizer (label -> a bpe_core ``Tokenizer`` or anything with ``encode_ordinary``) on each
    held-out sample (default ``builtin_heldout()``); savings against the tokenizer labelled
    ``baseline`` (None, or a label not given: no savings); Rényi efficiencies of order ``alpha``."""
    intrinsic.renyi_entropy([1], alpha)  # a bad alpha fails here, before any encoding
    samples = builtin_heldout() if samples is None else list(samples)
    if not tokenizers or not samples:
        raise BpeError("compare_variants needs at least one tokenizer and one held-out sample")
    texts = [clean_text(sample.text) for sample in samples]
    sizes = [len(text.encode("utf-8")) for text in texts]
    words = [len(word_spans(text)) if sample.spaced else None for sample, text in zip(samples, texts, strict=True)]
    groups = list(dict.fromkeys([sample.kind for sample in samples] + ["all"]))  # kinds in order, then all
    rows, summary, superwords, removed = [], [], {}, {}
    for variant, tokenizer in tokenizers.items():
        multi = superword_ids(tokenizer)
        pooled: dict[str, list] = {group: [Counter(), 0, 0] for group in groups}
        for sample, text, size, count in zip(samples, texts, sizes, words, strict=True):
            counts = Counter(tokenizer.encode_ordinary(text))
            row = _row(variant, sample.id, sample.label, sample.kind, counts, size, count, tokenizer, multi, alpha)
            rows.append(row)
            for group in (sample.kind, "all"):
                pooled[group][0].update(counts)
                pooled[group][1] += size
                pooled[group][2] += count or 0
        for group, (counts, size, count) in pooled.items():
            if size:
                summary.append(_row(variant, group, group, group, counts, size, count, tokenizer, multi, alpha))
        if multi:
            found = pooled["all"][0]
            top = sorted(multi, key=lambda i: (-found[i], multi[i]))[:EXAMPLES]
            superwords[variant] = [(token_display(multi[i]), found[i]) for i in top if found[i]]
        picky = (getattr(tokenizer, "training", {}) or {}).get("picky")
        if isinstance(picky, dict) and picky.get("removed_tokens"):
            entries = picky["removed_tokens"][:EXAMPLES]
            removed[variant] = [token_display(_entry_bytes(entry)) for entry in entries]
    if baseline is not None and baseline in tokenizers:
        _add_savings(rows, baseline)
        _add_savings(summary, baseline)
    else:
        baseline = None
    return VariantComparison(rows, summary, superwords, removed, baseline, alpha)


def _entry_bytes(entry: Mapping[str, str]) -> bytes:
    """A token of bpe_core's JSON (``{"text": ...}`` or ``{"hex": ...}``) as bytes."""
    return entry["text"].encode("utf-8") if "text" in entry else bytes.fromhex(entry.get("hex", ""))


def _add_savings(rows: list[dict[str, Any]], baseline: str) -> None:
    base = {row["sample"]: row["tokens"] for row in rows if row["variant"] == baseline}
    for row in rows:
        reference = base.get(row["sample"])
        row["saved_vs_bpe"] = 1 - row["tokens"] / reference if reference else None
