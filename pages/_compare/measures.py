"""The numbers behind the Compare page: cached calls to ``bpe_core.analysis.metrics`` (comparison rows and
compression curves), short display names for tokenizers, metric labels, summary sentences, the
frames the charts are drawn from, and the charts every session showing the same comparison shares
(``shared_figure``). Computes and names; the only things it draws are the errors of tokenizers that do
not load and of comparisons that fail (the page draws everything else).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from bpe_core.analysis import metrics, vocab_sweep
from bpe_core.corpora.samples import Sample, load_samples
from pages._ui import tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: Characters of each uploaded file that are measured (the rest is left out, with a warning): the
#: metrics are C-level passes over the text (``bpe_core.analysis.words``), about a second per tokenizer at
#: 2 M characters, encoding included; the Tokenize page has the same limit (MAX_STATS_CHARS).
MAX_FILE_CHARS = 2_000_000
#: Above this many characters in all, measuring shows a spinner saying how much it measures.
SPINNER_CHARS = 200_000
#: Up to this many merges the curve has a point at every vocabulary size; above it, CURVE_STEPS points.
CURVE_EVERY_SIZE_UP_TO = 2_000
CURVE_STEPS = 300
BUILTIN_NAMES = {tokenizers.DEFAULT_KEY: "sample-bpe", "gpt2": "GPT-2", "cl100k": "cl100k"}
METRIC_LABELS = {
    "tokens": "tokens",
    "chars_per_token": "characters per token",
    "bytes_per_token": "bytes per token",
    "bytes_per_char": "UTF-8 bytes per character",
    "premium": "token premium (× reference)",
    "fertility": "tokens per word (fertility)",
    "split_share": "share of words split into several tokens",
    "renyi_efficiency": "Rényi efficiency (α = 2.5)",
}
#: Metrics where a higher value is better for the user of the tokenizer (greener in the heatmap).
HIGHER_IS_BETTER = {"chars_per_token", "bytes_per_token", "renyi_efficiency"}
TABLE_COLUMNS = [
    "tokenizer",
    "label",
    "kind",
    "script",
    "characters",
    "bytes",
    "tokens",
    "chars_per_token",
    "bytes_per_token",
    "bytes_per_char",
    "premium",
    "reference",
    "words",
    "fertility",
    "split_share",
    "unique_tokens",
    "renyi_efficiency",
    "vocab_size",
    "seen_in_training",
    "sample",
]
NUMBER_COLUMNS = {
    "chars_per_token": ("chars/token", "%.2f"),
    "bytes_per_token": ("bytes/token", "%.2f"),
    "bytes_per_char": ("bytes/char", "%.2f"),
    "premium": ("premium", "%.2f"),
    "fertility": ("tokens/word", "%.2f"),
    "split_share": ("split words", "%.2f"),
    "renyi_efficiency": ("Rényi eff.", "%.3f"),
    "seen_in_training": ("seen in training", "percent"),
}
COLUMNS_EXPLAINED = (
    "- **chars/token**: characters ÷ tokens; higher means the tokenizer packs more text into a token.\n"
    "- **bytes/char**: UTF-8 bytes per character, a property of the script (English 1, Hindi ≈ 2.7).\n"
    "- **premium**: tokens ÷ the reference's tokens over the same passage (Petrov et al. 2023).\n"
    "- **tokens/word** (fertility) and **split words**: per whitespace-separated word; empty for "
    "languages written without spaces.\n"
    "- **Rényi efficiency**: how evenly the text uses the vocabulary (Zouhar et al. 2023).\n"
    "- **seen in training**: the share of the sample's lines that occur in the tokenizer's training text, when "
    "this session knows it (the default tokenizer, tokenizers trained here); 10% or more marks the tokenizer "
    "with † (in-sample). Empty: training text unknown (GPT-2, cl100k, the modern ones, older library files)."
)


@dataclass
class Selection:
    """The samples to measure, as ``metrics.compare`` takes them, with what caches and charts need."""

    source: str
    samples: list = field(default_factory=list)  # Sample objects or (label, text, spaced) tuples
    sample_key: list[tuple] = field(default_factory=list)  # identifies the samples for the caches
    texts_for_curve: dict[str, str] = field(default_factory=dict)
    reference: str | None = None
    reference_label: str = ""
    file_texts: dict[str, str] = field(default_factory=dict)  # label -> text of the user's files


@dataclass(frozen=True)
class Comparison:
    """What the comparison showed, for the sections below it."""

    rows: list[dict]
    names: dict[str, str]  # tokenizer key -> display name
    loaded: dict[str, object]  # tokenizer key -> tokenizer


@dataclass(frozen=True)
class Builtin:
    """The built-in samples by id, natural languages and code/data apart."""

    samples: list[Sample]
    by_id: dict[str, Sample]
    natural_ids: list[str]
    code_ids: list[str]

    @classmethod
    def load(cls) -> Builtin:
        samples = load_samples()
        natural = [s.id for s in samples if s.kind == "natural"]
        return cls(samples, {s.id: s for s in samples}, natural, [s.id for s in samples if s.kind != "natural"])


def summary_lines(rows: list[dict], names: Sequence[str], metric: str) -> list[str]:
    """``metrics.summary_sentence`` for each tokenizer that has something to say."""
    lines = []
    for name in names:
        try:
            lines.append(metrics.summary_sentence(rows, name, metric))
        except ValueError:  # nothing to say for this tokenizer (e.g. no premium for code)
            pass
    return lines


def display_names(keys: Sequence[str], choices: dict[str, TokenizerChoice]) -> dict[str, str]:
    """Short, unique names for the chosen tokenizers (used in charts, table and sentences)."""
    names = {}
    for key in keys:
        if key in BUILTIN_NAMES:
            names[key] = BUILTIN_NAMES[key]
        elif key.startswith(("new:", "lib:")):
            names[key] = key[4:]
        else:
            names[key] = choices[key].label
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {key: choices[key].label if counts[name] > 1 else name for key, name in names.items()}


def text_digest(text: str) -> str:
    """A short digest of a text, for cache keys."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@st.cache_data(show_spinner=False, max_entries=32)  # measure() shows the spinner
def compare_rows(
    tokenizer_key: tuple[tuple[str, str], ...],
    sample_key: tuple,
    reference: str | None,
    _tokenizers: dict,
    _samples: list,
) -> list[dict]:
    """``metrics.compare`` cached on tokenizer fingerprints and sample digests."""
    return metrics.compare(_tokenizers, _samples, reference)


@st.cache_data(show_spinner="Replaying the merges…", max_entries=16)
def curve_rows(
    fingerprint: str, sample_key: tuple, points: tuple[int, ...] | None, _tokenizer, _texts: dict
) -> list[dict]:
    """``vocab_sweep.compression_by_vocab_size`` cached on the tokenizer fingerprint and sample digests."""
    if points is None:
        return vocab_sweep.compression_by_vocab_size(_tokenizer, _texts, CURVE_STEPS, spacing="log")
    return vocab_sweep.compression_by_vocab_size(_tokenizer, _texts, merges=list(points))


def curve_series(curve: list[dict], labels: Sequence[str]) -> dict[str, tuple[list, list]]:
    """label -> (vocabulary sizes, characters per token) from ``curve_rows``' rows."""
    series = {}
    for label in labels:
        part = [r for r in curve if r["text"] == label]
        series[label] = ([r["vocab_size"] for r in part], [r["chars_per_token"] for r in part])
    return series


def full_vocabulary_sentence(curve: list[dict], name: str, tokenizer) -> str | None:
    """The summary sentence at the tokenizer's full vocabulary, or None when there is nothing to say."""
    total = len(tokenizer.merges)
    final = [
        {"tokenizer": name, "label": r["text"], "chars_per_token": r["chars_per_token"]}
        for r in curve
        if r["merges"] == total
    ]
    try:
        sentence = metrics.summary_sentence(final, name, "chars_per_token")
    except ValueError:
        return None
    return f"At its full vocabulary of {tokenizer.vocab_size:,} ids ({total:,} merges): {sentence}"


def versus_frame(rows: list[dict], trained_labels: set[str]) -> tuple[pd.DataFrame, list[str], str]:
    """Rows of a trained tokenizer against GPT-2 with ★ on the samples it was trained on:
    (frame, sample order, metric: the premium when there is one, else characters per token)."""
    frame = pd.DataFrame(rows)
    metric = "premium" if frame["premium"].notna().any() else "chars_per_token"
    starred = {v: f"★ {v}" if v in trained_labels else v for v in frame["label"]}
    frame = frame.assign(label=frame["label"].map(starred))
    return frame, list(dict.fromkeys(frame["label"])), metric


def load_tokenizers(keys: Sequence[str], choices: dict[str, TokenizerChoice]) -> dict[str, object]:
    """key -> tokenizer for the keys that load; an error for each one that does not."""
    loaded: dict[str, object] = {}
    for key in keys:
        try:
            loaded[key] = choices[key].get()
        except ValueError as exc:
            st.error(f"{md(choices[key].label)} could not be loaded and is left out: {md(in_words(exc))}")
    return loaded


def measure(names: dict[str, str], loaded: dict, choices, sample_key: tuple, reference, samples) -> list[dict] | None:
    """``compare_rows`` for the loaded tokenizers under their display names; None after an error."""
    tokenizers_by_name = {names[k]: tok for k, tok in loaded.items()}
    key = tuple((names[k], choices[k].fingerprint) for k in loaded)
    characters = sum(len(s[1] if isinstance(s, (tuple, list)) else getattr(s, "text", "")) for s in samples)
    many = f" {characters:,} characters with {len(loaded)} tokenizer{'s' if len(loaded) != 1 else ''}"
    try:
        # (st.spinner appears only after half a second: a cached answer shows none)
        with st.spinner(f"Measuring{many if characters > SPINNER_CHARS else ''}…"):
            return compare_rows(key, sample_key, reference, tokenizers_by_name, samples)
    except (ValueError, TypeError) as exc:
        st.error(f"Could not compare: {md(in_words(exc))}")
        return None


@st.cache_resource(show_spinner=False, max_entries=64)
def shared_figure(view: tuple, chart: str, _build: Callable[[], go.Figure]) -> go.Figure:
    """``_build()``'s plotly figure, built once for every session showing the same comparison (``view``
    names the tokenizers, samples and reference; ``chart`` which chart): a class opening the page at once
    builds each chart once. ``st.plotly_chart`` copies a figure before sending it, so sharing it is safe."""
    return _build()
