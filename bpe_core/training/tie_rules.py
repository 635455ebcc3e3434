"""The tie rules of training: which pair the merge loop takes when several share the best count.

Each rule gives every pair a key, and the merge loop's heap takes the pair with the smallest
``(-count, key)``. The rules (see docs/library/training.md, "Training rules"):

- ``lexicographic``: the greatest ``(left bytes, right bytes)`` pair (bpe_core's default);
- ``first``: the pair whose first occurrence comes first (unique pre-tokens in order of first
  appearance, left to right), the textbook's rule and minbpe's;
- ``huggingface``: the smallest pair of ids, single bytes numbered in the order of GPT-2's byte
  alphabet (``formats.bytelevel``) and merged tokens by creation: Hugging Face ``BpeTrainer``'s rule;
- ``rustbpe``: the smallest pair of ids, single bytes numbered by value and merged tokens by
  creation: rustbpe's rule.

In parity-aware training ``huggingface`` means Hugging Face ``ParityBpeTrainer``'s rule, which is not
``BpeTrainer``'s: the greatest ``(left, right)`` pair of the symbols' GPT-2 byte-level strings (left
first, a string before its extensions; ``HUGGINGFACE_PARITY``, ``byte_level_key``), the rule of the
parity-aware BPE paper's code too (Python's ``max`` over ``(count, pair)``). ``parity_rule`` maps the
name a user gives to the rule the parity loop keys by.

The first three keys come from the two symbols alone (``symbol_key``). The first-seen key is a
position, which merges move: ``FirstSeen`` keeps it. ``PairKeys`` gives the merge engine one way to ask
for a pair's key under any rule. This module does not count or merge pairs (``pairs`` and ``engine`` do).
"""

from __future__ import annotations

import functools
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from typing import Literal

from bpe_core.formats.bytelevel import byte_to_unicode

TieBreak = Literal["lexicographic", "first", "huggingface", "rustbpe"]
TIE_BREAKS: tuple[str, ...] = ("lexicographic", "first", "huggingface", "rustbpe")
#: One line per rule, for help texts.
TIE_RULES: dict[str, str] = {
    "lexicographic": "the greatest (left bytes, right bytes) pair",
    "first": "the pair met first (unique pre-tokens in order of first appearance, left to right): minbpe's rule",
    "huggingface": "the smallest pair of ids, bytes in GPT-2's byte-alphabet order: Hugging Face BpeTrainer's rule",
    "rustbpe": "the smallest pair of ids, bytes by value: rustbpe's rule",
}

#: The ``huggingface`` rule of parity-aware training (``parity_rule``), keyed by ``byte_level_key``.
HUGGINGFACE_PARITY = "huggingface-parity"

_INVERT = bytes(range(255, -1, -1))
_KEY_END = "\u0100"  # greater than every inverted byte (0..255): a prefix sorts after its extensions
#: Words at least this long keep one label per symbol; shorter ones compute labels when asked.
LONG_WORD = 64
#: A first-seen key is ``word index << KEY_SHIFT | label``: labels stay below 2**48.
KEY_SHIFT = 48
_LABEL_MASK = (1 << KEY_SHIFT) - 1


def tie_key(token: bytes) -> str:
    """The ``lexicographic`` key of a symbol: the greatest bytes get the smallest key, and a prefix
    ("a") sorts after its extensions ("ab"); two keys concatenated compare like the pair.

    >>> tie_key(b"b") + tie_key(b"a") < tie_key(b"a") + tie_key(b"b")
    True
    """
    return token.translate(_INVERT).decode("latin-1") + _KEY_END


@functools.lru_cache(maxsize=1)
def huggingface_byte_ids() -> tuple[int, ...]:
    """Each byte's id among the 256 in Hugging Face's ByteLevel BPE trained with the full alphabet:
    the alphabet sorted by GPT-2's printable character, so ``!`` (0x21) is 0 and byte 0 is 188.

    >>> huggingface_byte_ids()[ord("!")], huggingface_byte_ids()[0]
    (0, 188)
    """
    table = byte_to_unicode()
    order = sorted(range(256), key=lambda byte: table[byte])
    ids = [0] * 256
    for position, byte in enumerate(order):
        ids[byte] = position
    return tuple(ids)


@functools.lru_cache(maxsize=1)
def _byte_level_invert() -> bytes:
    """Each byte's GPT-2 byte-level character rank (``huggingface_byte_ids``), inverted (255 - rank)."""
    ids = huggingface_byte_ids()
    return bytes(255 - ids[byte] for byte in range(256))


def byte_level_key(token: bytes) -> str:
    """The key of a symbol under ParityBpeTrainer's rule: like ``tie_key``, on the symbol's GPT-2
    byte-level string (each byte as its printable character, compared by code point), so the greatest
    string gets the smallest key. " " is ``Ġ`` (U+0120), above every byte that prints as itself.

    >>> byte_level_key(b" ") < byte_level_key(b"z") < byte_level_key(b"a")
    True
    """
    return token.translate(_byte_level_invert()).decode("latin-1") + _KEY_END


def parity_rule(tie_break: str) -> str:
    """The rule parity-aware training keys by for the ``tie_break`` a user names: ``huggingface``
    is ParityBpeTrainer's (``HUGGINGFACE_PARITY``), the others are standard training's.

    >>> parity_rule("huggingface"), parity_rule("first")
    ('huggingface-parity', 'first')
    """
    return HUGGINGFACE_PARITY if tie_break == "huggingface" else tie_break


def symbol_key(tie_break: str, token_id: int, token: bytes) -> str:
    """A symbol's part of a pair's key (``key(left) + key(right)``) under the rules whose key
    depends on the two symbols only (not ``first``), and ``HUGGINGFACE_PARITY``.

    >>> symbol_key("rustbpe", 256, b"ab") > symbol_key("rustbpe", 255, b"\\xff")
    True
    """
    if tie_break == "lexicographic":
        return tie_key(token)
    if tie_break == HUGGINGFACE_PARITY:
        return byte_level_key(token)
    if tie_break == "huggingface" and token_id < 256:
        return chr(huggingface_byte_ids()[token_id])
    return chr(token_id)  # ids by creation; rustbpe's bytes by value


class FirstSeen:
    """The ``first`` rule's key of each pair: where its first occurrence is, as one integer
    ``word index << KEY_SHIFT | label`` (word first, then place in the word).

    A label names a symbol's place in its word and never changes when symbols merge (a merged symbol
    takes its left part's label): in long words the symbol's position in the word as given, kept in
    ``starts`` (an array per word, which the merge loop updates with ``drop_labels``); in short ones
    its byte offset, computed when asked. A merge only ever destroys occurrences of existing pairs, so a pair's first
    occurrence can only move later: a stored key is a lower bound the heap can hold, and ``exact``
    checks it (and finds the new first occurrence if it moved) when the pair reaches the top. The
    merge loop records the key of each new pair where it makes its first occurrence.
    """

    def __init__(self, words: list[str], where: Mapping[str, list[int]], token_bytes: Mapping[int, bytes]) -> None:
        self.words = words
        self.where = where
        self.token_bytes = token_bytes
        self.starts: dict[int, array] = {}
        for index, word in enumerate(words):
            if len(word) >= LONG_WORD:
                self.starts[index] = array("i" if len(word) < 2**31 else "q", range(len(word)))
        self.first: dict[str, int] = {}
        for pair, holders in where.items():
            index = holders[0]
            self.first[pair] = index << KEY_SHIFT | self.label(index, words[index].find(pair))

    def label(self, index: int, position: int) -> int:
        """The label of the symbol at ``position`` in word ``index``."""
        starts = self.starts.get(index)
        if starts is not None:
            return starts[position]
        return sum(map(len, map(self.token_bytes.__getitem__, map(ord, self.words[index][:position]))))

    def forget(self, pair: str) -> None:
        self.first.pop(pair, None)

    def drop_labels(self, index: int, positions: list[int]) -> None:
        """Long word ``index`` after a merge: its labels without those at ``positions`` (in increasing
        order: each merged pair's right half, whose symbol the left half's label now names)."""
        labels = self.starts[index]
        view = memoryview(labels)
        kept = []
        previous = 0
        for position in positions:
            kept.append(view[previous:position])
            previous = position + 1
        kept.append(view[previous:])
        remaining = array(labels.typecode)
        remaining.frombytes(b"".join(kept))
        view.release()
        self.starts[index] = remaining

    def exact(self, pair: str) -> int:
        """The key of ``pair``'s first occurrence now: the stored one if an occurrence is still
        there, else the first one after it."""
        key = self.first[pair]
        start_index, start_label = key >> KEY_SHIFT, key & _LABEL_MASK
        words = self.words
        starts = self.starts.get(start_index)
        begin = 0
        if starts is not None:
            begin = bisect_left(starts, start_label)
            if begin < len(starts) and starts[begin] == start_label and words[start_index].startswith(pair, begin):
                return key
        holders = self.where[pair]
        for position in range(bisect_left(holders, start_index), len(holders)):
            index = holders[position]
            j = words[index].find(pair, begin if index == start_index else 0)
            if j >= 0:
                key = index << KEY_SHIFT | self.label(index, j)
                self.first[pair] = key
                return key
        raise AssertionError("first-seen index out of sync")  # internal invariant, not input validation


#: The rules whose pair key is two numbers, one per symbol (``PairKeys.codes``): the heap packs their
#: entries into one integer (``pairs.PairHeap``).
PACKED_RULES = ("huggingface", "rustbpe")


class PairKeys:
    """Each pair's key under one tie rule, for the merge engine's heaps (``pairs.PairHeap``).

    ``of(pair)`` is the key to store with a pair: under ``first`` the stored first occurrence, a lower
    bound that ``seen.exact`` checks when the pair reaches the top of a heap; under the other rules
    ``key(left) + key(right)`` (each symbol's key prefix-free or one character, so this compares like
    the tuple of the two keys; ``symbols`` holds each symbol's key, for a heap that writes ``of`` out
    inline). Under the ``PACKED_RULES`` each symbol also has a number (``codes``, and
    back: ``chars``): its one-character key's code point. ``add`` gives a new symbol its key; ``forget``
    drops pairs the loop will never look up again.

    >>> keys = PairKeys("lexicographic", ["ab"], {"ab": [0]}, {i: bytes([i]) for i in range(256)})
    >>> keys.of("ba") < keys.of("ab")
    True
    """

    def __init__(
        self, tie_break: str, words: list[str], where: Mapping[str, list[int]], token_bytes: Mapping[int, bytes]
    ) -> None:
        self.tie_break = tie_break
        self.seen = FirstSeen(words, where, token_bytes) if tie_break == "first" else None
        self.packed = tie_break in PACKED_RULES
        self.codes: dict[str, int] = {}
        self.chars: dict[int, str] = {}
        self.symbols: dict[str, str] = {}
        for token_id, token in token_bytes.items():
            self.add(token_id, token)
        self.of: Callable[[str], object]
        if self.seen is not None:
            self.of = self.seen.first.__getitem__
            return
        symbols = self.symbols

        def of(pair: str) -> str:
            return symbols[pair[0]] + symbols[pair[1]]

        self.of = of

    def add(self, token_id: int, token: bytes) -> None:
        """Give the new symbol ``token_id`` (bytes ``token``) its key."""
        if self.seen is None:
            symbol = chr(token_id)
            key = self.symbols[symbol] = symbol_key(self.tie_break, token_id, token)
            if self.packed:
                self.codes[symbol] = ord(key)
                self.chars[ord(key)] = symbol

    def forget(self, pairs: Iterable[str]) -> None:
        if self.seen is not None:
            forget = self.seen.forget
            for pair in pairs:
                forget(pair)
