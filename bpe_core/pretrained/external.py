"""Tokenizers bpe_core does not run itself, run read-only through the library that implements them.

A Hugging Face ``tokenizer.json`` that is not byte-level BPE (WordPiece, Unigram, WordLevel,
SentencePiece-style BPE with byte fallback and Metaspace, or a byte-level file bpe_core refuses to
import approximately) is run by ``tokenizers``; a SentencePiece ``.model`` file by ``sentencepiece``.
Both are imported lazily (``external_backends``, which holds what runs each), so bpe_core imports
without them; a missing one is a ValueError saying what to ``pip install``. ``ExternalTokenizer``
offers the part of ``Tokenizer``'s API that measuring and displaying need (encode, decode, token
bytes, details, vocabulary size, special tokens, name), with tiktoken's
``allowed_special``/``disallowed_special`` rules; it has no merge list, so nothing that needs merges
(the merge forest, first-k merges, step through, training, exports) works on it, and
``why_no_merges`` says so.

``load_file`` / ``loads_file`` read any tokenizer file: byte-level BPE and the other bpe_core formats
become a bpe_core ``Tokenizer`` (``formats.detect``), everything else an ``ExternalTokenizer``.
This module does not store files (the app keeps its library folder) or choose what pages show.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import parse_json, read_tokenizer_file
from bpe_core.formats.detect import loads_any
from bpe_core.pretokenization.special_tokens import (
    SpecialTokens,
    allowed_and_disallowed,
    check_disallowed,
    special_token_regex,
    split_on_special_tokens,
)
from bpe_core.pretrained.external_backends import (
    INSTALL_HINTS,
    Backend,
    HuggingFaceBackend,
    SentencePieceBackend,
    byte_fallback,
)
from bpe_core.tokenizer import Tokenizer

NO_MERGES = (
    "it has no merge list bpe_core can follow, so the merge forest, first-k merges and step through need a "
    "byte-level BPE tokenizer"
)


class ExternalTokenizer:
    """A tokenizer run by the library that implements it, read-only (see the module docstring).
    Made by ``loads_file``/``load_file``; e.g. a BERT ``tokenizer.json`` gives ``kind`` "WordPiece
    (external, run by tokenizers)" and ``encode("hello")`` its WordPiece ids, no [CLS]/[SEP] added."""

    external = True
    merges: tuple = ()
    merge_records: tuple = ()
    training = None
    pattern = None

    def __init__(self, backend: Backend, *, name: str, source_bytes: bytes, suffix: str, note: str = "") -> None:
        self._backend = backend
        self.name = name
        self.source_bytes = source_bytes  # the original file, for saving it unchanged
        self.suffix = suffix  # ".json" or ".model"
        self.note = note  # why bpe_core does not run it itself
        self.special_tokens: dict[str, int] = dict(backend.specials)
        self._special_ids = {i: t for t, i in self.special_tokens.items()}
        self._special_regex = special_token_regex(self.special_tokens)

    def __repr__(self) -> str:
        return f"ExternalTokenizer(name={self.name!r}, kind={self.kind!r}, vocab_size={self.vocab_size})"

    @property
    def kind(self) -> str:
        """What the file holds and which library runs it, e.g. ``"WordPiece (external, run by tokenizers)"``."""
        return f"{self._backend.model_type} (external, run by {self._backend.library})"

    @property
    def pattern_name(self) -> str:
        """What stands where a bpe_core tokenizer names its pre-tokenization: the library runs it."""
        return f"{self._backend.model_type}'s own (external)"

    @property
    def why_no_merges(self) -> str:
        return f"{self.name} is a {self._backend.model_type} tokenizer run by {self._backend.library}: {NO_MERGES}"

    @property
    def vocab_size(self) -> int:
        """How many ids there are (as ``tokenizers``/``sentencepiece`` count them)."""
        return self._backend.vocab_size

    @property
    def n_vocab(self) -> int:
        """The largest id + 1 (tiktoken's name)."""
        return self._backend.n_vocab

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self.special_tokens)

    def is_special_token(self, token_id: int) -> bool:
        return token_id in self._special_ids

    # ------------------------------------------------------------------ encoding

    def _segments(
        self, text: str, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[str, Iterator[tuple[str, bool]]]:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        allowed, disallowed = allowed_and_disallowed(
            allowed_special, disallowed_special, specials=self.special_tokens, owner=self.name
        )
        check_disallowed(text, disallowed)
        text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates, as Tokenizer.encode
        return text, split_on_special_tokens(text, special_token_regex(allowed))

    def encode_with_details(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> list[TokenInfo]:
        """``TokenInfo`` per token, spans from the library's offsets (tokens of one character share it)."""
        text, segments = self._segments(text, allowed_special, disallowed_special)
        out: list[TokenInfo] = []
        position = 0
        for segment, special in segments:
            if special:
                token_id = self.special_tokens[segment]
                end = position + len(segment)
                out.append(TokenInfo(token_id, segment.encode("utf-8"), position, end, False, True))
            else:
                out.extend(self._details(segment, position))
            position += len(segment)
        return out

    def _details(self, segment: str, offset: int) -> list[TokenInfo]:
        ids, spans = self._backend.encode(segment)
        infos = []
        for token_id, (start, end) in zip(ids, spans, strict=True):
            token = self.decode_single_token_bytes(token_id)
            fallback = byte_fallback(self._backend.piece(token_id) or "")
            partial = fallback is not None and fallback[0] >= 0x80  # one byte of a longer UTF-8 character
            if partial and end <= start < len(segment):
                end = start + 1  # the character this byte belongs to
            infos.append(TokenInfo(token_id, token, offset + start, offset + end, partial, False))
        return infos

    def encode(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> list[int]:
        """The ids of ``text`` as the library gives them (no BOS/EOS added), specials by tiktoken's rules."""
        text, segments = self._segments(text, allowed_special, disallowed_special)
        ids: list[int] = []
        for segment, special in segments:
            ids.extend([self.special_tokens[segment]] if special else self._backend.encode(segment)[0])
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        return self.encode(text, disallowed_special=())

    def encode_batch(self, text: Sequence[str], **kwargs: Any) -> list[list[int]]:
        return [self.encode(t, **kwargs) for t in text]

    def encode_ordinary_batch(self, text: Sequence[str], **_: Any) -> list[list[int]]:
        return [self.encode_ordinary(t) for t in text]

    # ------------------------------------------------------------------ decoding

    def _check_id(self, token_id: Any, position: int | None = None) -> int:
        if isinstance(token_id, bool) or not hasattr(token_id, "__index__"):
            raise TypeError(f"token id {token_id!r} is not an integer")
        token_id = int(token_id)
        if token_id < 0 or self._backend.piece(token_id) is None:
            where = "" if position is None else f" at position {position}"
            raise BpeError(f"unknown token id {token_id}{where}: {self.name} has ids 0..{self.n_vocab - 1}")
        return token_id

    def token_text(self, token_id: int) -> str:
        """The token as the library writes it (``##ing``, ``▁the``, ``<0xE3>``)."""
        checked = self._check_id(token_id)
        piece = self._backend.piece(checked)
        if piece is None:  # _check_id found one: only a library that changed its mind gets here
            raise BpeError(f"unknown token id {checked}: {self.name} has ids 0..{self.n_vocab - 1}")
        return piece

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The token's text as UTF-8; a byte-fallback token (``<0xE3>``) is its byte."""
        piece = self.token_text(token_id)
        fallback = byte_fallback(piece)
        return fallback if fallback is not None else piece.encode("utf-8")

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """The library's own decoding (it joins WordPiece's ``##``, turns ``▁`` back into spaces, ...)."""
        ids = [self._check_id(t, i) for i, t in enumerate(tokens)]
        return self._backend.decode(ids)

    def merge_rank_of(self, _token_id: int) -> None:
        """Always None: an external tokenizer has no merges."""
        return None

    def show(self, text: str, **options: Any) -> Any:
        """``text`` as this tokenizer cuts it, drawn as ``Tokenizer.show`` draws it (a token strip in
        Jupyter and VS Code, text in a terminal; ``bpe_core.display.view.show``'s options)."""
        from bpe_core.display.view import show  # on first use, as Tokenizer.show

        return show(self, text, **options)


# ------------------------------------------------------------------ reading files


def _name_of(source: str) -> str:
    """A name from the file's path: its stem, or its folder's name for ``tokenizer.json``/``.model``.

    >>> _name_of("models/bert-base/tokenizer.json"), _name_of("t5.model")
    ('bert-base', 't5')
    """
    path = Path(source)
    stem = path.name
    for suffix in (".json", ".model", ".tiktoken"):
        stem = stem.removesuffix(suffix)
    if stem in ("tokenizer", "spiece", "sentencepiece") and path.parent.name not in ("", "."):
        return path.parent.name
    return stem or "tokenizer"


def _sentencepiece(raw: bytes, *, source: str, name: str) -> ExternalTokenizer:
    return ExternalTokenizer(
        SentencePieceBackend(raw, source=source),
        name=name,
        source_bytes=raw,
        suffix=".model",
        note="a SentencePiece model file, run by sentencepiece",
    )


def loads_file(raw: bytes, *, source: str = "<upload>", name: str | None = None) -> Tokenizer | ExternalTokenizer:
    """A tokenizer from a file's bytes: a bpe_core ``Tokenizer`` for bpe_core JSON, byte-level BPE
    ``tokenizer.json`` and ``.tiktoken`` files; an ``ExternalTokenizer`` for other ``tokenizer.json``
    files (via ``tokenizers``) and SentencePiece ``.model`` files (via ``sentencepiece``). ValueError
    naming what is wrong otherwise."""
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"raw must be the file's bytes, not {type(raw).__name__}")
    raw = bytes(raw)
    name = name or _name_of(source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # binary: only a SentencePiece model is expected here
        if source.endswith((".json", ".tiktoken")):
            raise BpeError(
                f"{source} is not UTF-8 text (byte {exc.start}), so not a {Path(source).suffix} tokenizer file"
            ) from None
        return _sentencepiece(raw, source=source, name=name)
    try:
        return loads_any(raw, source=source)
    except ValueError as refused:
        if not text.lstrip().startswith("{"):
            raise
        data = parse_json(text, source=source)
        if not (isinstance(data, dict) and isinstance(data.get("model"), dict)):
            raise
        backend = HuggingFaceBackend(text, source=source)
        reason = str(refused).removeprefix(f"{source}: ")
        return ExternalTokenizer(
            backend, name=name, source_bytes=raw, suffix=".json", note=f"not imported into bpe_core: {reason}"
        )


def load_file(path: str | os.PathLike[str]) -> Tokenizer | ExternalTokenizer:
    """``loads_file`` for a file on disk (``read_tokenizer_file``: a regular file up to 100 MB)."""
    path = os.fspath(path)
    return loads_file(read_tokenizer_file(path), source=path)


def load_external_file(path: str | os.PathLike[str]) -> ExternalTokenizer:
    """The file at ``path`` run by the library that implements it, whatever bpe_core could do with it:
    a ``tokenizer.json`` by ``tokenizers``, anything else that is not UTF-8 text as a SentencePiece model."""
    path = os.fspath(path)
    raw = read_tokenizer_file(path)
    name = _name_of(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _sentencepiece(raw, source=path, name=name)
    data = parse_json(text, source=path) if text.lstrip().startswith("{") else None
    if not (isinstance(data, dict) and isinstance(data.get("model"), dict)):
        raise BpeError(
            f"{path} is neither a Hugging Face tokenizer.json nor a SentencePiece model: "
            "bpe_core.load reads bpe_core's own JSON and .tiktoken files"
        )
    return ExternalTokenizer(
        HuggingFaceBackend(text, source=path),
        name=name,
        source_bytes=raw,
        suffix=".json",
        note="run read-only by tokenizers, as asked",
    )


def is_external(tokenizer: object) -> bool:
    """Whether ``tokenizer`` is run by another library (and so has no merges to explore)."""
    return bool(getattr(tokenizer, "external", False))


__all__ = [
    "INSTALL_HINTS",
    "NO_MERGES",
    "ExternalTokenizer",
    "is_external",
    "load_external_file",
    "load_file",
    "loads_file",
]
