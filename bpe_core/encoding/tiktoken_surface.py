"""tiktoken's ``Encoding`` surface over a ``Codec``: ``TiktokenEncoding`` answers every public name of
``tiktoken.Encoding`` with the same arguments and results (tests/encoding/test_tiktoken_dropin.py),
each method a thin call into the codec, which holds the model, pre-tokenizer, special tokens and
engines and does the work. ``Tokenizer`` is a ``TiktokenEncoding`` with bpe_core's own views of its
tokens, merges and files.

Two pieces of that surface are more than a call: ``decode_with_offsets``' character offsets
(``char_offsets``) and ``encode_with_unstable`` (``unstable_split``: the ids more text cannot change,
and every way the rest may be encoded). Every id is checked as ``token_ids`` says, so the errors are
tiktoken's types (``KeyError``, ``TypeError``) and also ``ValueError``. Deliberate differences are listed
in docs/library/tiktoken.md ("A drop-in for tiktoken"). This module reads no file and trains nothing.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from bpe_core.bpe import token_ids
from bpe_core.bpe.tokens import TokenInfo
from bpe_core.encoding.codec import Codec, check_num_threads
from bpe_core.pretokenization.special_tokens import SpecialTokens

if TYPE_CHECKING:
    import numpy
    import numpy.typing

#: Bytes that continue a UTF-8 character (never start one).
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
#: Characters Python's ``str.isspace`` accepts that Unicode's White_Space (Rust's ``is_whitespace``,
#: which tiktoken uses) does not: the four information separators.
_NOT_WHITE_SPACE = frozenset("\x1c\x1d\x1e\x1f")
_TIKTOKEN_SPACE_BYTES = b" \n\t"


def char_offsets(tokens: Sequence[bytes]) -> list[int]:
    """tiktoken's ``decode_with_offsets`` offsets: for each token, the index of the character its first
    byte belongs to (the character before, when the token starts inside one).

    >>> char_offsets([b"h", b"\\xc3", b"\\xa9", b"llo"])
    [0, 1, 1, 2]
    """
    started = accumulate((len(t.translate(None, _CONTINUATION_BYTES)) for t in tokens), initial=0)
    # `started` has one more item than `tokens` (accumulate's initial): zip stops at the tokens' end.
    return [max(0, before - (t[:1] != b"" and 0x80 <= t[0] < 0xC0)) for before, t in zip(started, tokens, strict=False)]


def last_white_space_length(data: bytes) -> int:
    """The byte length of ``data``'s last character when it is valid UTF-8 and Unicode white space,
    else 0.

    >>> last_white_space_length(b"ab\\xe3\\x80\\x80"), last_white_space_length(b"a b"), last_white_space_length(b"ab ")
    (3, 0, 1)
    """
    for size in range(1, min(4, len(data)) + 1):
        try:
            char = data[-size:].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return size if char.isspace() and char not in _NOT_WHITE_SPACE else 0
    return 0


def unstable_split(
    codec: Codec, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
) -> tuple[list[int], list[list[int]]]:
    """The ids of ``text`` that more text cannot change, and every way the rest may be encoded once
    more text follows, as tiktoken defines them (its API calls this unstable).

    The unstable part is the last pre-token (widened over preceding tokens made only of spaces, tabs
    and newlines); the completions are the tokens that start with its bytes, the re-encodings of its
    bytes with any token that starts with one of its suffixes, and a split before a final white-space
    character. tiktoken returns them in hash order; here they are sorted.
    """
    tokens, last = codec.encode_with_last_piece(
        text, allowed_special=allowed_special, disallowed_special=disallowed_special
    )
    if not last:
        return tokens, []
    last = _widen_over_spaces(codec, tokens, last)
    unstable = codec.decode_bytes(tokens[-last:])
    return tokens[:-last], sorted(map(list, _completions(codec, unstable)))


def _widen_over_spaces(codec: Codec, tokens: list[int], last: int) -> int:
    """tiktoken counts earlier tokens of only spaces, tabs and newlines into the unstable part when
    the last pre-token starts with one (a later newline can join them into one piece)."""

    def all_space(token_id: int) -> bool:
        if token_id in codec.special_ids:
            return False
        return not codec.token_bytes(token_id).strip(_TIKTOKEN_SPACE_BYTES)

    if all_space(tokens[-last]):
        while last < len(tokens) and all_space(tokens[-last - 1]):
            last += 1
    return last


def _completions(codec: Codec, unstable: bytes) -> set[tuple[int, ...]]:
    found: set[tuple[int, ...]] = {(token_id,) for _, token_id in _tokens_starting_with(codec, unstable)}
    # Only suffixes no longer than the longest token can start one.
    longest = max((len(token) for token, _ in codec.sorted_tokens()), default=0)
    for cut in range(max(1, len(unstable) - longest), len(unstable)):
        prefix = unstable[:cut]
        for token, _ in _tokens_starting_with(codec, unstable[cut:]):
            found.add(_covering(codec, _encode_any_bytes(codec, prefix + token), len(unstable)))
    space = last_white_space_length(unstable)
    if space and len(unstable) > space:
        found.add(codec.bpe_bytes(unstable[:-space]) + codec.bpe_bytes(unstable[-space:]))
    return found


def _encode_any_bytes(codec: Codec, data: bytes) -> Sequence[int]:
    """Valid UTF-8 is encoded as text (pre-tokenized); other bytes by BPE alone, as tiktoken does."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return codec.bpe_bytes(data)
    return codec.encode_ordinary(text)


def _covering(codec: Codec, ids: Sequence[int], size: int) -> tuple[int, ...]:
    """The shortest prefix of ``ids`` whose bytes reach ``size`` (all of them if none does)."""
    total = 0
    for count, token_id in enumerate(ids, 1):
        total += len(codec.token_bytes(token_id))
        if total >= size:
            return tuple(ids[:count])
    return tuple(ids)


def _tokens_starting_with(codec: Codec, prefix: bytes) -> Iterator[tuple[bytes, int]]:
    tokens = codec.sorted_tokens()
    position = bisect_left(tokens, (prefix,))
    while position < len(tokens) and tokens[position][0].startswith(prefix):
        yield tokens[position]
        position += 1


class TiktokenEncoding:
    """tiktoken's ``Encoding`` over a ``Codec``: every public name of ``tiktoken.Encoding`` with the same
    arguments and results, and bpe_core's own options as optional keywords (``engine``, ``workers``,
    ``dropout``). Each method is a call into the codec, which does the work. ``Tokenizer`` is one.

    >>> from bpe_core.bpe.model import BpeModel
    >>> model = BpeModel({**{b: bytes([b]) for b in range(256)}, 256: b"ab"}, [(b"a", b"b")], special_ids=())
    >>> TiktokenEncoding(Codec(model, {}, "gpt2", name="tiny")).encode_with_unstable("ab a")
    ([256], [[32, 97], [32, 256]])
    """

    def __init__(self, codec: Codec) -> None:
        self._codec = codec

    @property
    def codec(self) -> Codec:
        """What it encodes and decodes with: its model, pre-tokenizer, special tokens and engines."""
        return self._codec

    @property
    def name(self) -> str:
        return self._codec.name

    @name.setter
    def name(self, value: str) -> None:
        self._codec.name = value

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._codec.special_tokens)

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._codec.special_tokens)

    @property
    def max_token_value(self) -> int:
        """The largest id, special tokens included (tiktoken's name)."""
        return self._codec.max_token_id

    @property
    def n_vocab(self) -> int:
        """``max_token_value + 1`` as in tiktoken (``vocab_size`` counts the ids, which may have gaps)."""
        return self.max_token_value + 1

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>``; ``UnknownTokenError`` (a ``KeyError``) when there is none."""
        specials = self._codec.special_tokens
        if "<|endoftext|>" not in specials:
            raise token_ids.UnknownTokenError(
                f"{self.name!r} has no '<|endoftext|>' special token, so no eot_token "
                f"(its special tokens: {sorted(specials)!r})"
            )
        return specials["<|endoftext|>"]

    # ----------------------------------------------------------------------------------------------
    # encoding

    @property
    def engine(self) -> str:
        """The engine ``engine="auto"`` encodes with: ``"tiktoken"`` (tiktoken's compiled engine splits
        and merges), ``"tiktoken-bpe"`` (bpe_core splits, as for custom patterns and Pipelines;
        tiktoken's engine merges each piece) or ``"python"`` (bpe_core's own encoder, where tiktoken
        cannot provably give the same ids). Until the tokenizer has been given
        ``tiktoken_engine.BUILD_CHARS_PER_TOKEN`` characters per token of its vocabulary, bpe_core's own
        encoder runs: for less text it costs less than building tiktoken's engine (``build_engine``)."""
        return self._codec.engines.default

    def build_engine(self) -> str:
        """Build the engine ``"auto"`` uses now rather than once enough text has come (a server that
        keeps a tokenizer, a benchmark); return its name (see ``engine``)."""
        return self._codec.engines.build()

    def encode_ordinary(self, text: str, *, engine: str | None = None, num_threads: int = 8) -> list[int]:
        """Encode ``text`` with no special-token handling: special token strings are plain text.
        ``engine`` picks the encoder (see ``engine`` and ``tiktoken_engine.ENGINES``); the ids never
        depend on it. ``num_threads``: how many threads may share out a long text on tiktoken's
        engine (at most one per CPU; 1 keeps it on this thread)."""
        return self._codec.encode_ordinary(text, engine=engine, num_threads=num_threads)

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
        specials = {"allowed_special": allowed_special, "disallowed_special": disallowed_special}
        if dropout or seed is not None:
            from bpe_core.encoding.dropout import encode_with_dropout

            return encode_with_dropout(self, text, dropout=dropout, seed=seed, **specials)
        return self._codec.encode(text, engine=engine, num_threads=num_threads, **specials)

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
        return self._codec.encode_batch(
            text, allowed_special=(), disallowed_special=(), workers=workers, engine=engine, num_threads=num_threads
        )

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
        specials = {"allowed_special": allowed_special, "disallowed_special": disallowed_special}
        return self._codec.encode_batch(text, workers=workers, engine=engine, num_threads=num_threads, **specials)

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
    ) -> Iterator[int]:
        """Encode the concatenation of ``texts`` lazily, yielding ids; equal to ``encode("".join(texts))``
        and never joining its input (see ``bpe_core.encoding.streaming``)."""
        specials = {"allowed_special": allowed_special, "disallowed_special": disallowed_special}
        return self._codec.encode_iterable(texts, **specials)

    def encode_with_details(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> list[TokenInfo]:
        """Encode ``text`` and describe every token: id, bytes, character span, partial-character flag."""
        specials = {"allowed_special": allowed_special, "disallowed_special": disallowed_special}
        return self._codec.encode_with_details(text, **specials)

    def encode_to_numpy(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> numpy.typing.NDArray[numpy.uint32]:
        """``encode``'s ids as a numpy ``uint32`` array (needs numpy, as tiktoken's does)."""
        import numpy as np

        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return np.array(ids, dtype=np.uint32)

    def encode_with_unstable(
        self, text: str, *, allowed_special: SpecialTokens = frozenset(), disallowed_special: SpecialTokens = "all"
    ) -> tuple[list[int], list[list[int]]]:
        """The ids of ``text`` that more text cannot change, and every way the rest may be encoded once
        more text follows, as tiktoken defines them (see ``unstable_split``);
        the completions sorted."""
        specials = {"allowed_special": allowed_special, "disallowed_special": disallowed_special}
        return unstable_split(self._codec, text, **specials)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a token given whole as bytes or str (UTF-8 encoded), special tokens included;
        ``token_ids.UnknownTokenError`` (a ``BpeError`` and a ``KeyError``) if there is no such token."""
        return self._codec.token_id(text_or_bytes)

    # ----------------------------------------------------------------------------------------------
    # decoding

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """The bytes of the ids ``tokens`` concatenated. The first bad id raises, named with its
        position: a TypeError for one that is not an integer (a float, a bool), a KeyError for an
        unknown one, both also ValueErrors (see ``token_ids``)."""
        return self._codec.decode_bytes(tokens)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode the ids ``tokens`` to text. Invalid UTF-8 (a token sequence that splits a character)
        becomes U+FFFD with the default ``errors="replace"``; pass ``errors="strict"`` to raise instead.
        Bad ids raise as in ``decode_bytes``."""
        return self._codec.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each id; bad ids raise as in ``decode_bytes``."""
        return list(self._codec.bytes_of_ids(tokens))

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one id (a special token's UTF-8 bytes for its id); bad ids raise as in ``decode_bytes``."""
        return self._codec.token_bytes(token)

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text of ``tokens`` and, for each token, the index of the character it starts in.
        The bytes must be valid UTF-8 (``UnicodeDecodeError`` otherwise, as in tiktoken)."""
        pieces = self.decode_tokens_bytes(tokens)
        return b"".join(pieces).decode("utf-8", errors="strict"), char_offsets(pieces)

    def decode_batch(
        self, batch: Iterable[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """``decode`` of each list of ids. ``num_threads`` is checked as tiktoken does and otherwise
        unused: decoding is a lookup and a join, done in this process."""
        check_num_threads(num_threads)
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Iterable[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """``decode_bytes`` of each list of ids (``num_threads`` as in ``decode_batch``)."""
        check_num_threads(num_threads)
        return [self.decode_bytes(tokens) for tokens in batch]

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes (special tokens left out), sorted, as tiktoken lists them."""
        return [token for token, _ in self._codec.sorted_tokens()]

    def is_special_token(self, token: int) -> bool:
        """Whether ``token`` is a special token's id (False for any other integer, even unknown)."""
        if type(token) is not int:
            token = token_ids.checked_id(token)
        return token in self._codec.special_ids
