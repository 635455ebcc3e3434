"""Encoding one piece with a Picky BPE tokenizer: its training events replayed in order.

Picky BPE (Chizhov et al., EMNLP 2024) removes tokens while it trains, so its tokenizer is a list of
events rather than a merge list: a *merge* joins every occurrence of a pair (left to right, without
overlap) and a *removal* splits every occurrence of a token back into the parts recorded with it. A
piece is encoded by starting from its bytes and applying the events in training order; an event that
finds nothing to change is skipped, so ``PickyReplay`` jumps straight to the next event that applies.
Rank-order BPE over the merges alone differs: it would emit removed tokens.

An event is ``("merge", token, (left, right))`` or ``("remove", token, parts)``, all bytes. The
events are checked when a ``PickyReplay`` is made (each merge joins two tokens present at that point
into one that is not, each removal splits a present token into present tokens), so that every token a
replay emits is present at the end. This module encodes pieces only: training is
``training.picky``; it knows no text, pattern, special token or file.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

from bpe_core.bpe.reference import merge
from bpe_core.errors import BpeError

MERGE = "merge"
REMOVE = "remove"
#: ``(kind, token, parts)``: ``("merge", left + right, (left, right))`` or ``("remove", token, parts)``.
Event = tuple[str, bytes, tuple[bytes, ...]]


class PickyReplay:
    """Events checked and indexed for encoding: each pair's merge steps and each token's removal
    steps, in increasing order (a token removed and restored is merged and removed more than once).

    >>> replay = PickyReplay([("merge", b"ab", (b"a", b"b")), ("merge", b"abc", (b"ab", b"c")),
    ...                       ("remove", b"ab", (b"a", b"b"))])
    >>> replay.encode(b"abcab"), b"abc" in replay.present, b"ab" in replay.present
    ([b'abc', b'a', b'b'], True, False)
    """

    def __init__(self, events: Iterable[Event]) -> None:
        self.tokens: list[bytes] = [bytes([b]) for b in range(256)]  # symbol -> bytes
        symbol_of: dict[bytes, int] = {token: b for b, token in enumerate(self.tokens)}
        present = set(range(256))
        merges: dict[tuple[int, int], tuple[list[int], list[int]]] = {}  # pair -> (steps, made symbols)
        removals: dict[int, tuple[list[int], list[tuple[int, ...]]]] = {}  # symbol -> (steps, parts)
        step = -1
        for step, event in enumerate(events):
            kind, token, parts = _checked_event(step, event)
            ids = tuple(symbol_of.get(part, -1) for part in parts)
            if not all(i in present for i in ids):
                raise BpeError(f"event {step} ({kind} {token!r}) uses a token not present at that point")
            made = symbol_of.get(token)
            if kind == MERGE:
                if made in present:
                    raise BpeError(f"event {step} merges into {token!r}, which is present already")
                if made is None:
                    made = symbol_of[token] = len(self.tokens)
                    self.tokens.append(token)
                present.add(made)
                steps, news = merges.setdefault((ids[0], ids[1]), ([], []))
                steps.append(step)
                news.append(made)
            else:
                if made is None or made not in present or made < 256:
                    raise BpeError(f"event {step} removes {token!r}, which is no merged token present at that point")
                present.discard(made)
                steps, splits = removals.setdefault(made, ([], []))
                steps.append(step)
                splits.append(ids)
        self.steps = step + 1
        self.present = frozenset(self.tokens[i] for i in present)
        self._merges = merges
        self._removals = removals

    def encode(self, piece: bytes) -> list[bytes]:
        """The tokens of ``piece``: its bytes with every event replayed in order."""
        tokens = self.tokens
        return [tokens[symbol] for symbol in self.symbols(piece)]

    def symbols(self, piece: bytes) -> list[int]:
        """``encode`` as this replay's symbol numbers (``self.tokens`` gives their bytes)."""
        symbols = list(piece)
        merges, removals = self._merges, self._removals
        last = -1  # the step applied last: only later events can change the symbols
        while True:
            best = self.steps
            pair: tuple[int, int] | None = None
            made = removed = -1
            parts: tuple[int, ...] = ()
            for left, right in pairwise(symbols):
                found = merges.get((left, right))
                if found is not None:
                    steps = found[0]
                    at = bisect_right(steps, last)
                    if at < len(steps) and steps[at] < best:
                        best, pair, made = steps[at], (left, right), found[1][at]
            for symbol in set(symbols) if removals else ():
                found_removal = removals.get(symbol)
                if found_removal is not None:
                    steps = found_removal[0]
                    at = bisect_right(steps, last)
                    if at < len(steps) and steps[at] < best:
                        best, pair, removed, parts = steps[at], None, symbol, found_removal[1][at]
            if best == self.steps:
                return symbols
            last = best
            symbols = merge(symbols, pair, made) if pair is not None else _split(symbols, removed, parts)


def _split(symbols: list[int], removed: int, parts: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    for symbol in symbols:
        if symbol == removed:
            out.extend(parts)
        else:
            out.append(symbol)
    return out


def _checked_event(step: int, event: object) -> Event:
    """``event`` as ``(kind, token, parts)`` of bytes, or a ``BpeError`` saying what is wrong."""
    if not (isinstance(event, (tuple, list)) and len(event) == 3):
        raise BpeError(f"event {step} must be (kind, token bytes, parts), got {event!r}")
    kind, token, parts = event
    if kind not in (MERGE, REMOVE):
        raise BpeError(f"event {step}: the kind must be {MERGE!r} or {REMOVE!r}, got {kind!r}")
    if not isinstance(parts, (tuple, list)) or not all(isinstance(p, bytes) and p for p in (token, *parts)):
        raise BpeError(f"event {step}: the token and its parts must be non-empty bytes, got {event!r}")
    if kind == MERGE and len(parts) != 2:
        raise BpeError(f"event {step}: a merge has two parts, got {len(parts)}")
    if len(parts) < 2 or b"".join(parts) != token:
        raise BpeError(f"event {step}: the parts {list(parts)!r} do not make {token!r}")
    return kind, token, tuple(parts)


def encode_picky_piece(piece: bytes, events: PickyReplay | Sequence[Event]) -> list[bytes]:
    """The tokens of ``piece`` under Picky BPE's ``events`` (a ``PickyReplay`` when encoding many
    pieces: a sequence is checked and indexed on every call).

    >>> events = [("merge", b"ug", (b"u", b"g")), ("merge", b"hug", (b"h", b"ug")), ("remove", b"ug", (b"u", b"g"))]
    >>> encode_picky_piece(b"hugug", events)
    [b'hug', b'u', b'g']
    """
    if not isinstance(piece, (bytes, bytearray)):
        raise TypeError(f"piece must be bytes, not {type(piece).__name__}")
    replay = events if isinstance(events, PickyReplay) else PickyReplay(events)
    return replay.encode(bytes(piece))


class PickyPieceEncoder:
    """``bpe.fast.PieceEncoder``'s ``encode`` for a Picky BPE tokenizer: a piece's ids by replay.
    ``token_to_id`` maps each token present at the end to its id.

    >>> ids = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> PickyPieceEncoder(PickyReplay([("merge", b"ab", (b"a", b"b"))]), ids).encode(b"abc")
    (256, 99)
    """

    def __init__(self, replay: PickyReplay, token_to_id: Mapping[bytes, int]) -> None:
        missing = [token for token in replay.present if token not in token_to_id]
        if missing:
            raise BpeError(f"{len(missing)} token(s) present after the events have no id, e.g. {missing[0]!r}")
        self.replay = replay
        self._ids = [token_to_id.get(token, -1) for token in replay.tokens]

    def encode(self, piece: bytes) -> tuple[int, ...]:
        ids = self._ids
        return tuple(ids[symbol] for symbol in self.replay.symbols(piece))

    def self_encoding(self) -> list[bytes]:
        """The present tokens whose own bytes encode to that one token (a piece equal to one of them
        may be looked up whole; the others must be replayed)."""
        return [token for token in self.replay.present if self.replay.encode(token) == [token]]
