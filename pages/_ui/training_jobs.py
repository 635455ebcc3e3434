"""Training outside the server's Python process: a ``TrainingJob`` writes the documents to files
(``corpus_files.write_documents``), starts ``training_worker`` in a process of its own (at a lower
priority), reads its progress as it comes, and gives the tokenizer when it is done; ``cancel`` stops
it. While one session trains, the server's other sessions keep the CPU time and the interpreter
lock they need: a page stays quick for everyone.

``follow`` draws a running job on a page (its progress bar and a Cancel button) until it ends. A job
lives in the session's state, so leaving the page and coming back finds it still running. This
module knows nothing of the pages that start jobs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from bpe_core import Tokenizer

from . import training_worker
from .corpus_files import ByteProgress, write_documents
from .render import markdown_text as md

ROOT = Path(__file__).resolve().parents[2]
#: Seconds between two looks at a running job (the bar redraws at most every widgets.REDRAW_SECONDS).
POLL_SECONDS = 0.1


@dataclass(frozen=True)
class JobState:
    """What a job has said so far: its latest progress (phase, done, total), and once it ended, whether
    it succeeded, or why not (``error``)."""

    latest: tuple[str, int, int] | None
    ended: bool
    error: str | None


def _stop(process: subprocess.Popen, folder: str) -> None:
    """End the worker and its own workers (its process group), and remove its files."""
    if process.poll() is None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.terminate()
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
    shutil.rmtree(folder, ignore_errors=True)


class TrainingJob:
    """``bpe_core.train_files`` on ``documents`` (as ``bpe_core.train(documents, vocab_size, **options)``
    trains them: the same tokenizer, statistics included) in a worker process. ``ValueError`` at once
    for an empty corpus."""

    def __init__(self, documents: Sequence[str], vocab_size: int, **options: object) -> None:
        self.folder = tempfile.mkdtemp(prefix="bpe-train-")
        try:
            paths = write_documents(self.folder, list(documents))
            if not paths:
                raise ValueError("the corpus is empty: add files, samples or text")
            self.out = os.path.join(self.folder, "tokenizer.json")
            spec = os.path.join(self.folder, "job.json")
            with open(spec, "w", encoding="utf-8") as handle:
                json.dump({"paths": paths, "vocab_size": int(vocab_size), "options": options, "out": self.out}, handle)
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen(
            [sys.executable, "-m", training_worker.__name__, spec], cwd=ROOT, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        self.started = time.monotonic()
        self._latest: tuple[str, int, int] | None = None
        self._outcome: dict | None = None
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="bpe-training-reader", daemon=True)
        self._reader.start()
        # A job whose session is gone (its state dropped) stops, and its files go.
        self._finalizer = weakref.finalize(self, _stop, self.process, self.folder)

    def _read(self) -> None:
        for line in self.process.stdout or ():
            try:
                message = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                if "phase" in message:
                    self._latest = (message["phase"], int(message["done"]), int(message["total"]))
                else:
                    self._outcome = message
        self.process.wait()
        with self._lock:
            if self._outcome is None:  # died without a word: killed, out of memory...
                detail = (self.process.stderr.read() if self.process.stderr else "").strip().splitlines()
                reason = detail[-1] if detail else f"the training process ended with code {self.process.returncode}"
                self._outcome = {"error": reason}

    def state(self) -> JobState:
        with self._lock:
            outcome = self._outcome
            return JobState(self._latest, outcome is not None, outcome.get("error") if outcome else None)

    def wait(self, timeout: float | None = None) -> JobState:
        """The state once the job ended (or after ``timeout`` seconds)."""
        self._reader.join(timeout)
        return self.state()

    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer (once the job ended without an error); its files are removed after."""
        try:
            return Tokenizer.from_json(Path(self.out).read_text(encoding="utf-8"), source="the trained tokenizer")
        finally:
            self._finalizer()

    def cancel(self) -> None:
        """Stop the training now (and its counting workers); nothing is kept."""
        self._finalizer()


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
