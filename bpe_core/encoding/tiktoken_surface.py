"""The rest of ``tiktoken.Encoding``'s public surface, as a mixin of ``Tokenizer``, so that code written
against tiktoken runs on a bpe_core tokenizer unchanged: same names, arguments and results.

``Tokenizer`` itself has the methods both share (``encode*``, ``decode``, ``decode_bytes``,
``decode_single_token_bytes``, ``decode_tokens_bytes``, ``special_tokens_set``, ``name``); this mixin
adds ``n_vocab``, ``max_token_value``, ``eot_token``, ``token_byte_values``, ``encode_single_token``,
``is_special_token``, ``decode_with_offsets``, ``decode_batch``, ``decode_bytes_batch``,
``encode_to_numpy`` and ``encode_with_unstable``. Every id is checked as ``token_ids`` says, so the
errors are tiktoken's types (``KeyError``, ``TypeError``) and also ``ValueError``. Deliberate
differences are listed in docs/library/tiktoken.md ("A drop-in for tiktoken"). This module neither encodes nor
decodes on its own: it calls its host's methods, listed in ``TiktokenSurface``'s docstring.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from bpe_core.bpe.token_ids import UnknownTokenError
from bpe_core.errors import BpeError
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


def check_num_threads(num_threads: object) -> None:
    """tiktoken's ``num_threads`` (None or a count above 0). bpe_core takes it and encodes in this
    process: threads do not speed up Python code; ``workers=`` sets worker processes instead."""
    if num_threads is None:
        return
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, float)):
        raise TypeError(f"num_threads must be a number above 0, not {num_threads!r}")
    if num_threads <= 0:
        raise BpeError(f"num_threads must be greater than 0, got {num_threads!r}")


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


class TiktokenSurface:
    """tiktoken's methods that ``Tokenizer`` does not define itself.

    The host class provides ``name``, ``special_tokens``, ``max_token_value``, ``encode``,
    ``encode_ordinary``, ``decode``, ``decode_bytes``, ``decode_tokens_bytes``,
    ``decode_single_token_bytes`` and ``is_special_token``, and for ``encode_with_unstable`` three hooks:
    ``_encode_with_last_piece`` (encode's ids and how many the last pre-token made),
    ``_ordinary_token_ids`` (token bytes -> id, special tokens left out) and ``_bpe_bytes`` (BPE on
    bytes with no pre-tokenization). They are declared below for the type checker only.
    """

    if TYPE_CHECKING:
        name: str

        @property
        def special_tokens(self) -> dict[str, int]: ...
        @property
        def max_token_value(self) -> int: ...
        def encode(
            self, text: str, *, allowed_special: SpecialTokens = ..., disallowed_special: SpecialTokens = ...
        ) -> list[int]: ...
        def encode_ordinary(self, text: str) -> list[int]: ...
        def decode(self, tokens: Iterable[int], errors: str = ...) -> str: ...
        def decode_bytes(self, tokens: Iterable[int]) -> bytes: ...
        def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]: ...
        def decode_single_token_bytes(self, token: int) -> bytes: ...
        def is_special_token(self, token: int) -> bool: ...
        def _encode_with_last_piece(
            self, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
        ) -> tuple[list[int], int]: ...
        def _ordinary_token_ids(self) -> Mapping[bytes, int]: ...
        def _bpe_bytes(self, data: bytes) -> tuple[int, ...]: ...

    # ----------------------------------------------------------------------------------------------
    # sizes and special tokens

    @property
    def n_vocab(self) -> int:
        """``max_token_value + 1`` as in tiktoken (``vocab_size`` counts the ids, which may have gaps)."""
        return self.max_token_value + 1

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>``; ``UnknownTokenError`` (a ``KeyError``) when there is none."""
        specials = self.special_tokens
        if "<|endoftext|>" not in specials:
            raise UnknownTokenError(
                f"{self.name!r} has no '<|endoftext|>' special token, so no eot_token "
                f"(its special tokens: {sorted(specials)!r})"
            )
        return specials["<|endoftext|>"]

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes (special tokens left out), sorted, as tiktoken lists them."""
        return [token for token, _ in self._sorted_tokens()]

    # ----------------------------------------------------------------------------------------------
    # decoding

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

    # ----------------------------------------------------------------------------------------------
    # encoding

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
        """The ids of ``text`` that more text cannot change, and every way the rest may be encoded
        once more text follows, as tiktoken defines them (its API calls this unstable).

        The unstable part is the last pre-token (widened over preceding tokens made only of spaces,
        tabs and newlines); the completions are the tokens that start with its bytes, the
        re-encodings of its bytes with any token that starts with one of its suffixes, and a split
        before a final white-space character. tiktoken returns them in hash order; here they are
        sorted.
        """
        tokens, last = self._encode_with_last_piece(
            text, allowed_special=allowed_special, disallowed_special=disallowed_special
        )
        if not last:
            return tokens, []
        last = self._widen_over_spaces(tokens, last)
        unstable = self.decode_bytes(tokens[-last:])
        return tokens[:-last], sorted(map(list, self._completions(unstable)))

    def _widen_over_spaces(self, tokens: list[int], last: int) -> int:
        """tiktoken counts earlier tokens of only spaces, tabs and newlines into the unstable part
        when the last pre-token starts with one (a later newline can join them into one piece)."""

        def all_space(token_id: int) -> bool:
            if self.is_special_token(token_id):
                return False
            return not self.decode_single_token_bytes(token_id).strip(_TIKTOKEN_SPACE_BYTES)

        if all_space(tokens[-last]):
            while last < len(tokens) and all_space(tokens[-last - 1]):
                last += 1
        return last

    def _completions(self, unstable: bytes) -> set[tuple[int, ...]]:
        found: set[tuple[int, ...]] = {(token_id,) for _, token_id in self._tokens_starting_with(unstable)}
        # Only suffixes no longer than the longest token can start one.
        longest = max((len(token) for token, _ in self._sorted_tokens()), default=0)
        for cut in range(max(1, len(unstable) - longest), len(unstable)):
            prefix = unstable[:cut]
            for token, _ in self._tokens_starting_with(unstable[cut:]):
                found.add(self._covering(self._encode_any_bytes(prefix + token), len(unstable)))
        space = last_white_space_length(unstable)
        if space and len(unstable) > space:
            found.add(self._bpe_bytes(unstable[:-space]) + self._bpe_bytes(unstable[-space:]))
        return found

    def _encode_any_bytes(self, data: bytes) -> Sequence[int]:
        """Valid UTF-8 is encoded as text (pre-tokenized); other bytes by BPE alone, as tiktoken does."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._bpe_bytes(data)
        return self.encode_ordinary(text)

    def _covering(self, ids: Sequence[int], size: int) -> tuple[int, ...]:
        """The shortest prefix of ``ids`` whose bytes reach ``size`` (all of them if none does)."""
        total = 0
        for count, token_id in enumerate(ids, 1):
            total += len(self.decode_single_token_bytes(token_id))
            if total >= size:
                return tuple(ids[:count])
        return tuple(ids)

    def _sorted_tokens(self) -> list[tuple[bytes, int]]:
        """(bytes, id) of every ordinary token, sorted by bytes; computed once."""
        cached = self.__dict__.get("_sorted_tokens_cache")
        if cached is None:
            cached = sorted(self._ordinary_token_ids().items())
            self.__dict__["_sorted_tokens_cache"] = cached
        return cached

    def _tokens_starting_with(self, prefix: bytes) -> Iterator[tuple[bytes, int]]:
        tokens = self._sorted_tokens()
        position = bisect_left(tokens, (prefix,))
        while position < len(tokens) and tokens[position][0].startswith(prefix):
            yield tokens[position]
            position += 1
