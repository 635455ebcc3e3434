"""Training the Lab page's variants in one go, under one progress view: a status box holding one bar
for the whole run and one line per variant (waiting, its phase and progress, or done with its merges
and time), and a Cancel button. The training is ``bpe_core.analysis.variants.train_variants``, run
by ``bpe_core.workspace.worker`` in a process of its own at a lower priority (a ``bpe_core.workspace.jobs.WorkerJob`` of
kind ``variants``), so the server's other sessions stay quick; the running job is kept in
``st.session_state[state.LAB_JOB]`` (a ``LabJob``), so leaving the page and coming back follows it
again. The run is kept in ``st.session_state[state.LAB_RUN]`` (a ``LabRun``) until the next one that
succeeds. Nothing here measures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.variants import VariantSpec
from bpe_core.progress import PhaseClock
from bpe_core.workspace.jobs import POLL_SECONDS, JobState, WorkerJob
from pages._ui import state, training_jobs
from pages._ui.messages import stopped_in_words
from pages._ui.render import markdown_text as md
from pages._ui.training_jobs import Ended
from pages._ui.widgets import REDRAW_SECONDS, format_seconds, progress_text

from .choices import LabCorpus
from .setup import Inputs


@dataclass
class LabRun:
    """One training of the Lab page: the tokenizers by variant label, the corpus they saw, the vocabulary
    size, each variant's training seconds; ``uid`` keys the caches of what is measured on it."""

    tokenizers: dict[str, Tokenizer]
    corpus: LabCorpus
    vocab_size: int
    seconds: dict[str, float]
    uid: str = field(default_factory=lambda: f"{time.time_ns():x}")


def overall_fraction(index: int, count: int, fraction: float) -> float:
    """The whole run's share done when variant ``index`` (from 0) of ``count`` is ``fraction`` done.

    >>> overall_fraction(0, 4, 0.0), overall_fraction(1, 4, 0.5), overall_fraction(3, 4, 1.0)
    (0.0, 0.375, 1.0)
    """
    return min(1.0, max(0.0, (index + min(max(fraction, 0.0), 1.0)) / count)) if count else 1.0


def done_line(label: str, tokenizer: Tokenizer, seconds: float) -> str:
    """A finished variant's line (Markdown, the label escaped): its size, its merges and its time."""
    training = tokenizer.training or {}
    merges = training.get("merges_learned", len(tokenizer.merges))
    return (
        f"✓ **{md(label)}**: {tokenizer.vocab_size:,} tokens, {merges:,} merges in {format_seconds(seconds)} · "
        f"ended: {md(stopped_in_words(training.get('stop_reason', 'done')))}"
    )


class LabProgress:
    """``train_variants``' ``progress(label, phase, done, total)``: the bar's fill and text for the whole
    run, and each variant's line (redrawn at most every REDRAW_SECONDS, its last step always)."""

    def __init__(self, labels: Sequence[str], bar, lines: dict, clock: Callable[[], float] = time.perf_counter):
        self.labels, self.bar, self.lines, self.clock = list(labels), bar, lines, clock
        self.current: str | None = None
        self.phases = PhaseClock(now=clock)
        self.last = float("-inf")

    def __call__(self, label: str, phase: str, done: int, total: int) -> None:
        if label != self.current:
            self.current, self.phases, self.last = label, PhaseClock(now=self.clock), float("-inf")
        progress = self.phases(phase, done, total)
        if progress.at - self.last < REDRAW_SECONDS and done < total:
            return
        self.last = progress.at
        index = self.labels.index(label)
        fraction, text = progress_text(phase, done, total, progress.elapsed)
        whole = overall_fraction(index, len(self.labels), fraction)
        where = f"Variant {index + 1} of {len(self.labels)} · {md(label)}"
        self.bar.progress(whole, text=f"{where} · {text}")  # plain: where escapes, progress_text writes numbers
        self.lines[label].markdown(f"▶ **{md(label)}**: {text}")  # plain: progress_text writes numbers

    def finished(self, label: str, tokenizer: Tokenizer, seconds: float) -> None:
        self.lines[label].markdown(done_line(label, tokenizer, seconds))  # plain: done_line escapes


CANCEL = "lab.cancel"


@dataclass
class LabJob:
    """A Lab training running in a process of its own (a ``WorkerJob`` of kind ``variants``), with
    what it was asked and the variants read back so far (by label) with their training seconds."""

    job: WorkerJob
    corpus: LabCorpus
    vocab_size: int
    labels: list[str]
    trained: dict[str, Tokenizer] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def start_job(
    corpus: LabCorpus, vocab_size: int, variants: Sequence[VariantSpec], *, keep_alive: Callable[[], bool] | None = None
) -> LabJob:
    """Start training ``variants`` on ``corpus`` in a worker process (``bpe_core.workspace.worker``'s variants
    kind); it stops when ``keep_alive`` says no for a few seconds (the page's session is gone)."""
    asked = [[variant.kind, variant.value] for variant in variants]
    job = WorkerJob(
        "variants",
        lambda folder: {"texts": corpus.texts, "vocab_size": int(vocab_size), "variants": asked, "out": folder},
        keep_alive=keep_alive,
    )
    return LabJob(job, corpus, vocab_size, [variant.label for variant in variants])


def _read_done(running: LabJob, notes: Sequence[dict], report: LabProgress, drawn: set[str]) -> None:
    """Read back each variant the worker says is done (once a job), and draw its line (once a view:
    ``drawn``)."""
    for note in notes:
        label = str(note.get("variant"))
        if label not in running.trained and label in running.labels:
            text = running.job.read(str(note.get("file")))
            running.trained[label] = Tokenizer.from_json(text, source=f"the trained {label}")
            running.seconds[label] = float(note.get("seconds", 0.0))
        if label in running.trained and label not in drawn:
            report.finished(label, running.trained[label], running.seconds[label])
            drawn.add(label)


def _draw_latest(running: LabJob, state: JobState, report: LabProgress, bar) -> None:
    """The latest progress on the bar and its variant's line; before the first report (the worker
    starting), or between two variants, the time so far. Drawn on every look: each redraw is where
    Streamlit can stop this run (a click on Cancel, or anywhere on the page: the job goes on)."""
    progress = state.progress or {}
    label = progress.get("variant")
    if state.latest is not None and label in running.labels and label not in running.trained:
        report(str(label), *state.latest)
        return
    waited = format_seconds(time.monotonic() - running.job.started)
    if running.trained:
        done, count = len(running.trained), len(running.labels)
        text = f"{done} of {count} variants trained · {waited}"
        bar.progress(overall_fraction(done, count, 0.0), text=text)  # plain: numbers
    else:
        bar.progress(0.0, text=f"Starting the training process… {waited}")  # plain: a duration


def follow_job(running: LabJob) -> tuple[LabRun | None, Ended]:
    """Draw ``running`` under one status box until it ends: a bar for the whole run and one line per
    variant. The run once every variant is trained, and how the job ended (the job's files removed)."""
    labels = running.labels
    with st.status(f"Training {len(labels)} variants at vocabulary size {running.vocab_size:,}…", expanded=True) as box:
        bar = st.progress(0.0, text="Starting the training process…")
        lines = {label: st.empty() for label in labels}
        for label in labels:
            lines[label].markdown(f"○ **{md(label)}**: waiting")
        report = LabProgress(labels, bar, lines)
        failure = None
        drawn: set[str] = set()
        try:
            while True:
                state = running.job.state()
                _read_done(running, state.notes, report, drawn)
                if state.ended:
                    break
                _draw_latest(running, state, report, bar)
                time.sleep(POLL_SECONDS)
            failure = state.error
            if failure is None and len(running.trained) < len(labels):
                failure = "the training process ended before every variant was trained"
        except (OSError, ValueError) as exc:  # a variant's file missing or unreadable
            failure = str(exc)
        took = format_seconds(time.monotonic() - running.job.started)
        if failure is not None:
            box.update(label="Training failed", state="error", expanded=False)
        else:
            bar.progress(1.0, text=f"Done in {took}.")  # plain: a duration
            box.update(label=f"Trained {len(labels)} variants in {took}", state="complete", expanded=False)
    running.job.close()
    if failure is not None:
        return None, Ended("failed", md(failure))
    trained = {label: running.trained[label] for label in labels}
    run = LabRun(trained, running.corpus, running.vocab_size, {label: running.seconds[label] for label in labels})
    return run, Ended("done", f"Trained {len(labels)} variants in {took}.")  # plain: a count and a duration


def training_section(inputs: Inputs) -> None:
    """The Train button; a running training (in a process of its own, kept in the session's state)
    followed with its progress and a Cancel button, also after leaving the page and coming back; how the
    last one ended. A run that succeeds replaces the last one; a failed or cancelled one leaves it as it
    was. Train, Cancel and what is shown follow the job's state (``pages/_ui/training_jobs``)."""
    kept = "the previous run below is as it was" if current_run() else "there was no previous run"
    cancelled = f"Training cancelled: nothing of it was kept, and {kept}."
    running = training_jobs.running(state.LAB_JOB, CANCEL, state.LAB_ENDED, cancelled=cancelled)
    label = f"Train {len(inputs.variants)} variants" if inputs.variants else "Train"
    clicked = st.button(
        label,  # plain: a count
        type="primary",
        disabled=not inputs.ready or running is not None,
        key="lab.go",
    )
    if running is None and clicked and inputs.corpus is not None and inputs.variants is not None:
        try:
            job = start_job(inputs.corpus, inputs.vocab_size, inputs.variants, keep_alive=training_jobs.session_alive())
        except (OSError, ValueError, TypeError) as exc:
            training_jobs.failed_to_start(state.LAB_ENDED, exc)
        else:
            training_jobs.start(state.LAB_JOB, state.LAB_ENDED, job)
    if running is None:
        ended, run = st.session_state.get(state.LAB_ENDED), current_run()
        if isinstance(ended, Ended) and ended.kind == "done" and run is not None:
            show_done(run, ended)
        else:
            training_jobs.show_ended(state.LAB_ENDED)
        return
    training_jobs.cancel_button(CANCEL)
    run, ended = follow_job(running)
    if run is not None:
        keep_run(run)
    training_jobs.finish(state.LAB_JOB, state.LAB_ENDED, ended)


def show_done(run: LabRun, ended: Ended) -> None:
    """The last run, done: its status box, closed, with a line per variant (its size, merges and time)."""
    with st.status(ended.message.rstrip("."), state="complete", expanded=False):
        for label, tokenizer in run.tokenizers.items():
            st.markdown(done_line(label, tokenizer, run.seconds[label]))  # plain: done_line escapes


def current_run() -> LabRun | None:
    """The Lab page's last run in this session, if any."""
    run = st.session_state.get(state.LAB_RUN)
    return run if isinstance(run, LabRun) else None


def keep_run(run: LabRun) -> None:
    st.session_state[state.LAB_RUN] = run
