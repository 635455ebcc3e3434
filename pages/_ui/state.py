"""Session state: the name of every app-level key, kept widget values, flash messages, page changes.

Key convention: a widget's key is ``<page>.<widget>`` (``train.vocab_size``, ``cmp.samples``…) and is
written next to that widget on its page; every other key in ``st.session_state`` is ``wb.<name>`` and
is defined here, so the whole of the app's own state can be read in one place.

This module draws nothing and knows nothing about tokenizers beyond the names of the keys that hold
them.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

# ------------------------------------------------------------------------------------------------
# keys shared by pages

SESSION_TOKENIZERS = "wb.session_tokenizers"  # name -> tokenizers.SessionTokenizer
CORPORA = "wb.corpora"  # tokenizer key -> (label, list of texts it was trained on)
LAST_TRAINED = "wb.last_trained"  # key of the tokenizer trained last in this session
UPLOADS = "wb.uploads"  # uploader widget key -> file_id -> uploads.Upload
IMPORTED_FILES = "wb.imported_files"  # (uploader key, file_id) of tokenizer files already imported
PENDING_RANKS = "wb.pending_ranks"  # (uploader key, file_id) -> tokenizer_files.RankFile waiting for its pattern
FLASH = "wb.flash"  # (kind, message) to show after a rerun
KEPT = "wb.kept"  # widget key -> last value, so page widgets survive visits to other pages
PAGE_NOW = "wb.page_now"  # title of the page this run draws
PAGE_BEFORE = "wb.page_before"  # title of the page the previous run drew
STARTED = "wb.started"  # set on a session's first page run
FRAMED = "wb.framed"  # set by app.py's navigation, taken by the page it runs (navigation.ensure_framed)

# keys of one page each
TRAIN_RESULT = "wb.train.result"  # key of the tokenizer the Train page shows
TRAIN_JOB = "wb.train.job"  # the Train page's running training: training_jobs.Running (its name typed, corpus hint)
TRAIN_ENDED = "wb.train.ended"  # how the Train page's last training ended: training_jobs.Ended
TRAIN_IN_CORPUS = "wb.train.in_corpus"  # file_ids in the Train corpus when the page last ran
TRAIN_PREVIEW_FOR = "wb.train.preview_for"  # corpus signature the preview text was taken from
CMP_PENDING_SELECT = "wb.cmp.pending_select"  # tokenizer keys to put first in the selection next run
CMP_TRAIN_RESULT = "wb.cmp.train_result"  # key of the tokenizer trained on the Compare page last
CMP_TRAIN_JOB = "wb.cmp.train_job"  # the Compare page's running training: training_jobs.Running (its versus.Mix)
CMP_TRAIN_ENDED = "wb.cmp.train_ended"  # how that page's last training ended: training_jobs.Ended
CMP_TRAIN_INFO = "wb.cmp.train_info"  # tokenizer key -> labels of the samples it was trained on
CMP_HEAT_DEFAULT = "wb.cmp.heat_default"  # the heatmap metric the page chose (followed until the user picks one)
TOKENIZE_URL_READ = "wb.tokenize.url_read"  # set once the Tokenize page took its options from the URL
TOKENIZE_MISSING = "wb.tokenize.missing"  # tokenizer keys a shared URL named that this machine lacks
STEPS_POSITION = "wb.steps.position"  # merge shown on the Step through page
STEPS_SIGNATURE = "wb.steps.signature"  # the input that position belongs to
LAB_RUN = "wb.lab.run"  # the Lab page's last training: pages/_lab/training.LabRun (its variants, by label)
LAB_JOB = "wb.lab.job"  # the Lab page's running training: pages/_lab/training.LabJob (in a process of its own)
LAB_ENDED = "wb.lab.ended"  # how the Lab page's last training ended: training_jobs.Ended
EXTEND_JOB = "wb.extend.job"  # the Extend page's running extension: training_jobs.Running (the inputs it ran with)
EXTEND_ENDED = "wb.extend.ended"  # how the Extend page's last extension ended: training_jobs.Ended
EXTEND_RESULT = "wb.extend.result"  # the Extend page's last extension: pages/_extend/run.Extended
LAB_KEEP_FOR = "wb.lab.keep_for"  # (run uid, variant) the Lab page's keep name was last filled in for


# ------------------------------------------------------------------------------------------------
# page runs


def begin_page(title: str) -> list[tuple[str, str]]:
    """Start a page's run: kept values saved, the page change noted. Returns the flash messages
    queued for this run (and forgets them)."""
    sync_kept_state()
    st.session_state[PAGE_BEFORE] = st.session_state.get(PAGE_NOW)
    st.session_state[PAGE_NOW] = title
    return st.session_state.pop(FLASH, [])


def arrived_from_another_page() -> bool:
    """Whether this run follows a run of another page (or is the session's first), not a rerun of
    this one. Call after ``begin_page``."""
    return st.session_state.get(PAGE_BEFORE) != st.session_state.get(PAGE_NOW)


def flash(kind: str, message: str) -> None:
    """Queue ``st.<kind>(message)`` for the next run (survives ``st.rerun``)."""
    st.session_state.setdefault(FLASH, []).append((kind, message))


# ------------------------------------------------------------------------------------------------
# widget values


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()


def sync_kept_state() -> None:
    """Copy the current values of every kept widget to the shadow store.

    Runs at the start of every run (app.py and ``begin_page``): when the user leaves a page, its widget
    values are still in session state at the start of that run, and are saved before Streamlit drops them.
    """
    kept = st.session_state.setdefault(KEPT, {})
    for key in list(kept):
        if key in st.session_state:
            kept[key] = st.session_state[key]


def keep_widget_state(defaults: dict | None = None, restore_only: Sequence[str] = ()) -> None:
    """Make a page's widgets remember their values across page switches.

    Streamlit forgets the state of widgets that were not drawn in a run, so leaving a page resets
    it. Call this at the top of the page (before the widgets): missing values are restored from the
    shadow store that ``sync_kept_state`` fills. ``defaults`` also gives first-time values (create
    those widgets without ``value=``/``index=``); keys in ``restore_only`` get no default.
    """
    kept = st.session_state.setdefault(KEPT, {})
    for key in [*(defaults or {}), *restore_only]:
        if key in st.session_state:
            kept[key] = st.session_state[key]
        elif key in kept and kept[key] is not _UNSET:
            st.session_state[key] = kept[key]
        elif defaults and key in defaults:
            st.session_state[key] = defaults[key]
        kept.setdefault(key, _UNSET)


def ensure_option(key: str, options: Sequence, default=None) -> None:
    """Give a selectbox its initial value, or reset it when it is no longer among ``options``.
    Call before the widget, and create the widget without ``index``."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else (options[0] if options else None)
