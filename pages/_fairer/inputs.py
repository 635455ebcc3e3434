"""The Fairer training page's inputs: the parallel text (the built-in one, or the user's files, each
split into lines trained on and lines held out) and the settings of standard and parity-aware BPE,
gathered into ``Inputs`` with a digest that names them. Draws the inputs and says what is missing;
training and the result are ``run``'s and ``view``'s.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import streamlit as st

from bpe_core.analysis.parity_report import language_names
from bpe_core.corpora.samples import REFERENCE_ID, parallel_languages, parallel_text, parse_parallel_texts
from bpe_core.training.parity import parse_ratio
from bpe_core.training.parity_choice import CONVENTIONS
from bpe_core.training.tie_rules import TIE_RULES
from pages._ui import tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.uploads import file_uploader

K_SOURCE = "fair.source"
K_LANGUAGES = "fair.languages"
K_UPLOADS = "fair.uploads"
K_REFERENCE = "fair.reference"
K_VOCAB = "fair.vocab"
K_PATTERN = "fair.pattern"
K_VARIANT = "fair.variant"
K_SHARE = "fair.share"
K_WINDOW = "fair.window"
K_ALPHA = "fair.alpha"
K_TIE = "fair.tie"
K_MIN_FREQUENCY = "fair.min_frequency"
K_BALANCE = "fair.balance"
K_RATIO = "fair.ratio"
K_CONVENTION = "fair.convention"
K_OTHERS = "fair.others"
K_GO = "fair.go"
K_KEEP = "fair.keep"
K_SAVE = "fair.save"

SOURCE_BUILTIN = "Built-in parallel text (120 sentences)"
SOURCE_FILES = "My parallel files"
PATTERNS = ("o200k", "cl100k", "gpt2")
VARIANTS = {"base": "serve the worst language", "window": "moving window (spread over languages)"}
DEFAULT_VOCAB = 4000
#: How parity-aware training decides which language is worst compressed: the spec ``parse_ratio``
#: reads for each target-rate choice (None: the development text).
BALANCES = {
    "the development text (the training lines, parallel)": None,
    "target rates: equal token counts (rate proportional to bytes)": "bytes",
    "target rates: equal bytes per token (1.0 each)": "equal",
    "target rates: my own": "",
}
RATIO_HELP = (
    "A target rate is a compression rate in bytes per token, measured on each language's own training text "
    "(no development text needed): each merge serves the language furthest below its target. Equal rates do "
    "not mean equal token counts across scripts: a Hindi sentence takes about 2.6 times the bytes of its "
    "English translation, so at equal rates it keeps about 2.6 times the tokens. Rates proportional to each "
    "language's bytes ask for equal token counts on parallel text."
)
#: The defaults of the hybrid: 80% of merges by global frequency, then the moving window with alpha 3.
#: On the built-in text at vocab 4,000 (o200k's pattern) it keeps English's extra cost under 3% and cuts
#: the worst premium's excess over parity by about a third (bench/PERFORMANCE.md, "Parity-aware training").
DEFAULT_SHARE = 80
DEFAULT_VARIANT = "window"
DEFAULT_ALPHA = 3.0
#: Share of an uploaded file's lines held out for measuring (the last ones).
HELDOUT_SHARE = 0.25
#: Tokenizers measured beside the two trained ones by default (those installed): the ones the page's
#: comparison loads first anyway, so they are usually in memory already.
DEFAULT_OTHERS = ("gpt2", "cl100k", "o200k", "llama3", "qwen3.5")
PATTERN_NOTE = (
    "GPT-2's and cl100k's patterns split letters from combining marks, i.e. from the vowel signs of Indic "
    "scripts, Burmese and Thai: no merge can join those pieces, so parity-aware training cannot fix them. "
    "o200k's pattern keeps marks inside words."
)


@dataclass(frozen=True)
class Inputs:
    """What one run trains on and how: train and held-out sentences per language, settings."""

    texts: dict[str, list[str]]
    heldout: dict[str, list[str]]
    reference: str
    names: dict[str, str]
    vocab_size: int
    pattern: str
    parity_options: dict
    options: dict
    others: tuple[str, ...] = field(default=())

    def digest(self) -> str:
        """Identifies the inputs (the cache key): the same text and settings give the same digest."""
        data = json.dumps(
            [
                self.texts,
                self.heldout,
                self.reference,
                self.names,
                self.vocab_size,
                self.pattern,
                self.parity_options,
                self.options,
                list(self.others),
            ],
            ensure_ascii=False,
            sort_keys=True,
        )
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:20]


def split_heldout(sentences: dict[str, list[str]], share: float = HELDOUT_SHARE) -> tuple[dict, dict]:
    """(train, held out): the last ``share`` of every language's lines (at least one) held out.

    >>> split_heldout({"eng": ["a", "b", "c", "d"], "deu": ["e", "f", "g", "h"]})
    ({'eng': ['a', 'b', 'c'], 'deu': ['e', 'f', 'g']}, {'eng': ['d'], 'deu': ['h']})
    """
    count = len(next(iter(sentences.values())))
    if count < 2:
        raise ValueError(
            f"each file has {count} line: write at least 2 sentences per file (better 100 or more), "
            "so that some can be held out for measuring"
        )
    held = max(1, round(count * share))
    return ({k: v[: count - held] for k, v in sentences.items()}, {k: v[count - held :] for k, v in sentences.items()})


# ------------------------------------------------------------------------------------------------
# inputs


def builtin_input() -> tuple[dict, dict, str, dict] | None:
    """The built-in parallel text for the chosen languages: (train, held out, reference, names)."""
    languages = parallel_languages()
    names = language_names(languages)
    if K_LANGUAGES not in st.session_state:
        st.session_state[K_LANGUAGES] = list(languages)
    chosen = st.multiselect(
        "Languages",
        languages,
        format_func=names.__getitem__,
        key=K_LANGUAGES,
        help="Lines 1-90 of each are trained on (and are the parity development text); "
        "lines 91-120 are held out and measured.",
    )
    if REFERENCE_ID not in chosen or len(chosen) < 2:
        st.info("Pick English and at least one other language: the premium is measured against English.")
        return None
    return (
        parallel_text(split="train", languages=chosen),
        parallel_text(split="heldout", languages=chosen),
        REFERENCE_ID,
        {language: names[language] for language in chosen},
    )


def _label(name: str) -> str:
    """A file's language label: its name without the extension."""
    return name.rsplit(".", 1)[0] if "." in name.strip(".") else name


def files_input() -> tuple[dict, dict, str, dict] | None:
    """The user's parallel files (one per language, one sentence per line): the last quarter of the
    lines held out. Problems are shown and give None."""
    uploads = file_uploader(
        "Parallel files: one per language, UTF-8, one sentence per line, the same number of lines in each",
        K_UPLOADS,
        help="Line N of every file must be the same sentence. The file name is the language's label; name "
        "English's file eng.txt or en.txt to make it the reference.",
    )
    readable = {}
    for upload in uploads:
        if upload.error:
            st.error(f"Skipped {md(upload.name)}: {md(in_words(upload.error))}")
        elif upload.name not in readable:
            readable[upload.name] = upload.text
    if len(readable) < 2:
        st.info("Upload at least two parallel files (two languages) to train and compare.")
        return None
    try:
        by_file = parse_parallel_texts(readable)  # its messages name the files
        sentences = {}
        for name, lines in by_file.items():
            sentences[name if _label(name) in sentences else _label(name)] = lines
        train, heldout = split_heldout(sentences)
    except (ValueError, TypeError) as exc:
        st.error(md(in_words(exc)))
        return None
    labels = list(sentences)
    english = [label for label in labels if label.lower() in ("en", "eng", "english")]
    if st.session_state.get(K_REFERENCE) not in labels:
        st.session_state[K_REFERENCE] = english[0] if english else labels[0]
    reference: str = st.selectbox("Reference language (the premium's 1.0)", labels, key=K_REFERENCE)
    held = len(next(iter(heldout.values())))
    st.caption(
        f"{len(labels)} languages, {len(next(iter(train.values()))):,} sentences each to train on, "
        f"the last {held:,} held out for measuring."
    )
    return train, heldout, reference, {label: label for label in labels}


def more_settings() -> tuple[int, float, str, int, str, str | None]:
    """The "More settings" expander: (window, alpha, tie rule, minimum pair count, convention, the
    target rates' spec: None for the development text, "" while the user's own are not written)."""
    with st.expander("More settings"):
        cells = st.columns(4)
        window = int(
            cells[0].number_input(
                "Window (merges)",
                1,
                10_000,
                100,
                key=K_WINDOW,
                help="Moving-window variant: the last this many parity merges.",
            )
        )
        alpha = float(
            cells[1].number_input(
                "Alpha",
                0.1,
                100.0,
                DEFAULT_ALPHA,
                step=0.5,
                key=K_ALPHA,
                help="A language may take alpha x window / languages of them.",
            )
        )
        tie = cells[2].selectbox(
            "Tie rule",
            list(TIE_RULES),
            key=K_TIE,
            help="huggingface: BpeTrainer's rule for standard BPE and ParityBpeTrainer's "
            "(the greatest byte-level strings) for parity-aware BPE, as in tokenizers 0.23.",
        )
        min_frequency = int(cells[3].number_input("Minimum pair count", 1, 1000, 2, key=K_MIN_FREQUENCY))
        rows = st.columns([3, 1])
        balance = rows[0].selectbox(
            "Worst-compressed language decided by", list(BALANCES), key=K_BALANCE, help=RATIO_HELP
        )
        convention = rows[1].selectbox(
            "Convention",
            CONVENTIONS,
            key=K_CONVENTION,
            help="Where Hugging Face's ParityBpeTrainer and the paper's code differ "
            "(languages that run out of pairs, the window's bookkeeping).",
        )
        spec = BALANCES.get(balance or "")
        if spec == "":
            spec = st.text_input(
                "Target rates: LANG=RATE for every language",
                key=K_RATIO,
                placeholder="eng=1.0, hin=2.6, ...",
                help=RATIO_HELP,
            )
    return window, alpha, tie, min_frequency, convention, spec


def training_settings(choices) -> tuple[int, str, dict, dict, tuple[str, ...]]:
    """(vocab size, pattern, parity options, shared options, other tokenizer keys) from the widgets; the
    parity options' ``ratio`` is still the spec (``read_inputs`` reads it on the chosen text)."""
    columns = st.columns(3)
    vocab = int(
        columns[0].number_input(
            "Vocabulary size",
            min_value=300,
            max_value=50_000,
            value=DEFAULT_VOCAB,
            step=500,
            key=K_VOCAB,
            help="From 300 to 50,000, the same for both trainings (a value outside is refused by the field).",
        )
    )
    pattern: str = columns[1].selectbox("Pre-tokenization pattern", PATTERNS, key=K_PATTERN)
    variant = columns[2].radio(
        "Parity variant",
        list(VARIANTS),
        index=list(VARIANTS).index(DEFAULT_VARIANT),
        format_func=VARIANTS.get,
        key=K_VARIANT,
    )
    st.caption(PATTERN_NOTE)
    share = st.slider(
        "Share of merges chosen by global frequency (the rest serve the worst-compressed language)",
        0,
        100,
        DEFAULT_SHARE,
        step=5,
        format="%d%%",
        key=K_SHARE,
        help="0% is plain parity-aware BPE (fairest, English pays most); 100% is standard BPE. The paper "
        "calls the mix hybrid.",
    )
    window, alpha, tie, min_frequency, convention, spec = more_settings()
    others = {k: c for k, c in choices.items() if c.kind == "built-in" and k != tokenizers.DEFAULT_KEY}
    if K_OTHERS not in st.session_state:
        st.session_state[K_OTHERS] = [k for k in DEFAULT_OTHERS if k in others]
    shown = st.multiselect("Measure beside them", list(others), format_func=lambda k: others[k].label, key=K_OTHERS)
    merges = max(vocab - 256, 0)
    parity = {
        "variant": variant,
        "global_merges": round(merges * share / 100),
        "window": window,
        "alpha": alpha,
        "convention": convention,
        "ratio": spec,
    }
    return vocab, pattern, parity, {"min_frequency": min_frequency, "tie_break": tie}, tuple(shown)


def read_inputs(choices) -> Inputs | None:
    """Draw the inputs; None when they are not usable yet (the reason is shown)."""
    source = st.radio("Train and measure on", [SOURCE_BUILTIN, SOURCE_FILES], horizontal=True, key=K_SOURCE)
    data = builtin_input() if source == SOURCE_BUILTIN else files_input()
    vocab, pattern, parity, options, others = training_settings(choices)
    if data is None:
        return None
    train, heldout, reference, names = data
    if parity["ratio"] == "":
        st.info("Write a target rate for every language (LANG=RATE, separated by commas) to train.")
        return None
    if parity["ratio"] is not None:
        try:
            parity["ratio"] = parse_ratio(parity["ratio"], train)
        except ValueError as exc:
            st.error(md(in_words(exc)))
            return None
    return Inputs(train, heldout, reference, names, vocab, pattern, parity, options, others)
