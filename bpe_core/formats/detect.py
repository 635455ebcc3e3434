"""Loading a tokenizer file of any supported kind, recognised by its content: bpe_core JSON, Hugging
Face ``tokenizer.json``, or a ``.tiktoken`` rank file. Each format's reading is its own module's."""

from __future__ import annotations

import os
from pathlib import Path

from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import decode_file, parse_json, read_tokenizer_file
from bpe_core.formats.huggingface import from_huggingface_dict
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.tokenizer import Tokenizer


def load_any(path: str | os.PathLike[str], *, pattern: str | None = "gpt2") -> Tokenizer:
    """Load a tokenizer file of any supported kind, recognised by its content: bpe_core JSON,
    Hugging Face ``tokenizer.json``, or a ``.tiktoken`` rank file (which gets ``pattern``)."""
    path = os.fspath(path)
    return loads_any(read_tokenizer_file(path), source=path, pattern=pattern)


def loads_any(raw: bytes, *, source: str = "<upload>", pattern: str | None = "gpt2") -> Tokenizer:
    """Like ``load_any`` for file content already in memory (e.g. an upload)."""
    text = decode_file(raw, source=source)
    stripped = text.lstrip()
    stem = Path(source).stem or "tokenizer"
    if stripped.startswith("{"):
        data = parse_json(text, source=source)
        if isinstance(data, dict) and "model" in data and "format" not in data:
            try:
                return from_huggingface_dict(data, name=stem)
            except (ValueError, TypeError) as exc:
                raise BpeError(f"{source}: {exc}") from None
        return Tokenizer.from_json(text, source=source)
    try:
        ranks = parse_tiktoken_ranks(text, what=source)
    except ValueError as exc:
        raise BpeError(f"{source} is neither a bpe_core/Hugging Face JSON file nor a .tiktoken file ({exc})") from None
    if not ranks:
        raise BpeError(f"{source} is empty: not a tokenizer file")
    return Tokenizer.from_ranks(ranks, pattern=pattern, name=stem)
