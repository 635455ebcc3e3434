"""Training outside the caller's Python process: a ``WorkerJob`` of some kind writes what it needs
to a folder of its own, starts ``worker`` in a process of its own (at a lower priority),
reads its lines (progress, notes, then the outcome) as they come, and lets its caller read the files
the worker wrote; ``cancel`` stops it. A ``TrainingJob`` (kind ``train``) writes the documents to
files (``documents.write_documents``) and gives the tokenizer when it is done; other kinds are
built by their callers (the Lab's variants). While one app session trains, the server's other
sessions keep the CPU time and the interpreter lock they need: a page stays quick for everyone.

A job's folder (``bpe-train-*`` in the temporary folder) lives exactly as long as its job, however the
job ends: when the worker ends (done, failed, killed), what it wrote is read into memory and the folder
removed; ``cancel``, ``close`` and the job's garbage collection remove it too; a worker whose starter
dies removes it itself (``worker``). A job given ``keep_alive`` (the app: whether the page's session is
still connected) is stopped ``ABANDONED_SECONDS`` after that says no. The folder's ``OWNER_LOCK`` is
held while its job object lives, and the worker holds ``worker.WORKER_LOCK``: ``sweep_stale_folders``
(run once a process, before its first job, and by the app when it starts) removes only the folders no
live process holds, so two servers on one machine never take each other's.

This module starts, reads and stops jobs; it draws nothing (the workbench's ``pages/_ui/training_jobs``
draws a running job) and knows nothing of who starts them.
"""

from __future__ import annotations

import collections
import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpe_core import file_lock, safe_io
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace import worker
from bpe_core.workspace.documents import write_documents

#: The folder holding the ``bpe_core`` package the worker must import (this one, wherever it is installed).
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
#: Seconds between two looks at a running job (the bar redraws at most every widgets.REDRAW_SECONDS).
POLL_SECONDS = 0.1
#: How a job's folder is named in the temporary folder: ``bpe-train-<random>``.
FOLDER_PREFIX = "bpe-train-"
#: The lock file the job's owner (the process that started it) holds in the job's folder.
OWNER_LOCK = "owner.lock"
#: Seconds a job's ``keep_alive`` may say no (a page reloaded, a session closed) before the job stops:
#: long enough for a connection that drops for a moment to come back.
ABANDONED_SECONDS = 3.0
#: A job folder younger than this is never swept (its owner may be taking its lock this moment); one
#: without lock files (an older bpe_core's) only once untouched for ``UNLOCKED_STALE_SECONDS``.
FRESH_SECONDS = 60.0
UNLOCKED_STALE_SECONDS = 86_400.0
#: The most bytes of one file a job's worker writes that are kept once it ends (a tokenizer file's limit).
OUTPUT_LIMIT = safe_io.TOKENIZER_FILE_LIMIT


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


class _JobFolder:
    """A job's folder and its owner's lock on it; ``remove`` (once, from any thread) takes both away."""

    def __init__(self) -> None:
        self.path = tempfile.mkdtemp(prefix=FOLDER_PREFIX)
        self._lock = file_lock.try_hold(os.path.join(self.path, OWNER_LOCK))
        self._guard = threading.Lock()
        self._removed = False

    def remove(self) -> None:
        with self._guard:
            if self._removed:
                return
            self._removed = True
        if os.name == "nt" and self._lock is not None:  # Windows deletes no file held open
            file_lock.release(self._lock)
        shutil.rmtree(self.path, ignore_errors=True)  # held meanwhile: no sweep takes it half-removed
        if os.name != "nt" and self._lock is not None:
            file_lock.release(self._lock)


def _stop(process: subprocess.Popen, folder: _JobFolder) -> None:
    """End the worker and its own workers (its process group), and remove its folder."""
    if process.poll() is None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.terminate()
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
    folder.remove()


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
    JSON object; ``kind`` is added). The worker's lines are read as they come (``state``); the files it
    writes are read with ``read`` (from memory once it ended: its folder is gone then). ``cancel`` stops
    it; ``keep_alive`` (called from a thread of this module) saying no for ``ABANDONED_SECONDS`` stops
    it too, as abandoned."""

    def __init__(
        self, kind: str, prepare: Callable[[str], dict[str, object]], *, keep_alive: Callable[[], bool] | None = None
    ) -> None:
        sweep_once()
        self._folder = _JobFolder()
        self.folder = self._folder.path
        try:
            description = {**prepare(self.folder), "kind": kind}
            spec = os.path.join(self.folder, "job.json")
            with safe_io.create_new(spec) as handle:
                handle.write(json.dumps(description).encode("utf-8"))
            self._inputs = set(os.listdir(self.folder))  # what the worker did not write
        except BaseException:
            self._folder.remove()
            raise
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")])}
        # stderr goes to a file, read once the worker ends: a pipe nobody reads while it runs would
        # stop a worker that writes more than the pipe holds (64 KB), and the job would never end
        self._stderr = os.path.join(self.folder, "stderr.txt")
        with safe_io.create_new(self._stderr) as errors:
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
        self._outputs: dict[str, bytes | str] | None = None  # what the worker wrote (or why not), once it ended
        self._stopped_because: str | None = None
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="bpe-training-reader", daemon=True)
        self._reader.start()
        # A job whose session is gone (its state dropped) stops, and its files go.
        self._finalizer = weakref.finalize(self, _stop, self.process, self._folder)
        if keep_alive is not None:
            _watch(self, keep_alive)

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
        outputs, errors = self._take_outputs(), self._last_errors()
        with self._lock:
            self._outputs = outputs
            if self._stopped_because is not None:
                self._outcome = {"error": self._stopped_because}
            elif self._outcome is None:  # died without a word: killed, out of memory...
                self._outcome = {"error": _died(self.process.returncode, errors)}
        self._folder.remove()  # the job ended, however: its folder goes now

    def _take_outputs(self) -> dict[str, bytes | str]:
        """The files the worker wrote in the job's folder (its own, never a temporary or lock file): their
        bytes, or why they cannot be read (a file over ``OUTPUT_LIMIT``)."""
        taken: dict[str, bytes | str] = {}
        skipped = {*self._inputs, "stderr.txt", OWNER_LOCK, worker.WORKER_LOCK}
        try:
            with os.scandir(self.folder) as listing:
                found = [
                    entry for entry in listing if entry.name not in skipped and not safe_io.is_temporary(entry.name)
                ]
        except OSError:  # removed already: cancelled
            return taken
        for entry in found:
            try:
                if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                    taken[entry.name] = safe_io.read_limited(entry.path, limit=OUTPUT_LIMIT, what="a trained file")
            except ValueError as exc:  # too big
                taken[entry.name] = str(exc)
            except OSError:
                continue  # removed meanwhile: a reader is told it is not there
        return taken

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

    @property
    def ended(self) -> bool:
        """Whether the job ended (``state().ended``, without the rest of the state)."""
        with self._lock:
            return self._outcome is not None

    def wait(self, timeout: float | None = None) -> JobState:
        """The state once the job ended (or after ``timeout`` seconds)."""
        self._reader.join(timeout)
        return self.state()

    def read(self, name: str) -> str:
        """The text of a file the worker wrote in the job's folder (OSError when it is not there)."""
        name = os.path.basename(name)
        for attempt in range(2):
            with self._lock:
                outputs = self._outputs
            if outputs is not None:
                if name not in outputs:
                    raise FileNotFoundError(errno.ENOENT, "the training process wrote no such file", name)
                data = outputs[name]
                if isinstance(data, str):
                    raise BpeError(data)
                return data.decode("utf-8")
            try:
                with open(os.path.join(self.folder, name), encoding="utf-8") as handle:
                    return handle.read()
            except OSError:
                if attempt:
                    raise
                self._reader.join(timeout=30)  # the job is ending: its files are being taken in
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Stop the worker if it still runs, and remove the job's files (done again: nothing)."""
        self._finalizer()

    def cancel(self) -> None:
        """Stop the job now (and its counting workers); nothing is kept."""
        self._finalizer()

    def abandon(self, reason: str = "the page that started it was closed") -> None:
        """Stop the job because nobody follows it any more; its outcome says ``reason``."""
        with self._lock:
            if self._outcome is None:
                self._stopped_because = f"stopped: {reason}"
        self._finalizer()


# -------------------------------------------------------------------------------------------------
# jobs nobody follows: the watchdog, and folders of jobs whose processes are gone

_watch_guard = threading.Lock()
_watched: dict[int, tuple[weakref.ref[WorkerJob], Callable[[], bool], list[float | None]]] = {}
_watchdog: threading.Thread | None = None


def _watch(job: WorkerJob, keep_alive: Callable[[], bool]) -> None:
    global _watchdog
    with _watch_guard:
        _watched[id(job)] = (weakref.ref(job), keep_alive, [None])
        if _watchdog is None:
            _watchdog = threading.Thread(target=_look_after_jobs, name="bpe-training-watchdog", daemon=True)
            _watchdog.start()


def _look_after_jobs() -> None:
    """Every ``POLL_SECONDS`` * 5, ask each watched job's ``keep_alive``; abandon a job it said no to for
    ``ABANDONED_SECONDS``. Ends when no job is watched (started again by the next)."""
    global _watchdog
    try:
        while _look_once():
            pass
    except BaseException:
        with _watch_guard:
            _watchdog = None
        raise


def _look_once() -> bool:
    """One look at every watched job, after a pause; False (the watchdog done) when none is left."""
    global _watchdog
    time.sleep(POLL_SECONDS * 5)
    with _watch_guard:
        if not _watched:
            _watchdog = None
            return False
        watched = list(_watched.items())
    for key, (reference, keep_alive, since) in watched:
        job = reference()
        if job is None or job.ended:
            with _watch_guard:
                _watched.pop(key, None)
            continue
        try:
            alive = bool(keep_alive())
        except Exception:  # a question that cannot be answered never stops a job
            alive = True
        now = time.monotonic()
        since[0] = None if alive else (since[0] or now)
        if since[0] is not None and now - since[0] >= ABANDONED_SECONDS:
            job.abandon()
            with _watch_guard:
                _watched.pop(key, None)
    return True


_swept = threading.Event()


def sweep_once() -> None:
    """``sweep_stale_folders``, the first time a process calls it (a server when it starts, before its
    first job); then nothing."""
    if not _swept.is_set():
        _swept.set()
        sweep_stale_folders()


def sweep_stale_folders(folder: str | None = None) -> list[str]:
    """Remove the job folders (``bpe-train-*``) in ``folder`` (default: the temporary folder) that no
    live process holds: neither the owner's ``OWNER_LOCK`` nor the worker's lock is held (a server or
    worker killed with ``kill -9``, a power cut). Only this user's real folders, never through a link,
    none younger than ``FRESH_SECONDS``; a folder without lock files (an older bpe_core's) once untouched
    for ``UNLOCKED_STALE_SECONDS``. Returns the names removed."""
    base = folder if folder is not None else tempfile.gettempdir()
    removed: list[str] = []
    try:
        with os.scandir(base) as listing:
            candidates = [entry for entry in listing if entry.name.startswith(FOLDER_PREFIX)]
    except OSError:
        return removed
    for entry in candidates:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        ours = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
        if stat.S_ISDIR(info.st_mode) and ours and _remove_if_stale(entry.path, info):
            removed.append(entry.name)
    return removed


def _remove_if_stale(path: str, info: os.stat_result) -> bool:
    age = time.time() - info.st_mtime
    if age < FRESH_SECONDS:
        return False
    locks = [os.path.join(path, name) for name in (OWNER_LOCK, worker.WORKER_LOCK)]
    if not os.path.lexists(locks[0]):
        if age < UNLOCKED_STALE_SECONDS:
            return False
        shutil.rmtree(path, ignore_errors=True)
        return True
    held: list[int] = []
    try:
        for lock in locks:
            if os.path.lexists(lock):
                descriptor = file_lock.try_hold(lock)
                if descriptor is None:  # a live process holds it
                    return False
                held.append(descriptor)
        shutil.rmtree(path, ignore_errors=True)
        return True
    finally:
        for descriptor in held:
            file_lock.release(descriptor)


class TrainingJob(WorkerJob):
    """``bpe_core.train_files`` on ``documents`` (as ``bpe_core.train(documents, vocab_size, **options)``
    trains them: the same tokenizer, statistics included) in a worker process. ``ValueError`` at once
    for an empty corpus."""

    out: str  # where the worker writes the tokenizer

    def __init__(
        self,
        documents: Sequence[str],
        vocab_size: int,
        *,
        keep_alive: Callable[[], bool] | None = None,
        **options: object,
    ) -> None:
        def prepare(folder: str) -> dict[str, object]:
            paths = write_documents(folder, list(documents))
            if not paths:
                raise ValueError("the corpus is empty: add files, samples or text")
            self.out = os.path.join(folder, "tokenizer.json")
            return {"paths": paths, "vocab_size": int(vocab_size), "options": options, "out": self.out}

        super().__init__("train", prepare, keep_alive=keep_alive)

    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer (once the job ended without an error); its files are removed after."""
        try:
            return Tokenizer.from_json(self.read(os.path.basename(self.out)), source="the trained tokenizer")
        finally:
            self.close()
