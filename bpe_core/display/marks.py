r"""Tokens and text as one line of plain text: the display convention every face of bpe_core shares.

Whitespace is one visible mark per character (␣ → ↵ ␍, control pictures for the other control
characters), so runs of spaces never collapse; a token's bytes that are not part of a whole UTF-8
character are ``\xNN``, the one escape, which ``parse_token_display`` reads back (the command line's
``encode --format tokens`` and ``inspect``, ``Tokenizer.vocab_dump``, the merge forest's search).
``terminal_safe`` is the rule for anything from a file or a user printed to a terminal.

Readers' labels that name characters instead of escaping bytes (⟨न 1–2/3⟩) are ``glyphs``'; HTML is
``strip``'s. Pure functions on strings and bytes: nothing here encodes text or draws.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: How whitespace is drawn wherever a token or a piece of text is shown (the app, the CLI,
#: ``vocab_dump``, notebooks): one visible mark per character, so runs of spaces never collapse.
WHITESPACE_MARKS = {" ": "␣", "\t": "→", "\n": "↵", "\r": "␍"}
_MARKS = {**{chr(c): chr(0x2400 + c) for c in range(32)}, "\x7f": "␡", **WHITESPACE_MARKS}
#: Every mark ``text_display`` writes (whitespace and the control pictures).
MARK_CHARACTERS = "".join(_MARKS.values())
_MARK_TABLE = str.maketrans(_MARKS)
_UNMARKS = {mark: ch for ch, mark in _MARKS.items()}
_STRAY_BYTE = re.compile(r"\\x([0-9a-fA-F]{2})")
# Non-ASCII characters that are white space (``str.isspace``) or C1 controls; the ASCII ones have marks.
_INVISIBLE = re.compile("[\x80-\x9f\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


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


def token_displays(vocab: Mapping[int, bytes]) -> dict[int, str]:
    r"""id -> ``token_display`` of its bytes, in id order, for a whole vocabulary at once: the marks
    are applied to all tokens in one pass (``text_display`` maps each character to one character, so
    the joined text cuts back exactly), which is what makes a 200k vocabulary quick.

    >>> token_displays({0: b" a", 1: "你".encode()[:2]})
    {0: '␣a', 1: '\\xe4\\xbd'}
    """
    ids = sorted(vocab)
    decoded = [vocab[i].decode("utf-8", "backslashreplace") for i in ids]
    joined = text_display("".join(decoded))
    out: dict[int, str] = {}
    position = 0
    for token_id, text in zip(ids, decoded, strict=True):
        end = position + len(text)
        out[token_id] = joined[position:end]
        position = end
    if not joined.isascii():  # the few tokens holding invisible characters, as token_display shows them
        for token_id, shown in out.items():
            if not shown.isascii():
                out[token_id] = escape_invisible(shown)
    return out


def escape_invisible(shown: str) -> str:
    r"""``shown`` with each non-ASCII white space or C1 control character as its UTF-8 bytes (``\xNN``),
    as ``token_display`` shows them.

    >>> escape_invisible("a\u2028b")
    'a\\xe2\\x80\\xa8b'
    """
    return shown if shown.isascii() else _INVISIBLE.sub(_as_bytes, shown)


def _as_bytes(match: re.Match) -> str:
    return "".join(f"\\x{byte:02x}" for byte in match.group().encode("utf-8"))


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


#: Characters shown escaped in terminal output: C0 and C1 controls, DEL, and the line and paragraph
#: separators, so that file content can neither move the cursor, retitle or clear the terminal, nor
#: start a line of its own (a forged ``error:`` line).
_UNSAFE_FOR_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def terminal_safe(text: str) -> str:
    """``text`` safe to print to a terminal: control characters as escapes (``\\n``, ``\\x1b``),
    everything else as it is. For messages that quote a file or the user (tokens have their marks).

    >>> terminal_safe("a\\nb\\x1b]0;x\\x07 é")
    'a\\\\nb\\\\x1b]0;x\\\\x07 é'
    """
    return _UNSAFE_FOR_TERMINAL.sub(lambda m: repr(m.group())[1:-1], text)
