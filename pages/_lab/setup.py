"""The Lab page's inputs: the corpus (the built-in parallel text, or uploaded files through the app's
one uploader), the vocabulary size and the variants (BPE, SuperBPE at one or more transition points,
Picky BPE at a threshold, parity-aware BPE). Each problem is shown under the inputs as it is found,
before any training; what to train comes back as ``Inputs``. The checks are ``choices``'."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core.analysis.variants import VariantSpec
from bpe_core.errors import BpeError
from bpe_core.training.engine import MAX_VOCAB_SIZE
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.uploads import file_uploader, skipped_rows_message, upload_limit_mb

from .choices import LabCorpus, builtin_corpus, check_variants, uploaded_corpus, variant_specs

BUILTIN, FILES = "builtin", "files"
CORPUS_OPTIONS = {BUILTIN: "Built-in parallel text (21 languages)", FILES: "My files"}
UPLOADER = "lab.uploads"
KEPT_DEFAULTS = {
    "lab.corpus": BUILTIN,
    "lab.vocab_size": 2000,
    "lab.bpe": True,
    "lab.superbpe": True,
    "lab.transitions": "0.8",
    "lab.picky": True,
    "lab.threshold": 0.9,
    "lab.parity": True,
    "lab.alpha": 2.5,
}


@dataclass(frozen=True)
class Inputs:
    """What to train: the corpus, the vocabulary size and the variants (None where a problem was shown)."""

    corpus: LabCorpus | None
    vocab_size: int
    variants: list[VariantSpec] | None

    @property
    def ready(self) -> bool:
        return self.corpus is not None and self.variants is not None


@st.cache_resource(show_spinner=False)
def _builtin() -> LabCorpus:
    return builtin_corpus()


def corpus_input() -> LabCorpus | None:
    """The corpus radio and, for files, the uploader; the corpus, or None (the reason shown)."""
    choice = st.radio("Corpus", list(CORPUS_OPTIONS), format_func=CORPUS_OPTIONS.get, key="lab.corpus", horizontal=True)
    if choice == BUILTIN:
        corpus = _builtin()
        st.caption(
            f"Trained on {md(corpus.label)}; measured on its held-out lines 91-120 in every language and "
            "on the 41 built-in code and data samples, none of which the training text holds."
        )
        return corpus
    uploads = file_uploader(
        "Corpus files: plain text, Markdown, code; JSONL, JSON arrays or Parquet with a text field "
        f"(UTF-8, up to {upload_limit_mb():,} MB each)",
        UPLOADER,
        split_jsonl=True,
        help="A tenth of each file is held out (whole documents when it has many, else lines) and the variants "
        "are measured on it and on the built-in held-out samples. Parity-aware BPE needs parallel text, so it "
        "trains on the built-in corpus only.",
    )
    readable = []
    for upload in uploads:
        if upload.error:
            st.error(f"Skipped {md(upload.name)}: {md(in_words(upload.error))}")
            continue
        if upload.warnings:
            st.warning(skipped_rows_message(upload))  # plain: escaped by skipped_rows_message
        readable.append((upload.name, upload.digest, list(upload.documents)))
    if not readable:
        st.info("Upload one or more corpus files to train on them, or choose the built-in parallel text.")
        return None
    try:
        corpus = uploaded_corpus(readable)
    except BpeError as exc:
        st.error(md(in_words(exc)))
        return None
    st.caption(f"Trained on {md(corpus.label)}; measured on the held-out parts and the built-in held-out samples.")
    return corpus


def variants_input(vocab_size: int, parallel: bool) -> list[VariantSpec] | None:
    """The variant checkboxes and their fields; the variants, or None (the reason shown). ``parallel``:
    whether the corpus is parallel text (parity-aware BPE needs it)."""
    columns = st.columns(4)
    bpe = columns[0].checkbox("BPE", key="lab.bpe", help="Standard byte-level BPE: the baseline of the savings.")
    superbpe = columns[1].checkbox(
        "SuperBPE", key="lab.superbpe", help="Liu et al. 2025: a second stage merges across spaces (superwords)."
    )
    transitions = columns[1].text_input(
        "Transition points",
        key="lab.transitions",
        disabled=not superbpe,
        help="Where stage 2 starts, one SuperBPE per value, separated by commas: a share of the vocabulary "
        "(0.8: stage 1 stops at 80% of it) or a number of merges (1500).",
    )
    picky = columns[2].checkbox(
        "Picky BPE",
        key="lab.picky",
        help="Chizhov et al. 2024: a token used almost only inside a bigger one is removed.",
    )
    threshold = columns[2].number_input(
        "IoS threshold",
        min_value=0.01,
        max_value=1.0,
        step=0.05,
        key="lab.threshold",
        disabled=not picky,
        help="A token whose Intersection over Self exceeds it is removed (1 never removes: plain BPE).",
    )
    parity = columns[3].checkbox(
        "Parity-aware BPE",
        key="lab.parity",
        help="Foroutan et al. 2025: each merge serves the language compressed worst.",
    )
    try:
        variants = variant_specs(
            bpe=bpe,
            transitions=transitions if superbpe else None,
            picky=float(threshold) if picky else None,
            parity=parity,
        )
        check_variants(variants, vocab_size, parallel=parallel)
    except BpeError as exc:
        st.error(md(in_words(exc)))
        return None
    if "bpe" not in [variant.kind for variant in variants]:
        st.caption("Without BPE among the variants there are no savings against BPE to show.")
    return variants


#: The smallest vocabulary size the Lab takes: the 256 bytes and one merge.
MIN_VOCAB = 257


def setup_section() -> Inputs:
    st.header("1 · Corpus and variants", divider="gray")
    corpus = corpus_input()
    column = st.columns([1, 2])[0]
    vocab_size = int(
        column.number_input(
            "Vocabulary size (the same for every variant: 256 bytes + merges)",
            min_value=MIN_VOCAB,
            max_value=MAX_VOCAB_SIZE,
            step=250,
            key="lab.vocab_size",
            help=f"From {MIN_VOCAB:,} (the 256 bytes and one merge) to {MAX_VOCAB_SIZE:,}, the most bpe_core trains. "
            "A value outside is refused by the field (red) and the last accepted one is kept.",
        )
    )
    column.caption(
        f"Trains up to {vocab_size:,} ids ({vocab_size - 256:,} merges). Accepted: {MIN_VOCAB:,} to {MAX_VOCAB_SIZE:,}."
    )
    variants = variants_input(vocab_size, st.session_state.get("lab.corpus") == BUILTIN)
    return Inputs(corpus, vocab_size, variants)
