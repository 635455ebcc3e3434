"""The Extend page's inputs: the model whose tokenizer grows, the language (its held-out sentences
measure the result; its built-in training sentences, or the user's files, are the corpus), how many
tokens to add, the scripts new tokens may use, and the finer settings. Each is checked where it is typed
(a script name, a first id, a tokenizer that cannot be extended) and gathered into ``Inputs``; the run is
``run``'s, the result ``view``'s.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.parity_report import language_names
from bpe_core.corpora.samples import parallel_languages, parallel_text
from bpe_core.training.scripts import check_scripts, dominant_scripts
from bpe_core.training.start import check_first_id
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from pages._ui import state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.uploads import file_uploader
from pages._ui.widgets import tokenizer_picker

K_BASE = "extend.base"
K_LANGUAGE = "extend.language"
K_SOURCE = "extend.source"
K_UPLOADS = "extend.uploads"
K_ADD = "extend.add"
K_ONLY = "extend.only_scripts"
K_SCRIPTS = "extend.scripts"
K_SCRIPTS_FOR = "extend.scripts_for"  # the language the scripts field was last filled in for
K_MIN_FREQUENCY = "extend.min_frequency"
K_TIE = "extend.tie"
K_FIRST_ID = "extend.first_id"
K_SUPERWORDS = "extend.superwords"

SOURCE_BUILTIN = "builtin"
SOURCE_FILES = "files"
SOURCES = {SOURCE_BUILTIN: "The language's built-in text (90 sentences)", SOURCE_FILES: "My files"}
#: The models offered first (those installed), in this order.
PREFERRED = ("llama3", "gpt2", "qwen", "o200k")
KEPT_DEFAULTS = {
    K_LANGUAGE: "hin",
    K_SOURCE: SOURCE_BUILTIN,
    K_ADD: 1000,
    K_ONLY: True,
    K_MIN_FREQUENCY: 2,
    K_TIE: "huggingface",
    K_FIRST_ID: "",
    K_SUPERWORDS: False,
}
#: A script counts for the suggestion when it writes at least this share of the language's letters.
SUGGESTED_SHARE = 0.05


@dataclass(frozen=True)
class Inputs:
    """What an extension runs with: the base, the language measured, the corpus (``documents``, named
    ``corpus_label``) and ``extend``'s settings."""

    base: TokenizerChoice
    language: str
    corpus_label: str
    documents: tuple[str, ...]
    add: int
    scripts: tuple[str, ...] | None
    superwords: bool
    min_frequency: int
    tie_break: str
    first_id: int | None

    def options(self) -> dict[str, object]:
        """``bpe_core.extend``'s keywords (JSON values: they go to the worker process)."""
        return {
            "scripts": list(self.scripts) if self.scripts else None,
            "superwords": self.superwords,
            "min_frequency": self.min_frequency,
            "tie_break": self.tie_break,
            "first_id": self.first_id,
        }

    def digest(self) -> str:
        """What names these inputs (the corpus by its content)."""
        corpus = hashlib.blake2b("\x00".join(self.documents).encode("utf-8", "replace"), digest_size=8).hexdigest()
        fields = [self.base.fingerprint, self.language, corpus, self.add, self.options()]
        return hashlib.blake2b(json.dumps(fields, default=str).encode(), digest_size=8).hexdigest()


@st.cache_data(show_spinner=False)
def names() -> dict[str, str]:
    return language_names(parallel_languages())


@st.cache_data(show_spinner=False)
def training_lines(language: str) -> list[str]:
    return parallel_text(split="train", languages=[language])[language]


@st.cache_data(show_spinner=False)
def suggested_scripts(language: str) -> str:
    """The scripts of the language's built-in text, as the field shows them (``Devanagari``, ``Han, Hiragana``)."""
    return ", ".join(dominant_scripts(Counter(training_lines(language)), share=SUGGESTED_SHARE))


def model_choices(choices: dict[str, TokenizerChoice]) -> dict[str, TokenizerChoice]:
    """The tokenizers that have merges (no external ones), today's models first."""
    kept, _ = tokenizers.with_merges(choices)
    first = [key for key in PREFERRED if key in kept]
    return {key: kept[key] for key in [*first, *(k for k in kept if k not in first)]}


def read_base(choices: dict[str, TokenizerChoice]) -> tuple[TokenizerChoice, Tokenizer | None]:
    """The model picker, and its tokenizer when it can be extended (else a message under the picker)."""
    models = model_choices(choices)
    choice = tokenizer_picker(
        "Model whose tokenizer grows",
        models,
        key=K_BASE,
        default=next(iter(models)),
        help="Its ids all stay as they are; the new tokens take the ids after the highest one in use.",
    )
    try:
        base = choice.get()
    except ValueError as exc:
        st.error(f"{md(choice.label)} cannot be loaded: {md(in_words(exc))}")
        return choice, None
    if base.rule == "picky":
        st.error(
            f"{md(choice.label)} is a Picky BPE tokenizer: its tokens come from merges and removals, so BPE cannot "
            "go on from it. Pick a BPE tokenizer (any model, or one trained on the Train page)."
        )
        return choice, None
    return choice, base


def read_corpus(language: str) -> tuple[str, tuple[str, ...]]:
    """The corpus: the language's built-in training sentences, or the user's files (read as Train reads them)."""
    state.ensure_option(K_SOURCE, list(SOURCES), SOURCE_BUILTIN)
    source = st.radio("Corpus", list(SOURCES), format_func=SOURCES.get, key=K_SOURCE, horizontal=True)
    if source == SOURCE_BUILTIN:
        return f"the built-in {names()[language]} text", tuple(training_lines(language))
    uploads = file_uploader(
        "Text in the language (text, JSONL, JSON, Parquet; gzip or zstd)",
        K_UPLOADS,
        split_jsonl=True,
        help="The more text, the more useful tokens: a few megabytes give thousands. The held-out sentences "
        "that measure the result stay the built-in ones.",
    )
    for upload in uploads:
        if upload.error:
            st.error(f"{md(upload.name)}: {md(upload.error)}")
    documents = tuple(d for upload in uploads if not upload.error for d in upload.documents)
    if not documents:
        st.info("Upload one or more files of text in the language to extend on.")
    label = ", ".join(upload.name for upload in uploads if not upload.error) or "your files"
    return label, documents


def read_scripts(language: str) -> tuple[tuple[str, ...] | None, bool]:
    """The scripts new tokens may use (None: any), and whether the field is fine."""
    if st.session_state.get(K_SCRIPTS_FOR) != language or K_SCRIPTS not in st.session_state:
        st.session_state[K_SCRIPTS] = suggested_scripts(language)
        st.session_state[K_SCRIPTS_FOR] = language
    superwords = bool(st.session_state.get(K_SUPERWORDS))
    only = st.checkbox(
        "New tokens only in the language's scripts",
        key=K_ONLY,
        disabled=superwords,
        help="Text with none of these scripts then encodes exactly as before: English, code, every other "
        "language. Spaces, punctuation and digits may join a word of the scripts.",
    )
    typed = st.text_input(
        "Scripts (Unicode names, comma-separated)", key=K_SCRIPTS, disabled=not only or superwords, max_chars=200
    )
    if superwords:
        st.caption("Superwords pre-tokenize all text anew, so other text would change anyway: no script restriction.")
        return None, True
    if not only:
        st.caption("Any token may be added: the result says how much of the text in other scripts changed.")
        return None, True
    try:
        return check_scripts([name for name in typed.split(",") if name.strip()]), True
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return None, False


def read_first_id(base: Tokenizer | None, add: int) -> tuple[int | None, bool]:
    """The first new id typed (None: after the highest id in use), and whether it is fine for ``base``."""
    typed = st.text_input(
        "First new id (optional)",
        key=K_FIRST_ID,
        placeholder="after the highest id in use",
        help="Where the new ids start, e.g. past rows your model's embedding already has.",
        max_chars=12,
    ).strip()
    if not typed:
        return None, True
    if not typed.isascii() or not typed.isdigit():
        st.error(f"**{md(typed)}** is not an id: type a whole number, or leave the field empty.")
        return None, False
    if base is None:
        return None, False
    try:
        return check_first_id(base, int(typed), add), True
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return None, False


def read_inputs(choices: dict[str, TokenizerChoice]) -> Inputs | None:
    """Draw the inputs; ``Inputs`` when everything is fine, else None (each problem said where it is)."""
    top = st.columns([3, 2, 2])
    with top[0]:
        choice, base = read_base(choices)
    languages = parallel_languages()
    state.ensure_option(K_LANGUAGE, languages, "hin")
    language = top[1].selectbox(
        "Language",
        languages,
        format_func=lambda code: names()[code],
        key=K_LANGUAGE,
        help="Measured on its 30 held-out sentences of the built-in parallel text, against English for the premium.",
    )
    add = int(
        top[2].number_input(
            "Tokens to add", min_value=1, max_value=100_000, step=500, key=K_ADD,
            help="At most: training stops sooner when no pair occurs often enough.",
        )
    )  # fmt: skip
    corpus_label, documents = read_corpus(language)
    scripts, scripts_fine = read_scripts(language)
    with st.expander("More settings"):
        columns = st.columns(3)
        min_frequency = int(
            columns[0].number_input("Minimum pair count", min_value=1, max_value=1_000_000, key=K_MIN_FREQUENCY)
        )
        state.ensure_option(K_TIE, list(TIE_BREAKS), "huggingface")
        tie_break = columns[1].selectbox("Ties", list(TIE_BREAKS), key=K_TIE, format_func=str, help=TIE_HELP)
        with columns[2]:
            first_id, first_fine = read_first_id(base, add)
        superwords = st.checkbox("Superwords: new tokens may span words (SuperBPE's second stage)", key=K_SUPERWORDS)
    if base is None or not documents or not scripts_fine or not first_fine:
        return None
    return Inputs(
        choice, language, corpus_label, documents, add, scripts, superwords, min_frequency, str(tie_break), first_id
    )


TIE_HELP = "Which pair is merged when several occur equally often. " + "; ".join(
    f"{name}: {what}" for name, what in TIE_RULES.items()
)
