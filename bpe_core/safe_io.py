"""Reading and writing files safely when users, threads and processes share them.

* ``json_value``: JSON from users, where every failure is a ``ValueError`` saying what is wrong,
  nesting a thousand levels deep included (Python's parser recurses).
* ``write_temporary`` + ``publish`` (together ``write_atomic``): a uniquely named temporary file
  (``.bpe_core-<random>.tmp``, created with ``O_EXCL``) moved into place in one step, replacing the
  target or, with ``overwrite=False``, never replacing it (a hard link, which fails if the name exists).
  Readers see the old file or the whole new one; writers never share a temporary file.
* ``folder_lock``: one folder's lock across threads and processes: a thread lock within the process,
  then an OS lock on a lock file (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows), which the
  OS releases when its holder dies, so a crash never leaves a stale lock. Waiting is bounded: a
  ``ValueError`` (busy) instead of a hang.
* ``remove_stale_temporaries``: temporary files a crashed writer left behind.

Works on Linux, macOS and Windows. It knows nothing of tokenizers (imports nothing from bpe_core).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bpe_core.errors import BpeError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:  # Windows
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]

#: Temporary files are ``.bpe_core-<random>.tmp`` next to their target: hidden, never ``*.json``.
TEMPORARY_PREFIX = ".bpe_core-"
TEMPORARY_SUFFIX = ".tmp"
#: Temporary files older than this (seconds) are left over from a crash: a write takes far less.
STALE_SECONDS = 600.0
_LEGACY_TEMPORARY = re.compile(r".+\.json\.tmp-\d+\Z")  # bpe_core's temporary names before they were unique
# flock errors meaning "this file system has no locks" (then only the thread lock is held).
_NO_LOCKING = {getattr(errno, n) for n in ("ENOLCK", "EOPNOTSUPP", "ENOTSUP", "ENOSYS", "EINVAL") if hasattr(errno, n)}


def json_value(text: str | bytes) -> Any:
    """``json.loads`` for JSON from users: every failure is a ``ValueError`` that says what is wrong.
    Deep nesting would be a ``RecursionError``; catching it costs nothing, unlike scanning first.

    >>> json_value('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> json_value("[" * 100_000)
    Traceback (most recent call last):
    bpe_core.errors.BpeError: nested too deeply: arrays or objects hundreds of levels deep ...
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BpeError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise BpeError(
            "nested too deeply: arrays or objects hundreds of levels deep (a real file nests a few levels)"
        ) from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise BpeError(f"not valid JSON ({exc})") from None


# -------------------------------------------------------------------------------------------------
# atomic writing


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically. With ``overwrite=False`` an existing
    ``path`` is left alone and ``FileExistsError`` raised. OSError when it cannot write; no temporary
    file stays behind either way."""
    path = os.fspath(path)
    temporary = write_temporary(os.path.dirname(path) or ".", data)
    try:
        publish(temporary, path, overwrite=overwrite)
    finally:
        remove_quietly(temporary)  # gone after success; after a failure it must not stay behind


def write_temporary(folder: str | os.PathLike[str], data: str | bytes) -> str:
    """Write ``data`` to a new, uniquely named temporary file in ``folder``, flushed to disk, and
    return its path; the caller moves it with ``publish`` and removes it on failure."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            surrogate = exc.object[exc.start]
            raise BpeError(f"cannot write text holding a lone surrogate ({surrogate!r}) as UTF-8") from None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temporary = os.path.join(os.fspath(folder), f"{TEMPORARY_PREFIX}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}")
        try:
            descriptor = os.open(temporary, flags, 0o666)  # 0o666: the umask decides, as for open()
            break
        except FileExistsError:  # 64 random bits already taken: draw again
            continue
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # the data is on disk before a name points to it
    except BaseException:
        remove_quietly(temporary)
        raise
    return temporary


def publish(temporary: str, path: str | os.PathLike[str], *, overwrite: bool) -> None:
    """Move the finished ``temporary`` file to ``path`` in one step. ``overwrite=False`` never replaces
    an existing file, even one another writer created a moment ago: ``FileExistsError``.

    No-overwrite is a hard link (atomic and exclusive on POSIX and NTFS). Where the file system has no
    hard links (FAT, some network mounts) it is Windows' rename (which never replaces) or, on POSIX, a
    check before ``os.replace``, exclusive only among holders of a ``folder_lock``."""
    path = os.fspath(path)
    if overwrite:
        patiently(os.replace, temporary, path)
        return
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except (OSError, NotImplementedError, AttributeError):  # no hard links on this file system
        if os.name == "nt":
            os.rename(temporary, path)
        elif os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "File exists", path) from None
        else:
            os.replace(temporary, path)
        return
    remove_quietly(temporary)


def patiently(operation: Callable[..., Any], *args: Any) -> Any:
    """``operation(*args)``; on Windows retried for up to 2 s while a ``PermissionError`` says another
    program (a reader, a virus scanner) has the file open, which blocks replacing or deleting it there."""
    if os.name != "nt":
        return operation(*args)
    deadline = time.monotonic() + 2.0
    while True:
        try:
            return operation(*args)
        except PermissionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def remove_quietly(path: str | os.PathLike[str]) -> None:
    """Remove ``path`` if it is there; never raises (cleaning up must not hide the real failure)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def is_temporary(name: str) -> bool:
    """Whether a file name is one of bpe_core's temporary files (current or older naming).

    >>> is_temporary(".bpe_core-0123456789abcdef.tmp"), is_temporary("my.json.tmp-4242"), is_temporary("my.json")
    (True, True, False)
    """
    ours = name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)
    return ours or bool(_LEGACY_TEMPORARY.match(name))


def remove_stale_temporaries(folder: str | os.PathLike[str], *, older_than: float = STALE_SECONDS) -> list[str]:
    """Remove bpe_core's temporary files in ``folder`` older than ``older_than`` seconds (younger
    ones may belong to a write in progress); returns the names removed."""
    cutoff = time.time() - older_than
    removed: list[str] = []
    try:
        with os.scandir(folder) as listing:
            candidates = [item for item in listing if is_temporary(item.name)]
    except OSError:
        return removed
    for item in candidates:
        try:
            if item.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(item.path)
                removed.append(item.name)
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


# -------------------------------------------------------------------------------------------------
# the folder lock

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
    delay = 0.001
    while True:
        try:
            if fcntl is not None:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            elif msvcrt is not None:
                os.lseek(descriptor, 0, os.SEEK_SET)
                msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
            return True
        except OSError as exc:
            if fcntl is not None and exc.errno in _NO_LOCKING:
                return True  # no file locks here: the thread lock is all there is
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


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
