"""An extended tokenizer's files, as the command line and the workbench's Extend page write them:
bpe_core JSON (lossless), Hugging Face ``tokenizer.json`` and ``.tiktoken`` ranks.

When the base was read from a ``tokenizer.json`` (a file the user named, or a built-in that ships as
one: DeepSeek V3 and V4), the ``tokenizer.json`` is that file with the new tokens and merges added to its
BPE model and nothing else changed (``formats.huggingface_extension.extended_tokenizer_json``), so the
model's normalizer, pre-tokenizer, post-processor and added tokens stay its own; otherwise it is
bpe_core's own export (``formats.huggingface.to_huggingface_dict``). A format a tokenizer cannot be
written in is its reason instead of its data. This module trains and measures nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bpe_core.errors import BpeError
from bpe_core.formats import huggingface, tiktoken_file
from bpe_core.formats.bpe_json import read_tokenizer_file
from bpe_core.formats.huggingface_extension import extended_tokenizer_json
from bpe_core.pretrained import catalogue
from bpe_core.safe_io import json_value
from bpe_core.tokenizer import Tokenizer

#: The formats, in the order they are offered: name -> what the file is.
FORMATS = {
    "bpe_core": "bpe_core JSON (lossless: merges, counts, the training record)",
    "huggingface": "Hugging Face tokenizer.json",
    "tiktoken": ".tiktoken ranks (the pattern and special tokens are not in the format)",
}


def base_tokenizer_json(spec: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The parsed ``tokenizer.json`` the base named ``spec`` (a built-in name or a file path) was read
    from, or None when it was not read from one (GPT-2's files, ``.tiktoken`` ranks, bpe_core JSON)."""
    name = os.fspath(spec)
    if name in catalogue.BUILTINS:
        if not catalogue.BUILTINS[name].path[-1].startswith("tokenizer.json"):
            return None
        return json.loads(catalogue.builtin_file(name))
    if not Path(name).is_file():
        return None
    try:
        data = json_value(read_tokenizer_file(name).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("model"), dict) and "format" not in data else None


def extension_file(fmt: str, base: Tokenizer, extended: Tokenizer, *, base_json: dict[str, Any] | None = None) -> str:
    """``extended`` as the text of one format of ``FORMATS``; ``base_json`` is the base's own
    ``tokenizer.json`` (``base_tokenizer_json``), kept in the ``huggingface`` file when given. A
    ``BpeError`` saying why when the format cannot hold this tokenizer."""
    if fmt == "bpe_core":
        return extended.to_json()
    if fmt == "huggingface":
        if base_json is not None and extended.rule == "bpe":
            data = extended_tokenizer_json(base_json, base, extended)
        else:
            data = huggingface.to_huggingface_dict(extended)
        return json.dumps(data, ensure_ascii=False)
    if fmt == "tiktoken":
        return tiktoken_file.dumps_tiktoken(extended)
    raise BpeError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")


def extension_files(
    base: Tokenizer, extended: Tokenizer, *, base_json: dict[str, Any] | None = None
) -> dict[str, tuple[str | None, str]]:
    """Every format of ``FORMATS``: format -> (its text, what it is), or (None, why it cannot be written)."""
    found: dict[str, tuple[str | None, str]] = {}
    for fmt, about in FORMATS.items():
        try:
            text = extension_file(fmt, base, extended, base_json=base_json)
        except ValueError as exc:
            found[fmt] = (None, str(exc))
            continue
        kept = fmt == "huggingface" and base_json is not None and extended.rule == "bpe"
        found[fmt] = (text, about + (": the base's own file, with the new tokens added" if kept else ""))
    return found
