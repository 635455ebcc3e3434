"""Training outside the caller's Python process: a ``WorkerJob`` of some kind writes what it needs
to a folder of its own, starts ``worker`` in a process of its own (at a lower priority),
reads its lines (progress, notes, then the outcome) as they come, and lets its caller read the files
the worker wrote; ``cancel`` stops it. A ``TrainingJob`` (kind ``train``) writes the documents to
files (``documents.write_documents``) and gives the tokenizer when it is done; other kinds are
built by their callers (the Lab's variants). While one app session trains, the server's other
sessions keep the CPU time and the interpreter lock they need: a page stays quick for everyone.

This module starts, reads and stops jobs; it draws nothing (the workbench's ``pages/_ui/training_jobs``
draws a running job) and knows nothing of who starts them.
"""

from __future__ import annotations

import collections
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

from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace import worker
from bpe_core.workspace.documents import write_documents

#: The folder holding the ``bpe_core`` package the worker must import (this one, wherever it is installed).
PACKAGE_PARENT = Path(__file__).resolve().parents[2]
#: Seconds between two looks at a running job (the bar redraws at most every widgets.REDRAW_SECONDS).
POLL_SECONDS = 0.1


@dataclass(frozen=True)
class JobState:
    """What a job has said so far: its latest progress (phase, done, total) and that line as sent
    (``progress``: a job of several parts says which part), the other lines it wrote (``notes``, in
    order: a part done...), and once it ended, whether it succeeded, or why not (``error``)."""

    latest: tuple[str, int, int] | None
    ended: bool
    error: str | None
    progress: dict | None = None
    notes: tuple[dict, ...] = ()


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


def _died(code: int | None, stderr: str) -> str:
    """Why a worker ended without saying so: the last line it wrote on stderr, else how it ended."""
    detail = stderr.strip().splitlines()
    if detail:
        return detail[-1]
    if code is not None and code < 0:
        return f"the training process was stopped (signal {-code}) before it finished"
    return f"the training process ended with code {code} before it finished"


class WorkerJob:
    """A job of ``kind`` run by ``worker`` in a process of its own: ``prepare(folder)`` writes
    what the job needs into its own temporary folder and gives the rest of the job's description (a
    JSON object; ``kind`` is added). The worker's lines are read as they come (``state``); its files are
    read with ``read`` and removed by ``close`` (or ``cancel``, which also stops it)."""

    def __init__(self, kind: str, prepare: Callable[[str], dict[str, object]]) -> None:
        self.folder = tempfile.mkdtemp(prefix="bpe-train-")
        try:
            spec = os.path.join(self.folder, "job.json")
            description = {**prepare(self.folder), "kind": kind}
            with open(spec, "w", encoding="utf-8") as handle:
                json.dump(description, handle)
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE_PARENT), os.environ.get("PYTHONPATH", "")])}
        # stderr goes to a file, read once the worker ends: a pipe nobody reads while it runs would
        # stop a worker that writes more than the pipe holds (64 KB), and the job would never end
        self._stderr = os.path.join(self.folder, "stderr.txt")
        with open(self._stderr, "w", encoding="utf-8") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "-m", worker.__name__, spec],
                cwd=PACKAGE_PARENT,
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=True,
            )
        self.started = time.monotonic()
        self._progress: dict | None = None
        self._notes: list[dict] = []
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
            if not isinstance(message, dict):
                continue
            with self._lock:
                if "phase" in message:
                    self._progress = message
                elif "ok" in message or "error" in message:
                    self._outcome = message
                else:
                    self._notes.append(message)
        self.process.wait()
        with self._lock:
            if self._outcome is None:  # died without a word: killed, out of memory...
                self._outcome = {"error": _died(self.process.returncode, self._last_errors())}

    def _last_errors(self) -> str:
        """The end of what the worker wrote on stderr ("" when its folder is gone: cancelled)."""
        try:
            with open(self._stderr, encoding="utf-8", errors="replace") as errors:
                return "".join(collections.deque(errors, maxlen=20))
        except OSError:
            return ""

    def state(self) -> JobState:
        with self._lock:
            outcome, progress = self._outcome, self._progress
            latest = (str(progress["phase"]), int(progress["done"]), int(progress["total"])) if progress else None
            error = str(outcome["error"]) if outcome and "error" in outcome else None
            return JobState(latest, outcome is not None, error, progress, tuple(self._notes))

    def wait(self, timeout: float | None = None) -> JobState:
        """The state once the job ended (or after ``timeout`` seconds)."""
        self._reader.join(timeout)
        return self.state()

    def read(self, name: str) -> str:
        """The text of a file the worker wrote in the job's folder (OSError when it is not there)."""
        return Path(self.folder, os.path.basename(name)).read_text(encoding="utf-8")

    def close(self) -> None:
        """Stop the worker if it still runs, and remove the job's files (done again: nothing)."""
        self._finalizer()

    def cancel(self) -> None:
        """Stop the job now (and its counting workers); nothing is kept."""
        self._finalizer()


class TrainingJob(WorkerJob):
    """``bpe_core.train_files`` on ``documents`` (as ``bpe_core.train(documents, vocab_size, **options)``
    trains them: the same tokenizer, statistics included) in a worker process. ``ValueError`` at once
    for an empty corpus."""

    out: str  # where the worker writes the tokenizer

    def __init__(self, documents: Sequence[str], vocab_size: int, **options: object) -> None:
        def prepare(folder: str) -> dict[str, object]:
            paths = write_documents(folder, list(documents))
            if not paths:
                raise ValueError("the corpus is empty: add files, samples or text")
            self.out = os.path.join(folder, "tokenizer.json")
            return {"paths": paths, "vocab_size": int(vocab_size), "options": options, "out": self.out}

        super().__init__("train", prepare)

    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer (once the job ended without an error); its files are removed after."""
        try:
            return Tokenizer.from_json(Path(self.out).read_text(encoding="utf-8"), source="the trained tokenizer")
        finally:
            self.close()
