"""Reading and writing files safely when users, threads and processes share them: the one rule for
every file bpe_core writes (tokenizer files, exports, the library folder, the model cache, job folders).

* Reading: ``open_regular`` opens a regular file (symbolic links followed; a folder, FIFO, device or
  socket is a ``BpeError`` saying what the path is and what was expected; opening never blocks) for
  streaming; ``read_limited`` reads a whole one up to a limit, ``TOKENIZER_FILE_LIMIT`` (100 MB) for
  tokenizer files and ``TEXT_LIMIT`` (256 MB) for texts encoded whole (``read_stream_limited``: the
  same for standard input); ``json_value`` parses JSON from users, every failure a ``ValueError``.
* Writing: ``write_atomic`` / ``write_files_atomic`` (several files, all or nothing) write each file
  to a new temporary file in its folder (``.bpe_core-<machine>-<process>-<random>.tmp``, ``O_EXCL``,
  synced), then move it into place in one step (``overwrite=False``: a hard link, never replacing a
  name). After any failure, a full disk included, no temporary or partial file is left and the targets
  are as they were; failures are ``BpeError`` naming the file. ``write_temporary`` + ``publish`` are
  the two steps, for callers holding a lock in between; ``create_new`` a new file to stream into.
* The targets rule (``writable_target``): bpe_core writes only regular files, and never through a
  symbolic link. A link (to anything), a folder, FIFO, device node or socket is refused, never replaced
  or followed; a replaced file keeps its permission bits. The move into place replaces the name
  itself, so a link or hard link put there a moment later is replaced, never written through.
* ``remove_stale_temporaries``: every write first removes the temporary files in its folder whose
  writer is gone (a process of this machine that has ended, or older than ``STALE_SECONDS``). (A
  folder's lock, for changes that take several steps, is ``file_lock``'s.)

Works on Linux, macOS and Windows. It knows nothing of tokenizers (imports only ``errors``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import platform
import re
import secrets
import stat
import time
from collections.abc import Callable, Mapping
from typing import IO, Any, BinaryIO

from bpe_core.errors import BpeError

#: Temporary files are ``.bpe_core-<random>.tmp`` next to their target: hidden, never ``*.json``.
TEMPORARY_PREFIX = ".bpe_core-"
TEMPORARY_SUFFIX = ".tmp"
#: Temporary files older than this (seconds) are left over from a crash: a write takes far less.
STALE_SECONDS = 600.0
_LEGACY_TEMPORARY = re.compile(r".+\.json\.tmp-\d+\Z")  # bpe_core's temporary names before they were unique
#: This machine, in temporary names (a folder on a network drive is shared by machines, whose process
#: ids say nothing of each other).
_WRITER = hashlib.sha256(platform.node().encode("utf-8", "replace")).hexdigest()[:6]
_OWN_TEMPORARY = re.compile(r"\.bpe_core-(?P<writer>[0-9a-f]{6})-(?P<pid>\d+)-[0-9a-f]{16}\.tmp")
#: The most bytes read from one tokenizer file: the largest real ones (tokenizer.json files of
#: 256k-token vocabularies) are about 35 MB, and parsing takes several times the file's size in memory.
TOKENIZER_FILE_LIMIT = 100_000_000
#: The most bytes of text read whole to encode or measure (a file, or standard input): its ids take
#: about ten times as much memory.
TEXT_LIMIT = 256_000_000
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


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
# reading


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, for messages.

    >>> kind_of(stat.S_IFIFO), kind_of(stat.S_IFREG)
    ('a named pipe (FIFO)', 'a regular file')
    """
    return next((kind for test, kind in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "not a file")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_regular(path: str | os.PathLike[str], *, what: str = "a file") -> BinaryIO:
    """``path`` opened for reading in binary mode if it is a regular file (symbolic links followed);
    ``BpeError`` saying what it is instead and that ``what`` was expected, or why it cannot be opened.
    A FIFO or device is refused before it is opened, and opening never blocks (non-blocking, then
    checked again on the open file, which a swap in between cannot fool)."""
    path = os.fspath(path)
    require_regular(path, what=what)
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | nonblocking)
    except OSError as exc:
        raise BpeError(f"cannot read {path}: {_reason(exc)}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise BpeError(f"cannot read {path}: it is {kind_of(mode)}, not a regular file (expected {what})")
        if nonblocking:
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def require_regular(path: str | os.PathLike[str], *, what: str = "a file") -> None:
    """``BpeError`` unless ``path`` is a regular file (symbolic links followed), saying what it is and
    that ``what`` was expected; nothing is opened."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise BpeError(f"cannot read {os.fspath(path)}: {_reason(exc)} (expected {what})") from None
    if not stat.S_ISREG(mode):
        raise BpeError(f"cannot read {os.fspath(path)}: it is {kind_of(mode)}, not a regular file (expected {what})")


def too_big(source: str, size: int | None, limit: int, what: str) -> BpeError:
    """The error for input over a size limit, naming the limit."""
    actual = f" ({size:,} bytes)" if size is not None else ""
    return BpeError(
        f"{source} is too big{actual}: {what} may have at most {limit:,} bytes ({limit / 1e6:g} MB), "
        "so it is not read; give a smaller one, or split it"
    )


def read_limited(path: str | os.PathLike[str], *, limit: int, what: str = "a file") -> bytes:
    """The bytes of the regular file ``path`` (see ``open_regular``); ``BpeError`` naming ``limit``
    when it holds more than ``limit`` bytes (checked before reading, and while reading a file that
    grows).

    >>> read_limited(".", limit=10)
    Traceback (most recent call last):
    bpe_core.errors.BpeError: cannot read .: it is a folder, not a regular file (expected a file)
    """
    path = os.fspath(path)
    with open_regular(path, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise too_big(path, size, limit, what)
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise BpeError(f"cannot read {path}: {_reason(exc)}") from None
    if len(data) > limit:
        raise too_big(path, None, limit, what)
    return data


def read_stream_limited(stream: IO[bytes], *, limit: int, source: str, what: str) -> bytes:
    """At most ``limit`` bytes of an open binary ``stream`` (standard input), read to its end;
    ``BpeError`` naming the limit when there are more."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = stream.read(min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise too_big(source, None, limit, what)


def decode_utf8(data: bytes, *, source: str) -> str:
    """``data`` as strict UTF-8; ``BpeError`` naming ``source`` and the byte offset otherwise.

    >>> decode_utf8(b"caf\\xc3\\xa9", source="x")
    'café'
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BpeError(
            f"{source} is not valid UTF-8 (byte offset {exc.start:,}: {data[exc.start : exc.start + 4]!r}); "
            "give UTF-8 text"
        ) from None


# -------------------------------------------------------------------------------------------------
# atomic writing


def writable_target(path: str | os.PathLike[str]) -> str:
    """``path`` when bpe_core may write it: nothing is there yet, or a regular file. ``BpeError`` for
    anything else, saying what it is: a symbolic link (never written through, even to a regular file: a
    link could send the write outside its folder), a folder, FIFO, device node or socket (see the
    module docstring's targets rule). A missing folder is left for the write to report."""
    path = os.fspath(path)
    if not path.strip():
        raise BpeError("the output path is empty: give a file name")
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # nothing there (the usual case), or a folder that does not exist: writing says so
        return path
    if stat.S_ISLNK(mode):
        raise BpeError(
            f"cannot write {path}: it is a symbolic link (to {_link_text(path)}), and bpe_core never writes "
            "through a link, which could put the file outside its folder: write to the file itself, or "
            "remove the link"
        )
    if not stat.S_ISREG(mode):
        raise BpeError(
            f"cannot write {path}: it is {kind_of(mode)}, not a regular file, and bpe_core only writes "
            "regular files (never replaces a folder, FIFO or device): choose another path"
        )
    return path


def _link_text(path: str) -> str:
    return os.path.realpath(path)  # where the link leads (a name even when it leads nowhere)


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically, under the targets rule (module docstring);
    ``overwrite=False``: ``FileExistsError`` if ``path`` exists. ``BpeError`` when it cannot write."""
    write_files_atomic({os.fspath(path): data}, overwrite=overwrite)


def write_files_atomic(files: Mapping[str, str | bytes], *, overwrite: bool = True) -> None:
    """Write several files (path -> data) all or nothing: every one is written to its temporary file
    first, then all are moved into place; if one cannot be, those already moved are put back as
    they were (restored from a hard-linked copy, or removed if they were new). As ``write_atomic``."""
    if not files:
        return
    targets = [writable_target(path) if overwrite else os.fspath(path) for path in files]
    for folder in {os.path.dirname(target) or "." for target in targets}:
        remove_stale_temporaries(folder)  # what killed writers left there
    temporaries: dict[str, str] = {}
    current = next(iter(files))
    try:
        for target, (current, data) in zip(targets, files.items(), strict=True):  # noqa: B007 (named in errors)
            temporaries[target] = write_temporary(os.path.dirname(target) or ".", data)
            _keep_mode(target, temporaries[target])
        _publish_all(temporaries, overwrite=overwrite)
    except FileExistsError:
        raise
    except OSError as exc:
        where = (
            exc.filename
            if isinstance(exc.filename, str) and not is_temporary(os.path.basename(exc.filename))
            else os.fspath(current)
        )
        raise BpeError(f"cannot write {where}: {_reason(exc)}") from None
    finally:
        for temporary in temporaries.values():
            remove_quietly(temporary)  # gone after success; after a failure it must not stay behind


def _keep_mode(target: str, temporary: str) -> None:
    try:  # the new file gets the permission bits of the regular file it replaces
        mode = os.lstat(target).st_mode
        if stat.S_ISREG(mode):
            os.chmod(temporary, stat.S_IMODE(mode))
    except OSError:
        pass


def _publish_all(temporaries: Mapping[str, str], *, overwrite: bool) -> None:
    """Move each temporary file onto its target; on a failure, undo the moves already made."""
    if len(temporaries) == 1:
        ((target, temporary),) = temporaries.items()
        publish(temporary, target, overwrite=overwrite)
        return
    backups: dict[str, str | None] = {}  # target -> a hard link to its old file, None if it was new
    try:
        for target, temporary in temporaries.items():
            backups[target] = _backup(target)
            publish(temporary, target, overwrite=overwrite)
    except BaseException:
        for target, backup in backups.items():
            if backup is None:
                remove_quietly(target)
            else:
                os.replace(backup, target)
        raise
    finally:
        for backup in backups.values():
            if backup is not None:
                remove_quietly(backup)


def _backup(target: str) -> str | None:
    """A hard link to ``target``'s current file (None when there is none), to undo replacing it."""
    if not os.path.lexists(target):
        return None
    backup = os.path.join(os.path.dirname(target) or ".", temporary_name())
    os.link(target, backup)
    return backup


def write_temporary(folder: str | os.PathLike[str], data: str | bytes) -> str:
    """Write ``data`` to a new, uniquely named temporary file in ``folder``, flushed to disk, and
    return its path; the caller moves it with ``publish`` and removes it on failure."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            surrogate = exc.object[exc.start]
            raise BpeError(f"cannot write text holding a lone surrogate ({surrogate!r}) as UTF-8") from None
    while True:
        temporary = os.path.join(os.fspath(folder), temporary_name())
        try:
            handle = create_new(temporary)
            break
        except FileExistsError:  # 64 random bits already taken: draw again
            continue
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # the data is on disk before a name points to it
    except BaseException:
        remove_quietly(temporary)
        raise
    return temporary


def create_new(path: str | os.PathLike[str]) -> BinaryIO:
    """A new regular file at ``path``, open for writing in binary mode: ``FileExistsError`` if anything
    is there already, a symbolic link included (``O_EXCL``: created here, never followed)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o666), "wb")  # 0o666: the umask decides, as for open()


def temporary_name() -> str:
    """A new temporary file name: ``.bpe_core-<writer>-<random>.tmp``, the writer being this process
    on this machine (``_WRITER``), so that the next write can tell a killed writer's file at once."""
    return f"{TEMPORARY_PREFIX}{_WRITER}-{os.getpid()}-{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"


def publish(temporary: str, path: str | os.PathLike[str], *, overwrite: bool) -> None:
    """Move the finished ``temporary`` file to ``path`` in one step. ``overwrite=False`` never replaces
    an existing file, even one another writer created a moment ago: ``FileExistsError``.

    No-overwrite is a hard link (atomic and exclusive on POSIX and NTFS). Where the file system has no
    hard links (FAT, some network mounts) it is Windows' rename (which never replaces) or, on POSIX, a
    check before ``os.replace``, exclusive only among holders of a ``file_lock.folder_lock``."""
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
    """Remove bpe_core's temporary files in ``folder`` whose writer is gone: written by a process of
    this machine that has ended (killed mid-write), or older than ``older_than`` seconds (younger ones
    of another machine, or of older naming, may belong to a write in progress); returns the names removed.
    Never follows a link: only regular files named as temporaries go."""
    cutoff = time.time() - older_than
    removed: list[str] = []
    try:
        with os.scandir(folder) as listing:
            candidates = [item for item in listing if is_temporary(item.name)]
    except OSError:
        return removed
    for item in candidates:
        try:
            info = item.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and (info.st_mtime < cutoff or _writer_ended(item.name)):
                os.unlink(item.path)
                removed.append(item.name)
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def _writer_ended(name: str) -> bool:
    """Whether the temporary file ``name`` was written by a process of this machine that has ended.
    (Windows has no harmless way to ask: there, only age counts.)"""
    found = _OWN_TEMPORARY.fullmatch(name)
    if found is None or found["writer"] != _WRITER or os.name == "nt":
        return False
    try:
        os.kill(int(found["pid"]), 0)  # signal 0: nothing is sent, only whether the process exists
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # another user's process (alive), or no such number
        pass
    return False
