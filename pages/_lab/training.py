"""Training the Lab page's variants in one go, under one progress view: a status box holding one bar
for the whole run and one line per variant (waiting, its phase and progress, or done with its merges
and time). The training is ``bpe_core.analysis.variants.train_variants``; the run is kept in
``st.session_state[state.LAB_RUN]`` (a ``LabRun``) until the next one. Nothing here measures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.variants import VariantSpec, train_variants
from bpe_core.errors import BpeError
from bpe_core.progress import PhaseClock
from pages._ui import state
from pages._ui.render import markdown_text as md
from pages._ui.widgets import REDRAW_SECONDS, format_seconds, progress_text

from .choices import LabCorpus


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
    return (f"✓ **{md(label)}**: {tokenizer.vocab_size:,} tokens, {merges:,} merges in {format_seconds(seconds)} · "
            f"stopped: {md(training.get('stop_reason', 'done'))}")  # fmt: skip


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


def train_run(corpus: LabCorpus, vocab_size: int, variants: Sequence[VariantSpec]) -> LabRun | None:
    """Train every variant, one after the other, under one status box; the run, or None after showing
    why training failed (every earlier run left as it was)."""
    labels = [variant.label for variant in variants]
    with st.status(f"Training {len(labels)} variants at vocabulary size {vocab_size:,}…", expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")
        lines = {label: st.empty() for label in labels}
        for label in labels:
            lines[label].markdown(f"○ **{md(label)}**: waiting")
        report = LabProgress(labels, bar, lines)
        trained: dict[str, Tokenizer] = {}
        seconds: dict[str, float] = {}
        started = time.perf_counter()
        failure = None
        try:
            for variant in variants:  # one at a time, so each line says when its variant is done
                begun = time.perf_counter()
                one = train_variants(corpus.texts, vocab_size, [variant], progress=report)
                trained.update(one)
                seconds[variant.label] = time.perf_counter() - begun
                report.finished(variant.label, one[variant.label], seconds[variant.label])
        except (BpeError, ValueError, TypeError) as exc:
            failure = str(exc)
            box.update(label="Training failed", state="error", expanded=False)
        else:
            took = format_seconds(time.perf_counter() - started)
            bar.progress(1.0, text=f"Done in {took}.")  # plain: a duration
            box.update(label=f"Trained {len(labels)} variants in {took}", state="complete",  # plain: a duration
                       expanded=False)  # fmt: skip
    if failure is not None:
        st.error(f"Training failed: {md(failure)}")
        return None
    return LabRun(trained, corpus, vocab_size, seconds)


def current_run() -> LabRun | None:
    """The Lab page's last run in this session, if any."""
    run = st.session_state.get(state.LAB_RUN)
    return run if isinstance(run, LabRun) else None


def keep_run(run: LabRun) -> None:
    st.session_state[state.LAB_RUN] = run
