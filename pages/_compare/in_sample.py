"""In-sample flags for Compare: a tokenizer measured on text it was trained on gets a † after its name
wherever its numbers appear (charts, heatmap, table, sentences, curves), a "seen in training" column
in the table, and a caption saying which samples it saw. Also the Compare source that avoids it: the
built-in parallel text's held-out sentences (lines 91-120), which no built-in tokenizer was trained on.

Which text a tokenizer saw comes from the session (``tokenizers.corpus_for``: the default tokenizer's
built-in samples, and the training text of every tokenizer trained in this session, kept when it is
saved); the check is ``bpe_core.analysis.heldout.overlap_shares`` (the share of a sample's lines that occur in
the training text), cached per tokenizer fingerprint and samples. Tokenizers whose training text this
session does not hold (GPT-2, cl100k, the modern ones, files from the library) are left unmarked,
their column empty. This module computes and words the flags; the page draws them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import streamlit as st

from bpe_core.analysis.heldout import overlap_shares
from bpe_core.corpora.samples import REFERENCE_ID, parallel_text
from pages._ui import state, tokenizers
from pages._ui.widgets import show_sentences

from .measures import Builtin, Selection, text_digest

MARK = " †"
#: A sample is in-sample for a tokenizer when at least this share of its lines are in the training text.
THRESHOLD = 0.1
COLUMN = "seen_in_training"
SOURCE_HELDOUT = "Held-out sentences"
K_LANGUAGES = "cmp.heldout_languages"
K_REFERENCE = "cmp.reference"  # shared with the page's other sources


@st.cache_data(show_spinner="Checking which samples each tokenizer was trained on…", max_entries=32)
def _shares(fingerprint: str, sample_key: tuple, _documents: Sequence[str], _texts: Mapping[str, str]) -> dict:
    return overlap_shares(_documents, _texts)


def seen_in_training(keys: Sequence[str], choices, texts: Mapping[str, str], sample_key: tuple) -> dict[str, dict]:
    """tokenizer key -> {sample label: share of its lines in the training text}, for the tokenizers
    whose training text this session holds."""
    seen = {}
    for key in keys:
        corpus = tokenizers.corpus_for(key)
        if corpus is not None and key in choices:
            seen[key] = _shares(choices[key].fingerprint, sample_key, corpus[1], dict(texts))
    return seen


def in_sample_labels(shares: Mapping[str, float]) -> list[str]:
    """The samples a tokenizer was trained on (share at least THRESHOLD), in the order given.

    >>> in_sample_labels({"English": 1.0, "Hindi": 0.05, "Thai": 0.5})
    ['English', 'Thai']
    """
    return [label for label, share in shares.items() if share >= THRESHOLD]


def marked_names(names: Mapping[str, str], seen: Mapping[str, Mapping[str, float]]) -> dict[str, str]:
    """The display names with † after those of tokenizers trained on any of the samples shown.

    >>> marked_names({"default": "sample-bpe", "gpt2": "GPT-2"}, {"default": {"English": 1.0}})
    {'default': 'sample-bpe †', 'gpt2': 'GPT-2'}
    """
    return {key: name + MARK if in_sample_labels(seen.get(key, {})) else name for key, name in names.items()}


def annotate(rows: Sequence[dict], names: Mapping[str, str], seen: Mapping[str, Mapping[str, float]]) -> list[dict]:
    """Copies of the comparison rows with ``seen_in_training``: the share of the sample's lines in that
    tokenizer's training text, None when the training text is unknown here."""
    by_name = {names[key]: shares for key, shares in seen.items() if key in names}
    return [{**row, COLUMN: by_name.get(row["tokenizer"], {}).get(row["label"])} for row in rows]


def caption_lines(names: Mapping[str, str], seen: Mapping[str, Mapping[str, float]]) -> list[str]:
    """One plain sentence per marked tokenizer, saying which samples it was trained on."""
    lines = []
    for key, shares in seen.items():
        labels = in_sample_labels(shares)
        if not labels or key not in names:
            continue
        which = (
            "all the samples shown"
            if len(labels) == len(shares)
            else (", ".join(labels[:6]) + (f" and {len(labels) - 6} more" if len(labels) > 6 else ""))
        )
        name = names[key].removesuffix(MARK)
        lines.append(
            f"† {name} was trained on {which}: its numbers there are in-sample (measured on text it "
            "learned its merges from) and flatter it."
        )
    if lines and tokenizers.DEFAULT_KEY in seen and in_sample_labels(seen[tokenizers.DEFAULT_KEY]):
        lines.append(
            "The default tokenizer was trained on every built-in sample: pick Samples: Held-out sentences "
            "(lines 91-120 of the parallel text) or your own files to see how it does on text it has not "
            "seen."
        )
    return lines


def starred_labels(key: str, choices, samples: Sequence, sample_key: tuple, trained_on: Sequence[str]) -> set[str]:
    """The labels of the samples a tokenizer trained by *Train to see the difference* saw: by the text
    (``overlap_shares``) when this session holds its training text, else by the labels it was trained
    on (``trained_on``). By text, a language's held-out sentences are not starred for a tokenizer
    trained on its passage."""
    texts = {}
    for sample in samples:
        label, text = (sample.label, sample.text) if hasattr(sample, "text") else (sample[0], sample[1])
        texts[label] = text
    shares = seen_in_training([key], choices, texts, sample_key).get(key)
    return set(in_sample_labels(shares)) if shares is not None else set(trained_on)


def note(names: Mapping[str, str], seen: Mapping[str, Mapping[str, float]]) -> None:
    """The † caption under the first chart (nothing when no tokenizer is in-sample)."""
    lines = caption_lines(names, seen)
    if lines:
        show_sentences(lines)


# --------------------------------------------------------------------------------------------------
# the held-out source


@st.cache_data(show_spinner=False)
def heldout_texts() -> dict[str, str]:
    """Language id -> the held-out sentences (lines 91-120 of the parallel text), one per line."""
    return {language: "\n".join(sentences) for language, sentences in parallel_text(split="heldout").items()}


def heldout_input(selection: Selection, builtin: Builtin) -> None:
    """Languages to measure on their held-out sentences, and the reference for the premium."""
    texts = heldout_texts()
    ids = [sid for sid in builtin.natural_ids if sid in texts]
    by_id = builtin.by_id
    if K_LANGUAGES not in st.session_state:
        st.session_state[K_LANGUAGES] = list(ids)
    chosen = st.multiselect(
        "Languages",
        ids,
        format_func=lambda sid: by_id[sid].label,
        key=K_LANGUAGES,
        help="Lines 91-120 of the built-in parallel text (30 everyday sentences, the same in every language). "
        "No built-in tokenizer was trained on them (the default was trained on the passages and code), and "
        "the fairer tokenizers below train on lines 1-90 only.",
    )
    st.caption("Held-out sentences: text the default tokenizer never saw, so its numbers here are out-of-sample.")
    for sid in chosen:
        sample = dataclasses.replace(by_id[sid], text=texts[sid])
        selection.samples.append(sample)
        selection.sample_key.append((sid, "heldout", text_digest(sample.text)))
        selection.texts_for_curve[sample.label] = sample.text
    if chosen:
        state.ensure_option(K_REFERENCE, ids, REFERENCE_ID)
        selection.reference = st.selectbox(
            "Reference for the premium",
            ids,
            format_func=lambda sid: by_id[sid].label,
            key=K_REFERENCE,
            help="The premium of a language is its token count divided by the reference's for the same sentences.",
        )
        selection.reference_label = by_id[selection.reference].label
