"""Train a fairer tokenizer: the Compare page's section that trains standard and parity-aware BPE on
the same parallel text at the same vocabulary size (``bpe_core.analysis.parity_report.compare_training``) and
shows, on held-out sentences, what changed: a plain sentence, metric cards, the premium per language
with bootstrap error bars beside GPT-2 and the modern tokenizers, the premium against vocabulary
size, the merges each language was served, a table with a CSV download, and buttons that keep or
save both tokenizers.

Every number comes from ``bpe_core``; this module only gathers inputs, caches the one call on a
digest of them, and draws. User text (file names, tokenizer names) reaches Markdown only through
``md`` and plotly only through ``plot_text``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import streamlit as st

from bpe_core.analysis.parity_report import ParityComparison, compare_training, language_names
from bpe_core.corpora.samples import REFERENCE_ID, parallel_languages, parallel_text, parse_parallel_texts
from bpe_core.progress import PhaseClock
from bpe_core.training.parity import parse_ratio
from bpe_core.training.parity_choice import CONVENTIONS
from bpe_core.training.tie_rules import TIE_RULES
from pages._ui import tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.uploads import file_uploader
from pages._ui.widgets import REDRAW_SECONDS, progress_text

from .fairer_view import show_result

K_SOURCE = "cmp.fair.source"
K_LANGUAGES = "cmp.fair.languages"
K_UPLOADS = "cmp.fair.uploads"
K_REFERENCE = "cmp.fair.reference"
K_VOCAB = "cmp.fair.vocab"
K_PATTERN = "cmp.fair.pattern"
K_VARIANT = "cmp.fair.variant"
K_SHARE = "cmp.fair.share"
K_WINDOW = "cmp.fair.window"
K_ALPHA = "cmp.fair.alpha"
K_TIE = "cmp.fair.tie"
K_MIN_FREQUENCY = "cmp.fair.min_frequency"
K_BALANCE = "cmp.fair.balance"
K_RATIO = "cmp.fair.ratio"
K_CONVENTION = "cmp.fair.convention"
K_OTHERS = "cmp.fair.others"
K_GO = "cmp.fair.go"
K_KEEP = "cmp.fair.keep"
K_SAVE = "cmp.fair.save"
#: Session state (not widgets): the last result, and a message shown once after keep/save.
RESULT = "wb.cmp.fair.result"
MESSAGE = "wb.cmp.fair.message"

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
#: The overall progress bar: each phase's share of it.
_SPANS = {"standard": (0.0, 0.4), "parity": (0.4, 0.9), "measure": (0.9, 1.0)}


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
            st.error(f"Skipped {md(upload.name)}: {md(upload.error)}")
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
        st.error(md(exc))
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
            help="The same for both trainings.",
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
            st.error(md(exc))
            return None
    return Inputs(train, heldout, reference, names, vocab, pattern, parity, options, others)


# ------------------------------------------------------------------------------------------------
# the run


class RunProgress:
    """``compare_training``'s progress ("standard: merge", "parity: count", "measure") on one bar."""

    def __init__(self, bar) -> None:
        self.bar, self.clock, self.last = bar, PhaseClock(), float("-inf")

    def __call__(self, phase: str, done: int, total: int) -> None:
        stage, _, step = phase.partition(": ")
        progress = self.clock(phase, done, total)
        if progress.at - self.last < REDRAW_SECONDS and done < total:
            return
        self.last = progress.at
        fraction, text = progress_text(step or "measure", done, total, progress.elapsed)
        low, high = _SPANS.get(stage, (0.0, 1.0))
        title = {"standard": "Standard BPE", "parity": "Parity-aware BPE"}.get(stage, "Measuring")
        self.bar.progress(low + (high - low) * fraction, text=f"{title} · {text}")  # plain: numbers, phase names


#: Results kept per server, newest last (each holds two small tokenizers and the held-out text).
KEEP_RESULTS = 4


@st.cache_resource(show_spinner=False)
def _results() -> OrderedDict:
    """The server's cache of results by digest of the inputs; drawn outside it (the progress bar
    cannot live inside a cached function), so it is a store, not a cached call."""
    return OrderedDict()


def _compare(inputs: Inputs, others: dict, progress) -> ParityComparison:
    """The one call, cached on the inputs' digest."""
    store, digest = _results(), inputs.digest()
    if digest in store:
        store.move_to_end(digest)
        return store[digest]
    i = inputs
    result = compare_training(
        i.texts,
        i.heldout,
        i.vocab_size,
        reference=i.reference,
        others=others,
        parity_options=i.parity_options,
        names=i.names,
        progress=progress,
        pattern=i.pattern,
        **i.options,
    )
    store[digest] = result
    while len(store) > KEEP_RESULTS:
        store.popitem(last=False)
    return result


def run_comparison(inputs: Inputs, choices) -> ParityComparison | None:
    """Load the other tokenizers, train both ways under a progress bar (cached), show failures."""
    bar = st.progress(0.0, text="Loading the tokenizers to measure beside them…")
    try:
        others = {choices[k].label: choices[k].get() for k in inputs.others if k in choices}
        result = _compare(inputs, others, RunProgress(bar))
    except (ValueError, TypeError) as exc:
        bar.empty()
        st.error(f"Training failed: {md(exc)}")
        return None
    bar.empty()
    return result


# ------------------------------------------------------------------------------------------------
# keeping the two tokenizers


def tokenizer_names(inputs: Inputs, choices) -> tuple[str, str]:
    """Unused names for the two tokenizers, e.g. ``standard-o200k-4000`` and ``parity-o200k-4000-h80``."""
    share = round(100 * inputs.parity_options["global_merges"] / max(inputs.vocab_size - 256, 1))
    base = f"{inputs.pattern}-{inputs.vocab_size}"
    hybrid = f"-h{share}" if share else ""
    window = "-window" if inputs.parity_options["variant"] == "window" else ""
    return (
        tokenizers.unused_name(f"standard-{base}", choices),
        tokenizers.unused_name(f"parity-{base}{window}{hybrid}", choices),
    )


def keep_both(result: ParityComparison, inputs: Inputs, choices, *, save: bool) -> None:
    """Keep both tokenizers in this session (or save them to the library), under their own names."""
    names = tokenizer_names(inputs, choices)
    corpus = (", ".join(inputs.names.values()), [s for lines in inputs.texts.values() for s in lines])
    done = []
    for tokenizer, name in zip((result.standard, result.parity), names, strict=True):
        named = copy.copy(tokenizer)  # the cached result keeps its own names
        named.name = name
        key = tokenizers.add_session_tokenizer(named, corpus)
        try:
            done.append(tokenizers.save_to_library(key, named, name) if save else key)
        except ValueError as exc:
            st.session_state[MESSAGE] = ("error", f"Could not save {md(name)}: {md(exc)}")
            st.rerun()
    where = "saved to the library" if save else "kept for this session (unsaved)"
    listed = " and ".join(f"**{md(name)}**" for name in names)
    st.session_state[MESSAGE] = ("success", f"{listed} {where}: pick them in the comparison above or on any page.")
    st.rerun()  # so that every picker on the page lists them


def keep_section(result: ParityComparison, inputs: Inputs, choices) -> None:
    """The keep and save buttons, and what the last click did."""
    columns = st.columns(2)
    if columns[0].button("Keep both for this session", key=K_KEEP):
        keep_both(result, inputs, choices, save=False)
    if columns[1].button("Save both to the library", key=K_SAVE):
        keep_both(result, inputs, choices, save=True)
    message = st.session_state.pop(MESSAGE, None)
    if message:
        getattr(st, message[0])(message[1])  # plain: built with md() in keep_both


# ------------------------------------------------------------------------------------------------
# the section


def fairer_section(choices) -> None:
    """Compare's "Train a fairer tokenizer" section."""
    st.subheader("Train a fairer tokenizer", divider="gray")
    st.caption(
        "Standard BPE merges the pair most frequent over all the text, which favours the languages that "
        "compress easily. Parity-aware BPE (Foroutan et al., 2025) gives each merge to the language that is "
        "worst compressed so far on a parallel development text (or furthest below a target rate). Both are "
        "trained here on the same text at the same vocabulary size and measured on held-out sentences."
    )
    inputs = read_inputs(choices)
    clicked = st.button("Train both", type="primary", key=K_GO, disabled=inputs is None)
    if clicked and inputs is not None:
        started = time.perf_counter()
        result = run_comparison(inputs, choices)
        if result is not None:
            st.session_state[RESULT] = (inputs.digest(), inputs, result, time.perf_counter() - started)
    held = st.session_state.get(RESULT)
    if held is None:
        return
    digest, used, result, _ = held
    if inputs is None or inputs.digest() != digest:
        st.caption("The settings changed since this result: click **Train both** to update it.")
    show_result(result)
    keep_section(result, used, choices)
