r"""What a reader sees of tokens: grapheme clusters, reading direction, and tokens as text that
names characters, never ``\xNN``.

A byte-level token can hold part of a character (GPT-2 cuts न, ``e0 a4 a8``, into ``e0 a4`` and
``a8``). Wherever the bytes around a token are known (a text's encoding, a merge's result, a
derivation tree's root), such a token is written as the character with the bytes it holds:
``⟨न 1–2/3⟩`` is bytes 1 to 2 of the 3 bytes of न. A token seen alone is written with what its bytes
can be part of: ``⟨Devanagari 1–2/3⟩`` (the first 2 of 3 bytes of a Devanagari character),
``⟨byte a8⟩`` (a byte that only continues a character); so is a token type seen in many places whose
bytes several characters share (``pieces``). Whitespace follows ``marks`` (␣ → ↵); a character that
shows as nothing (U+00A0, U+2028, a zero-width joiner or a bidi control outside a cluster it
joins...) is written ``⟨U+00A0⟩``, a combining mark with no letter before it on a dotted circle
(``◌ि``). A right-to-left label with a mark at its edge keeps its reading direction wherever it is
drawn (``reading_order``), so ␣ stands where the word starts, as in the token strips.

Grapheme clusters (a letter with its vowel signs, a conjunct such as न्दी, an emoji with its skin
tone or its zero-width joiners) come from the ``regex`` module's ``\X``, here and nowhere else.
Pure functions: no HTML (``strip`` draws).
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.display.marks import MARK_CHARACTERS, escape_invisible, text_display

_CLUSTER = regex.compile(r"\X")  # extended grapheme clusters: the one use of \X in the project
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


def cluster_starts(text: str, start: int = 0, end: int | None = None) -> set[int]:
    """Offsets in ``text[start:end]`` where a grapheme cluster starts (``start`` and ``end`` included).

    >>> sorted(cluster_starts("हिन्दी 👍🏽"))
    [0, 2, 6, 7, 9]
    """
    end = len(text) if end is None else end
    return {match.start() for match in _CLUSTER.finditer(text, start, end)} | {start, end}


def clusters(text: str) -> list[str]:
    """``text`` cut into grapheme clusters.

    >>> clusters("नमस्ते 👨‍👩‍👧")
    ['न', 'म', 'स्ते', ' ', '👨\u200d👩\u200d👧']
    """
    return _CLUSTER.findall(text)


def text_direction(text: str) -> str | None:
    """ "rtl" or "ltr" from the first strongly directional character of ``text``; None when it has none
    (spaces, digits, punctuation)."""
    if text.isascii():  # the common case, without a lookup per character
        return "ltr" if any(ch.isalpha() for ch in text) else None
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return None


def circled(number: int) -> str:
    """①..⑳, then (21), (22)...

    >>> circled(2), circled(21)
    ('②', '(21)')
    """
    return CIRCLED[number - 1] if 1 <= number <= len(CIRCLED) else f"({number})"


# ------------------------------------------------------------------------------------------------
# bytes as characters


@dataclass(frozen=True)
class Unit:
    """A character of a byte string (``char`` set) or one byte that is not part of a whole character
    (``char`` None), with its byte span."""

    start: int
    end: int
    char: str | None


def _sequence_length(lead: int) -> int:
    """How many bytes a UTF-8 sequence starting with ``lead`` has (0: not a lead byte)."""
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def units(data: bytes) -> list[Unit]:
    """``data`` as whole characters and stray bytes, in order (a byte is stray when no valid UTF-8
    character around it holds it).

    >>> [(u.start, u.end, u.char) for u in units("a你".encode()[:3] + b"\\xa0")]
    [(0, 1, 'a'), (1, 4, '你')]
    >>> [(u.start, u.end, u.char) for u in units(b"\\xe4\\xbd")]
    [(0, 1, None), (1, 2, None)]
    """
    out: list[Unit] = []
    position = 0
    while position < len(data):
        size = _sequence_length(data[position])
        if size:
            try:
                char = data[position : position + size].decode("utf-8")
            except UnicodeDecodeError:
                char = None
            if char is not None and len(char) == 1:
                out.append(Unit(position, position + size, char))
                position += size
                continue
        out.append(Unit(position, position + 1, None))
        position += 1
    return out


_MARKS = ("Mn", "Mc", "Me")
_FORMAT = regex.compile(r"\p{Cf}")  # zero-width joiners, bidi controls, soft hyphen...: drawn as nothing


def char_text(char: str) -> str:
    """One character as the pages write it: whitespace marked (␣ → ↵), an invisible one (a format
    character too) as ``⟨U+00A0⟩``, a combining mark alone on a dotted circle (◌ि).

    >>> char_text(" "), char_text("\\u00a0"), char_text("\\u200d"), char_text("\\u093f")
    ('␣', '⟨U+00A0⟩', '⟨U+200D⟩', '◌ि')
    """
    shown = text_display(char)
    if shown != char:
        return shown
    category = unicodedata.category(char)
    if category == "Cf" or escape_invisible(char) != char:
        return f"⟨U+{ord(char):04X}⟩"
    if category in _MARKS:
        return "◌" + char
    return char


def _cluster_label(cluster: str) -> str:
    """One grapheme cluster: its first character by ``char_text`` (a mark on a dotted circle); the marks
    after it, and the joiners between two characters, as they are (they draw on it: स्ते, ◌ें,
    👨‍👩‍👧); the rest by ``char_text`` (a joiner that joins nothing here is ``⟨U+200D⟩``)."""
    first, last = cluster[0], len(cluster) - 1
    based = unicodedata.category(first) != "Cf"  # a mark first stands on its dotted circle: ◌ें
    shown = [char_text(first)]
    for index, ch in enumerate(cluster[1:], 1):
        category = unicodedata.category(ch)
        drawn_on = based and (category in _MARKS or (category == "Cf" and index < last))
        shown.append(ch if drawn_on else char_text(ch))
    return "".join(shown)


def text_label(text: str) -> str:
    """Whole text as the pages write it in cells and prose: each grapheme cluster whole, whitespace
    and invisible characters as ``char_text`` writes them, a joiner alone never an empty cell.

    >>> text_label("नमस्ते"), text_label("\\u093fx"), text_label("\\u200d👩"), text_label("👨\\u200d👩")
    ('नमस्ते', '◌िx', '⟨U+200D⟩👩', '👨\u200d👩')
    """
    if text.isascii() and text.isprintable() and " " not in text:
        return text
    shown = text_display(text)
    if escape_invisible(shown) == shown and unicodedata.category(text[0]) not in _MARKS and not _FORMAT.search(text):
        return reading_order(shown)
    return reading_order("".join(map(_cluster_label, clusters(text))))


#: The right-to-left isolate ``reading_order`` wraps a label in (U+2067 ... U+2069).
RTL_ISOLATE = ("\u2067", "\u2069")


def reading_order(label: str) -> str:
    """``label`` drawn in its own reading direction wherever it stands: a right-to-left label with a
    whitespace mark at an end goes in a right-to-left isolate, so ``␣שלום`` (a space, then the word)
    shows its ␣ on the word's right, where a right-to-left reader starts, as the token strips draw it;
    in a left-to-right cell, caption or chart the mark would otherwise land on the word's left, after
    it in reading order. Every other label is returned as it is.

    >>> reading_order("␣שלום") == "\u2067␣שלום\u2069", reading_order("␣the"), reading_order("שלום")
    (True, '␣the', 'שלום')
    """
    if label and (label[0] in MARK_CHARACTERS or label[-1] in MARK_CHARACTERS) and text_direction(label) == "rtl":
        return RTL_ISOLATE[0] + label + RTL_ISOLATE[1]
    return label


def _byte_range(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}–{last}"


@functools.lru_cache(maxsize=4096)
def _range_name(prefix: bytes) -> str:
    """What the characters starting with the incomplete UTF-8 ``prefix`` are: a script ("Devanagari"),
    "emoji", "punctuation", or their code point range."""
    size = _sequence_length(prefix[0])
    low = (prefix + b"\x80" * (size - len(prefix))).decode("utf-8", "replace")
    high = (prefix + b"\xbf" * (size - len(prefix))).decode("utf-8", "replace")
    if len(low) != 1 or len(high) != 1:
        return f"{size}-byte character"
    first, last = ord(low), ord(high)
    names: Counter = Counter()
    assigned = 0
    for code in range(first, last + 1):
        ch = chr(code)
        category = unicodedata.category(ch)
        if category in ("Cn", "Co", "Cs"):
            continue
        assigned += 1
        if category == "So":
            names["emoji" if 0x1F000 <= code <= 0x1FAFF else "symbol"] += 1
        elif category[0] == "P":
            names["punctuation"] += 1
        else:
            word = unicodedata.name(ch, "").split(" ")[0]
            names[word if word in ("CJK", "IPA") else word.title()] += 1
    if assigned and names:
        name, count = names.most_common(1)[0]
        if count * 2 >= assigned and name:
            return name
    return f"U+{first:04X}–U+{last:04X}"


def stray_label(run: bytes) -> str:
    """Bytes that are no whole character, seen alone: the start of a character (its script and the
    bytes held), or bytes that only continue or cannot be in a character.

    >>> stray_label(b"\\xe0\\xa4"), stray_label(b"\\xa8"), stray_label(b"\\xf0\\x9f")
    ('⟨Devanagari 1–2/3⟩', '⟨byte a8⟩', '⟨emoji 1–2/4⟩')
    """
    size = _sequence_length(run[0]) if run else 0
    if size > 1 and len(run) < size and all(0x80 <= b <= 0xBF for b in run[1:]):
        return f"⟨{_range_name(bytes(run))} {_byte_range(1, len(run))}/{size}⟩"
    return "⟨byte " + " ".join(f"{b:02x}" for b in run) + "⟩" if len(run) == 1 else "⟨bytes " + run.hex(" ") + "⟩"


def _stray_runs(data: bytes, parsed: Sequence[Unit]) -> list[tuple[int, int]]:
    """Byte spans of consecutive stray bytes: a lead byte with the continuation bytes after it (up to
    its length) together, continuation bytes that follow no lead byte together."""
    runs: list[tuple[int, int]] = []
    for unit in parsed:
        if unit.char is not None:
            continue
        byte = data[unit.start]
        if runs and runs[-1][1] == unit.start and 0x80 <= byte <= 0xBF:
            first = data[runs[-1][0]]
            size = runs[-1][1] - runs[-1][0]
            if 0x80 <= first <= 0xBF or _sequence_length(first) > size:
                runs[-1] = (runs[-1][0], unit.end)
                continue
        runs.append((unit.start, unit.end))
    return runs


def _run_label(data: bytes, run: tuple[int, int], start: int, end: int) -> str:
    """The bytes of ``run`` inside [start, end): where they stand in the character the run begins
    (``⟨Devanagari 1/3⟩``), or the bytes themselves when the run begins none."""
    low, high = max(start, run[0]), min(end, run[1])
    lead = data[run[0]]
    size = _sequence_length(lead)
    if size > 1 and run[1] - run[0] < size:
        name = _range_name(data[run[0] : run[1]])
        return f"⟨{name} {_byte_range(low - run[0] + 1, high - run[0])}/{size}⟩"
    return stray_label(data[low:high]) if high - low > 1 or size <= 1 else f"⟨byte {data[low]:02x}⟩"


def span_label(data: bytes, start: int, end: int, *, parsed: Sequence[Unit] | None = None) -> str:
    """``data[start:end]`` written as text, knowing the bytes around it: whole characters as
    themselves, a character it holds part of as ``⟨न 1–2/3⟩``, stray bytes by what they can begin
    (``⟨Devanagari 1/3⟩``, knowing the stray bytes after them too).

    >>> word = "नमस्ते".encode()
    >>> span_label(word, 0, 2), span_label(word, 2, 4), span_label(b"\\xe0\\xa4", 0, 2), span_label(b"\\xe0\\xa4", 1, 2)
    ('⟨न 1–2/3⟩', '⟨न 3/3⟩⟨म 1/3⟩', '⟨Devanagari 1–2/3⟩', '⟨Devanagari 2/3⟩')
    """
    parsed = units(data) if parsed is None else parsed
    out: list[str] = []
    whole: list[str] = []  # whole characters in a row: written together (``text_label``), clusters kept
    runs = iter(_stray_runs(data, parsed))
    run = next(runs, None)
    for unit in parsed:
        if unit.end <= start or unit.start >= end:
            continue
        if unit.char is not None and start <= unit.start and unit.end <= end:
            whole.append(unit.char)
            continue
        if whole:
            out.append(text_label("".join(whole)))
            whole.clear()
        if unit.char is None:
            while run is not None and run[1] <= unit.start:
                run = next(runs, None)
            if run is not None and (unit.start == run[0] or unit.start == start):
                out.append(_run_label(data, run, start, end))
            continue
        first, last = max(start, unit.start) - unit.start + 1, min(end, unit.end) - unit.start
        name = char_text(unit.char)
        name = name[1:-1] if name.startswith("⟨") else name  # ⟨U+200D 1/3⟩, not ⟨⟨U+200D⟩ 1/3⟩
        if text_direction(name) == "rtl":  # a left-to-right mark after ا: ⟨ا 1/2⟩, not drawn ⟨1/2 ا⟩
            name += "\u200e"
        out.append(f"⟨{name} {_byte_range(first, last)}/{unit.end - unit.start}⟩")
    if whole:
        out.append(text_label("".join(whole)))
    return "".join(out)


def token_label(token: bytes) -> str:
    """A token seen alone, as text (``span_label`` of all its bytes).

    >>> token_label(b" the\\n"), token_label("你".encode()[:2]), token_label(b"a\\xc2\\xa0")
    ('␣the↵', '⟨CJK 1–2/3⟩', 'a⟨U+00A0⟩')
    """
    try:
        return text_label(token.decode("utf-8"))
    except UnicodeDecodeError:
        return span_label(token, 0, len(token))


def labels_in(tokens: Sequence[bytes]) -> list[str]:
    """Each of ``tokens`` written knowing the others (they follow each other: a text's encoding, a
    merge's two parts).

    >>> labels_in(["你".encode()[:2], "你".encode()[2:]])
    ['⟨你 1–2/3⟩', '⟨你 3/3⟩']
    """
    data = b"".join(tokens)
    try:
        data.decode("utf-8")
        whole = True
    except UnicodeDecodeError:
        whole = False
    if whole and all(_whole_token(t) for t in tokens):
        return [text_label(t.decode("utf-8")) for t in tokens]
    parsed = units(data)
    out, position = [], 0
    for token in tokens:
        out.append(span_label(data, position, position + len(token), parsed=parsed))
        position += len(token)
    return out


def _whole_token(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def quote(label: str) -> str:
    """A label in running prose: between curly quotes, ‘␣the’."""
    return f"‘{label}’"


def symbol_text(symbol: bytes | str) -> str:
    """A token or training symbol seen alone as text: bytes through ``token_label`` (␣ for a space,
    ⟨CJK 1–2/3⟩ for part of a character); a textbook symbol (already text) with its whitespace marked.

    >>> symbol_text(b" the"), symbol_text("你".encode()[:2]), symbol_text("lo w")
    ('␣the', '⟨CJK 1–2/3⟩', 'lo␣w')
    """
    return token_label(symbol) if isinstance(symbol, bytes) else reading_order(text_display(symbol))


def token_quote(token: bytes | str) -> str:
    """A token (bytes, or a textbook symbol as text) in running prose, headings and table cells:
    ``symbol_text`` between curly quotes, e.g. ‘␣the’, ‘⟨CJK 1–2/3⟩’."""
    return quote(symbol_text(token))


# ------------------------------------------------------------------------------------------------
# a sequence of tokens as a text with spans (for the strips)


def sequence_infos(tokens: Sequence[bytes], ids: Sequence[int] | None = None) -> tuple[str, list[TokenInfo]] | None:
    """The text ``tokens`` spell and a ``TokenInfo`` per token (character span, partial or not), as a
    tokenizer's ``encode_with_details`` reports them; None when they do not spell valid UTF-8 (then
    they are written with ``labels_in``). ``ids`` default to the tokens' positions.

    >>> text, infos = sequence_infos(["你".encode()[:2], "你".encode()[2:] + b"!"])
    >>> text, [(i.start, i.end, i.partial) for i in infos]
    ('你!', [(0, 1, True), (0, 2, True)])
    """
    data = b"".join(tokens)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    char_of_byte: list[int] = []
    starts = {0}
    for index, ch in enumerate(text):
        char_of_byte.extend([index] * len(ch.encode("utf-8")))
        starts.add(len(char_of_byte))
    infos, position = [], 0
    for number, token in enumerate(tokens):
        end = position + len(token)
        if token:
            span = (char_of_byte[position], char_of_byte[end - 1] + 1)
        else:
            span = (char_of_byte[position] if position < len(char_of_byte) else len(text),) * 2
        partial = position not in starts or end not in starts
        token_id = ids[number] if ids is not None else number
        infos.append(TokenInfo(token_id, bytes(token), span[0], span[1], partial, False))
        position = end
    return text, infos
