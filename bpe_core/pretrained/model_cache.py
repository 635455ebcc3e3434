"""The built-ins of rank files, which encode before their merges are known, and their model tables
kept on disk between runs.

``ranks_tokenizer`` makes the tokenizer of a pinned rank file: at once, the checks encoding depends on
(the ranks, the special tokens; tiktoken's rule then runs on the ranks themselves); on first use of its
merges, ``ranks_tables``: the tables of that file from disk, else the structure of its ranks recovered
and the model proved with every check, its tables then written for the next process.

Why the tables are not proved again: a table file is used only for the files whose SHA-256 names it,
and the caller has checked those files against the hashes the catalogue pins. The table file holds
that SHA-256 too, and the SHA-256 of its own content, so a damaged, truncated, renamed or older-format
copy is refused and written again. What the tables say was proved when they were written, from a
model built with every check (``BpeModel``), and ``ranks_tables`` also holds the tables' tokens
against the ranks just read. Files a user gives (``bpe_core.load(path)``) never come here: they are
checked in full on every load.

This module does not know which tokenizers are built in (``catalogue``) nor how their files are read;
the cache's files are read and written under ``disk_cache``'s rule, and a cache that cannot be read or
written only costs the proof.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from array import array
from collections.abc import Mapping
from itertools import accumulate
from pathlib import Path

from bpe_core.bpe.model import BpeModel, ModelTables, gc_paused
from bpe_core.bpe.ranks import STRUCTURE_FORMAT, rank_structure
from bpe_core.bpe.vocabulary import check_vocab, resolve_special_tokens
from bpe_core.encoding.codec import Codec
from bpe_core.errors import BpeError
from bpe_core.pretokenization.stages import Pipeline
from bpe_core.pretrained import disk_cache
from bpe_core.tokenizer import Tokenizer

#: Changes whenever the tables' layout or meaning does; the structure's format is part of it (a change
#: in how ranks are sorted into merges makes older tables wrong).
TABLES_FORMAT = b"bpe_core model tables 1\n" + STRUCTURE_FORMAT
_DIGEST = 32  # bytes of a SHA-256
_RULES = ("bpe", "tiktoken")
#: rule, tokens, bytes of all tokens, merges, late merges, whole-word tokens, self-encoding ids, whole pieces
_COUNTS = 8


def tables_to_bytes(tables: ModelTables, source_sha256: bytes) -> bytes:
    """``tables`` of the files whose SHA-256 is ``source_sha256`` as bytes: the format, the SHA-256 of
    what follows, then the source's SHA-256, counts, id columns and the tokens' bytes."""
    tokens = list(tables.token_to_id)
    blob = b"".join(tokens)
    columns = [
        array("q", tables.token_to_id.values()),
        array("q", map(len, tokens)),
        *tables.merges,
        *tables.late_merges,
        tables.whole_tokens,
        tables.self_encoding,
        tables.whole_pieces,
    ]
    numbers = array(
        "q",
        [
            _RULES.index(tables.rule),
            len(tokens),
            len(blob),
            len(tables.merges[0]),
            len(tables.late_merges[0]),
            len(tables.whole_tokens),
            len(tables.self_encoding),
            len(tables.whole_pieces),
        ],
    )
    for column in columns:
        numbers.extend(column)
    if sys.byteorder != "little":
        numbers.byteswap()
    payload = source_sha256 + numbers.tobytes() + blob
    return TABLES_FORMAT + hashlib.sha256(payload).digest() + payload


def _numbers(data: bytes) -> array:
    numbers = array("q")
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


def tables_from_bytes(data: bytes, source_sha256: bytes) -> ModelTables:
    """The ``ModelTables`` that ``tables_to_bytes`` wrote for the files whose SHA-256 is
    ``source_sha256``. ``BpeError`` when ``data`` is another format, damaged or written for other files."""
    head = len(TABLES_FORMAT)
    payload = data[head + _DIGEST :]
    if not data.startswith(TABLES_FORMAT) or hashlib.sha256(payload).digest() != data[head : head + _DIGEST]:
        raise BpeError("not model tables of this bpe_core version, or a damaged copy")
    if payload[:_DIGEST] != source_sha256:
        raise BpeError("model tables of other files")
    rule, n_tokens, n_bytes, n_merges, n_late, n_whole, n_self, n_pieces = _numbers(
        payload[_DIGEST : _DIGEST + 8 * _COUNTS]
    )
    sizes = [n_tokens, n_tokens, n_merges, n_merges, n_merges, n_late, n_late, n_late, n_whole, n_self, n_pieces]
    start = _DIGEST + 8 * _COUNTS
    numbers = _numbers(payload[start : start + 8 * sum(sizes)])
    ends = list(accumulate(sizes))
    ids, lengths, *columns = (numbers[end - size : end] for size, end in zip(sizes, ends, strict=True))
    blob = payload[start + 8 * sum(sizes) :]
    offsets = list(accumulate(lengths, initial=0))
    if len(blob) != n_bytes or offsets[-1] != n_bytes:
        raise BpeError("model tables of the wrong size")
    tokens = map(blob.__getitem__, map(slice, offsets, offsets[1:]))
    return ModelTables(
        rule=_RULES[rule],
        token_to_id=dict(zip(tokens, ids, strict=True)),
        merges=(columns[0], columns[1], columns[2]),
        late_merges=(columns[3], columns[4], columns[5]),
        whole_tokens=columns[6],
        self_encoding=columns[7],
        whole_pieces=columns[8],
    )


def ranks_tokenizer(
    folder: Path | None,
    data: bytes,
    ranks: dict[bytes, int],
    *,
    special_tokens: Mapping[str, int],
    pattern: str | Pipeline | None,
    name: str,
) -> Tokenizer:
    """The tokenizer of the ranks read from the pinned, hash-checked file ``data``, ready to encode and
    decode at once (``BpeModel.deferred``: tiktoken's rule on the ranks). Checked now, as
    ``Tokenizer.from_ranks`` checks them: ranks distinct, ids in range, the 256 single bytes there, no
    empty token, the special tokens' ids free. Its merges, late merges and whole-word tokens come on
    first use from ``ranks_tables`` (its tables in ``folder``, else recovered and proved, then written
    there). ``BpeError`` for ranks that fail a check."""
    with gc_paused():
        vocab = check_vocab(dict(zip(ranks.values(), ranks.keys(), strict=True)))
        if len(vocab) != len(ranks):
            raise BpeError("two tokens share a rank: ranks must be distinct")
        specials = resolve_special_tokens(special_tokens, vocab)
        if len(vocab) != len(ranks) + len(specials):
            raise BpeError("a special token has the id of an ordinary token: give it an id the ranks do not use")
        digest = hashlib.sha256(data).digest()
        model = BpeModel.deferred(vocab, ranks, functools.partial(ranks_tables, folder, digest))
        return Tokenizer._around(Codec(model, specials, pattern, name=name))


def ranks_tables(folder: Path | None, digest: bytes, ranks: dict[bytes, int]) -> ModelTables:
    """The ``ModelTables`` of tiktoken-style ranks read from the file whose SHA-256 is ``digest``: from
    ``folder`` when its copy is sound and holds these very ranks, else proved here (the structure
    recovered by ``ranks.rank_structure`` and the model built with every check of ``BpeModel``) and
    written there for next time. Reading and writing follow ``disk_cache``'s rule: a file that is not
    this user's regular file, or is bigger than these ranks' tables can be (``tables_size_limit``), is
    ignored with a warning, and a folder that cannot be used only costs the proof (one warning)."""
    name = f"{digest.hex()}.tables"
    data = disk_cache.read_cached(folder, name, limit=tables_size_limit(ranks))
    if data is not None and folder is not None:
        try:
            tables = tables_from_bytes(data, digest)
            if tables.rule == "tiktoken" and tables.token_to_id == ranks:
                return tables
            disk_cache.ignore(folder / name, "it holds the tables of other ranks")
        except (ValueError, IndexError):
            if not _another_version(data):  # after an upgrade the tables are simply made again
                disk_cache.ignore(folder / name, "it is damaged")
    with gc_paused():
        vocab = dict(zip(ranks.values(), ranks.keys(), strict=True))
        structure = rank_structure(ranks)
        tables = BpeModel(vocab, structure.merges, special_ids=(), rule="tiktoken", structure=structure).tables()
    disk_cache.write_cached(folder, name, tables_to_bytes(tables, digest))
    return tables


def tables_size_limit(ranks: Mapping[bytes, int]) -> int:
    """The most bytes ``tables_to_bytes`` can write for ``ranks``: its header and two SHA-256s, eight
    counts, at most eight numbers a token (id, length, three of a merge or late merge, and a place in
    each of the three id lists) and the tokens' bytes.

    >>> tables_size_limit({b"a": 0, b"b": 1, b"ab": 2}) - len(TABLES_FORMAT)
    324
    """
    return len(TABLES_FORMAT) + 2 * _DIGEST + 8 * (_COUNTS + 8 * len(ranks)) + sum(map(len, ranks))


def _another_version(data: bytes) -> bool:
    """Whether ``data`` begins as tables of another bpe_core version do."""
    return data.startswith(TABLES_FORMAT.split(b" 1\n", 1)[0]) and not data.startswith(TABLES_FORMAT)
