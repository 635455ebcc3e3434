"""The two libraries that run the tokenizer files bpe_core does not run itself, behind one small
interface (``Backend``): ``HuggingFaceBackend`` (``tokenizers``, for a ``tokenizer.json``) and
``SentencePieceBackend`` (``sentencepiece``, for a ``.model`` file). Each is imported only when a file
needs it; a missing one is a ``BpeError`` saying what to ``pip install`` (``require``), and whatever a
library raises becomes a ``BpeError`` naming the file (``guarded``).

``external.ExternalTokenizer`` offers tiktoken's surface over a backend; this module knows nothing of
special-token rules or of which file is which.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol, TypeVar

from bpe_core.errors import BpeError, foreign_message

#: The Python packages that run external tokenizers, with what to install.
INSTALL_HINTS = {"tokenizers": "pip install tokenizers", "sentencepiece": "pip install sentencepiece"}
T = TypeVar("T")


def require(package: str) -> ModuleType:
    try:
        return __import__(package)
    except ImportError:
        raise BpeError(
            f"reading this file needs the {package!r} package, which is not installed: {INSTALL_HINTS[package]}"
        ) from None


def preview(text: str) -> str:
    """A short quote of a text for messages.

    >>> preview("hello"), preview("x" * 100)[-6:]
    ("'hello'", "xx'...")
    """
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def byte_fallback(piece: str) -> bytes | None:
    """``<0xE3>`` (SentencePiece's and HF's byte-fallback tokens) as the byte it stands for.

    >>> byte_fallback("<0xE3>"), byte_fallback("hello")
    (b'\\xe3', None)
    """
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        try:
            return bytes([int(piece[3:5], 16)])
        except ValueError:
            return None
    return None


class Backend(Protocol):
    """What ``ExternalTokenizer`` asks of the library that runs the file."""

    library: str
    model_type: str
    vocab_size: int
    n_vocab: int  # the largest id + 1
    specials: dict[str, int]

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]: ...

    def piece(self, token_id: int) -> str | None: ...

    def decode(self, ids: list[int]) -> str: ...


def _because(exc: Exception) -> str:
    """ ": <what the library said>" (``foreign_message``), or nothing when it said only where it failed."""
    said = foreign_message(exc)
    return f": {said}" if said else ""


def guarded(source: str, library: str, doing: str, call: Callable[[], T]) -> T:
    """``call()``, with whatever the library raises (its own exception types, plain
    ``Exception`` from Rust) turned into a ``BpeError`` naming the file and what failed: the boundary
    where another library's errors become bpe_core's."""
    try:
        return call()
    except (TypeError, BpeError):
        raise
    except Exception as exc:
        raise BpeError(f"{source}: {library} cannot {doing} with this tokenizer file{_because(exc)}") from None


class HuggingFaceBackend:
    """A ``tokenizers.Tokenizer``: ids with character offsets, specials always read as text. Every call
    into ``tokenizers`` goes through ``guarded``."""

    library = "tokenizers"

    def __init__(self, text: str, *, source: str) -> None:
        tokenizers = require("tokenizers")
        self.source = source
        try:
            self.hf = tokenizers.Tokenizer.from_str(text)
        except Exception as exc:  # the Rust side raises its own exception type
            raise BpeError(f"{source}: Hugging Face tokenizers cannot read it either{_because(exc)}") from None
        self.hf.encode_special_tokens = True  # specials are split out by ExternalTokenizer, tiktoken's way
        self.model_type, self.vocab_size, self.n_vocab, self.specials = guarded(
            source, self.library, "read its vocabulary", self._facts
        )

    def _facts(self) -> tuple[str, int, int, dict[str, int]]:
        hf = self.hf
        # n_vocab is the largest id + 1: ids may have gaps.
        return (
            json.loads(hf.model.__getstate__()).get("type", "unknown"),
            hf.get_vocab_size(with_added_tokens=True),
            max(hf.get_vocab(with_added_tokens=True).values(), default=-1) + 1,
            {t.content: i for i, t in hf.get_added_tokens_decoder().items() if t.special},
        )

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        encoding = guarded(
            self.source, self.library, f"encode {preview(text)}", lambda: self.hf.encode(text, add_special_tokens=False)
        )
        return list(encoding.ids), [(start, end) for start, end in encoding.offsets]

    def piece(self, token_id: int) -> str | None:
        return guarded(self.source, self.library, f"look up id {token_id}", lambda: self.hf.id_to_token(token_id))

    def decode(self, ids: list[int]) -> str:
        return guarded(
            self.source, self.library, "decode these ids", lambda: self.hf.decode(ids, skip_special_tokens=False)
        )


class SentencePieceBackend:
    """A ``sentencepiece.SentencePieceProcessor``: ids with byte offsets turned into characters."""

    library = "sentencepiece"

    def __init__(self, raw: bytes, *, source: str) -> None:
        spm = require("sentencepiece")
        self.source = source
        self.sp = spm.SentencePieceProcessor()
        try:
            self.sp.LoadFromSerializedProto(raw)
        except Exception as exc:  # sentencepiece raises RuntimeError/OSError on bad protobuf
            raise BpeError(
                f"{source} is not a SentencePiece model or a tokenizer file SentencePiece reads{_because(exc)}"
            ) from None
        kinds = {1: "Unigram", 2: "BPE", 3: "Word", 4: "Char"}
        self.model_type = f"SentencePiece {kinds.get(self._model_type(), 'model')}"
        self.vocab_size = self.n_vocab = self.sp.GetPieceSize()
        self.specials: dict[str, int] = {}

    def _model_type(self) -> int:
        try:
            # Needs protobuf (optional); imported by name: the generated module declares no types.
            pb = importlib.import_module("sentencepiece.sentencepiece_model_pb2")
            proto = pb.ModelProto()
            proto.ParseFromString(self.sp.serialized_model_proto())
            return proto.trainer_spec.model_type
        except Exception:  # protobuf missing: the kind is only shown, so "model" will do
            return 0

    def _proto(self, text: str) -> Any:
        try:  # sentencepiece 0.2.1+ names it "proto"; 0.1.99-0.2.0 "immutable_proto"
            return self.sp.encode(text, out_type="proto")
        except (ValueError, TypeError, RuntimeError):
            return self.sp.encode(text, out_type="immutable_proto")

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        proto = guarded(self.source, self.library, f"encode {preview(text)}", lambda: self._proto(text))
        char_of_byte: list[int] = []
        for index, ch in enumerate(text):
            char_of_byte.extend([index] * len(ch.encode("utf-8", "surrogatepass")))
        char_of_byte.append(len(text))
        last = len(char_of_byte) - 1
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        for piece in proto.pieces:
            ids.append(piece.id)
            start, end = char_of_byte[min(piece.begin, last)], char_of_byte[min(piece.end, last)]
            spans.append((start, max(end, start + (piece.end > piece.begin))))
        return ids, spans

    def piece(self, token_id: int) -> str | None:
        if not 0 <= token_id < self.vocab_size:
            return None
        return guarded(self.source, self.library, f"look up id {token_id}", lambda: self.sp.IdToPiece(token_id))

    def decode(self, ids: list[int]) -> str:
        return guarded(self.source, self.library, "decode these ids", lambda: self.sp.DecodeIds(ids))
