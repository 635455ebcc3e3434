"""The tokenizer library: a folder of bpe_core JSON tokenizer files, one file per tokenizer.

Used by the Streamlit workbench so that trained and uploaded tokenizers survive reloads and restarts,
but free of any UI code: it only lists, saves, loads, renames and deletes files. The folder is
``$BPE_WORKBENCH_DIR`` if set, else ``$XDG_DATA_HOME/bpe-workbench`` (``~/.local/share/bpe-workbench``);
tokenizers live in its ``tokenizers/`` subfolder as ``<name>.json``.

Names are sanitized (letters, digits, space, ``.``, ``_``, ``-``; at most 80 characters) so a name can
never escape the folder. A file that cannot be read as a tokenizer is listed with its error instead of
breaking the listing.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from .tokenizer import Tokenizer

#: Environment variable that overrides the workspace folder.
ENV_VAR = "BPE_WORKBENCH_DIR"
#: File suffix of tokenizers in the library.
SUFFIX = ".json"
MAX_NAME_LENGTH = 80

_UNSAFE = re.compile(r"[^\w .-]+", re.UNICODE)
_SPACES = re.compile(r"\s+")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def default_root() -> Path:
    """The workspace folder: ``$BPE_WORKBENCH_DIR``, else a per-user data folder."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / "bpe-workbench"


def sanitize_name(name: str) -> str:
    """A safe library name for ``name``: unsafe characters become ``_``, whitespace is collapsed,
    leading dots and surrounding spaces are dropped. ValueError if no letter or digit is left."""
    if not isinstance(name, str):
        raise TypeError(f"a tokenizer name must be a string, not {type(name).__name__}")
    cleaned = _UNSAFE.sub("_", name)
    cleaned = _SPACES.sub(" ", cleaned).strip().lstrip(".").strip()
    if cleaned.lower().endswith(SUFFIX):
        cleaned = cleaned[: -len(SUFFIX)].rstrip()
    cleaned = cleaned[:MAX_NAME_LENGTH].rstrip(" .")
    if not cleaned or not re.search(r"[^\W_]", cleaned):  # at least one letter or digit
        raise ValueError(
            f"{name!r} is not a usable tokenizer name: use letters, digits, spaces, '.', '_' or '-'"
        )
    if cleaned.lower() in _RESERVED:
        cleaned = f"{cleaned}_"
    return cleaned


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


class Workspace:
    """A library of tokenizers stored under ``root`` (created on first write)."""

    def __init__(self, root: str | os.PathLike | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_root()

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    @property
    def folder(self) -> Path:
        return self.root / "tokenizers"

    def path_of(self, name: str) -> Path:
        return self.folder / f"{sanitize_name(name)}{SUFFIX}"

    def _ensure_folder(self) -> Path:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot create the workspace folder {self.folder}: {exc.strerror or exc}") from None
        return self.folder

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
            raise ValueError(f"cannot list the workspace folder {folder}: {exc.strerror or exc}") from None
        for path in candidates:
            if not path.name.endswith(SUFFIX) or path.name.startswith("."):
                continue
            try:
                info = path.stat()
            except OSError:
                continue  # vanished while listing
            if not path.is_file():
                continue
            found.append(
                LibraryEntry(
                    name=path.name[: -len(SUFFIX)],
                    path=path,
                    size=info.st_size,
                    modified=info.st_mtime,
                    modified_ns=info.st_mtime_ns,
                )
            )
        found.sort(key=lambda entry: (entry.name.lower(), entry.name))
        return found

    def names(self) -> list[str]:
        return [entry.name for entry in self.entries()]

    def exists(self, name: str) -> bool:
        return self.path_of(name).is_file()

    def check(self, entry: LibraryEntry) -> tuple[LibraryEntry, Tokenizer | None]:
        """Load ``entry``; return it with ``vocab_size``/``merges`` or ``error`` filled in."""
        try:
            tokenizer = self._load_path(entry.path, entry.name)
        except ValueError as exc:
            return _replace(entry, error=str(exc)), None
        return _replace(entry, vocab_size=tokenizer.vocab_size, merges=len(tokenizer.merges)), tokenizer

    def scan(self) -> list[tuple[LibraryEntry, Tokenizer | None]]:
        """Every entry, loaded: ``(entry, tokenizer)``, or ``(entry with error, None)`` if corrupt."""
        return [self.check(entry) for entry in self.entries()]

    # ---------------------------------------------------------------------------------------------
    # single tokenizers

    @staticmethod
    def _load_path(path: Path, name: str) -> Tokenizer:
        try:
            tokenizer = Tokenizer.load(path)
        except (TypeError, KeyError, AttributeError, RecursionError) as exc:  # defensive: never crash a listing
            raise ValueError(f"{path} is not a valid bpe_core tokenizer: {exc}") from None
        tokenizer.name = name
        return tokenizer

    def load(self, name: str) -> Tokenizer:
        """The tokenizer saved as ``name``; ValueError if missing or corrupt."""
        path = self.path_of(name)
        if not path.is_file():
            raise ValueError(f"there is no tokenizer named {name!r} in the library ({self.folder})")
        return self._load_path(path, path.name[: -len(SUFFIX)])

    def save(self, tokenizer: Tokenizer, name: str, *, overwrite: bool = False) -> LibraryEntry:
        """Save ``tokenizer`` as ``name`` (sanitized; the file records that name, the object keeps its own).

        ValueError if a tokenizer of that name exists and ``overwrite`` is false.
        """
        if not isinstance(tokenizer, Tokenizer):
            raise TypeError(f"expected a bpe_core Tokenizer, got {type(tokenizer).__name__}")
        clean = sanitize_name(name)
        self._ensure_folder()
        path = self.path_of(clean)
        if path.exists() and not overwrite:
            raise ValueError(f"a tokenizer named {clean!r} already exists; pick another name or overwrite it")
        previous_name = tokenizer.name
        tokenizer.name = clean  # the file stores the library name; the object is left as it was
        try:
            tokenizer.save(path)
        except OSError as exc:
            raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            tokenizer.name = previous_name
        return self._entry(path)

    def rename(self, old: str, new: str, *, overwrite: bool = False) -> LibraryEntry:
        """Rename a tokenizer; its file's stored name is updated too. Returns the new entry."""
        source = self.path_of(old)
        if not source.is_file():
            raise ValueError(f"there is no tokenizer named {old!r} in the library")
        clean = sanitize_name(new)
        target = self.path_of(clean)
        if target == source:
            return self._entry(source)
        same_file = target.exists() and _same_file(source, target)
        if target.exists() and not same_file and not overwrite:
            raise ValueError(f"a tokenizer named {clean!r} already exists; pick another name")
        try:
            tokenizer = self._load_path(source, clean)
        except ValueError:
            tokenizer = None  # corrupt files can still be renamed, as they are
        try:
            if tokenizer is not None:
                tokenizer.save(target)
                if not same_file:
                    source.unlink()
            else:
                os.replace(source, target)
        except OSError as exc:
            raise ValueError(f"cannot rename {source.name} to {target.name}: {exc.strerror or exc}") from None
        return self._entry(target)

    def delete(self, name: str) -> None:
        """Delete a tokenizer; ValueError if it does not exist."""
        path = self.path_of(name)
        if not path.is_file():
            raise ValueError(f"there is no tokenizer named {name!r} in the library")
        try:
            path.unlink()
        except OSError as exc:
            raise ValueError(f"cannot delete {path}: {exc.strerror or exc}") from None

    def unique_name(self, name: str) -> str:
        """``name`` sanitized, with `` 2``, `` 3``... appended if it is already taken."""
        base = sanitize_name(name)
        candidate = base
        number = 2
        while self.path_of(candidate).exists():
            suffix = f" {number}"
            candidate = base[: MAX_NAME_LENGTH - len(suffix)].rstrip(" .") + suffix
            number += 1
        return candidate

    def _entry(self, path: Path) -> LibraryEntry:
        info = path.stat()
        return LibraryEntry(
            name=path.name[: -len(SUFFIX)],
            path=path,
            size=info.st_size,
            modified=info.st_mtime,
            modified_ns=info.st_mtime_ns,
        )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _replace(entry: LibraryEntry, **changes) -> LibraryEntry:
    from dataclasses import replace

    return replace(entry, **changes)


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
