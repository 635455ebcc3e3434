"""bpe_core's own tokenizer file: versioned, human-readable, lossless JSON.

Layout (version 1)::

    {"format": "bpe_core.tokenizer", "version": 1, "name": ..., "pattern": regex or null,
     "pattern_name": "gpt2" | "cl100k" | "o200k" | null,   # informative; "pattern" is what is used
     "special_tokens": {"<|endoftext|>": 256},
     "vocab": [{"id": 97, "text": "a"}, {"id": 128, "hex": "80"}, ...],
     "merge_fields": ["left", "right", "id", "count"],
     "merges": [[97, 98, 257, 9], ...],          # rank order
     "training": {...settings, corpus statistics...} | null}

A token is written as ``text`` when its bytes are valid UTF-8, else as ``hex``, so any bytes survive.
Loading checks everything and reports problems as ``ValueError`` naming the file and the place.

This module turns the format into plain data and back (the ``Tokenizer`` keyword arguments), so the
``Tokenizer`` can use it for ``save``/``load`` without an import cycle; it knows no other format
(see ``formats``).
"""

from __future__ import annotations

import json
import os
from typing import Any

FORMAT = "bpe_core.tokenizer"
VERSION = 1
MERGE_FIELDS = ["left", "right", "id", "count"]


def _token_entry(token_id: int, token: bytes) -> dict[str, Any]:
    try:
        return {"id": token_id, "text": token.decode("utf-8")}
    except UnicodeDecodeError:
        return {"id": token_id, "hex": token.hex()}


def dumps(
    *,
    name: str,
    pattern: str | None,
    pattern_name: str | None,
    special_tokens: dict[str, int],
    vocab: dict[int, bytes],
    merges: list[tuple[int, int, int, int | None]],
    training: dict | None,
) -> str:
    """The file's text; ``merges`` are (left id, right id, new id, count) in rank order."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "pattern": pattern,
        "pattern_name": pattern_name,
        "special_tokens": special_tokens,
        "vocab": [_token_entry(i, token) for i, token in sorted(vocab.items())],
        "merge_fields": MERGE_FIELDS,
        "merges": [list(record) for record in merges],
        "training": training or None,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def write_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a crash never leaves a half-written file)."""
    path = os.fspath(path)
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


class _Problem(ValueError):
    pass


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise _Problem(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def from_dict(data: Any) -> dict[str, Any]:
    """The ``Tokenizer`` keyword arguments in the JSON form, every field checked."""
    _require(isinstance(data, dict), "the top level must be a JSON object")
    _require(
        data.get("format") == FORMAT,
        f"'format' is {data.get('format')!r}, expected {FORMAT!r}: not a bpe_core tokenizer file "
        "(for Hugging Face tokenizer.json, GPT-2 vocab.json/merges.txt or .tiktoken files use the import functions)",
    )
    version = data.get("version")
    _require(_is_int(version), f"'version' must be an integer, got {version!r}")
    _require(version <= VERSION, f"version {version} was written by a newer bpe_core; upgrade bpe_core to read it")
    for key in ("vocab", "merges", "special_tokens"):
        _require(key in data, f"the key {key!r} is missing")
    vocab = _read_vocab(data["vocab"])
    specials = data["special_tokens"]
    _require(isinstance(specials, dict), "'special_tokens' must be an object {token: id}")
    fields = data.get("merge_fields", MERGE_FIELDS)
    _require(fields == MERGE_FIELDS, f"'merge_fields' must be {MERGE_FIELDS}, got {fields!r}")
    merges, counts = _read_merges(data["merges"], vocab)
    pattern = data.get("pattern")
    _require(pattern is None or isinstance(pattern, str), "'pattern' must be a string or null")
    training = data.get("training") or None
    _require(training is None or isinstance(training, dict), "'training' must be an object or null")
    name = data.get("name", "tokenizer")
    _require(isinstance(name, str), "'name' must be a string")
    return {
        "vocab": vocab,
        "merges": merges,
        "special_tokens": specials,
        "pattern": pattern,
        "name": name,
        "merge_counts": counts,
        "training": training,
    }


def _read_vocab(entries: Any) -> dict[int, bytes]:
    vocab: dict[int, bytes] = {}
    _require(isinstance(entries, list), "'vocab' must be a list")
    for position, entry in enumerate(entries):
        where = f"vocab entry {position}"
        _require(isinstance(entry, dict), f"{where} must be an object with 'id' and 'text' or 'hex'")
        token_id = entry.get("id")
        _require(_is_int(token_id) and token_id >= 0, f"{where}: 'id' must be a non-negative integer")
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
        _require(count is None or _is_int(count), f"{where}: count must be an integer or null")
        _require(
            vocab[new_id] == vocab[left] + vocab[right],
            f"{where}: token {new_id} is {vocab[new_id]!r}, but {left} + {right} make "
            f"{vocab[left] + vocab[right]!r}",
        )
        merges.append((vocab[left], vocab[right]))
        counts.append(count)
    return merges, counts


def parse_json(text: str, *, source: str) -> Any:
    """``json.loads`` with an error that names ``source`` and the place."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "the file may be truncated or edited by hand"
        ) from None


def decode_file(raw: bytes, *, source: str) -> str:
    """A tokenizer file's bytes as text; ValueError when they are not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text (byte offset {exc.start}): not a tokenizer file") from None


def loads(text: str, *, source: str = "<string>") -> dict[str, Any]:
    """The ``Tokenizer`` keyword arguments in JSON text; ``source`` names it in error messages.
    Problems with the parts themselves (e.g. a merge out of order) are found by the ``Tokenizer``."""
    data = parse_json(text, source=source)
    try:
        return from_dict(data)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{source} is not a valid bpe_core tokenizer: {exc}") from None


def read(path: str | os.PathLike) -> str:
    """The text of a tokenizer file; ValueError when it cannot be read or is not UTF-8."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise ValueError(f"cannot read tokenizer file {path}: {exc.strerror}") from None
    return decode_file(raw, source=path)
