"""The Fairer training page's run and what it keeps: ``compare_training`` under one progress bar
(standard BPE, parity-aware BPE, measuring), its result kept per server on a digest of the inputs, and
the buttons that keep both tokenizers for the session or save them to the library. Draws the progress
bar, the buttons and their message; the result's charts are ``view``'s.
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import streamlit as st

from bpe_core.analysis.parity_report import ParityComparison, compare_training
from bpe_core.progress import PhaseClock
from pages._ui import tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.widgets import REDRAW_SECONDS, progress_text

from .inputs import K_KEEP, K_SAVE, Inputs

#: Session state (not widgets): the last result, and a message shown once after keep/save.
RESULT = "wb.fair.result"
MESSAGE = "wb.fair.message"
#: The overall progress bar: each phase's share of it.
_SPANS = {"standard": (0.0, 0.4), "parity": (0.4, 0.9), "measure": (0.9, 1.0)}


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
        st.error(f"Training failed: {md(in_words(exc))}")
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
            st.session_state[MESSAGE] = ("error", f"Could not save {md(name)}: {md(in_words(exc))}")
            st.rerun()
    where = "saved to the library" if save else "kept for this session (unsaved)"
    listed = " and ".join(f"**{md(name)}**" for name in names)
    st.session_state[MESSAGE] = ("success", f"{listed} {where}: pick them on Compare, Tokenize or any other page.")
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
