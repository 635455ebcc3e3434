"""What a tokenizer reports about its tokens: merge records, per-token detail, and the one display
convention for tokens and text (visible whitespace marks, ``\\xNN`` for stray bytes).

Plain records and pure functions for displays and files; nothing here encodes text or draws HTML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class MergeRecord:
    """One merge: ``left`` + ``right`` became ``id`` at ``rank``; ``count`` is the pair count when it
    was chosen during training (None for tokenizers that were not trained here)."""

    rank: int
    left: int
    right: int
    id: int
    count: int | None = None


@dataclass(frozen=True)
class TokenInfo:
    """One encoded token, for visualisation.

    ``start``/``end`` are character offsets into the encoded text. A token that holds only part of a
    UTF-8 character (``partial``) reports the span of the whole character(s) it touches.
    """

    id: int
    bytes: bytes
    start: int
    end: int
    partial: bool
    special: bool


#: How whitespace is drawn wherever a token or a piece of text is shown (the app, the CLI,
#: ``vocab_dump``): one visible mark per character, so runs of spaces never collapse.
WHITESPACE_MARKS = {" ": "␣", "\t": "→", "\n": "↵", "\r": "␍"}
_MARKS = {**{chr(c): chr(0x2400 + c) for c in range(32)}, "\x7f": "␡", **WHITESPACE_MARKS}
_MARK_TABLE = str.maketrans(_MARKS)
_UNMARKS = {mark: ch for ch, mark in _MARKS.items()}
_STRAY_BYTE = re.compile(r"\\x([0-9a-fA-F]{2})")


def text_display(text: str) -> str:
    r"""``text`` with the display convention: space ␣, tab →, newline ↵, carriage return ␍, other
    control characters as their Unicode control pictures (␀, ␛, ␡); everything else as it is.

    >>> text_display("a  b\tc\n")
    'a␣␣b→c↵'
    """
    return text.translate(_MARK_TABLE)


def token_display(token: bytes) -> str:
    r"""A token's bytes as one readable line: UTF-8 characters as themselves (whitespace and control
    characters marked as in ``text_display``), and each byte that is not part of a whole UTF-8
    character in the token as ``\xNN``, the one escape the displays use.

    A character that would show as nothing or break the line (other Unicode white space such as
    U+00A0 or U+2028, and the C1 controls U+0080-U+009F) is shown as its UTF-8 bytes, ``\xNN`` too.

    >>> token_display(b" the\n"), token_display("你".encode()[:2]), token_display("a\u00a0b".encode())
    ('␣the↵', '\\xe4\\xbd', 'a\\xc2\\xa0b')
    """
    return escape_invisible(text_display(token.decode("utf-8", errors="backslashreplace")))


def escape_invisible(shown: str) -> str:
    r"""``shown`` with each non-ASCII white space or C1 control character as its UTF-8 bytes (``\xNN``),
    as ``token_display`` shows them.

    >>> escape_invisible("a\u2028b")
    'a\\xe2\\x80\\xa8b'
    """
    return shown if shown.isascii() else _INVISIBLE.sub(_as_bytes, shown)


def _as_bytes(match: re.Match) -> str:
    return "".join(f"\\x{byte:02x}" for byte in match.group().encode("utf-8"))


# Non-ASCII characters that are white space (``str.isspace``) or C1 controls; the ASCII ones have marks.
_INVISIBLE = re.compile("[\x80-\x9f\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def parse_token_display(shown: str) -> bytes:
    r"""The bytes ``token_display`` shows as ``shown``: marks back to whitespace, ``\xNN`` back to
    bytes (for search boxes that accept what the pages show). A text that literally holds a mark
    or ``\xNN`` reads as the character or byte it stands for.

    >>> parse_token_display("␣the↵"), parse_token_display("\\xe4\\xbd")
    (b' the\n', b'\xe4\xbd')
    """
    text = "".join(_UNMARKS.get(ch, ch) for ch in shown)
    out = bytearray()
    position = 0
    for match in _STRAY_BYTE.finditer(text):
        out += text[position : match.start()].encode("utf-8", "surrogatepass")
        out.append(int(match.group(1), 16))
        position = match.end()
    out += text[position:].encode("utf-8", "surrogatepass")
    return bytes(out)


def piece_token_infos(piece: str, ids: Sequence[int], vocab: Mapping[int, bytes], *, offset: int) -> list[TokenInfo]:
    """``TokenInfo`` for each id of one piece (``ids`` are its encoding), ``offset`` being the piece's
    character offset in the text.

    >>> vocab = {195: b"\\xc3", 169: b"\\xa9"}
    >>> [(i.start, i.end, i.partial) for i in piece_token_infos("é", [195, 169], vocab, offset=4)]
    [(4, 5, True), (4, 5, True)]
    """
    char_of_byte: list[int] = []  # char_of_byte[k]: index (within piece) of the character holding byte k
    char_starts = {0}
    for index, ch in enumerate(piece):
        size = len(ch.encode("utf-8"))
        char_of_byte.extend([index] * size)
        char_starts.add(len(char_of_byte))
    out: list[TokenInfo] = []
    byte_position = 0
    for token_id in ids:
        token = vocab[token_id]
        end_byte = byte_position + len(token)
        partial = byte_position not in char_starts or end_byte not in char_starts
        start = offset + char_of_byte[byte_position]
        end = offset + char_of_byte[end_byte - 1] + 1
        out.append(TokenInfo(token_id, token, start, end, partial, False))
        byte_position = end_byte
    return out
