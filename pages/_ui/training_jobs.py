"""A training job on a page: the one flow the Train page, Compare's "Train to see the difference" and
the Lab follow, so that Train, Cancel and what is shown always match the job's state.

==========  ==========================  =====================  ==================================
state       Train                       Cancel training        shown
==========  ==========================  =====================  ==================================
idle        enabled (inputs ready)      none                   nothing of a job
running     disabled                    shown                  the progress
cancelled   enabled                     none                   "Training cancelled: ..." (info)
failed      enabled                     none                   "Training failed: <why>" (error)
done        enabled                     none                   what the page shows of the result
==========  ==========================  =====================  ==================================

``running`` reads Cancel's click (kept by Streamlit from the run it was clicked in) at the top of a
run, before Train is drawn: the job is stopped, forgotten and recorded as cancelled, so Train is
enabled in that very run and a second click on Cancel finds nothing to do. A page draws Cancel only
while a job runs; when the job ends while the page follows it, ``finish`` records how it ended and
runs the page again, so nothing of the running state is left on it (and ``start`` runs it again once
the job is there, so that Train is drawn disabled from the first moment). How the last job ended
(``Ended``) is kept in the session until the next one starts. The running job lives in the session's
state, so leaving the page and coming back follows it again; a job whose session is gone (the page
reloaded or closed) stops within seconds (``session_alive``, the job's ``keep_alive``).

``follow`` draws a ``TrainingJob``'s progress bar until it ends. This module knows nothing of the
pages that start jobs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.workspace.extension_job import ExtensionJob
from bpe_core.workspace.jobs import POLL_SECONDS, TrainingJob, WorkerJob, sweep_once

from .render import markdown_text as md
from .widgets import ByteProgress

CANCELLED = "Training cancelled: nothing was kept."


@dataclass(frozen=True)
class Ended:
    """How a page's last job ended: ``kind`` and what to say (Markdown, escaped by whoever made it)."""

    kind: Literal["done", "cancelled", "failed"]
    message: str = ""


@dataclass
class Running:
    """A page's running job and what the page needs once it is done (``about``: names typed...)."""

    job: WorkerJob
    about: Any = None


@st.cache_resource(show_spinner=False)
def sweep_at_start() -> None:
    """Once a server, in the background (no page waits for it): remove the job folders that servers and
    workers killed before they could left behind (``jobs.sweep_stale_folders``: never a live one)."""
    threading.Thread(target=sweep_once, name="bpe-sweep-job-folders", daemon=True).start()


def sentences(first: str, then: str) -> str:
    """Two sentences, each ended by a stop ("" for ``then``: ``first`` alone).

    >>> sentences("vocab_size=10 is too small", "The result below is older.")
    'vocab_size=10 is too small. The result below is older.'
    """
    if not then:
        return first
    first = first.rstrip()
    return f"{first}{'' if first.endswith(('.', '!', '?')) else '.'} {then}"


def session_alive() -> Callable[[], bool] | None:
    """Whether this session is still connected, asked from any thread (a job's ``keep_alive``); None
    where there is no Streamlit server to ask (AppTest, a bare script)."""
    try:
        from streamlit import runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        context = get_script_run_ctx()
        if context is None or not runtime.exists():
            return None
        server, session = runtime.get_instance(), context.session_id
    except (ImportError, RuntimeError, AttributeError):
        return None
    if not isinstance(server, runtime.Runtime):  # AppTest's stand-in: no sessions to ask about
        return None
    return lambda: server.is_active_session(session)


def running(job_key: str, cancel_key: str, ended_key: str, *, cancelled: str = CANCELLED) -> Any:
    """The job running under ``job_key`` (what ``start`` kept: a ``Running`` or anything with a
    ``job``), or None; first, when Cancel (``cancel_key``) was clicked in the run before, the job is
    stopped and forgotten and ``cancelled`` recorded as how it ended."""
    kept = st.session_state.get(job_key)
    if kept is not None and st.session_state.get(cancel_key):
        kept.job.cancel()
        st.session_state.pop(job_key, None)
        st.session_state[ended_key] = Ended("cancelled", cancelled)
        return None
    return kept


def start(job_key: str, ended_key: str, kept: Any) -> None:
    """Keep ``kept`` (a new job) as the page's running job, forget how the one before ended, and run
    the page again: this run drew Train before the job was there, the next one draws the running state."""
    st.session_state[job_key] = kept
    st.session_state.pop(ended_key, None)
    st.rerun()


def failed_to_start(ended_key: str, error: Exception) -> None:
    """Record a job that could not even start (an empty corpus...) as failed."""
    st.session_state[ended_key] = Ended("failed", md(error))


def cancel_button(cancel_key: str) -> None:
    """Cancel, drawn while a job runs (its click is read by ``running`` in the next run)."""
    st.button("Cancel training", key=cancel_key, icon=":material/stop_circle:")


def finish(job_key: str, ended_key: str, ended: Ended) -> None:
    """The job the page followed ended: forget it, record ``ended`` and run the page again."""
    st.session_state.pop(job_key, None)
    st.session_state[ended_key] = ended
    st.rerun()


def show_ended(ended_key: str) -> Ended | None:
    """Say how the page's last job ended (done: its message, if any); that record, or None."""
    ended = st.session_state.get(ended_key)
    if not isinstance(ended, Ended):
        return None
    if ended.kind == "failed":
        st.error(f"Training failed: {ended.message}")  # plain: escaped where it was made
    elif ended.kind == "cancelled":
        st.info(ended.message)  # plain: written by the page
    elif ended.message:
        st.success(ended.message)  # plain: written by the page, names escaped
    return ended


def follow(job: WorkerJob) -> tuple[Tokenizer | None, Ended]:
    """Draw ``job`` (a ``TrainingJob``, or the Extend page's ``ExtensionJob``) until it ends: a progress bar
    in bytes read then merges learned. The tokenizer and ``Ended("done")``, or None and why it failed."""
    if not isinstance(job, (TrainingJob, ExtensionJob)):
        raise TypeError(f"follow draws a TrainingJob or an ExtensionJob, not {type(job).__name__}")
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
        job.close()
        return None, Ended("failed", md(state.error))
    try:
        return job.tokenizer(), Ended("done")
    except (ValueError, OSError) as exc:  # a tokenizer file too big to read back, or not there
        return None, Ended("failed", md(exc))
