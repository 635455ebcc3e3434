"""The encoding and decoding methods of ``Tokenizer`` (a mixin), with tiktoken's names and arguments:
``encode``, ``encode_ordinary``, their batches, ``encode_iterable``, ``encode_with_details``,
``decode`` and its relatives, and the engine that encodes (``engine``, ``build_engine``).

Each method checks its arguments, cuts out special tokens (tiktoken's allowed/disallowed rules) and
hands ordinary text to the engine ``engines.Engines`` picks; batches go through ``batch``, streams
through ``streaming``, per-token detail through ``details``. The host class (``Tokenizer``) holds the
parts these read, declared below; this module builds none of them, and reads or writes no file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from operator import itemgetter
from typing import Any

from bpe_core.bpe import token_ids
from bpe_core.bpe.model import BpeModel
from bpe_core.bpe.tokens import TokenInfo
from bpe_core.encoding import batch, tiktoken_engine
from bpe_core.encoding.details import last_piece, token_details
from bpe_core.encoding.dropout import encode_with_dropout
from bpe_core.encoding.engines import Engines, encode_text, surrogate_safe
from bpe_core.encoding.streaming import encode_stream
from bpe_core.encoding.tiktoken_surface import check_num_threads
from bpe_core.pretokenization.pretokenizer import PreTokenizer, replace_surrogates, safe_cut_regex
from bpe_core.pretokenization.special_tokens import (
    SpecialTokens,
    allowed_and_disallowed,
    check_disallowed,
    special_token_regex,
    split_on_special_tokens,
)
from bpe_core.pretokenization.stages import StagedPreTokenizer


class Codec:
    """``Tokenizer``'s encoding and decoding (see the module docstring)."""

    # What the host class sets up (``Tokenizer._build``).
    name: str
    _vocab: dict[int, bytes]
    _token_to_id: dict[bytes, int]
    _model: BpeModel
    _special_tokens: dict[str, int]
    _special_regex: re.Pattern[str] | None  # special_token_regex's
    _pretokenizer: PreTokenizer | StagedPreTokenizer
    _engines: Engines

    def _parts(self) -> dict[str, Any]:
        raise NotImplementedError  # the host's: what rebuilds it in a worker process

    def _unknown_id(self, token_id: object) -> token_ids.UnknownTokenError:
        raise NotImplementedError  # the host's: the error naming an unknown id

    # ----------------------------------------------------------------------------------------------
    # encoding engines

    @property
    def engine(self) -> str:
        """The engine ``engine="auto"`` encodes with: ``"tiktoken"`` (tiktoken's compiled engine splits
        and merges), ``"tiktoken-bpe"`` (bpe_core splits, as for custom patterns and Pipelines;
        tiktoken's engine merges each piece) or ``"python"`` (bpe_core's own encoder, where tiktoken
        cannot provably give the same ids). Until the tokenizer has been given
        ``tiktoken_engine.BUILD_CHARS_PER_TOKEN`` characters per token of its vocabulary, bpe_core's own
        encoder runs: for less text it costs less than building tiktoken's engine (``build_engine``)."""
        return self._engines.default

    @property
    def _engine_obstacle(self) -> str | None:
        """Why ``engine="tiktoken"`` is refused for this tokenizer, or None when it is not."""
        return self._engines.obstacle

    def build_engine(self) -> str:
        """Build the engine ``"auto"`` uses now rather than once enough text has come (a server that
        keeps a tokenizer, a benchmark); return its name (see ``engine``)."""
        return self._engines.build()

    # ----------------------------------------------------------------------------------------------
    # encoding

    def encode_ordinary(self, text: str, *, engine: str | None = None, num_threads: int = 8) -> list[int]:
        """Encode ``text`` with no special-token handling: special token strings are plain text.
        ``engine`` picks the encoder (see ``engine`` and ``tiktoken_engine.ENGINES``); the ids never
        depend on it. ``num_threads``: how many threads may share out a long text on tiktoken's
        engine (at most one per CPU; 1 keeps it on this thread; see ``_encode_text``)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        check_num_threads(num_threads)
        return self._encode_text(self._engines.ordinary(engine, len(text)), text, num_threads)

    def _encode_text(self, encode: Callable[[str], list[int]], text: str, num_threads: float) -> list[int]:
        """``encode(text)``, shared out over threads when long and on tiktoken's whole-text engine."""
        return encode_text(
            encode,
            text,
            pretokenizer=self._pretokenizer,
            threads=batch.thread_count(num_threads),
            whole_text=self._engines.is_whole_text(encode),
        )

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        return self._engines.piece_function(0)(piece)

    def _allowed_and_disallowed(
        self, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[set[str], set[str]]:
        return allowed_and_disallowed(
            allowed_special, disallowed_special, specials=self._special_tokens, owner=self.name
        )

    def _allowed_regex(self, allowed: set[str]) -> re.Pattern[str] | None:
        return self._special_regex if allowed == set(self._special_tokens) else special_token_regex(allowed)

    def _segments(self, text: str, allowed: set[str]) -> Iterator[tuple[str, bool]]:
        return split_on_special_tokens(text, self._allowed_regex(allowed))

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
        engine: str | None = None,
        num_threads: int = 8,
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> list[int]:
        """Encode ``text`` with tiktoken's special-token semantics.

        Special tokens in ``allowed_special`` become their single id; text matching a token in
        ``disallowed_special`` (by default every special token not allowed) raises ``BpeError``; any
        other special token text is encoded as ordinary text. Special tokens are found here (the
        longest first) whatever the ``engine``, which encodes the text between them. ``num_threads``
        is as in ``encode_ordinary``. ``dropout`` above 0 skips each merge with that probability
        (BPE-dropout, deterministic for a ``seed``; see ``bpe_core.encoding.dropout``).

        >>> import bpe_core
        >>> gpt2 = bpe_core.load("gpt2")
        >>> gpt2.encode("unrelated"), gpt2.encode("unrelated", dropout=0.5, seed=1)
        ([403, 5363], [403, 2411, 515])
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        if dropout or seed is not None:
            return encode_with_dropout(
                self,
                text,
                dropout=dropout,
                seed=seed,
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
            )
        check_num_threads(num_threads)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        check_disallowed(text, disallowed)
        encode = self._engines.ordinary(engine, len(text))
        if not allowed:
            return self._encode_text(encode, text, num_threads)
        out: list[int] = []
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                out.append(self._special_tokens[segment])
            else:
                out.extend(self._encode_text(encode, segment, num_threads))
        return out

    def encode_ordinary_batch(
        self, text: Iterable[str], *, num_threads: int = 8, workers: int | None = None, engine: str | None = None
    ) -> list[list[int]]:
        """``encode_ordinary`` of each text in ``text`` (tiktoken's name for the list), in worker
        processes for large batches.

        ``workers`` is how many worker processes encode (None: automatic, one per CPU once the batch
        holds ``batch.BATCH_PARALLEL_MIN_CHARS`` characters, else this process; 1: this process).
        Texts are cut at safe cuts into tasks of about ``batch.BATCH_TASK_CHARS`` characters, so one
        long text is spread over the workers too. The ids never depend on ``workers``. ``num_threads``
        (tiktoken's) is how many threads encode when tiktoken's engine does (at most one per CPU; it
        releases the GIL); bpe_core's Python encoder gains nothing from threads and ignores it.
        ``engine`` is as in ``encode_ordinary``.
        """
        check_num_threads(num_threads)
        return self._encode_batch(text, set(), set(), workers, engine=engine, num_threads=num_threads)

    def encode_batch(
        self,
        text: Iterable[str],
        *,
        num_threads: int = 8,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
        workers: int | None = None,
        engine: str | None = None,
    ) -> list[list[int]]:
        """``encode`` of each text in ``text``, with the same keywords, and ``num_threads``,
        ``workers`` and ``engine`` as in ``encode_ordinary_batch``."""
        check_num_threads(num_threads)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        return self._encode_batch(text, allowed, disallowed, workers, engine=engine, num_threads=num_threads)

    def _encode_batch(
        self,
        texts: Iterable[str],
        allowed: set[str],
        disallowed: set[str],
        workers: int | None,
        *,
        engine: str | None,
        num_threads: float | None,
    ) -> list[list[int]]:
        parts, layouts = batch.plan(
            texts,
            special_regex=self._allowed_regex(allowed) if allowed else None,
            special_ids=self._special_tokens,
            cut_regex=safe_cut_regex(self._pretokenizer.source),
            check=lambda text: check_disallowed(text, disallowed),
        )
        engine = tiktoken_engine.check_engine(engine)
        encode = self._engines.ordinary(engine, sum(map(len, parts)))
        part_ids = batch.encode_parts(
            parts,
            encode_ordinary=partial(surrogate_safe, encode),
            workers=workers,
            rebuild=_engine_encoder_of,
            state=(type(self), self._parts(), engine),
            threads=batch.thread_count(num_threads) if self._engines.is_whole_text(encode) else 1,
        )
        return batch.assemble(layouts, part_ids)

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
    ) -> Iterator[int]:
        """Encode the concatenation of ``texts`` lazily, yielding ids; equal to ``encode("".join(texts))``
        and never joining its input (see ``bpe_core.encoding.streaming``)."""
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        return encode_stream(
            texts,
            pretokenizer=self._pretokenizer,
            special_regex=self._allowed_regex(allowed),
            special_tokens=self._special_tokens,
            disallowed=disallowed,
            encode_piece=self._engines.piece_function(0),
            encode_ordinary=self.encode_ordinary,
        )

    def encode_with_details(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> list[TokenInfo]:
        """Encode ``text`` and describe every token: id, bytes, character span, partial-character flag."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = replace_surrogates(text)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        check_disallowed(text, disallowed)
        return token_details(
            self._segments(text, allowed),
            pretokenizer=self._pretokenizer,
            special_tokens=self._special_tokens,
            vocab=self._vocab,
            encode_piece=self._engines.piece_function(len(text)),  # bpe_core splits: spans
        )

    def _encode_with_last_piece(
        self, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[list[int], int]:
        """``encode``'s ids and how many of them the last pre-token made (0 when the text is empty or
        ends with a special token): ``TiktokenSurface.encode_with_unstable``'s starting point."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        allowed, _ = self._allowed_and_disallowed(allowed_special, disallowed_special)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = replace_surrogates(text)
        piece = last_piece(self._segments(text, allowed), self._pretokenizer)
        return ids, len(self._encode_piece(piece)) if piece is not None else 0

    def _ordinary_token_ids(self) -> Mapping[bytes, int]:
        """Token bytes -> id, special tokens left out (for ``TiktokenSurface``)."""
        return self._token_to_id

    def _bpe_bytes(self, data: bytes) -> tuple[int, ...]:
        """BPE on ``data`` as one piece, with no pre-tokenization (for ``TiktokenSurface``)."""
        return self._model.piece_encoder.encode(data)

    # ----------------------------------------------------------------------------------------------
    # decoding

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """The bytes of the ids ``tokens`` concatenated. The first bad id raises, named with its
        position: a TypeError for one that is not an integer (a float, a bool), a KeyError for an
        unknown one, both also ValueErrors (see ``token_ids``)."""
        return b"".join(self._bytes_of_ids(tokens))

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode the ids ``tokens`` to text. Invalid UTF-8 (a token sequence that splits a character)
        becomes U+FFFD with the default ``errors="replace"``; pass ``errors="strict"`` to raise instead.
        Bad ids raise as in ``decode_bytes``."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each id; bad ids raise as in ``decode_bytes``."""
        return list(self._bytes_of_ids(tokens))

    def _bytes_of_ids(self, tokens: Iterable[int]) -> Sequence[bytes]:
        ids = token_ids.id_list(tokens)
        if len(ids) > 1 and token_ids.plain_ids(ids):
            try:
                # One C call looks every id up: with the type check, as fast as decoding was without it.
                return itemgetter(*ids)(self._vocab)
            except KeyError:
                pass  # an unknown id: found and named below
        return list(map(self._vocab.__getitem__, self._checked_ids(ids)))

    def _checked_ids(self, ids: Iterable[object]) -> list[int]:
        """``ids`` as plain ints, all known; the first bad one raises (see ``token_ids``)."""
        return token_ids.checked_ids(ids, self._vocab, unknown=self._unknown_id)


def _engine_encoder_of(state: tuple[Any, dict[str, Any], str]) -> Callable[[str], list[int]]:
    """A worker's ``encode_ordinary`` with the engine its batch asked for (see ``batch``): the host
    class rebuilt from its parts."""
    host, parts, engine = state
    return partial(host._rebuilt(parts).encode_ordinary, engine=engine)
