"""GPT-2's own files: ``vocab.json`` (printable token -> id) and ``merges.txt`` (one merge a line),
both in GPT-2's byte alphabet (see ``bytelevel``). Reading checks every entry."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import read_tokenizer_file
from bpe_core.formats.bytelevel import bytes_to_printable, printable_pairs, printable_to_bytes, printable_tokens
from bpe_core.safe_io import json_value, write_files_atomic
from bpe_core.tokenizer import Tokenizer

#: Why no rank-based file (GPT-2's, Hugging Face's tokenizer.json, .tiktoken) can hold a Picky BPE tokenizer.
PICKY_REFUSED = (
    "Picky BPE removes tokens during training and encodes by replaying merges and removals; Hugging Face's "
    "BPE model (and GPT-2's and tiktoken's files) only merge by rank, so no such file gives the same tokens. "
    "Save it with Tokenizer.save (bpe_core's JSON)"
)


def refuse_picky(tokenizer: Tokenizer, what: str) -> None:
    """A ``BpeError`` when ``tokenizer`` is a Picky BPE tokenizer, which ``what`` (a file made of ranked
    merges) cannot hold; shared by the writers of this module, ``huggingface`` and ``tiktoken_file``."""
    if tokenizer.rule == "picky":
        raise BpeError(f"cannot write {tokenizer.name!r} as {what}: {PICKY_REFUSED}")


def parse_encoder(encoder: Any, *, what: str) -> dict[int, bytes]:
    """id -> bytes from a ``{printable token: id}`` object; ``what`` names it in errors."""
    if not isinstance(encoder, dict):
        raise BpeError(f"{what} must be a JSON object {{token: id}}")
    ids = list(encoder.values())
    if set(map(type, ids)) <= {int} and len(set(ids)) == len(ids):  # every entry at once, when all are fine
        tokens = printable_tokens(list(encoder))
        if tokens is not None:
            return dict(zip(ids, tokens, strict=True))
    vocab: dict[int, bytes] = {}
    for text, token_id in encoder.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise BpeError(f"{what}: the id of {text!r} is {token_id!r}, not an integer")
        if token_id in vocab:
            raise BpeError(f"{what}: id {token_id} is used twice")
        vocab[token_id] = printable_to_bytes(text, what=f"{what} token")
    return vocab


def parse_merges_txt(text: str, *, what: str) -> list[tuple[bytes, bytes]]:
    """The merges of a ``merges.txt`` text (an optional ``#version`` line, then ``left right`` lines)."""
    lines = text.split("\n")
    lines = list(filter(str.strip, lines[1:] if lines[0].startswith("#version") else lines))
    pairs = printable_pairs(lines)  # every line at once, when all are fine
    if pairs is not None:
        return pairs
    merges = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise BpeError(f"{what} line {number}: expected two tokens separated by a space, got {line!r}")
        where = f"{what} line {number}"
        merges.append((printable_to_bytes(parts[0], what=where), printable_to_bytes(parts[1], what=where)))
    return merges


def save_gpt2_files(tokenizer: Tokenizer, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write ``vocab.json`` (printable token -> id, specials included) and ``merges.txt`` into
    ``directory`` (created if missing), both or neither (``safe_io.write_files_atomic``: regular files
    or new names, never through a symbolic link). A folder created here is removed again when the
    files cannot be written. ``BpeError`` naming the file that could not be written; a Picky BPE
    tokenizer is refused (``refuse_picky``)."""
    refuse_picky(tokenizer, "GPT-2's vocab.json and merges.txt")
    directory = Path(directory)
    special_ids = {i: t for t, i in tokenizer.special_tokens.items()}
    encoder = {
        (special_ids[i] if i in special_ids else bytes_to_printable(token)): i
        for i, token in sorted(tokenizer.vocab.items())
    }
    vocab_path = directory / "vocab.json"
    merges_path = directory / "merges.txt"
    lines = ["#version: 0.2"] + [f"{bytes_to_printable(a)} {bytes_to_printable(b)}" for a, b in tokenizer.merges]
    created = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BpeError(f"cannot create the folder {directory}: {exc.strerror or exc}") from None
    try:
        write_files_atomic(
            {str(vocab_path): json.dumps(encoder, ensure_ascii=False), str(merges_path): "\n".join(lines) + "\n"}
        )
    except BaseException:
        if created:
            try:
                directory.rmdir()  # only if still empty
            except OSError:
                pass
        raise
    return vocab_path, merges_path


def load_gpt2_files(
    vocab_json: str | os.PathLike[str],
    merges_txt: str | os.PathLike[str],
    *,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = ("<|endoftext|>",),
    name: str | None = None,
) -> Tokenizer:
    """Read GPT-2 style files. Special tokens present in ``vocab.json`` keep their ids."""
    vocab_raw, merges_raw = read_tokenizer_file(vocab_json), read_tokenizer_file(merges_txt)
    try:
        encoder = json_value(vocab_raw.decode("utf-8"))
        merges_text = merges_raw.decode("utf-8")
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: not JSON, or nested too deeply
        raise BpeError(f"cannot read GPT-2 vocab/merges files: {exc}") from None
    if not isinstance(encoder, dict):
        raise BpeError(f"{vocab_json} must hold a JSON object {{token: id}}")
    specials = {t: encoder.pop(t) for t in special_tokens if t in encoder}
    vocab = parse_encoder(encoder, what=str(vocab_json))
    merges = parse_merges_txt(merges_text, what=str(merges_txt))
    name = name or Path(vocab_json).parent.name or "gpt2-files"
    return Tokenizer(vocab, merges, special_tokens=specials, pattern=pattern, name=name)
