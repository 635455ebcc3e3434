"""tiktoken's Unicode character classes, pinned, so that the presets never depend on the `regex` release.

The preset patterns say ``\\p{L}``, ``\\p{N}``, ``\\s`` (and o200k ``\\p{Lu}``, ``\\p{M}``, ...). tiktoken
answers those from the Unicode tables built into its Rust regex engine; the `regex` module from its
own, and a `regex` release with a newer Unicode than tiktoken's (or an older one) splits text holding
the code points that changed differently, so ids would differ from tiktoken's. This module holds the
classes as the pinned tiktoken answers them (``TABLE``: every code point's class, run-length encoded,
generated from tiktoken itself), says where the installed `regex` disagrees with them
(``disagreeing``) and compiles patterns that follow the table on every code point at `regex`'s speed
(``exact_pattern``; ``narrowed_pattern`` for the safe-cut rules). It does not pre-tokenize: the
presets and their fast paths are ``pretokenize``'s.

Keeping the table current: ``tests/pretokenization/test_unicode_classes.py`` compares it, and bpe_core's ids on
every code point, with the installed tiktoken. When a tiktoken release moves to a newer Unicode, that
test fails and names the fix: ``python -m bpe_core.pretokenization.unicode_classes --write`` regenerates ``TABLE``
(and ``TIKTOKEN_VERSION``/``UNICODE_VERSION``) in this file from the installed tiktoken.
"""

# long on purpose: about 60 of its lines are the generated table.

from __future__ import annotations

import bisect
import functools
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_core.errors import BpeError

if TYPE_CHECKING:
    import regex

#: The tiktoken release ``TABLE`` was generated from, and the Unicode version its classes follow.
TIKTOKEN_VERSION = "0.14.0"
UNICODE_VERSION = "16.0"

#: One letter per class. The classes are disjoint, so each code point has one; "X" is none of them.
#: Sorted by letter, so that generating the table is deterministic.
CLASSES = {"K": "M", "L": "Ll", "M": "Lm", "N": "N", "O": "Lo", "S": "White_Space", "T": "Lt", "U": "Lu"}
#: The classes the presets use, each as the letters it is made of.
NAMES = {"L": "LMOTU", "Lu": "U", "Ll": "L", "Lt": "T", "Lm": "M", "Lo": "O", "M": "K", "N": "N", "White_Space": "S"}
#: How `regex` and tiktoken spell each class in a pattern (and its complement).
SPELLING = {name: (r"\s", r"\S") if name == "White_Space" else (rf"\p{{{name}}}", rf"\P{{{name}}}") for name in NAMES}
#: Code points newly made letters in a Unicode version, to name the version a tiktoken follows.
_VERSION_PROBES = {"15.0": 0x11F04, "15.1": 0x2EBF0, "16.0": 0x105C0, "17.0": 0x11DB0, "18.0": None}

# The table: one class letter per run of code points from U+0000 up, followed by the run's length in
# base 36 when it is longer than one; the last run reaches U+10FFFF. Generated; do not edit by hand.
# BEGIN GENERATED TABLE
TABLE = (
    "X9S5XiSXfNaX7UqX6LqXaSXqSX9OX7N2XLX3NOXN3XUnXU7LoXL8ULULULULULULULULULULULULULULULULULULULULULUL"
    "ULULULULULUL2ULULULULULULULUL2ULULULULULULULULULULULULULULULULULULULULULULULU2LULUL3U2LULU2LU3L2"
    "U4LU2LU3L3U2LU2LULULU2LUL2ULU2LU3LULU2L2OUL3O4UTLUTLUTLULULULULULULULUL2ULULULULULULULULUL2UTLUL"
    "U3LULULULULULULULULULULULULULULULULULULULULULULULULULULULULUL7U2LU2L2ULU4LULULULUL1xOLrMiX4McXeM"
    "5X7MXMXhK34ULULMXULX2ML3XUX6UXU3XUXU2LUhXU9LzUL2U3L3ULULULULULULULULULULULUL5ULXULU2L2U1fL1cULUL"
    "ULULULULULULULULULULULULULULULXK7ULULULULULULULULULULULULULULULULULULULULULULULULULULULU2LULULUL"
    "ULULUL2ULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULU"
    "LULULULXU12X2MX6L15X8K19XKXK2XK2XKX8OrX4O4XtKbX5OwMOaKlNaX4O2KO2rXOK7X2K6M2K2XK4O2NaO3X2OXgOKOuK"
    "rX2O2hKbOXeNaOxK9M2X4MX2KX2OmK4MK9MK3MK5XiOpK3X4ObX5OoXO6X8K9O15MKoXKxO1iK3OKiOK7OaK2X2NaXMOfK3X"
    "O8X2O2X2OmXO7XOX3O4X2KOK7X2K2X2K3OX8KX4O2XO3K2X2NaO2X2N6X2OXKX2K3XO6X4O2X2OmXO7XO2XO2XO2X2KXK5X4"
    "K2X2K3X3KX7O4XOX7NaK2O3KXbK3XO9XO3XOmXO7XO2XO5X2KOK8XK3XK3X2OXfO2K2X2NaX9OK6XK3XO8X2O2X2OmXO7XO2"
    "XO5X2KOK7X2K2X2K3X7K3X4O2XO3K2X2NaXON6XaKOXO6X3O3XO4X3O2XOXO2X3O2X3O3X3OcX4K5X3K3XK4X2OX6KXeNdXd"
    "K5O8XO3XOnXOgX2KOK7XK3XK4X7K2XO3X2OX2O2K2X2NaX8N7XOK3XO8XO3XOnXOaXO5X2KOK7XK3XK4X7K2X6O2XO2K2X2N"
    "aXO2KXcK4O9XO3XO15K2OK7XK3XK4OX5O3KN7O3K2X2NjXO6XK3XOiX3OoXO9XOX2O7X3KX4K6XKXK8X6NaX2K2XdO1cKO2K"
    "7X5O6MK8XNaX13O2XOXO5XOoXOXOaKO2K9OX2O5XMXK7XNaX2O4XwOXnK2X6NkXKXKXKX4K2O8XO10X4KkXK2O5KbXK10X9K"
    "X1lO17KkONaX6O6K4O4K3OK3O2K7O3K4OdKcOKNaK4X2U12XUX5UX2L17XML3O95XO4X2O7XOXO4X2O15XO4X2OxXO4X2O7X"
    "OXO4X2OfXO1lXO4X2O1vX2K3X9NkX3OgXgU2eX2L6X3Oh8X2OhSOqX5O23X3N3O8X7OiK4X9OjK3XbOiK2XcOdXO3XK2XcO1"
    "gKwX3MX4OKX2NaX6NaXhK3XKNaX6OzMO1hX7O5K2OyKOX5O1yXaOvXKcX4KcXaNaOuX2O5XbO18X4OqX6NbX11OnK5X4O1hK"
    "aXKtX2KNaX6NaXdMX8KvX1dK5O1bKhO8X3NaXhK9XcK3OuKdO2NaO18KeXcO10KkX8NaX3O3NaOuM6X2L9ULX5U17X2U3XgK"
    "3XKlO4KO6KO2K3OX5L18M1rLdMLyM11K1sULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULUL"
    "ULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULUL9ULULULU"
    "LULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULULUL9U8L6"
    "X2U6X2L8U8L8U8L6X2U6X2L8XUXUXUXUL8U8LeX2L8T8L8T8L8T8L5XL2U4TXLX3L3XL2U4TX3L4X2L2U4X4L8U5X5L3XL2U"
    "4TX3SbXtS2X5SX1bSXgNMX2N6X5MNaX6MdX1fKxXhUX4UX2LU3L2U3LXUX3U5X6UXUXUXU4XLU4LO4LX2L2U2X5UL4X4LXN1"
    "fULN5Xk6N1oX26NmXhiNuXvgU1cL1cULU3L2ULULULU4LUL2UL6M2U3LULULULULULULULULULULULULULULULULULULULUL"
    "ULULULULULULULULULULULULULULULULULULULULULULULULULULULULUL2X6ULULK3ULX9NX2L12XLX5LX2O1kX7MXfKOnX"
    "9O7XO7XO7XO7XO7XO7XO7XO7XKwX1bMXcwSX4MONXpN9K6XM5X2N3MOX4O2eX2K2X2M2OXO2iXM3OX5O17XO2mX3N4XaOwX1"
    "cOgXwNaXuN8XNfXwNaX13NfX8wO534X1sOg7pMOvrX1vO14M6X2O7gMX3OgNaO2XkULULULULULULULULULULULULULULULU"
    "LULULULULULULULOK4XKaXMULULULULULULULULULULULULULULM2K2O1yNaK2X11M9X2ULULULULULULUL3ULULULULULUL"
    "ULULULULULULULULULULULULULULULULULULULULULULULULULML8ULULU2LULULULULMX2ULULOULUL3ULULULULULULULU"
    "LULULU5LU5LULULULULULULULU4LULU2LX2ULXLXLULULULUXlM3ULOM2LO7KO3KO4KOnK5X4KX3N6XaO1gXcK2O1eKiXaNa"
    "X6KiO6X3OXO2KNaOsK8X2OnKdXcOtX3K4O1bKeXeMNaX6O5KMO9NaO5XO15KeX9O3KO8K2X2NaX6OgMO6X3OK3O1eKOK3O2K"
    "2O5K2OKOXoO2MX2ObK5X2OM2K2XaO6X2O6X2O6X9O7XO7XL17XM4L9MX6L28OzK8XK2X2NaX6O8mcXcOnX4O1dX6isOa6X2O"
    "2yX12L7XcL5X5OKOaXOdXO5XOXO2XO2XO30XxOa3XiO1sX2O1iX14OcX4KgXgKgX1sO5XO3rXjNaX7UqX6LqXbOaMO19M2Ov"
    "X3O6X2O6X2O6X2O3XzOcXOqXOjXO2XOfX2OeXyO3fXcN19XcN1lXhN2X35KX3mOtX3O1dXfKNrX4OwN4X9OkNO8NX5O12K5X"
    "5OuX2O10X4O8XN5X16U14L14O26X2NaX6U10X4L10X4O14X8O1gXcUbXUfXU7XU2XLbXLfXL7XL2X3O1gXcO8nX9OmXaO8Xo"
    "M6XM16XM9X1xO6X2OXO18XO2X3OX2OnX2N8OnX2N7OvX8N9X1cOjXO2X5N5OmN6X4OqX1yO1kX4N2O2NgX2N1aOK3XK2X5K4"
    "O4XO3XOtX2K3X4KN9XnOtN2XOtN3XwO8XOsK2X4N5XgO1iXaOmX2N8OjX5N8OiXnN7X28O21X1jU1fXdL1fX7N6O10K4X8Na"
    "X6NaO4MOUmX3K5XMLmX62NvXO16XK2X3O2XgO3X1jK4OtNaOX8OmKbN4XrOiK4X16OlN7XkOnX9K3O1hKfXbNuKO2K2OX9K4"
    "O19KbX7KXdOpX7NaX6K3O10KeXNaX4OK2OX8OzKX2OX9K3O1cKeO4X4K4XK2NaOXOX4NkXbOiXOpKcX6KO2KX1qO7XOXO4XO"
    "fXOaX7O1bKcX5NaX6K4XO8X2O2X2OmXO7XO2XO5XK2OK7X2K2X2K3X2OX6KX5O5K2X2K7X3K5XbOaXOX2OXO12XOK9XKX2KX"
    "K4XK5OKOXdK2XtO1hKiO4X5NaX4KO3XuO1cKkO2XOX8NaX4mO1bK7X2K9XnO4K2XyO1cKhX3OXbNaX12O17KdOX7NaX6NkXs"
    "OrX2KfX4NcX4O7X55O18KfX2tUwLwNjXcO8X2OX2O8XO2XOoK6XK2X2K4OKOK2XcNaX1yO8X2O13K7X2K7OXOKXrOKaO14K7"
    "OK4X8KX8OKbO1aKgX3OXiO21X5jOxXfNaX6O9XO11K8XK8OXfNtX5OuX2KmXKeX21O7XO2XO12K6X3KXK2XK7OKX8NaX6O6X"
    "O2XOwK5XK2XK5OX7NaX8mOjK4X9K2OKOdXOyK7X3K5XdNaKX2dOXfNlX17OpmX2uN33XhO5gX218O2pXfOtsXgKO6KfXaO32"
    "zX5Og7X5a1OuKiNaX1c6OftX7OvXNaX6O27XNaX6OuX2K5XbO1cK7X9M4XcNaXN7XOlX5OjXc0M3O14M2X3NaX5iUwLwNnX2"
    "xO23X4KOK1jX7K4MdX1sM2XMKXbK2XeO4qgX8OyeX15OaX6w7M4XM7XM2XO83XfOXtO3X2OXeO4X8Ob0X1s4O2zX5OdX3O9X"
    "7OaX3K2X381NaXeeK1aX2KnXf2K5X3K6X8K8X2K7XuK4X44K3X3fNkXcNkX30NpX3rUqLqUqL7XLiUqLqUXU2X2UX2U2X2U4"
    "XU8L4XLXL7XLbUqLqU2XU4X2U8XU7XLqU2XU4XU5XUX3U7XLqUqLqUqLqUqLqUqLqUqLqUqLsX2UpXLpXL6UpXLpXL6UpXLp"
    "XL6UpXLpXL6UpXLpXL6ULX2N1eXe8K1jX4K1eX8KXeKXmK5XKfXuoLaOLkX6L6X5xK7XKhX2K7XK2XK5X5M1qXxKX34O19X3"
    "K7M7X2NaX4OX8xOuKXhO18K4NaXd2OrMK4NaX5yOuK2ONaXdhO7XO4XO2XOfXO5hX2N9K7X15UyLyK7MX4NaXlzN1nXN3XN4"
    "X24N19XNfX5eO4XOrXO2XOX2OXOaXO4XOXOX6OX4OXOXOXO3XO2XOX2OXOXOXOXOXO2XOX2O4XO7XO4XO4XOXOaXOhX5O3XO"
    "5XOhXg4NdX25fNaXsmOwyoXwO37eX6O66X2O4g2XeO5rlXfOhaX1wiOf2X15uO3t7X5O38gXf9e8K6oX47bk"
)
# END GENERATED TABLE


@functools.cache
def _runs() -> tuple[tuple[str, int, int], ...]:
    """``(letter, first, last)`` for every run of ``TABLE``, in order."""
    runs = []
    start = 0
    for letter, length in re.findall(r"([A-Z])([0-9a-z]*)", TABLE):
        end = start + (int(length, 36) if length else 1)
        runs.append((letter, start, end - 1))
        start = end
    if start != 0x110000:
        raise BpeError(f"unicode_classes.TABLE covers {start:,} code points, not 1,114,112: regenerate it")
    return tuple(runs)


@functools.cache
def ranges(name: str) -> tuple[tuple[int, int], ...]:
    """The code point ranges ``(first, last)`` of the class ``name`` (a key of ``NAMES``), merged.

    >>> ranges("White_Space")[:2]
    ((9, 13), (32, 32))
    """
    letters = NAMES[name]
    merged: list[list[int]] = []
    for letter, first, last in _runs():
        if letter in letters:
            if merged and merged[-1][1] == first - 1:
                merged[-1][1] = last
            else:
                merged.append([first, last])
    return tuple((first, last) for first, last in merged)


def class_body(code_points: tuple[tuple[int, int], ...]) -> str:
    r"""The inside of a regex character class matching exactly ``code_points`` (ranges).

    >>> print(class_body(((9, 13), (32, 32), (0x1F600, 0x1F64F))))
    \x09-\x0d\x20\U0001f600-\U0001f64f
    """

    def escaped(code: int) -> str:
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"

    return "".join(escaped(a) if a == b else f"{escaped(a)}-{escaped(b)}" for a, b in code_points)


@functools.cache
def _every_code_point() -> str:
    """U+0000..U+10FFFF as one string (surrogates included, as Python strings may hold them), built
    from its UTF-32 bytes one byte plane at a time, which is far faster than one code point at a time."""
    utf32 = bytearray(4 * 0x110000)
    utf32[0::4] = bytes(range(256)) * (0x110000 // 256)
    utf32[1::4] = b"".join(bytes([byte]) * 256 for byte in range(256)) * 17
    utf32[2::4] = b"".join(bytes([plane]) * 0x10000 for plane in range(17))
    return utf32.decode("utf-32-le", "surrogatepass")


def _text(code_points: tuple[tuple[int, int], ...]) -> str:
    """The code points of the ranges ``code_points`` as one string."""
    every = _every_code_point()
    return "".join(every[first : last + 1] for first, last in code_points)


def _as_ranges(codes: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Code points (any order) as sorted, merged ranges."""
    merged: list[list[int]] = []
    for code in sorted(codes):
        if merged and merged[-1][1] == code - 1:
            merged[-1][1] = code
        else:
            merged.append([code, code])
    return tuple((first, last) for first, last in merged)


def _complement(code_points: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The ranges of the code points not in ``code_points`` (sorted, disjoint ranges)."""
    gaps = []
    start = 0
    for first, last in code_points:
        if first > start:
            gaps.append((start, first - 1))
        start = last + 1
    if start < 0x110000:
        gaps.append((start, 0x10FFFF))
    return tuple(gaps)


@functools.cache
def disagreeing(name: str) -> tuple[tuple[int, int], ...]:
    """The ranges of code points that the installed `regex` puts in class ``name`` and the table does
    not, or the other way round: empty when this `regex` follows tiktoken's Unicode for that class.

    >>> disagreeing("White_Space")
    ()
    """
    import regex

    member, non_member = SPELLING[name]
    in_text = _text(ranges(name))
    out_text = _text(_complement(ranges(name)))
    # Two C-speed checks settle the usual case (agreement); only a disagreement is searched for.
    if regex.fullmatch(f"{member}*", in_text) and regex.fullmatch(f"{non_member}*", out_text):
        return ()
    wrong = regex.findall(non_member, in_text) + regex.findall(member, out_text)
    return _as_ranges(map(ord, wrong))


# ------------------------------------------------------------------------------------------------
# Exact patterns. A pattern whose classes this `regex` answers like the table is exact as written. If
# it disagrees on some code points, the pattern as written is still exact on any text that holds none
# of them: a preset sees a character only through its classes and its literals (all ASCII, which no
# Unicode version changes). Text that holds one is matched with each such character replaced by a
# stand-in: a character of the same class in the table on which this `regex` agrees, so the matches
# have the same spans, and the pieces are cut from the original text at those spans. Only text holding
# such a character pays for the translation (its cost: bench/PERFORMANCE.md, "Custom patterns at any size,
# and the pinned Unicode classes").

_CLASS_TOKEN = re.compile(r"\\[pP]\{(\w+)\}|\\[sS]|\\.|\[\^?|\]")


def spelled_out(source: str, names: Collection[str]) -> str:
    r"""``source`` with the classes ``names`` (keys of ``NAMES``) written as explicit ranges, inside
    and outside brackets; everything else is kept as written. Exact on any text, but `regex` tests
    long explicit classes range by range, slower than a property.

    >>> print(spelled_out(r"\s+(?!\S)", ["White_Space"]))
    [\x09-\x0d\x20\x85\xa0\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u3000]+(?![^\x09-\x0d\x20\x85\xa0\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u3000])
    """
    out = []
    in_brackets = False
    position = 0
    for token in _CLASS_TOKEN.finditer(source):
        out.append(source[position : token.start()])
        position = token.end()
        text = token.group()
        name = token.group(1) or ("White_Space" if text in (r"\s", r"\S") else None)
        if text.startswith("["):
            in_brackets = True
        elif text == "]":
            in_brackets = False
        elif name in names:
            negated = text[1] in "PS"
            body = class_body(_complement(ranges(name)) if negated and in_brackets else ranges(name))
            text = body if in_brackets else f"[{'^' if negated else ''}{body}]"
        out.append(text)
    out.append(source[position:])
    return "".join(out)


def _class_names(source: str) -> set[str]:
    """The classes (keys of ``NAMES``) ``source`` names; ValueError for one the table lacks."""
    used = {
        token.group(1) or "White_Space"
        for token in _CLASS_TOKEN.finditer(source)
        if token.group(1) or token.group() in (r"\s", r"\S")
    }
    unknown = used - set(NAMES)
    if unknown:
        raise BpeError(f"no pinned Unicode class {sorted(unknown)[0]!r} (pinned: {sorted(NAMES)})")
    return used


@functools.cache
def _translation(names: frozenset[str]) -> dict[int, int] | None:
    """Code point -> stand-in for every code point on which this `regex` disagrees with the table on
    one of ``names``: a code point in the same classes of the table, on which this `regex` agrees. None
    when that cannot be done exactly (a character case-equivalent to ASCII, so that a literal of the
    pattern might see it, or no stand-in for its classes), and then the spelled-out pattern is used."""
    import regex

    wrong = sorted({code for name in names for first, last in disagreeing(name) for code in range(first, last + 1)})
    ascii_like = regex.compile(r"(?i)[\x00-\x7f]").match
    if any(ascii_like(chr(code)) for code in wrong):
        return None
    starts = {name: [first for first, _ in ranges(name)] for name in NAMES}

    def classes(code: int) -> frozenset[str]:
        return frozenset(
            name
            for name in NAMES
            if (at := bisect.bisect_right(starts[name], code) - 1) >= 0 and code <= ranges(name)[at][1]
        )

    needed = {code: classes(code) for code in wrong}
    missing = set(needed.values())
    stand_ins: dict[frozenset[str], int] = {}
    excluded = set(wrong)
    for code in range(0x100, 0x110000):  # the first fitting code point of each kind, found early
        if not missing:
            break
        if code in excluded or 0xD800 <= code <= 0xDFFF or ascii_like(chr(code)):
            continue
        kind = classes(code)
        if kind in missing:
            stand_ins[kind] = code
            missing.discard(kind)
    return None if missing else {code: stand_ins[kind] for code, kind in needed.items()}


class ExactPattern:
    """A compiled preset (``pattern``, ``findall``, ``finditer``) whose classes are the table's on
    every text whatever the `regex` release (see above). ``finditer`` on text holding a character this
    `regex` disagrees on matches the translated text: use the matches' spans, not their text."""

    __slots__ = ("pattern", "_fast", "_fast_findall", "_suspect", "_suspects", "_wrong", "_names", "_careful")

    def __init__(self, source: str, names: frozenset[str]) -> None:
        import regex

        self.pattern = source
        self._fast = regex.compile(source)
        codes = sorted({code for name in names for a, b in disagreeing(name) for code in range(a, b + 1)})
        self._wrong = frozenset(map(chr, codes))
        self._names = names
        self._careful: tuple[dict[int, int], regex.Pattern[str] | None] | None = None  # see _care
        # A standard-library `re` class of the BMP code points in dispute (one bitmap lookup per
        # character) and of all astral characters (one range): a quick first look; only the few
        # characters it finds are then looked up exactly.
        bmp = _as_ranges(code for code in codes if code < 0x10000)
        astral = ((0x10000, 0x10FFFF),) if codes and codes[-1] >= 0x10000 else ()
        suspect = re.compile(f"[{class_body(bmp + astral)}]")
        self._suspect, self._suspects = suspect.search, suspect.findall
        self._fast_findall = self._fast.findall

    def _needs_care(self, text: str) -> bool:
        return self._suspect(text) is not None and not self._wrong.isdisjoint(self._suspects(text))

    # Rebuilt where it is unpickled, for that process's `regex`.
    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        return exact_pattern, (self.pattern,)

    def findall(self, text: str) -> list[str]:
        """The pieces of ``text`` (presets have no groups). GPT-2's encoder calls it once per new
        segment, so the usual case comes first, in one expression."""
        if self._suspect(text) is None or self._wrong.isdisjoint(self._suspects(text)):
            return self._fast_findall(text)
        return self._careful_findall(text)

    def _care(self) -> tuple[dict[int, int], regex.Pattern[str] | None]:
        """(translation, None) when matching translated text is exact, else ({}, the spelled-out pattern):
        found on the first text that needs it, not when the pattern is built."""
        if self._careful is None:
            import regex

            table = _translation(self._names)
            spelled = None if table is not None else regex.compile(spelled_out(self.pattern, self._names))
            self._careful = (table or {}, spelled)
        return self._careful

    def _careful_findall(self, text: str) -> list[str]:
        table, spelled = self._care()
        if spelled is not None:
            return spelled.findall(text)
        translated = text.translate(table)
        ends = list(accumulate(map(len, self._fast.findall(translated))))
        if ends and ends[-1] == len(text):  # the pieces tile the text, as the presets' always do
            return list(map(text.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        return [text[match.start() : match.end()] for match in self._fast.finditer(translated)]

    def finditer(self, text: str, *args: Any, **kwargs: Any) -> Iterator[regex.Match[str]]:
        if not self._needs_care(text):
            return self._fast.finditer(text, *args, **kwargs)
        table, spelled = self._care()
        if spelled is not None:
            return spelled.finditer(text, *args, **kwargs)
        return self._fast.finditer(text.translate(table), *args, **kwargs)


@functools.lru_cache(maxsize=32)
def exact_pattern(source: str) -> ExactPattern | regex.Pattern[str]:
    """``source`` (a pattern whose literals are ASCII) compiled so that its classes are the table's
    on every code point: a plain `regex` pattern when this `regex` agrees with the table on every
    class ``source`` names, an ``ExactPattern`` otherwise."""
    import regex

    names = frozenset(name for name in _class_names(source) if disagreeing(name))
    return ExactPattern(source, names) if names else regex.compile(source)


@functools.lru_cache(maxsize=32)
def narrowed_pattern(source: str) -> regex.Pattern[str]:
    r"""``source`` compiled with each class written outside brackets (``\p{L}``, ``\s``, ...) narrowed
    to the code points on which this `regex` and the table agree: for rules where matching at fewer
    places is always safe, such as the safe cut rules (a cut missed only makes a part longer).

    >>> narrowed_pattern(r"(?=\s)(?<=\p{L})").search("x y").start()
    1
    """
    import regex

    def narrowed(token: re.Match[str]) -> str:
        text = token.group()
        name = token.group(1) or ("White_Space" if text in (r"\s", r"\S") else None)
        if name is None or not disagreeing(name):
            return text
        # Without the code points in dispute, the class (or its complement) is the same for both.
        return f"(?:(?![{class_body(disagreeing(name))}]){text})"

    if re.search(r"\[", source):
        raise BpeError(f"narrowed_pattern takes classes outside brackets only, not {source!r}")
    return regex.compile(_CLASS_TOKEN.sub(narrowed, source))


# ------------------------------------------------------------------------------------------------
# Generating the table from the installed tiktoken: each class is asked of tiktoken's own regex engine
# by encoding every code point with a pattern that matches only that class (tiktoken drops what its
# pattern does not match), with the 256 single bytes as the only tokens.


def probe_tiktoken(spelling: str) -> set[int]:
    """The code points that the installed tiktoken's regex engine matches with ``spelling``."""
    import tiktoken

    everything = _text(((0, 0xD7FF), (0xE000, 0x10FFFF)))
    ranks = {bytes([byte]): byte for byte in range(256)}
    encoding = tiktoken.Encoding("class-probe", pat_str=spelling, mergeable_ranks=ranks, special_tokens={})
    return set(map(ord, encoding.decode_bytes(encoding.encode_ordinary(everything)).decode("utf-8")))


def generate_table() -> str:
    """``TABLE`` as the installed tiktoken answers it; ValueError if its classes overlap."""
    letter_of = bytearray(b"X" * 0x110000)
    for letter, name in CLASSES.items():
        for code in probe_tiktoken(SPELLING[name][0]):
            if letter_of[code] != ord("X"):
                raise BpeError(f"U+{code:04X} is in two classes ({chr(letter_of[code])}, {letter}) for tiktoken")
            letter_of[code] = ord(letter)
    letters = {code for code, letter in enumerate(letter_of) if chr(letter) in NAMES["L"]}
    if letters != probe_tiktoken(r"\p{L}"):
        raise BpeError(r"tiktoken's \p{L} is not the union of Lu, Ll, Lt, Lm and Lo")
    parts = []
    for run in re.finditer(rb"([A-Z])\1*", bytes(letter_of)):
        length = run.end() - run.start()
        parts.append(run.group(1).decode() + (_base36(length) if length > 1 else ""))
    return "".join(parts)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, digit = divmod(number, 36)
        out = digits[digit] + out
    return out


def tiktoken_unicode_version() -> str:
    """The Unicode version the installed tiktoken follows, from letters each version added."""
    letters = probe_tiktoken(r"\p{L}")
    version = "older than 15.0"
    for name, probe in _VERSION_PROBES.items():
        if probe is None or probe not in letters:
            break
        version = name
    return version


def write_table(path: Path = Path(__file__)) -> None:
    """Regenerate ``TABLE``, ``TIKTOKEN_VERSION`` and ``UNICODE_VERSION`` in ``path`` (this file)."""
    import tiktoken

    table = generate_table()
    lines = "\n".join(f'    "{table[i : i + 96]}"' for i in range(0, len(table), 96))
    replacements = {
        r"^# BEGIN GENERATED TABLE\n.*?^# END GENERATED TABLE$": (
            f"# BEGIN GENERATED TABLE\nTABLE = (\n{lines}\n)\n# END GENERATED TABLE"
        ),
        r'^TIKTOKEN_VERSION = "[^"\n]*"$': f'TIKTOKEN_VERSION = "{tiktoken.__version__}"',
        r'^UNICODE_VERSION = "[^"\n]*"$': f'UNICODE_VERSION = "{tiktoken_unicode_version()}"',
    }
    source = path.read_text(encoding="utf-8")
    for pattern, new in replacements.items():
        source, found = re.subn(pattern, _literally(new), source, count=1, flags=re.S | re.M)
        if found != 1:
            raise BpeError(f"{path} has no line matching {pattern!r}: restore it from git")
    path.write_text(source, encoding="utf-8")


def _literally(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement for ``re.sub`` that puts ``text`` as it is (no backslash escapes processed)."""
    return lambda _match: text


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(
            "usage: python -m bpe_core.pretokenization.unicode_classes --write   "
            "(regenerates TABLE from the installed tiktoken)"
        )
    write_table()
    print(f"wrote {__file__}")
