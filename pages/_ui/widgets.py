"""Widgets more than one page (or section) draws: the page header (with flash messages), the
tokenizer pickers, tables with the app's number convention, a block of sentences, and the training
progress bar with its ETA.

The progress text is computed by pure functions (``format_seconds``, ``progress_text``) so it can be
tested without a browser. No session keys of its own (they are in ``state``) and no HTML (``render``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

from bpe_core.progress import PhaseClock, byte_size, eta_seconds

from . import navigation, state
from .render import sentences_html
from .tokenizers import TokenizerChoice

if TYPE_CHECKING:  # pandas and tables (which needs it) are imported where a table is drawn: Home draws none
    import pandas as pd

#: Seconds between two redraws of the progress bar (the last step is always drawn).
REDRAW_SECONDS = 0.1
_PHASES = {"count": ("Counting pre-tokens", 0.0, 0.2), "merge": ("Learning merges", 0.2, 1.0)}


def page_header(title: str, caption: str | None = None) -> None:
    """Start the page's run (``navigation.ensure_framed``, ``state.begin_page``), then its title,
    caption and flash messages."""
    navigation.ensure_framed()
    messages = state.begin_page(title)
    st.title(title)  # plain: page titles are constants written in the pages
    if caption:
        st.caption(caption)  # plain: page captions are constants written in the pages
    for kind, message in messages:
        getattr(st, kind)(message)  # flash messages are escaped where they are queued (state.flash)


def tokenizer_picker(
    label: str, choices: dict[str, TokenizerChoice], *, key: str, default: str | None = None, help: str | None = None
) -> TokenizerChoice:
    """A selectbox over ``choices`` remembering its selection by tokenizer key."""
    keys = list(choices)
    state.ensure_option(key, keys, default)
    # The label and help are the callers' text (the audit checks the callers); options are plain text.
    chosen = st.selectbox(label, keys, format_func=lambda k: choices[k].option, key=key, help=help)  # plain: callers
    return choices[chosen]


def tokenizer_multiselect(
    label: str, choices: dict[str, TokenizerChoice], *, key: str, limit: int, help: str | None = None
) -> list[str]:
    """A multiselect of tokenizer keys shown by label (keys no longer available are dropped first)."""
    if key in st.session_state:
        st.session_state[key] = [k for k in st.session_state[key] if k in choices]
    return st.multiselect(
        label,  # plain: callers
        list(choices),
        format_func=lambda k: choices[k].option,
        key=key,
        max_selections=limit,
        help=help,  # plain: callers
    )


#: Columns holding token ids: shown as plain numbers (an id is a name, 15496, not a quantity).
ID_COLUMNS = ("id", "left id", "right id", "new id")


def _whole_numbers(column: pd.Series) -> bool:
    """Whether a column holds whole numbers only (ints, or floats that are whole where not empty)."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        return False
    values = column.dropna()
    return pd.api.types.is_integer_dtype(column) or bool(((values % 1) == 0).all())


def number_formats(frame: pd.DataFrame, *, ids: Sequence[str] = ID_COLUMNS) -> dict:
    """``column_config`` for the app's one number convention in tables: counts and ranks with thousands
    separators (as the text writes them, 12,345), token ids plain (15496)."""
    config = {}
    for column in frame.columns:
        if column in ids:
            # "%d", not "plain": Streamlit's "plain" prints some ids with float noise (491 as 490.99999999999994).
            config[column] = st.column_config.NumberColumn(format="%d")
        elif _whole_numbers(frame[column]):
            config[column] = st.column_config.NumberColumn(format="localized")
    return config


def show_table(
    frame: pd.DataFrame, *, ids: Sequence[str] = ID_COLUMNS, column_config: dict | None = None, **options
) -> None:
    """``st.dataframe`` (index hidden) with ``number_formats``; ``column_config`` adds to or overrides
    them; ``options`` go to ``st.dataframe`` (height, key, ...)."""
    from . import tables

    frame, written = tables.without_missing(frame, ids)  # "—" where a cell is empty, never "None"
    frame = tables.left_to_right(frame)  # Arabic and Hebrew cells laid out as the others
    config = number_formats(frame, ids=ids) | (column_config or {})
    for column in written:  # numbers written as text there: right-aligned, the caller's label kept
        label = (config.get(column) or {}).get("label")
        config[column] = st.column_config.TextColumn(label, alignment="right")
    st.dataframe(frame, hide_index=True, column_config=config, **options)


def show_sentences(lines: Sequence[str]) -> None:
    """Plain sentences under a chart, escaped (they may quote file names); nothing when there are none."""
    if lines:
        st.html(sentences_html(lines))


# ------------------------------------------------------------------------------------------------
# training progress


def format_seconds(seconds: float | None) -> str:
    """``…`` when unknown, milliseconds below a second, seconds below a minute, else minutes and seconds."""
    if seconds is None:
        return "…"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def progress_text(phase: str, done: int, total: int, elapsed: float) -> tuple[float, str]:
    """The bar's fill (0 to 1, counting takes the first fifth) and its text, with elapsed time and ETA
    (the phase's elapsed time scaled to the steps left)."""
    label, low, high = _PHASES.get(phase, (phase, 0.0, 1.0))
    fraction = done / total if total else 0.0
    eta = eta_seconds(done, total, elapsed)
    unit = "merges" if phase == "merge" else ("documents" if phase == "count" and total < 10**6 else "")
    amount = f"{done:,}/{total:,} {unit}".strip() if total else f"{done:,}"
    text = f"{label}: {amount} · {format_seconds(elapsed)} elapsed · ETA {format_seconds(eta)}"
    return min(1.0, low + (high - low) * fraction), text


class TrainingProgress:
    """A ``progress(phase, done, total)`` callback for ``bpe_core.train`` drawing on an ``st.progress``
    bar; time is counted from the start of each phase, redraws at most every REDRAW_SECONDS."""

    def __init__(self, bar, clock: Callable[[], float] = time.perf_counter) -> None:
        self.bar = bar
        self.phases = PhaseClock(now=clock)
        self.last = float("-inf")

    def __call__(self, phase: str, done: int, total: int) -> None:
        progress = self.phases(phase, done, total)
        if progress.at - self.last < REDRAW_SECONDS and done < total:
            return
        self.last = progress.at
        fraction, text = self.describe(phase, done, total, progress)
        self.bar.progress(fraction, text=text)  # plain: progress_text writes numbers and phase names

    def describe(self, phase: str, done: int, total: int, progress) -> tuple[float, str]:
        """The bar's fill and text for one report (``progress``: the phase clock's reading)."""
        return progress_text(phase, done, total, progress.elapsed)


class ByteProgress(TrainingProgress):
    """``TrainingProgress`` with counting shown in bytes read (``train_files`` reports bytes)."""

    def describe(self, phase: str, done: int, total: int, progress) -> tuple[float, str]:
        fraction, text = progress_text(phase, done, total, progress.elapsed)
        if phase == "count":
            text = (
                f"Counting pre-tokens: {byte_size(done)} of {byte_size(total)} read · "
                f"{format_seconds(progress.elapsed)} elapsed · ETA {format_seconds(progress.eta)}"
            )
        return fraction, text
