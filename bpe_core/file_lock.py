"""One folder's lock across threads and processes, for changes of several steps (the app's library),
and a lock held for as long as its holder lives (``try_hold``: a training job's folder and its worker).

``folder_lock`` holds a thread lock within the process, then an OS lock on a lock file
(``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows), which the OS releases when its holder dies,
so a crash never leaves a stale lock. Waiting is bounded: a ``ValueError`` (busy) instead of a hang.
Writing files is ``safe_io``'s; this module only locks. It imports nothing from bpe_core but ``errors``.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bpe_core.errors import BpeError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:  # Windows
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]

# flock errors meaning "this file system has no locks" (then only the thread lock is held).
_NO_LOCKING = {getattr(errno, n) for n in ("ENOLCK", "EOPNOTSUPP", "ENOTSUP", "ENOSYS", "EINVAL") if hasattr(errno, n)}

_registry_guard = threading.Lock()
_thread_locks: dict[str, threading.Lock] = {}


def _reset_after_fork() -> None:
    """A forked child starts with no lock held (its copies of held locks would never be released)."""
    global _registry_guard, _thread_locks
    _registry_guard = threading.Lock()
    _thread_locks = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


@contextmanager
def folder_lock(folder: str | os.PathLike[str], *, name: str, timeout: float) -> Iterator[None]:
    """Hold ``folder``'s lock (the lock file ``folder/name``, created if needed and never deleted:
    deleting lock files races). ValueError if another holder keeps it longer than ``timeout`` seconds.
    Each holder opens the file itself, so ``flock`` also separates threads; the thread lock comes first
    anyway, for file systems where file locks are per process."""
    folder = Path(folder)
    deadline = time.monotonic() + timeout
    with _registry_guard:
        thread_lock = _thread_locks.setdefault(os.path.normcase(os.path.realpath(folder)), threading.Lock())
    if not thread_lock.acquire(timeout=max(timeout, 0.0)):
        raise _busy(folder, timeout)
    try:
        try:
            descriptor = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise BpeError(f"cannot open the lock file {folder / name}: {exc.strerror or exc}") from None
        try:
            if not _acquire_file_lock(descriptor, deadline):
                raise _busy(folder, timeout)
            try:
                yield
            finally:
                _release_file_lock(descriptor)
        finally:
            os.close(descriptor)
    finally:
        thread_lock.release()


def _acquire_file_lock(descriptor: int, deadline: float) -> bool:
    """Poll the OS lock until ``deadline`` (a blocking call could wait forever on a stuck holder).
    False when the deadline passed; True when held, or when the file system has no locks."""
    if fcntl is None and msvcrt is None:  # pragma: no cover - neither POSIX nor Windows
        return True
    delay = 0.001
    while True:
        try:
            _lock_now(descriptor)
            return True
        except OSError as exc:
            if fcntl is not None and exc.errno in _NO_LOCKING:
                return True  # no file locks here: the thread lock is all there is
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _lock_now(descriptor: int) -> None:
    """Take the OS lock of the open file ``descriptor`` without waiting: an ``OSError`` when another
    holder has it, when the file system has no locks, or (``ENOLCK``) when the OS has no file locks."""
    if fcntl is not None:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    elif msvcrt is not None:
        os.lseek(descriptor, 0, os.SEEK_SET)
        msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
    else:  # pragma: no cover - neither POSIX nor Windows
        raise OSError(errno.ENOLCK, "no file locks here")


def _release_file_lock(descriptor: int) -> None:
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
        elif msvcrt is not None:
            os.lseek(descriptor, 0, os.SEEK_SET)
            msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
    except OSError:
        pass  # closing the file releases it anyway


def _busy(folder: Path, timeout: float) -> ValueError:
    return BpeError(f"{folder} is busy: another change did not finish within {timeout:g} s; try again")


def try_hold(path: str | os.PathLike[str]) -> int | None:
    """Take the OS lock of the file ``path`` (created if needed, never through a link) now, without
    waiting, and keep it until ``release``: its descriptor, or None when another holder has it or the
    file system has no locks. A process's locks go when it dies: a held lock is a live holder."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None
    try:
        _lock_now(descriptor)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def release(descriptor: int) -> None:
    """Let go of a lock ``try_hold`` took (its descriptor is closed)."""
    _release_file_lock(descriptor)
    try:
        os.close(descriptor)
    except OSError:
        pass
