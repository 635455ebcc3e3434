"""Tokens that hold part of a character, named where they occur many times, and the note that reads
such a name to a person.

A token type (a vocabulary entry, a pair counted in training) occurs in many places. Its bytes may
belong to one character wherever they occur (``e4 bd`` only ever begins 你 in a text about 你) or to
many (``e0 a4`` begins every Devanagari letter): ``labels_among`` names it after the character in the
first case (⟨你 1–2/3⟩) and by what its bytes can be part of in the second (⟨Devanagari 1–2/3⟩), never
after one character among many. ``piece_note`` explains the first such name a view shows, so a view
whose labels name no piece says nothing about pieces.

Pure functions on bytes and strings (``glyphs`` writes the labels); nothing here draws.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import accumulate

from bpe_core.display.glyphs import labels_in, span_label, units

#: The longest UTF-8 sequence less one: how far a character holding a byte can start before it or end after it.
_REACH = 3


def _spells_text(symbols: Sequence[bytes]) -> bool:
    try:
        b"".join(symbols).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte <= 0xBF


def _occurrences(symbols: Sequence[bytes], context: Sequence[bytes]) -> Iterable[tuple[str, ...]]:
    """The labels of ``symbols`` at each place where they follow each other in ``context`` (symbols
    too), each written from the characters around it (those characters are the key of a cache: a
    pair inside 你 is written once however often it occurs)."""
    data = b"".join(context)
    joined = b"".join(symbols)
    if not joined or joined not in data:
        return
    starts = set(accumulate(map(len, context), initial=0))  # where each symbol starts
    written: dict[tuple[bytes, tuple[int, ...]], tuple[str, ...]] = {}
    found = data.find(joined)
    while found >= 0:
        cuts = list(accumulate(map(len, symbols), initial=found))
        if all(cut in starts for cut in cuts):  # the symbols themselves, not bytes inside longer ones
            low, high = found, cuts[-1]
            while low > max(0, found - _REACH) and _is_continuation(data[low]):
                low -= 1  # back to the first byte of the character the symbols start in
            while high < min(len(data), cuts[-1] + _REACH) and _is_continuation(data[high]):
                high += 1  # on to the end of the character they end in
            key = (data[low:high], tuple(cut - low for cut in cuts))
            if key not in written:
                window, offsets = key
                parsed = units(window)
                written[key] = tuple(
                    span_label(window, a, b, parsed=parsed) for a, b in zip(offsets, offsets[1:], strict=False)
                )
            yield written[key]
        found = data.find(joined, found + 1)


def labels_among(symbols: Sequence[bytes], contexts: Iterable[Sequence[bytes]]) -> list[str]:
    """``symbols`` (bytes that follow each other: one token, or a pair) written as they stand in
    ``contexts`` (sequences of symbols, e.g. the words of a training run): after the character they
    are part of when every occurrence is part of the same character (⟨你 1–2/3⟩), by what their bytes
    can be part of when several characters share them (``labels_in`` alone: ⟨Devanagari 1–2/3⟩), or
    as text when they spell whole characters.

    >>> words = [["你".encode()[:2], "你".encode()[2:]], [b"a", "你".encode()[:2], "你".encode()[2:]]]
    >>> labels_among(["你".encode()[:2]], words)
    ['⟨你 1–2/3⟩']
    >>> labels_among([b"\\xe0\\xa4"], [["न".encode()[:2], b"\\xa8"], ["म".encode()[:2], b"\\xae"]])
    ['⟨Devanagari 1–2/3⟩']
    """
    symbols = [bytes(symbol) for symbol in symbols]
    if _spells_text(symbols):
        return labels_in(symbols)
    seen: set[tuple[str, ...]] = set()
    for context in contexts:
        for labels in _occurrences(symbols, context):
            seen.add(labels)
            if len(seen) > 1:  # bytes several characters share: named by none of them
                return labels_in(symbols)
    return list(seen.pop()) if seen else labels_in(symbols)


_PIECE = re.compile(r"⟨([^⟩]+?)\u200e? (\d+)(?:–(\d+))?/(\d+)⟩")


def _what(name: str) -> str:
    """The character or kind of character a piece's name stands for, in a sentence."""
    if len(name) == 1 or (name.startswith("U+") and "–" not in name) or name.startswith("◌"):
        return name
    if name.startswith("U+"):
        return f"a character in {name}"
    if name.endswith("character"):
        return f"a {name}"
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name} character"


def piece_note(labels: Iterable[str]) -> str | None:
    """A sentence reading the first name of a piece of a character among ``labels`` (what a view
    shows), or None when they name none.

    >>> piece_note(["␣the", "⟨न 1–2/3⟩"])
    '⟨न 1–2/3⟩ is bytes 1 to 2 of the 3 bytes of न.'
    >>> piece_note(["⟨Devanagari 3/3⟩"]), piece_note(["low", "er"])
    ('⟨Devanagari 3/3⟩ is byte 3 of the 3 bytes of a Devanagari character.', None)
    """
    for label in labels:
        match = _PIECE.search(label)
        if match:
            name, first, last, size = match.groups()
            held = f"bytes {first} to {last}" if last else f"byte {first}"
            return f"{match.group()} is {held} of the {size} bytes of {_what(name)}."
    return None
