"""The model cache's files on disk: the one rule for every file bpe_core reads from its caches and
writes there (the model tables of ``model_cache``, the rank structures of ``catalogue.cached_structure``).

A cache only saves time, so nothing here ever fails a load:

* **Reading** (``read_cached``) takes a file only if it is a regular file (opened without following a
  link), owned by the user running bpe_core (POSIX: a file someone else put there could say anything),
  and no bigger than the ``limit`` its format can need for the tokenizer at hand (the caller's bound).
  Anything else (a link, a folder, a FIFO, another user's file, a file too big, or content the caller
  finds damaged: ``ignore``) is left unread, with a ``BpeWarning`` naming it, and what it would have
  held is computed again.
* **Writing** (``write_cached``) goes through ``safe_io.write_atomic``: a new file moved into place,
  never through a link, the temporary files of killed writers removed first. A non-regular entry in
  the way is left as it is (the result is then simply not kept).
* **A cache that cannot be used** (its folder cannot be created, read or written: a path or name too
  long, no permission, a folder of another user, a read-only or full disk) is off for the rest of the
  process, after one ``BpeWarning`` that says why and what to do; loading goes on, only slower.

Where bpe_core's per-user folders are is one rule here too (``user_folder``: a variable of bpe_core's,
else the XDG base folder, else one under the home folder), for the caches (``catalogue.cache_folder``)
and the workbench's library (``workspace.library_folder.default_root``). Which cache folder and what
its files hold (``model_cache``) are not this module's business.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import warnings
from pathlib import Path

from bpe_core import safe_io
from bpe_core.errors import BpeError, BpeWarning

#: The folder bpe_core keeps a user's files of one kind in, under that kind's base folder.
USER_FOLDER_NAME = "bpe-workbench"

_lock = threading.Lock()
_off: dict[str, str] = {}  # folder -> why the cache is off in this process
_checked: set[str] = set()  # folders found usable in this process
_ignored: set[str] = set()  # cache files already warned about in this process


def user_folder(env_var: str, *, xdg_var: str, home_default: str) -> Path:
    """The per-user folder of one kind of bpe_core's files, by the XDG base directory rule:
    ``$env_var`` when set, else ``$xdg_var/bpe-workbench``, else ``~/<home_default>/bpe-workbench``.
    ``BpeError`` when neither variable is set and there is no home folder to expand.

    >>> folder = user_folder("UNSET_VARIABLE", xdg_var="UNSET_BASE", home_default=".cache")
    >>> folder == Path.home() / ".cache" / "bpe-workbench"
    True
    """
    configured = os.environ.get(env_var, "").strip()
    base = os.environ.get(xdg_var, "").strip()
    try:
        if configured:
            return Path(configured).expanduser()
        return (Path(base).expanduser() if base else Path.home() / home_default) / USER_FOLDER_NAME
    except RuntimeError:  # "~" with no home folder to expand
        raise BpeError(f"there is no home folder to keep bpe_core's files in: set {env_var} to a full path") from None


def read_cached(folder: Path | None, name: str, *, limit: int) -> bytes | None:
    """The bytes of the cache file ``name`` in ``folder`` under the module's reading rule; None when
    there is none, the cache is off, or the file is ignored (with a warning)."""
    if folder is None or not _usable(folder):
        return None
    path = os.path.join(folder, name)
    try:
        problem = _problem(os.lstat(path), limit)
        if problem is not None:
            ignore(path, problem)
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags), "rb") as handle:  # checked again on what was opened
            problem = _problem(os.fstat(handle.fileno()), limit)
            data = handle.read(limit + 1) if problem is None else b""
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link put there since the check
            ignore(path, "it is a symbolic link")
        else:
            turn_off(folder, exc.strerror or str(exc))
        return None
    if problem is None and len(data) > limit:
        problem = f"it has more than the {limit:,} bytes its format can need"
    if problem is not None:
        ignore(path, problem)
        return None
    return data


def write_cached(folder: Path | None, name: str, data: bytes) -> None:
    """Keep ``data`` as the cache file ``name`` in ``folder`` (created if needed) under the module's
    writing rule; a failure turns the cache off (one warning), never raises."""
    if folder is None or not _usable(folder):
        return
    path = os.path.join(folder, name)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            ignore(path, f"it is {_kind(os.lstat(path).st_mode)}")  # left as it is; nothing kept
            return
        safe_io.write_atomic(path, data)
    except (OSError, BpeError) as exc:
        turn_off(folder, _reason(exc))


def ignore(path: str | os.PathLike[str], reason: str) -> None:
    """Say (once a process) that the cache file ``path`` is not used, and why."""
    path = os.fspath(path)
    with _lock:
        if path in _ignored:
            return
        _ignored.add(path)
    warnings.warn(
        f"bpe_core's model cache: {_shown(path)} is not used ({reason}); what it holds is computed again",
        BpeWarning,
        stacklevel=2,
    )


def turn_off(folder: Path, reason: str) -> None:
    """Turn the cache in ``folder`` off for the rest of the process, with one warning."""
    key = os.fspath(folder)
    with _lock:
        if key in _off:
            return
        _off[key] = reason
    warnings.warn(
        f"bpe_core's model cache at {_shown(key)} cannot be used ({reason}), so it is off in this process: "
        f"loading works, only slower. Give BPE_CORE_CACHE_DIR a folder you can write, or set it to off",
        BpeWarning,
        stacklevel=2,
    )


def _usable(folder: Path) -> bool:
    """Whether the cache in ``folder`` is on: checked once a process (it may not exist yet; if it does,
    it is a folder this user can read and write)."""
    key = os.fspath(folder)
    with _lock:
        if key in _off:
            return False
        if key in _checked:
            return True
    try:
        exists = stat.S_ISDIR(os.stat(key).st_mode)
        if not exists:
            turn_off(folder, "it is not a folder")
            return False
        if not os.access(key, os.R_OK | os.W_OK | os.X_OK):
            turn_off(folder, "this user cannot read and write it")
            return False
    except FileNotFoundError:
        pass  # created on the first write
    except OSError as exc:
        turn_off(folder, exc.strerror or str(exc))
        return False
    with _lock:
        _checked.add(key)
    return True


def _problem(info: os.stat_result, limit: int) -> str | None:
    """Why a cache file of this ``lstat``/``fstat`` is not read, or None."""
    if not stat.S_ISREG(info.st_mode):
        return f"it is {_kind(info.st_mode)}"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return "it belongs to another user"
    if info.st_size > limit:
        return f"it has {info.st_size:,} bytes, more than the {limit:,} its format can need"
    return None


def _kind(mode: int) -> str:
    return "a symbolic link" if stat.S_ISLNK(mode) else safe_io.kind_of(mode)


def _reason(exc: OSError | BpeError) -> str:
    return (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)


def _shown(path: str) -> str:
    """``path`` for a message: a path of thousands of characters shown by its start and end."""
    return path if len(path) <= 160 else f"{path[:80]}…{path[-60:]}"
