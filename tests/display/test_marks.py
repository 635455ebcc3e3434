"""The one display convention for whitespace and bytes (``bpe_core.display.marks``): every whitespace
character marked and runs never collapsed, characters shown as themselves and only stray bytes
escaped, every invisible non-ASCII character shown as its bytes, one line without raw whitespace, and
what is shown read back to the bytes. (The pages that draw it: tests/app/test_legible_scripts.py.)"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from bpe_core.display.marks import parse_token_display, text_display, token_display

MARKS = set("␣→↵␍␡") | {chr(0x2400 + c) for c in range(32)}


def test_text_display_marks_every_whitespace_and_never_collapses_runs():
    assert text_display(" \t\n\r") == "␣→↵␍"
    assert text_display("\x00\x1b\x7f") == "␀␛␡"
    assert text_display("a" + " " * 7 + "b") == "a" + "␣" * 7 + "b"  # seven spaces stay seven
    assert text_display("नमस्ते 你好 🙂") == "नमस्ते␣你好␣🙂"


def test_token_display_shows_characters_and_escapes_only_stray_bytes():
    assert token_display(b" the\n") == "␣the↵"
    assert token_display("你".encode()) == "你"
    assert token_display("你".encode()[:2]) == "\\xe4\\xbd"
    assert token_display(b"\xff a") == "\\xff␣a"


def test_every_invisible_non_ascii_character_is_shown_as_bytes():
    from bpe_core.display.marks import _INVISIBLE

    invisible = {chr(c) for c in range(0x80, 0x110000) if chr(c).isspace() or 0x80 <= c <= 0x9F}
    assert {chr(c) for c in range(0x80, 0x110000) if _INVISIBLE.fullmatch(chr(c))} == invisible
    for ch in sorted(invisible):
        shown = token_display(f"a{ch}b".encode())
        assert shown == "a" + "".join(f"\\x{byte:02x}" for byte in ch.encode()) + "b"
        assert parse_token_display(shown) == f"a{ch}b".encode()


@given(st.binary(max_size=24))
@example(b"\xc2\x85")  # NEL, once shown raw
@example(b"\xc2\xa0 \xe2\x80\xa8")
def test_token_display_is_one_line_without_raw_whitespace(token):
    shown = token_display(token)
    assert not any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in shown), shown


@given(st.binary(max_size=24))
def test_parse_token_display_reads_back_what_is_shown(token):
    text = token.decode("utf-8", "replace")
    if b"\\" in token or MARKS & set(text):
        return  # a literal backslash or mark reads as what it stands for (documented)
    assert parse_token_display(token_display(token)) == token
