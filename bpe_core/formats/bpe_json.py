"""bpe_core's own tokenizer file: versioned, human-readable, lossless JSON.

Layout (version 1)::

    {"format": "bpe_core.tokenizer", "version": 1, "name": ..., "pattern": regex or null,
     "pattern_name": "gpt2" | "cl100k" | "o200k" | null,   # informative; "pattern" is what is used
     "special_tokens": {"<|endoftext|>": 256},
     "vocab": [{"id": 97, "text": "a"}, {"id": 128, "hex": "80"}, ...],
     "merge_fields": ["left", "right", "id", "count"],
     "merges": [[97, 98, 257, 9], ...],          # rank order
     "training": {...settings, corpus statistics...} | null}

A tokenizer that pre-tokenizes in stages (``stages.Pipeline``, e.g. imported from a Hugging Face
file) is written as version 2: ``"pattern": null`` and ``"pretokenizer": {"normalizers": [...],
"stages": [{"type": "split", "pattern", "literal", "behavior", "invert"} | {"type": "prefix_space"}]}``;
so is a tokenizer following tiktoken's rule (``"rule": "tiktoken"``: ranks with whole-word tokens
and late merges, see ``ranks``; the merges are recovered again on loading). A Picky BPE tokenizer
(``"rule": "picky"``) is written as version 3: ``"merges": []``, the tokens its events make and
remove by the end (``"removed_tokens"``, like ``vocab``, ids after the vocab's), and its events
(``"event_fields": ["kind", "token", "parts"]``, ``"events": [["merge", left, right, new], ["remove",
token, [part, ...]], ...]`` by id, in training order). Every other tokenizer is still written as
version 1, which older bpe_core releases read.

A token is written as ``text`` when its bytes are valid UTF-8, else as ``hex``, so any bytes survive.
Loading checks everything and reports problems as ``ValueError`` naming the file and the place.

This module turns the format into plain data and back (the ``Tokenizer`` keyword arguments), so the
``Tokenizer`` can use it for ``save``/``load`` without an import cycle; it knows no other format
(see ``formats``). Reading, parsing and atomic writing are ``safe_io``'s: every format reads its
files with ``read_tokenizer_file`` (regular files up to 100 MB), JSON nested too deeply is a
``ValueError``, and ``write_atomic`` (used by ``Tokenizer.save``) follows ``safe_io``'s targets rule.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import Any, TypeGuard

from bpe_core.bpe.token_ids import MAX_TOKEN_ID
from bpe_core.errors import BpeError
from bpe_core.pretokenization.stages import Pipeline
from bpe_core.safe_io import TOKENIZER_FILE_LIMIT, json_value, read_limited

FORMAT = "bpe_core.tokenizer"
#: The newest version this module reads; it writes 1 unless the tokenizer needs 2 (a ``Pipeline``,
#: tiktoken's rule) or 3 (Picky BPE's events).
VERSION = 3
MERGE_FIELDS = ["left", "right", "id", "count"]
EVENT_FIELDS = ["kind", "token", "parts"]
#: Token ids in the file (vocab and special tokens) are below this: the ids any ``Tokenizer`` may have
#: (``token_ids.MAX_TOKEN_ID``, tiktoken's uint32), so every tokenizer saved loads again. Training
#: uses far fewer (``training.engine.MAX_VOCAB_SIZE``), but imported tokenizers may have sparse large ids.
ID_LIMIT = MAX_TOKEN_ID + 1
#: Merge counts and corpus statistics are below this, so tables and charts can hold them as int64.
COUNT_LIMIT = 1 << 63


def _token_entry(token_id: int, token: bytes) -> dict[str, Any]:
    try:
        return {"id": token_id, "text": token.decode("utf-8")}
    except UnicodeDecodeError:
        return {"id": token_id, "hex": token.hex()}


def dumps(
    *,
    name: str,
    pattern: str | Pipeline | None,
    pattern_name: str | None,
    special_tokens: dict[str, int],
    vocab: dict[int, bytes],
    merges: list[tuple[int, int, int, int | None]],
    training: dict | None,
    rule: str = "bpe",
    events: list[tuple[str, bytes, tuple[bytes, ...]]] | None = None,
) -> str:
    """The file's text; ``merges`` are (left id, right id, new id, count) in rank order; ``events``
    are a Picky BPE tokenizer's (``rule="picky"``)."""
    staged = isinstance(pattern, Pipeline)
    document = {
        "format": FORMAT,
        "version": 3 if rule == "picky" else 2 if staged or rule != "bpe" else 1,
        "name": name,
        "pattern": None if staged else pattern,
        "pattern_name": pattern_name,
        **({"pretokenizer": pattern.to_dict()} if isinstance(pattern, Pipeline) else {}),
        "special_tokens": special_tokens,
        "vocab": [_token_entry(i, token) for i, token in sorted(vocab.items())],
        "merge_fields": MERGE_FIELDS,
        "merges": [list(record) for record in merges],
        "training": training or None,
        **({"rule": rule} if rule != "bpe" else {}),
        **(_event_fields(vocab, events or []) if rule == "picky" else {}),
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def _event_fields(vocab: dict[int, bytes], events: list[tuple[str, bytes, tuple[bytes, ...]]]) -> dict[str, Any]:
    """``removed_tokens`` (made by the events, absent from ``vocab``, numbered after it in the order
    first made) and ``events`` by id."""
    ids = {token: token_id for token_id, token in vocab.items()}
    removed: list[dict[str, Any]] = []
    next_id = max(vocab, default=-1) + 1
    for _, token, _ in events:
        if token not in ids:
            ids[token] = next_id
            removed.append(_token_entry(next_id, token))
            next_id += 1
    rows = [
        [kind, ids[parts[0]], ids[parts[1]], ids[token]]
        if kind == "merge"
        else [kind, ids[token], [ids[part] for part in parts]]
        for kind, token, parts in events
    ]
    return {"removed_tokens": removed, "event_fields": EVENT_FIELDS, "events": rows}


class _Problem(BpeError):
    pass


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise _Problem(message)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: object) -> bool:
    return _is_int(value) and 0 <= value < ID_LIMIT


def _is_count(value: object) -> bool:
    return _is_int(value) and 0 <= value < COUNT_LIMIT


def from_dict(data: Any) -> dict[str, Any]:
    """The ``Tokenizer`` keyword arguments in the JSON form, every field checked."""
    _require(isinstance(data, dict), "the top level must be a JSON object")
    _require(
        data.get("format") == FORMAT,
        f"'format' is {data.get('format')!r}, expected {FORMAT!r}: not a bpe_core tokenizer file "
        "(for Hugging Face tokenizer.json, GPT-2 vocab.json/merges.txt or .tiktoken files use the import functions)",
    )
    version = data.get("version")
    _require(_is_int(version) and version >= 1, f"'version' must be a whole number from 1, got {version!r}")
    _require(version <= VERSION, f"version {version} was written by a newer bpe_core; upgrade bpe_core to read it")
    for key in ("vocab", "merges", "special_tokens"):
        _require(key in data, f"the key {key!r} is missing")
    vocab = _read_vocab(data["vocab"])
    specials = data["special_tokens"]
    _require(isinstance(specials, dict), "'special_tokens' must be an object {token: id}")
    for token, token_id in specials.items():
        _require(_is_id(token_id), f"special token {token!r}: the id must be a whole number below {ID_LIMIT:,}")
    fields = data.get("merge_fields", MERGE_FIELDS)
    _require(fields == MERGE_FIELDS, f"'merge_fields' must be {MERGE_FIELDS}, got {fields!r}")
    merges, merge_counts = _read_merges(data["merges"], vocab)
    counts: list[int | None] | None = merge_counts
    pattern = data.get("pattern")
    _require(pattern is None or isinstance(pattern, str), "'pattern' must be a string or null")
    if version >= 2 and data.get("pretokenizer") is not None:
        _require(pattern is None, "a file with a 'pretokenizer' must have 'pattern': null")
        try:
            pattern = Pipeline.from_dict(data["pretokenizer"])
        except (TypeError, ValueError) as exc:
            raise _Problem(f"'pretokenizer': {exc}") from None
    training = _read_training(data.get("training") or None)
    rule = data.get("rule", "bpe")
    _require(rule in ("bpe", "tiktoken", "picky"), f"'rule' must be 'bpe', 'tiktoken' or 'picky', got {rule!r}")
    name = data.get("name", "tokenizer")
    _require(isinstance(name, str), "'name' must be a string")
    events = None
    if rule == "picky":
        _require(version >= 3 and not merges, "a Picky BPE file (rule 'picky') is version 3 and has 'merges': []")
        events, counts = _read_events(data, vocab), None
    return {
        "vocab": vocab,
        "merges": merges,
        "special_tokens": specials,
        "pattern": pattern,
        "name": name,
        "merge_counts": counts,
        "training": training,
        "rule": rule,
        "events": events,
    }


def _read_events(data: dict, vocab: dict[int, bytes]) -> list[tuple[str, bytes, tuple[bytes, ...]]]:
    """A Picky BPE file's events as bytes, each id in ``vocab`` or ``removed_tokens`` (which share no
    id or bytes) and each token made of its parts; the order is checked by ``bpe.picky_replay``."""
    removed = _read_vocab(data.get("removed_tokens", []), "removed_tokens")
    for token_id, token in removed.items():
        _require(token_id not in vocab, f"removed token {token_id} has the id of a vocab entry")
        _require(token not in vocab.values(), f"removed token {token_id} ({token!r}) is also in the vocab")
    tokens = {**vocab, **removed}
    fields = data.get("event_fields", EVENT_FIELDS)
    _require(fields == EVENT_FIELDS, f"'event_fields' must be {EVENT_FIELDS}, got {fields!r}")
    rows = data.get("events")
    if not isinstance(rows, list):
        raise _Problem("a Picky BPE file needs an 'events' list")
    events = []
    for step, row in enumerate(rows):
        where = f"event {step}"
        _require(
            isinstance(row, list) and len(row) in (3, 4) and row[0] in ("merge", "remove"),
            f"{where} must be ['merge', left, right, new] or ['remove', token, [parts]], got {_preview(row)}",
        )
        if row[0] == "merge":
            _require(len(row) == 4, f"{where}: a merge is ['merge', left id, right id, new id]")
            part_ids, token_id = row[1:3], row[3]
        else:
            _require(
                len(row) == 3 and isinstance(row[2], list), f"{where}: a removal is ['remove', token id, [part ids]]"
            )
            part_ids, token_id = row[2], row[1]
        for value in [token_id, *part_ids]:
            _require(
                _is_int(value) and value in tokens,
                f"{where}: id {_preview(value)} is neither in 'vocab' nor in 'removed_tokens'",
            )
        parts = tuple(tokens[i] for i in part_ids)
        _require(
            b"".join(parts) == tokens[token_id], f"{where}: the parts {list(part_ids)} do not make token {token_id}"
        )
        events.append((row[0], tokens[token_id], parts))
    return events


def _read_vocab(entries: Any, what: str = "vocab") -> dict[int, bytes]:
    vocab: dict[int, bytes] = {}
    _require(isinstance(entries, list), f"'{what}' must be a list")
    for position, entry in enumerate(entries):
        where = f"{what} entry {position}"
        _require(isinstance(entry, dict), f"{where} must be an object with 'id' and 'text' or 'hex'")
        token_id = entry.get("id")
        _require(_is_id(token_id), f"{where}: 'id' must be a whole number below {ID_LIMIT:,}, got {_preview(token_id)}")
        _require(token_id not in vocab, f"{where}: id {token_id} appears twice")
        if "text" in entry:
            _require(isinstance(entry["text"], str), f"{where}: 'text' must be a string")
            vocab[token_id] = entry["text"].encode("utf-8")
        elif "hex" in entry:
            try:
                vocab[token_id] = bytes.fromhex(entry["hex"])
            except (TypeError, ValueError):
                raise _Problem(f"{where}: 'hex' is not valid hexadecimal: {entry['hex']!r}") from None
        else:
            raise _Problem(f"{where} (id {token_id}) has neither 'text' nor 'hex'")
    return vocab


def _read_merges(records: Any, vocab: dict[int, bytes]) -> tuple[list[tuple[bytes, bytes]], list[int | None]]:
    merges: list[tuple[bytes, bytes]] = []
    counts: list[int | None] = []
    _require(isinstance(records, list), "'merges' must be a list")
    for rank, record in enumerate(records):
        where = f"merge {rank}"
        _require(
            isinstance(record, list) and len(record) == 4,
            f"{where} must be [left id, right id, new id, count], got {record!r}",
        )
        left, right, new_id, count = record
        for label, value in (("left", left), ("right", right), ("new", new_id)):
            _require(_is_int(value) and value in vocab, f"{where}: {label} id {value!r} is not in the vocab")
        _require(count is None or _is_count(count), f"{where}: count must be null or an integer from 0 below 2**63")
        _require(
            vocab[new_id] == vocab[left] + vocab[right],
            f"{where}: token {new_id} is {vocab[new_id]!r}, but {left} + {right} make {vocab[left] + vocab[right]!r}",
        )
        merges.append((vocab[left], vocab[right]))
        counts.append(count)
    return merges, counts


#: What ``training`` holds, as written by ``training``, and what readers (the CLI's ``inspect``, the
#: app) rely on; other keys are kept when they are plain JSON a few levels deep.
_TRAINING_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "stop_reason": (lambda v: isinstance(v, str), "a string"),
    "merges_learned": (_is_count, "a non-negative integer"),
    "seconds": (lambda v: (_is_int(v) or isinstance(v, float)) and 0 <= v < math.inf, "a non-negative number"),
    "tokens_after_merge": (lambda v: isinstance(v, list) and all(map(_is_count, v)), "a list of non-negative integers"),
    "settings": (
        lambda v: isinstance(v, dict) and all(_is_plain(i, 1) for i in v.values()),
        "an object of strings, numbers, true/false/null or lists of them",
    ),
    "corpus": (lambda v: isinstance(v, dict) and all(map(_is_count, v.values())), "an object of non-negative integers"),
}


def _is_plain(value: Any, depth: int) -> bool:
    """A JSON scalar (finite if a number), or a list/object nesting at most ``depth`` more levels."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if depth <= 0:
        return False
    if isinstance(value, list):
        return all(_is_plain(item, depth - 1) for item in value)
    return isinstance(value, dict) and all(_is_plain(item, depth - 1) for item in value.values())


def _read_training(training: Any) -> dict[str, Any] | None:
    """The ``training`` metadata, checked where readers rely on it; None when absent."""
    if training is None:
        return None
    _require(isinstance(training, dict), "'training' must be an object or null")
    for key, value in training.items():
        check, expected = _TRAINING_CHECKS.get(key, (lambda v: _is_plain(v, 3), "plain JSON a few levels deep"))
        _require(check(value), f"'training.{key}' must be {expected}, got {_preview(value)}")
    return training


def _preview(value: Any) -> str:
    """A short description of a rejected value (it may be huge or deeply nested)."""
    if isinstance(value, (list, dict)):
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_json(text: str, *, source: str) -> Any:
    """``json_value`` with an error that names ``source`` and the place."""
    try:
        return json_value(text)
    except ValueError as exc:
        raise BpeError(f"{source} is {exc}; the file may be truncated, damaged or edited by hand") from None


def with_stored_name(raw: bytes, name: str) -> bytes:
    """A file's bytes with the name stored in it set to ``name`` (for renaming a library file without
    building the tokenizer); bytes that are not a bpe_core JSON object (a corrupt file) come back as
    they are.

    >>> with_stored_name(b'{"format": "bpe_core.tokenizer", "name": "a"}', "b")
    b'{\\n "format": "bpe_core.tokenizer",\\n "name": "b"\\n}'
    """
    try:
        document = json_value(raw.decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            return raw
        document["name"] = name
        return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")
    except (ValueError, RecursionError):  # not UTF-8, not JSON, a lone surrogate, too deep to write
        return raw


def decode_file(raw: bytes, *, source: str) -> str:
    """A tokenizer file's bytes as text; ValueError when they are not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BpeError(f"{source} is not UTF-8 text (byte offset {exc.start}): not a tokenizer file") from None


def loads(text: str, *, source: str = "<string>") -> dict[str, Any]:
    """The ``Tokenizer`` keyword arguments in JSON text; ``source`` names it in error messages.
    Problems with the parts themselves (e.g. a merge out of order) are found by the ``Tokenizer``."""
    data = parse_json(text, source=source)
    try:
        return from_dict(data)
    except (ValueError, TypeError) as exc:
        raise BpeError(f"{source} is not a valid bpe_core tokenizer: {exc}") from None


def read(path: str | os.PathLike[str]) -> str:
    """The text of a tokenizer file (``safe_io.read_limited``: a regular file of at most
    ``TOKENIZER_FILE_LIMIT`` bytes); ValueError when it cannot be read or is not UTF-8."""
    path = os.fspath(path)
    return decode_file(read_tokenizer_file(path), source=path)


def read_tokenizer_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a tokenizer file of any format: a regular file (not a folder, FIFO or device) of at
    most ``safe_io.TOKENIZER_FILE_LIMIT`` bytes, else a ``BpeError`` saying which."""
    return read_limited(path, limit=TOKENIZER_FILE_LIMIT, what="a tokenizer file")
