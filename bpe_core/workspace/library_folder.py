"""The app's tokenizer library: a folder of bpe_core JSON tokenizer files, one file per tokenizer.

The workbench keeps trained and uploaded tokenizers here so they survive reloads and restarts. Draws
nothing and imports no streamlit: it only lists, saves, loads, renames and deletes files (through
``bpe_core.safe_io`` and ``bpe_core.formats``), so a script can use it too and it is tested alone. The
folder is ``$BPE_WORKBENCH_DIR`` if set, else ``$XDG_DATA_HOME/bpe-workbench``
(``~/.local/share/bpe-workbench``); tokenizers live in its ``tokenizers/`` subfolder as ``<name>.json``.

Names become file names by ``names``' rule: letters, digits and marks of every script kept; path
separators, controls and the characters Windows forbids made ``_``; invisible characters, bidirectional
controls and Windows device names refused with a message; a long name ends in a hash of all of it
instead of being cut, so two names never share a file. A new name that looks like an existing one
(the same ``names.skeleton``: ``ﬁle`` and ``file``, or names differing by a joiner) is refused. A file
put in the folder by hand is listed under ``names.listed_name`` (its invisible or bidirectional
characters shown as ``<U+202E>``), a name that loads, renames and deletes it. A file that cannot be
read as a tokenizer is listed with its error instead of breaking the listing. Files are read and
written through ``safe_io`` (regular files only, at most 100 MB; a symbolic link is read through but
never written through: saving over one is refused).

Every change (save, rename, delete) is atomic and safe against other threads and processes using the
same folder (app sessions, other app servers, scripts), on Linux, macOS and Windows: it holds the folder's lock
(``.bpe_core.lock``: an OS file lock the OS releases if its holder dies, so never stale; waiting longer
than ``lock_timeout`` is a ``ValueError``, never a hang), writes a uniquely named temporary file and
moves it into place in one step, takes a new name with a hard link that fails if the name exists, and
first removes temporary files a crash left behind (see ``safe_io``). Listing and loading take no lock:
they only ever see whole files.
"""

from __future__ import annotations

import copy
import os
import stat
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from bpe_core import safe_io
from bpe_core.errors import BpeError
from bpe_core.file_lock import folder_lock
from bpe_core.formats import bpe_json
from bpe_core.pretrained.disk_cache import user_folder
from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace.names import (
    MAX_NAME_BYTES,
    MAX_NAME_LENGTH,
    SUFFIX,
    file_stem,
    listed_name,
    numbered,
    safe_stem,
    skeleton,
)

#: Environment variable that overrides the library folder.
ENV_VAR = "BPE_WORKBENCH_DIR"
#: The lock file in the tokenizers folder (hidden, never deleted: deleting lock files races).
LOCK_NAME = ".bpe_core.lock"
#: Seconds a change waits for another to finish before giving up.
LOCK_TIMEOUT = 30.0
__all__ = ["MAX_NAME_BYTES", "MAX_NAME_LENGTH", "LibraryEntry", "LibraryFolder", "default_root", "sanitize_name"]


def default_root() -> Path:
    """The library folder: ``$BPE_WORKBENCH_DIR``, else a per-user data folder (``BpeError`` when
    there is no home folder for it)."""
    return user_folder(ENV_VAR, xdg_var="XDG_DATA_HOME", home_default=".local/share")


def sanitize_name(name: str) -> str:
    """The library name (and file stem) ``name`` is saved under: ``names.file_stem``, whose rule the
    module docstring sums up; ``BpeError`` for a name it refuses.

    >>> sanitize_name("../my model.json"), sanitize_name("हिन्दी-bpe"), sanitize_name("cafe\\u0301")
    ('_my model', 'हिन्दी-bpe', 'café')
    """
    return file_stem(name)


@dataclass(frozen=True)
class LibraryEntry:
    """One file in the library. ``error`` is set (and the tokenizer unusable) when ``check`` found
    the file corrupt; ``vocab_size``/``merges`` are filled in by ``check`` for readable files."""

    name: str
    path: Path
    size: int
    modified: float
    modified_ns: int
    error: str | None = None
    vocab_size: int | None = None
    merges: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class LibraryFolder:
    """A library of tokenizers stored under ``root`` (created on first write). Changes wait at most
    ``lock_timeout`` seconds for a change by another thread or process to finish."""

    def __init__(self, root: str | os.PathLike | None = None, *, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.root = Path(root).expanduser() if root is not None else default_root()
        self.lock_timeout = lock_timeout

    def __repr__(self) -> str:
        return f"LibraryFolder({str(self.root)!r})"

    @property
    def folder(self) -> Path:
        return self.root / "tokenizers"

    def _lookup(self, name: str) -> Path:
        """The file of the tokenizer ``name``: the file listed under exactly that name (one put there by
        hand, or saved under an older rule), else the file its name maps to; a path that does not exist
        when there is neither (``BpeError`` only for a name the rule refuses and nothing lists)."""
        if not any(part in name for part in ("/", "\\", "\x00")) and listed_name(name) == name:
            exact = self.folder / f"{name}{SUFFIX}"  # a file name as it is listed
            if _is_file(exact):
                return exact
        try:
            path: Path | None = self.folder / f"{file_stem(name)}{SUFFIX}"
        except BpeError:
            path = None
        if path is not None and _is_file(path):
            return path
        listed = {entry.name: entry.path for entry in self.entries()}
        found = listed.get(name) or listed.get(unicodedata.normalize("NFC", name))
        if found is not None:
            return found
        if path is None:
            raise BpeError(f"there is no tokenizer named {name!r} in the library ({self.folder})")
        return path

    def _refuse_lookalike(self, stem: str, *, besides: Path | None = None) -> None:
        """``BpeError`` when a file other than ``besides`` (and ``stem``'s own) looks like ``stem``."""
        seen = skeleton(stem)
        for entry in self.entries():
            other = entry.path.name[: -len(SUFFIX)]
            if other != stem and entry.path != besides and skeleton(other) == seen:
                raise BpeError(
                    f"{stem!r} looks the same as {entry.name!r}, already in the library (they differ only by "
                    "invisible characters or by forms such as ﬁ and fi): pick another name, or overwrite "
                    f"{entry.name!r} by its own name"
                )

    def _ensure_folder(self) -> Path:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BpeError(f"cannot create the library folder {self.folder}: {exc.strerror or exc}") from None
        return self.folder

    @contextmanager
    def _changing(self) -> Iterator[Path]:
        """The folder, locked for one change, with stale temporary files cleared first."""
        folder = self._ensure_folder()
        with folder_lock(folder, name=LOCK_NAME, timeout=self.lock_timeout):
            self.remove_stale_files()
            yield folder

    # ---------------------------------------------------------------------------------------------
    # listing

    def entries(self) -> list[LibraryEntry]:
        """The library's files, sorted by name (case-insensitive), without opening them."""
        folder = self.folder
        if not folder.is_dir():
            return []
        found: list[LibraryEntry] = []
        try:
            candidates = list(folder.iterdir())
        except OSError as exc:
            raise BpeError(f"cannot list the library folder {folder}: {exc.strerror or exc}") from None
        for path in candidates:
            if not path.name.endswith(SUFFIX) or path.name.startswith("."):
                continue
            try:
                info = path.stat()
            except OSError:
                continue  # vanished while listing
            if stat.S_ISREG(info.st_mode):
                found.append(_entry_from(path, info))
        found.sort(key=lambda entry: (entry.name.lower(), entry.name))
        return found

    def names(self) -> list[str]:
        return [entry.name for entry in self.entries()]

    def exists(self, name: str) -> bool:
        try:
            return _is_file(self._lookup(name))
        except BpeError:  # a name the rule refuses, and no file listed under it
            return False

    def check(self, entry: LibraryEntry) -> tuple[LibraryEntry, Tokenizer | None]:
        """Load ``entry``; return it with ``vocab_size``/``merges`` or ``error`` filled in."""
        try:
            tokenizer = self._load_path(entry.path, entry.name)
        except ValueError as exc:
            return replace(entry, error=str(exc)), None
        return replace(entry, vocab_size=tokenizer.vocab_size, merges=len(tokenizer.merges)), tokenizer

    def scan(self) -> list[tuple[LibraryEntry, Tokenizer | None]]:
        """Every entry, loaded: ``(entry, tokenizer)``, or ``(entry with error, None)`` if corrupt."""
        return [self.check(entry) for entry in self.entries()]

    def remove_stale_files(self, *, older_than: float = safe_io.STALE_SECONDS) -> list[str]:
        """Remove temporary files a crashed writer left in the folder, if older than ``older_than``
        seconds (younger ones may belong to a write in progress); returns the names removed. Every
        change does this first."""
        return safe_io.remove_stale_temporaries(self.folder, older_than=older_than)

    # ---------------------------------------------------------------------------------------------
    # single tokenizers

    @staticmethod
    def _load_path(path: Path, name: str) -> Tokenizer:
        try:
            tokenizer = Tokenizer.from_json(bpe_json.read(path), source=str(path))
        except (TypeError, KeyError, AttributeError, RecursionError) as exc:  # defensive: never crash a listing
            raise BpeError(f"{path} is not a valid bpe_core tokenizer: {exc}") from None
        tokenizer.name = name
        return tokenizer

    def load(self, name: str) -> Tokenizer:
        """The tokenizer saved as ``name``; ValueError if missing or corrupt."""
        path = self._lookup(name)
        if not _is_file(path):
            raise BpeError(f"there is no tokenizer named {name!r} in the library ({self.folder})")
        return self._load_path(path, listed_name(path.name[: -len(SUFFIX)]))

    def save(self, tokenizer: Tokenizer, name: str, *, overwrite: bool = False) -> LibraryEntry:
        """Save ``tokenizer`` as ``name`` (sanitized; the file records that name, the object keeps its own).

        ValueError if a tokenizer of that name exists and ``overwrite`` is false: of several callers
        saving one new name at once, exactly one succeeds.
        """
        clean = file_stem(name)
        text = _named(tokenizer, clean).to_json()  # the slow part, outside the lock
        with self._changing() as folder:
            self._refuse_lookalike(clean)
            try:
                return _publish(text, folder / f"{clean}{SUFFIX}", overwrite=overwrite)
            except FileExistsError:
                raise BpeError(
                    f"a tokenizer named {clean!r} already exists; pick another name or overwrite it"
                ) from None

    def save_as_new(self, tokenizer: Tokenizer, name: str) -> LibraryEntry:
        """Save ``tokenizer`` as ``name`` or, when taken (or a name that looks like it is), the first
        free ``name 2``, ``name 3``... Picking the name and writing are one step, so two imports of one
        name get two names. ``name`` is made safe (``names.safe_stem``), never refused for a character."""
        base = safe_stem(name)
        _named(tokenizer, base)  # TypeError before taking the lock
        with self._changing() as folder:
            for _attempt in range(100):
                candidate = self.unique_name(base)
                try:
                    text = _named(tokenizer, candidate).to_json()
                    return _publish(text, folder / f"{candidate}{SUFFIX}", overwrite=False)
                except FileExistsError:
                    continue  # taken by a program that does not use the lock: the next number
        raise BpeError(f"cannot find a free name like {base!r} in {self.folder}: other programs keep taking them")

    def rename(self, old: str, new: str, *, overwrite: bool = False) -> LibraryEntry:
        """Rename a tokenizer; its file's stored name is updated too. Returns the new entry.

        ValueError if ``old`` is missing or ``new`` is taken (unless ``overwrite``): of several callers
        renaming to one name, or renaming/deleting one tokenizer, exactly one succeeds.
        """
        clean = file_stem(new)
        if not self.folder.is_dir():
            raise BpeError(f"there is no tokenizer named {old!r} in the library")
        with self._changing() as folder:
            source = self._lookup(old)
            target = folder / f"{clean}{SUFFIX}"
            raw = _read_existing(source, old)
            self._refuse_lookalike(clean, besides=source)
            if target == source:
                return _entry_at(source)
            # On case-insensitive file systems "a" -> "A" is the same file under another case.
            same_file = _same_file(source, target)
            if not same_file and os.path.lexists(target) and not overwrite:
                raise BpeError(f"a tokenizer named {clean!r} already exists; pick another name")
            data = bpe_json.with_stored_name(raw, clean)
            if same_file:  # only the case changes: move the file, then rewrite it in place
                try:
                    safe_io.patiently(os.rename, source, target)
                except OSError as exc:
                    raise BpeError(f"cannot rename {source.name} to {target.name}: {exc.strerror or exc}") from None
                return _publish(data, target, overwrite=True)
            try:
                entry = _publish(data, target, overwrite=overwrite)
            except FileExistsError:
                raise BpeError(f"a tokenizer named {clean!r} already exists; pick another name") from None
            _remove_source(source, target, undo=not overwrite)
            return entry

    def delete(self, name: str) -> None:
        """Delete a tokenizer; ValueError if it does not exist (of two deletes at once, one succeeds)."""
        if not self.folder.is_dir():
            raise BpeError(f"there is no tokenizer named {name!r} in the library")
        with self._changing():
            path = self._lookup(name)
            if not _is_file(path):
                raise BpeError(f"there is no tokenizer named {name!r} in the library")
            try:
                safe_io.patiently(os.unlink, path)
            except FileNotFoundError:
                raise BpeError(f"there is no tokenizer named {name!r} in the library") from None
            except OSError as exc:
                raise BpeError(f"cannot delete {path}: {exc.strerror or exc}") from None

    def unique_name(self, name: str) -> str:
        """``name`` made safe (``names.safe_stem``), with `` 2``, `` 3``... appended while it is taken or
        looks like a name that is. Only a hint when others may save at the same time: ``save_as_new``
        picks and writes in one step."""
        looks = {skeleton(entry.path.name[: -len(SUFFIX)]) for entry in self.entries()}
        free = (c for c in numbered(safe_stem(name)) if not os.path.lexists(self.folder / f"{c}{SUFFIX}"))
        return next(c for c in free if skeleton(c) not in looks)


# -------------------------------------------------------------------------------------------------
# file steps (called with the folder locked)


def _named(tokenizer: Tokenizer, name: str) -> Tokenizer:
    """A shallow copy named ``name``: the caller's object is never renamed, even for a moment, so
    threads saving one tokenizer under different names cannot see each other's name."""
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"expected a bpe_core Tokenizer, got {type(tokenizer).__name__}")
    twin = copy.copy(tokenizer)
    twin.name = name
    return twin


def _publish(data: str | bytes, path: Path, *, overwrite: bool) -> LibraryEntry:
    """Write ``data`` to ``path`` atomically under ``safe_io``'s targets rule (a FIFO or device in the
    folder is refused, and so is a symbolic link); FileExistsError if taken and not ``overwrite``."""
    target = Path(safe_io.writable_target(path)) if overwrite else path
    try:
        temporary = safe_io.write_temporary(target.parent, data)
    except OSError as exc:
        raise BpeError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        info = os.stat(temporary)  # the published file's own (same inode), whatever happens next
        safe_io.publish(temporary, target, overwrite=overwrite)
    except FileExistsError:
        raise
    except OSError as exc:
        raise BpeError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        safe_io.remove_quietly(temporary)
    return _entry_from(path, info)


def _read_existing(path: Path, name: str) -> bytes:
    if not _is_file(path):
        raise BpeError(f"there is no tokenizer named {name!r} in the library")
    return bpe_json.read_tokenizer_file(path)


def _remove_source(source: Path, target: Path, *, undo: bool) -> None:
    """The last step of a rename; if the old file cannot go, the new one is taken back (``undo``)."""
    try:
        safe_io.patiently(os.unlink, source)
    except FileNotFoundError:
        pass  # removed by a program that ignores the lock: the tokenizer lives on under its new name
    except OSError as exc:
        if undo:
            safe_io.remove_quietly(target)
        raise BpeError(f"cannot rename {source.name}: cannot remove it ({exc.strerror or exc})") from None


def _entry_from(path: Path, info: os.stat_result) -> LibraryEntry:
    return LibraryEntry(
        name=listed_name(path.name[: -len(SUFFIX)]),
        path=path,
        size=info.st_size,
        modified=info.st_mtime,
        modified_ns=info.st_mtime_ns,
    )


def _entry_at(path: Path) -> LibraryEntry:
    try:
        return _entry_from(path, path.stat())
    except OSError as exc:
        raise BpeError(f"cannot read {path}: {exc.strerror or exc}") from None


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # missing, or a name the file system refuses
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def describe_age(timestamp: float, now: float | None = None) -> str:
    """'just now', '5 min ago', '3 h ago', or the date, for listings."""
    now = time.time() if now is None else now
    seconds = max(0.0, now - timestamp)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return time.strftime("%Y-%m-%d", time.localtime(timestamp))
