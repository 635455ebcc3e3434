"""The Train page's held-out split: the controls (off by default; the share and the seed), training on
the rest only, and after training the new tokenizer's compression on the held-out text beside GPT-2,
cl100k and the modern built-in tokenizers, measured on the same text (a table and a bar chart).
Without a split it says that the page's figures are measured on the training text (in-sample).

The split is ``bpe_core.analysis.heldout.split_heldout``; the numbers are
``bpe_core.analysis.heldout.heldout_measures``.
A split is remembered per tokenizer (by a digest of its merges, so saving it to the library keeps it)
for this session only. This module draws; it trains nothing itself.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bpe_core.analysis.heldout import DOCUMENT_SPLIT_FROM, HeldOutSplit, heldout_measures, split_heldout
from pages._train.corpus import Corpus
from pages._ui import charts, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text
from pages._ui.widgets import show_sentences, show_table

K_ON = "train.heldout.on"
K_SHARE = "train.heldout.share"
K_SEED = "train.heldout.seed"
K_OTHERS = "train.heldout.others"
KEPT_DEFAULTS = {K_ON: False, K_SHARE: 10, K_SEED: 0}
#: merges digest -> HeldOutRecord (or None: trained on the whole corpus), for this session. Kept here
#: beside the widgets that fill it (as Compare's ``fairer`` keeps its results).
RECORDS = "wb.train.heldout"
#: The tokenizers measured beside the new one by default, when installed (as on Compare's fairer section).
DEFAULT_OTHERS = ("gpt2", "cl100k", "o200k", "llama3", "qwen3.5")
COLUMNS = {
    "tokenizer": "tokenizer",
    "chars_per_token": "chars/token",
    "bytes_per_token": "bytes/token",
    "tokens_per_1000_chars": "tokens per 1,000 chars",
    "tokens": "tokens",
    "characters": "characters",
}
IN_SAMPLE_NOTE = (
    "These figures are measured on the training text itself (**in-sample**): the tokenizer learned its merges "
    "from exactly this text, so they flatter it. Turn on **Hold out part of the corpus for evaluation** above "
    "Train and train again to measure it on text it has not seen, beside GPT-2 and cl100k."
)


@dataclass(frozen=True)
class HeldOutRecord:
    """What a tokenizer was evaluated on: the held-out documents and the split's sentence."""

    texts: list[str]
    sentence: str
    digest: str


def merges_digest(tokenizer) -> str:
    """A digest of a tokenizer's merges: the same after saving it under another name."""
    hasher = hashlib.sha256()
    for left, right in getattr(tokenizer, "merges", ()):
        hasher.update(len(left).to_bytes(4, "little") + left + len(right).to_bytes(4, "little") + right)
    return hasher.hexdigest()


def _records() -> dict[str, HeldOutRecord | None]:
    return st.session_state.setdefault(RECORDS, {})


@st.cache_resource(show_spinner="Splitting the corpus…", max_entries=2)
def _split(signature: str, share: int, seed: int, _documents: list[str]) -> HeldOutSplit:
    """The split, kept per server for the corpus signature (not copied: a corpus may be large)."""
    return split_heldout(_documents, fraction=share / 100, seed=seed)


def split_controls(corpus: Corpus) -> tuple[HeldOutSplit | None, str | None]:
    """Draw the controls; (the split or None, the error that stops training or None)."""
    state.keep_widget_state(KEPT_DEFAULTS)
    on = st.toggle(
        "Hold out part of the corpus for evaluation",
        key=K_ON,
        help="Train on the rest only, then measure the new tokenizer on the held-out text beside GPT-2, cl100k "
        f"and the modern tokenizers. With {DOCUMENT_SPLIT_FROM:,} documents or more, whole documents are held "
        "out; with fewer, single lines of each document. Which ones is decided by a hash of their text keyed "
        "with the seed, so the same corpus and seed always give the same split, and identical lines (or "
        "documents) stay on one side. Blank lines always stay in training.",
    )
    if not on:
        return None, None
    left, right = st.columns([3, 1])
    share = left.slider("Held-out share", 5, 50, step=5, format="%d%%", key=K_SHARE)
    seed = right.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=K_SEED)
    if not corpus.documents:
        return None, None
    try:
        split = _split(corpus.signature, int(share), int(seed), corpus.documents)
    except ValueError as exc:
        st.error(f"No held-out split: {md(in_words(exc))}")
        return None, str(exc)
    st.caption(f"Training on the rest: {md(split.describe())}")
    return split, None


@contextmanager
def recording(corpus: Corpus) -> Iterator[Corpus]:
    """Draw the controls, give the corpus to train on (without the held-out part; empty when the split
    is impossible, so Train stays disabled), and remember the split for the tokenizer trained inside."""
    split, error = split_controls(corpus)
    train_corpus = corpus
    if split is not None or error is not None:
        train_corpus = copy.copy(corpus)
        train_corpus.documents = list(split.train) if split is not None else []
    before = st.session_state.get(state.TRAIN_RESULT)
    try:
        yield train_corpus
    finally:  # also when the training's end runs the page again (st.rerun raises to do it)
        _remember_split(before, split)


def _remember_split(before: str | None, split: HeldOutSplit | None) -> None:
    """Keep ``split``'s held-out part for the tokenizer trained since ``before`` was the result, if any."""
    after = st.session_state.get(state.TRAIN_RESULT)
    if after and after != before:
        choice = tokenizers.available_tokenizers().get(after)
        if choice is not None:
            record = None
            if split is not None:
                digest = hashlib.sha256("\x00".join(split.heldout).encode("utf-8", "surrogatepass")).hexdigest()
                record = HeldOutRecord(list(split.heldout), split.describe(), digest)
            _records()[merges_digest(choice.get())] = record


def _others(choices) -> list[str]:
    """The multiselect of built-in tokenizers to measure beside the new one."""
    others = {k: c for k, c in choices.items() if c.kind == "built-in" and k != tokenizers.DEFAULT_KEY}
    if K_OTHERS in st.session_state:
        st.session_state[K_OTHERS] = [k for k in st.session_state[K_OTHERS] if k in others]
    else:
        st.session_state[K_OTHERS] = [k for k in DEFAULT_OTHERS if k in others]
    return st.multiselect(
        "Measure beside it (on the same held-out text)",
        list(others),
        format_func=lambda k: others[k].option,
        key=K_OTHERS,
    )


@st.cache_data(show_spinner="Measuring the held-out text…", max_entries=16)
def _measure(key: tuple, _tokenizers: dict, _texts: list[str]) -> list[dict]:
    """``heldout_measures`` as table rows, cached on the tokenizers' fingerprints and the text's digest."""
    return [asdict(m) for m in heldout_measures(_tokenizers, _texts)]


def measure_rows(name: str, tokenizer, digest: str, record: HeldOutRecord, keys: list[str], choices) -> list[dict]:
    """The new tokenizer (``digest``: its ``merges_digest``) first, then the chosen built-ins, on the held-out text."""
    if name in {choices[k].label for k in keys if k in choices}:
        name = f"{name} (trained here)"  # a built-in's label: keep the rows apart
    loaded = {name: tokenizer}
    fingerprints = [digest]
    for key in keys:
        try:
            loaded[choices[key].label] = choices[key].get()
        except ValueError as exc:
            st.error(f"{md(choices[key].label)} could not be loaded and is left out: {md(in_words(exc))}")
            continue
        fingerprints.append(choices[key].fingerprint)
    return _measure((name, tuple(fingerprints), record.digest), loaded, record.texts)


def _relation(mine: int, theirs: int, name: str) -> str:
    """'20% fewer tokens than X', '3% more tokens than X', '2.9x as many tokens as X'."""
    ratio = mine / theirs
    if abs(ratio - 1) < 0.005:
        return f"as many tokens as {name}"
    if ratio >= 1.5:
        return f"{ratio:.1f}x as many tokens as {name}"
    return f"{abs(ratio - 1):.0%} {'more' if ratio > 1 else 'fewer'} tokens than {name}"


def comparison_sentence(rows: list[dict]) -> str | None:
    """How the new tokenizer (the first row) does against the others on the held-out text.

    >>> comparison_sentence([{"tokenizer": "mine", "tokens": 80}, {"tokenizer": "GPT-2", "tokens": 100},
    ...                      {"tokenizer": "o200k", "tokens": 40}])
    'On the held-out text, mine needs 20% fewer tokens than GPT-2 and 2.0x as many tokens as o200k.'
    """
    if len(rows) < 2 or not rows[0]["tokens"]:
        return None
    parts = [_relation(rows[0]["tokens"], row["tokens"], row["tokenizer"]) for row in rows[1:] if row["tokens"]]
    if not parts:
        return None
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"On the held-out text, {rows[0]['tokenizer']} needs {listed}."


@charts.plotly_work
def _figure(frame: pd.DataFrame, colours: dict[str, str]):
    figure = go.Figure()
    figure.add_bar(
        x=[plot_text(name) for name in frame["tokenizer"]],
        y=frame["chars_per_token"].tolist(),
        marker_color=[colours.get(name, charts.OTHER_COLOURS[0]) for name in frame["tokenizer"]],
        text=[f"{v:.2f}" if v == v and v is not None else "" for v in frame["chars_per_token"]],
        hovertemplate="%{x}: %{y:.2f} characters per token<extra></extra>",
    )
    return charts.compact(
        figure,
        330,
        title="Characters per token on the held-out text (higher: fewer tokens)",
        yaxis_title="characters per token",
    )


def evaluation_section(result_key: str, tokenizer) -> None:
    """Under the result: held-out numbers beside the reference tokenizers, or the in-sample note."""
    digest = merges_digest(tokenizer)
    record = _records().get(digest)
    if record is None:
        st.info(IN_SAMPLE_NOTE)
        return
    st.subheader("On held-out text", divider="gray")
    st.caption(
        f"Measured on the held-out part of the corpus, which training never saw: {md(record.sentence)} "
        "The figures above (and the curve below) are measured on the training part."
    )
    choices = tokenizers.available_tokenizers()
    keys = _others(choices)
    rows = measure_rows(tokenizer.name, tokenizer, digest, record, keys, choices)
    frame = pd.DataFrame(rows)[list(COLUMNS)]
    show_table(
        frame.rename(columns=COLUMNS),
        key="train.heldout.table",
        column_config={
            label: st.column_config.NumberColumn(label, format="%.2f")
            for label in ("chars/token", "bytes/token", "tokens per 1,000 chars")
        },
    )
    by_key = {choices[k].label: k for k in keys if k in choices}
    colour_keys = [result_key] + [by_key[n] for n in frame["tokenizer"][1:] if n in by_key]
    colours = charts.tokenizer_colours(colour_keys)
    others = {n: colours[by_key[n]] for n in frame["tokenizer"][1:] if n in by_key}
    named = {tokenizer.name: colours[result_key]} | others
    st.plotly_chart(_figure(frame, named), key="train.heldout.chart")
    sentence = comparison_sentence(rows)
    show_sentences([sentence] if sentence else [])
