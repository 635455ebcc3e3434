"""The library folder's external tokenizers: files bpe_core reads but does not run (a WordPiece or
Unigram ``tokenizer.json``, a SentencePiece ``.model``: ``bpe_core.pretrained.external``), kept unchanged
in the ``external`` subfolder beside the library's own JSON files. ``keep`` writes one under a name of
its own (numbered, never over another file), ``paths`` lists them, ``load`` reads one under its file's
name, ``delete`` removes one by that name.

The library's bpe_core JSON files are ``library_folder``'s; caching the loads and offering them in a
picker are the program's (the workbench's: ``pages/_ui/tokenizers.py``). Draws nothing.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from bpe_core.errors import BpeError
from bpe_core.pretrained.external import ExternalTokenizer, load_file
from bpe_core.safe_io import write_atomic
from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace.library_folder import LibraryFolder
from bpe_core.workspace.names import numbered, safe_stem

#: The endings of the files kept (``ExternalTokenizer.suffix``).
SUFFIXES = (".json", ".model")
#: How many numbered names ``keep`` tries for one name before it gives up.
MAX_NUMBER = 999


def folder(library: LibraryFolder) -> Path:
    """Where ``library`` keeps its external tokenizers (the folder need not exist yet)."""
    return library.root / "external"


def paths(library: LibraryFolder) -> list[Path]:
    """The external tokenizer files of ``library``, by name; none when the folder does not exist."""
    where = folder(library)
    return sorted(p for p in where.iterdir() if p.suffix in SUFFIXES) if where.is_dir() else []


def keep(library: LibraryFolder, tokenizer: ExternalTokenizer) -> str:
    """Keep ``tokenizer``'s original file in ``library``, named after the tokenizer (made safe, never
    refused: "name 2", "name 3" ... when taken); the name it got. ``BpeError`` after ``MAX_NUMBER``
    names taken."""
    where = folder(library)
    where.mkdir(parents=True, exist_ok=True)
    base = safe_stem(tokenizer.name or "external")
    for name in itertools.islice(numbered(base), MAX_NUMBER):
        try:
            write_atomic(where / f"{name}{tokenizer.suffix}", tokenizer.source_bytes, overwrite=False)
            return name
        except FileExistsError:
            continue
    raise BpeError(f"too many external tokenizers named {base!r}: delete or rename some first")


def load(path: str | Path) -> Tokenizer | ExternalTokenizer:
    """The tokenizer in the kept file ``path``, named after the file (the library's name, not the one
    its content suggests). ``ValueError``/``TypeError`` for a file that is no longer a tokenizer."""
    tokenizer = load_file(path)
    tokenizer.name = Path(path).stem
    return tokenizer


def delete(library: LibraryFolder, name: str) -> None:
    """Delete ``library``'s external tokenizer ``name`` (its file's name without the ending);
    ``BpeError`` when there is none of that name (a path is never one)."""
    if "/" in name or "\\" in name or name in ("", ".", ".."):
        raise BpeError(f"no external tokenizer named {name!r}")
    for suffix in SUFFIXES:
        path = folder(library) / f"{name}{suffix}"
        if path.is_file():
            path.unlink()
            return
    raise BpeError(f"no external tokenizer named {name!r}")
