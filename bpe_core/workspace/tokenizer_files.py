"""Tokenizer files made into tokenizers to keep in a library, each named once whatever format it comes
in: ``from_file`` reads bpe_core JSON, Hugging Face ``tokenizer.json`` and SentencePiece ``.model`` files
by their content (a byte-level BPE file becomes a ``Tokenizer``, any other an ``ExternalTokenizer``); a
``.tiktoken`` rank file (``is_rank_file``), which holds neither a pre-tokenization pattern nor special
tokens, is read with ``read_rank_file`` and becomes a tokenizer once its caller names the pattern
(``from_rank_file``: a preset, a regex, or the built-in's own when its ranks are a built-in's). A
tokenizer whose ranks are a built-in's (the file's pinned SHA-256, or the same ranks:
``builtin_of_ranks``) is named after that built-in (``import_name``).

Parsing is ``pretrained.external.loads_file``'s and ``formats.tiktoken_file``'s; saving is
``library_folder``'s. Asking which pattern a rank file takes and saying a refusal in a person's words
are the program's (the workbench's Import: ``pages/_ui/imports.py``). Draws nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_core.errors import BpeError
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.pretokenization.stages import Pipeline
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.external import ExternalTokenizer, loads_file
from bpe_core.pretrained.hub_cache import builtin_with_file
from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace import shared_builtins

#: Names a file gives its tokenizer that say nothing of it (Hugging Face's files are all tokenizer.json).
GENERIC_NAMES = ("", "tokenizer", "huggingface", "vocab", "model")
#: The endings a tokenizer file's name loses when the file's name names the tokenizer.
SUFFIXES = (".json", ".tiktoken", ".tokenizer", ".model")
#: How many more ids than a rank file's ranks a built-in may hold and still be compared with it (its
#: special tokens; a built-in of another size cannot hold the same ranks).
SPECIALS_ROOM = 4096


def import_name(file_name: str, recorded: str, model: str | None) -> str:
    """One name for one tokenizer whatever the format it comes in: the built-in's (``gpt2``, ``o200k``)
    when its ranks are a built-in's, else the name its file records unless generic, else the file's name.

    >>> import_name("tokenizer.json", "tokenizer", "gpt2"), import_name("o200k_base.tiktoken", "", "o200k")
    ('gpt2', 'o200k')
    >>> import_name("tokenizer.json", "my-bpe", None), import_name("my-bpe.tiktoken", "", None)
    ('my-bpe', 'my-bpe')
    """
    if model:
        return model
    if recorded.strip().lower() in GENERIC_NAMES or recorded == Path(file_name).stem:
        return name_of_file(file_name)
    return recorded


def name_of_file(file_name: str) -> str:
    """The tokenizer name a file's name gives: without its folder and tokenizer endings.

    >>> name_of_file("models/o200k_base.tiktoken"), name_of_file("mine.tokenizer.json"), name_of_file(".json")
    ('o200k_base', 'mine', 'uploaded')
    """
    base = Path(file_name).name
    for suffix in SUFFIXES:
        base = base.removesuffix(suffix)
    return base or "uploaded"


def is_rank_file(file_name: str, data: bytes) -> bool:
    """Whether a file is a ``.tiktoken`` rank file: by its name, or by its first line (a token and a rank).

    >>> is_rank_file("ranks.txt", b"IQ== 0\\nIg== 1\\n"), is_rank_file("t.json", b'{"a 1": 2}')
    (True, False)
    """
    if file_name.endswith(".tiktoken"):
        return True
    first = data[:200].split(b"\n", 1)[0].split()
    return len(first) == 2 and first[1].isdigit() and not data.lstrip().startswith((b"{", b"["))


def builtin_of_ranks(data: bytes, ranks: Mapping[bytes, int], *, order: Sequence[str] = ()) -> str | None:
    """The built-in whose rank file ``data`` is (its pinned SHA-256), or whose ranks equal ``ranks``;
    None when none is. Ranks are compared with the installed built-ins of about their size only (each
    loaded once per process: ``shared_builtins``), in ``order`` first (two built-ins may share ranks:
    the first named wins); one that fails to load is passed over."""
    same_file = builtin_with_file(data, catalogue.BUILTINS)
    if same_file is not None:
        return same_file
    for name, status in shared_builtins.installed_builtins(order).items():
        about = status.about
        if about and 0 <= about.vocab_size - len(ranks) <= SPECIALS_ROOM:
            try:
                if shared_builtins.builtin_tokenizer(name)._token_to_id == ranks:
                    return name
            except ValueError:
                continue
    return None


def from_file(file_name: str, data: bytes, *, order: Sequence[str] = ()) -> Tokenizer | ExternalTokenizer:
    """The tokenizer in the file ``file_name`` (``data``: its bytes), recognised by content
    (``pretrained.external.loads_file``: a ``.tiktoken`` file gets GPT-2's pattern there; ``read_rank_file``
    leaves the pattern to the caller), named by ``import_name`` (built-ins compared in ``order`` first).
    Whatever ``loads_file`` raises for a file that is no tokenizer (``ValueError`` and the errors of a
    malformed document) reaches the caller, which says it in its own words."""
    tokenizer = loads_file(data, source=file_name)
    model = builtin_of_ranks(data, tokenizer._token_to_id, order=order) if isinstance(tokenizer, Tokenizer) else None
    tokenizer.name = import_name(file_name, tokenizer.name, model)
    return tokenizer


@dataclass(frozen=True)
class RankFile:
    """A ``.tiktoken`` file waiting for its pattern: its ranks, and the built-in whose ranks they are
    (None if none)."""

    name: str
    ranks: dict[bytes, int]
    model: str | None
    data: bytes  # the file, whose SHA-256 keys its recovered structure on disk (catalogue.cached_structure)


def read_rank_file(file_name: str, data: bytes, *, order: Sequence[str] = ()) -> RankFile:
    """The ranks of the ``.tiktoken`` file ``file_name`` and the built-in they are (``builtin_of_ranks``);
    ``BpeError`` naming the first line that is not a token and a rank."""
    ranks = parse_tiktoken_ranks(data.decode("ascii", "replace"), what=file_name)
    return RankFile(file_name, ranks, builtin_of_ranks(data, ranks, order=order), data)


def from_rank_file(rank_file: RankFile, *, pattern: str | None = None) -> Tokenizer:
    """The tokenizer of ``rank_file`` with ``pattern`` (a preset name or a regex) and no special tokens;
    with ``pattern=None``, the pattern (its stages) and special tokens of the built-in whose ranks these
    are (``BpeError`` when they are none's). The merges are recovered once per file and kept on disk
    (``catalogue.cached_structure``)."""
    specials: dict[str, int] = {}
    splitter: str | Pipeline | None = pattern
    if pattern is None:
        if rank_file.model is None:
            raise BpeError(f"{rank_file.name} holds no built-in's ranks: name the pattern that splits its text")
        model = catalogue.load(rank_file.model)
        specials, splitter = model.special_tokens, model._pattern_argument
    structure = catalogue.cached_structure(rank_file.ranks, rank_file.data)
    return Tokenizer.from_ranks(
        rank_file.ranks,
        special_tokens=specials,
        pattern=splitter,
        name=import_name(rank_file.name, "", rank_file.model),
        structure=structure,
    )
