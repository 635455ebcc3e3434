"""A training job drawn on a page: ``follow`` shows a running ``bpe_core.workspace.jobs`` job (its progress
bar and a Cancel button) until it ends. A job lives in the session's state, so leaving the page and
coming back finds it still running. This module knows nothing of the pages that start jobs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.workspace.jobs import POLL_SECONDS, TrainingJob

from .render import markdown_text as md
from .widgets import ByteProgress


def follow(job: TrainingJob, *, key: str, on_cancel: Callable[[], None]) -> Tokenizer | None:
    """Draw ``job`` until it ends: a progress bar in bytes read then merges learned, and a Cancel button
    (``key``). The trained tokenizer when it succeeded; None when it failed (said on the page) or was
    cancelled (``on_cancel`` is called; the caller forgets the job)."""
    if st.button("Cancel training", key=key, icon=":material/stop_circle:"):
        job.cancel()
        on_cancel()
        st.info("Training cancelled: nothing was kept.")
        return None
    bar = st.progress(0.0, text="Starting the training process…")
    progress = ByteProgress(bar)
    while True:
        state = job.state()
        # Drawn again on every look (at most every REDRAW_SECONDS), so the elapsed time moves between
        # reports, and each redraw is where Streamlit can stop this run: a click on Cancel, or anywhere
        # on the page (the job goes on, and the next run follows it again).
        if state.latest is not None:
            progress(*state.latest)
        else:
            bar.progress(0.0, text=f"Starting the training process… {time.monotonic() - job.started:.1f} s")
        if state.ended:
            break
        time.sleep(POLL_SECONDS)
    if state.error:
        bar.empty()
        st.error(f"Training failed: {md(state.error)}")
        job.cancel()
        return None
    try:
        return job.tokenizer()
    except ValueError as exc:
        bar.empty()
        st.error(f"Training failed: {md(exc)}")
        return None
