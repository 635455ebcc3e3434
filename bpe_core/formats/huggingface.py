"""Hugging Face ``tokenizer.json`` for byte-level BPE: writing one that HF ``tokenizers`` loads with the
same ids, and reading GPT-2-style ones (a Split and/or ByteLevel pre-tokenizer, BPE model)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..pretokenize import PRESETS, preset_name
from ..tokenizer import Tokenizer
from .bytelevel import bytes_to_printable, printable_to_bytes
from .gpt2_files import parse_encoder


# A possessive interval such as `\p{N}{1,3}+` (cl100k's digit rule) means "1 to 3 digits, no
# backtracking" to `regex` and tiktoken, but "one or more groups of 1 to 3 digits" to Oniguruma, the
# engine HF tokenizers uses. An atomic group says the same thing in every engine.
_POSSESSIVE_INTERVAL = re.compile(r"(\\[pP]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\]|[^\\()\[\]{}|])(\{\d+(?:,\d*)?\})\+")


def oniguruma_pattern(source: str) -> str:
    """``source`` rewritten for Oniguruma (HF tokenizers): possessive intervals become atomic groups."""
    return _POSSESSIVE_INTERVAL.sub(r"(?>\1\2)", source)


def to_huggingface_dict(tokenizer: Tokenizer) -> dict[str, Any]:
    """The ``tokenizer.json`` form: BPE model over GPT-2's byte alphabet, the pattern as a Split
    pre-tokenizer followed by ByteLevel, special tokens as added tokens."""
    special_ids = set(tokenizer.special_tokens.values())
    pre_tokenizers: list[dict[str, Any]] = []
    source = tokenizer.pretokenizer.full_source
    if source is not None:
        pre_tokenizers.append(
            {"type": "Split", "pattern": {"Regex": oniguruma_pattern(source)}, "behavior": "Isolated", "invert": False}
        )
    pre_tokenizers.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": token_id,
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre_tokenizers},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            # Special tokens are in the model's vocab under their own text, so that HF gives the
            # added tokens these ids instead of appending new ones.
            "vocab": {
                **{
                    bytes_to_printable(token): token_id
                    for token_id, token in sorted(tokenizer.vocab.items())
                    if token_id not in special_ids
                },
                **tokenizer.special_tokens,
            },
            "merges": [[bytes_to_printable(a), bytes_to_printable(b)] for a, b in tokenizer.merges],
        },
    }


def save_huggingface(tokenizer: Tokenizer, path: str | os.PathLike) -> None:
    """Write ``to_huggingface_dict`` as a ``tokenizer.json`` file."""
    Path(path).write_text(json.dumps(to_huggingface_dict(tokenizer), ensure_ascii=False), encoding="utf-8")


def _find_split_regex(node: Any) -> tuple[str | None, bool]:
    """(regex of a Split pre-tokenizer, whether a ByteLevel with use_regex=True is present)."""
    if not isinstance(node, dict):
        return None, False
    kind = node.get("type")
    if kind == "Sequence":
        regex_source, byte_level_regex = None, False
        for child in node.get("pretokenizers", []):
            found, uses = _find_split_regex(child)
            regex_source = regex_source or found
            byte_level_regex = byte_level_regex or uses
        return regex_source, byte_level_regex
    if kind == "Split":
        pattern = node.get("pattern", {})
        return (pattern.get("Regex") if isinstance(pattern, dict) else None), False
    if kind == "ByteLevel":
        return None, bool(node.get("use_regex", True))
    return None, False


def from_huggingface_dict(data: Any, *, name: str = "huggingface") -> Tokenizer:
    """Import a byte-level BPE ``tokenizer.json`` (GPT-2 style, or one written by ``save_huggingface``)."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a Hugging Face tokenizer.json: the 'model' object is missing")
    model = data["model"]
    if model.get("type", "BPE") != "BPE":
        raise ValueError(f"only BPE models can be imported, this one is {model.get('type')!r}")
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges"), list):
        raise ValueError("the BPE model needs a 'vocab' object and a 'merges' list")
    added = [t for t in data.get("added_tokens") or [] if isinstance(t, dict)]
    specials = {t["content"]: t["id"] for t in added if "content" in t and "id" in t}
    encoder = {text: token_id for text, token_id in model["vocab"].items() if text not in specials}
    vocab = parse_encoder(encoder, what="tokenizer.json vocab")
    merges = []
    for rank, merge in enumerate(model["merges"]):
        if isinstance(merge, str):
            merge = merge.split(" ")
        if not isinstance(merge, list) or len(merge) != 2:
            raise ValueError(f"tokenizer.json merge {rank} must be two tokens, got {merge!r}")
        merges.append(tuple(printable_to_bytes(part, what=f"merge {rank}") for part in merge))
    regex_source, byte_level_regex = _find_split_regex(data.get("pre_tokenizer"))
    if regex_source is not None:
        suffix = r"|[\s\S]"
        if regex_source.startswith("(?:") and regex_source.endswith(")" + suffix):
            regex_source = regex_source[3 : -len(suffix) - 1]
        exported_presets = {oniguruma_pattern(source): name for name, source in PRESETS.items()}
        pattern: str | None = preset_name(regex_source) or exported_presets.get(regex_source) or regex_source
    elif byte_level_regex:
        pattern = "gpt2"
    else:
        pattern = None
    return Tokenizer(vocab, merges, special_tokens=specials, pattern=pattern, name=name)


def load_huggingface(path: str | os.PathLike) -> Tokenizer:
    """Read a byte-level BPE ``tokenizer.json``; ValueError saying what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(path)} as tokenizer.json: {exc}") from None
    try:
        return from_huggingface_dict(data, name=Path(path).stem)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{os.fspath(path)}: {exc}") from None
