"""Which engine encodes a call, and the encoders of each: bpe_core's own ``TextEncoder``, tiktoken's
compiled engine splitting and merging (``"tiktoken"``), or bpe_core splitting with tiktoken merging
each piece (``"tiktoken-bpe"``). The ids never depend on the choice: tiktoken's engine is used only
where ``tiktoken_engine`` proves it gives bpe_core's ids, and built only once enough text has come
(``tiktoken_engine.BUILD_CHARS_PER_TOKEN``) for building it to pay.

``Engines`` belongs to one ``Tokenizer``, which hands it a function returning its ``EngineFacts``
(called only when a check or a build is due), and a ``rule_obstacle`` when its rule is one tiktoken's
engine cannot follow at all (Picky BPE's event replay): then only ``"python"`` encodes. This module
knows nothing of special tokens (the ``Tokenizer`` cuts them out first) and does not choose what text
to encode.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from bpe_core.encoding import tiktoken_engine
from bpe_core.encoding.encoder import NativePieces, TextEncoder
from bpe_core.encoding.tiktoken_engine import EngineFacts, NativeEngine
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer, replace_surrogates, safe_cut_regex
from bpe_core.pretokenization.stages import StagedPreTokenizer

Encode = Callable[[str], list[int]]


class Engines:
    """The encoders of one tokenizer and the choice among them for each call (see the module docstring).

    ``python`` is bpe_core's ``TextEncoder``; ``facts`` returns what checking and building tiktoken's
    engine needs, computed only then (a pass over the vocabulary). ``rule_obstacle`` says why tiktoken's
    engine can never encode for this tokenizer (None: it may, where ``tiktoken_engine`` proves it exact)."""

    def __init__(
        self,
        python: TextEncoder,
        facts: Callable[[], EngineFacts],
        *,
        vocabulary_size: int,
        rule_obstacle: str | None = None,
    ) -> None:
        self.python = python
        self._facts = facts
        self.rule_obstacle = rule_obstacle
        # tiktoken's compiled engine, checked and built only when text enough to pay for it comes.
        self.native = NativeEngine(tiktoken_engine.BUILD_CHARS_PER_TOKEN * vocabulary_size)

    @property
    def default(self) -> str:
        """What ``engine="auto"`` encodes with now (see ``Tokenizer.engine``)."""
        if self.rule_obstacle:
            return "python"
        whole, pieces = self.native.obstacles(self._facts)
        return "python" if pieces else "tiktoken-bpe" if whole else "tiktoken"

    @property
    def obstacle(self) -> str | None:
        """Why ``engine="tiktoken"`` is refused, or None when it is not."""
        return self.rule_obstacle or self.native.obstacles(self._facts)[0]

    def build(self) -> str:
        """Build the engine ``"auto"`` uses now rather than once enough text has come; its name."""
        engine = self.default
        if engine != "python":
            self.native.require(engine, self._facts)
        return engine

    def ordinary(self, engine: str | None, size: int) -> Encode:
        """The function encoding ordinary text in one call of ``size`` characters with ``engine``
        (None: ``tiktoken_engine.check_engine``'s default); it raises UnicodeEncodeError on lone surrogates."""
        engine = tiktoken_engine.check_engine(engine)
        if self.rule_obstacle and engine not in ("auto", "python"):
            raise BpeError(
                f"engine={engine!r} cannot encode with this tokenizer: {self.rule_obstacle}. Use "
                "engine='auto' or engine='python'"
            )
        if self.rule_obstacle:
            engine = "python"
        elif engine == "auto":
            engine = self.native.auto(size, self._facts)
        elif engine != "python":
            self.native.require(engine, self._facts)
        if engine == "tiktoken" and self.native.encode_text is not None:  # built by auto/require above
            return self.native.encode_text
        return (self._native_pieces() if engine == "tiktoken-bpe" else self.python).encode

    def is_whole_text(self, encode: Encode) -> bool:
        """Whether ``encode`` is tiktoken's whole-text engine (which releases the GIL: threads pay)."""
        return encode is self.native.encode_text

    def piece_function(self, size: int) -> Callable[[str], tuple[int, ...]]:
        """The ids of one pre-token (lone surrogates replaced), by the engine that merges pieces for a
        call of ``size`` characters: tiktoken's BPE once built (unless the default engine is "python")."""
        encoder = self.python
        if self.rule_obstacle:
            return partial(_encode_one_piece, encoder)
        if tiktoken_engine.check_engine(None) != "python" and self.native.auto(size, self._facts) != "python":
            encoder = self._native_pieces()
        return partial(_encode_one_piece, encoder)

    def _native_pieces(self) -> TextEncoder:
        """bpe_core's splitting and caches with tiktoken's BPE of each new piece (built engine only)."""
        native = self.native
        if native.piece_text_encoder is None:
            if native.encode_piece is None:
                raise RuntimeError("tiktoken's engine is used before it was built")  # a bug, never input
            native.piece_text_encoder = TextEncoder(
                self.python.pretokenizer, NativePieces(native.encode_piece), self.python.whole_pieces
            )
        return native.piece_text_encoder


def encode_text(
    encode: Encode,
    text: str,
    *,
    pretokenizer: PreTokenizer | StagedPreTokenizer,
    num_threads: float | None,
    whole_text: bool,
) -> list[int]:
    """``encode(text)`` with lone surrogates replaced as tiktoken does; a long text on tiktoken's
    whole-text engine (``whole_text``) is cut at safe cuts and encoded by up to ``num_threads`` threads
    (``batch.thread_count``; ``batch.encode_in_threads``: the engine releases the GIL), with the same ids."""
    if whole_text:  # tiktoken's engine, built once long texts came: only they may go to threads
        from bpe_core.encoding import batch

        if len(text) >= batch.THREADED_TEXT_MIN_CHARS:
            ids = batch.encode_in_threads(
                text,
                encode_ordinary=partial(surrogate_safe, encode),
                cut_regex=safe_cut_regex(pretokenizer.source),
                threads=batch.thread_count(num_threads),
            )
            if ids is not None:
                return ids
    return surrogate_safe(encode, text)


def surrogate_safe(encode: Encode, text: str) -> list[int]:
    """``encode(text)``, with lone surrogates replaced by U+FFFD first when there are any (as tiktoken)."""
    try:
        return encode(text)
    except UnicodeEncodeError:
        return encode(replace_surrogates(text))


def _encode_one_piece(encoder: TextEncoder, piece: str) -> tuple[int, ...]:
    try:
        return encoder.encode_piece(piece)
    except UnicodeEncodeError:
        return encoder.encode_piece(replace_surrogates(piece))
