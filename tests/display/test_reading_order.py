"""A space before a right-to-left word is drawn where that word starts, on its right, everywhere: inside
a token (``␣שלום``), as a token of its own before the word (strips, Step through's words), and in a
label in a left-to-right cell, caption or chart. Checked in the markup and, where Chromium is
installed, by where the browser draws the ␣ and the word's first letter."""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.display import glyphs, strip
from bpe_core.display.styles import TOKEN_CSS

ROOT = Path(__file__).resolve().parents[2]
HEBREW = "שלום"
RLI, PDI = "\u2067", "\u2069"


def _infos(text: str, cuts: list[int]) -> list[TokenInfo]:
    """One token per span between ``cuts``, ids by position."""
    bounds = [0, *cuts, len(text)]
    return [
        TokenInfo(n, text[a:b].encode(), a, b, False, False)
        for n, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))
    ]


class _Runs(HTMLParser):
    """The text of each right-to-left run (``<span class="rtl">``), marks as they are."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[bool] = []
        self.runs: list[str] = []

    def handle_starttag(self, tag, attrs):
        opens = "rtl" in (dict(attrs).get("class") or "").split()
        if opens:
            self.runs.append("")
        self.open.append(opens)

    def handle_endtag(self, tag):
        self.open.pop()

    def handle_data(self, data):
        if any(self.open):
            self.runs[-1] += data


def _rtl_runs(markup: str) -> list[str]:
    reader = _Runs()
    reader.feed(markup)
    return reader.runs


def test_a_space_token_before_a_right_to_left_word_opens_its_run():
    text = f"abc {HEBREW} def"
    infos = _infos(text, [3, 4, 8, 9])  # abc | ␣ | שלום | ␣ | def: spaces as tokens of their own
    markup = strip.render_tokens_html(text, infos, rank_of=lambda _: None, style=False)
    assert _rtl_runs(markup) == [f"␣{HEBREW}"]  # the space before the word, inside its run
    words = strip.words_html([([b" ", *(ch.encode() for ch in HEBREW)], 2)], highlight=None)
    assert 'dir="rtl"><span class="t c0"' in words  # Step through's word: ␣ opens the run too


def test_a_space_after_a_right_to_left_word_and_spaces_in_left_to_right_text_stay_out():
    text = f"{HEBREW} abc  def"
    infos = _infos(text, [4, 5, 8, 10])
    markup = strip.render_tokens_html(text, infos, rank_of=lambda _: None, style=False)
    assert _rtl_runs(markup) == [HEBREW]
    plain = strip.render_tokens_html("abc  def", _infos("abc  def", [3, 5]), rank_of=lambda _: None)
    assert 'dir="rtl"' not in plain


def test_labels_of_right_to_left_tokens_with_a_mark_keep_their_reading_direction():
    assert glyphs.token_label(f" {HEBREW}".encode()) == f"{RLI}␣{HEBREW}{PDI}"
    assert glyphs.labels_in([f" {HEBREW}".encode(), b"\n"]) == [f"{RLI}␣{HEBREW}{PDI}", "↵"]
    assert glyphs.text_label(f"{HEBREW}\n") == f"{RLI}{HEBREW}↵{PDI}"
    assert glyphs.token_quote(f" {HEBREW}".encode()) == f"‘{RLI}␣{HEBREW}{PDI}’"
    for unchanged in (" the", HEBREW, "a ש", " 12"):  # left to right, no mark at an end, or no letter
        assert glyphs.text_label(unchanged) == unchanged.replace(" ", "␣")


# --------------------------------------------------------------------------------------------------
# in a browser: where the ␣ is drawn


POSITIONS = """(id) => {
    const box = document.getElementById(id);
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    const found = {};
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
            const ch = node.data[i];
            if ((ch === '␣' || ch === 'ש') && !(ch in found)) {
                const range = document.createRange();
                range.setStart(node, i); range.setEnd(node, i + 1);
                const r = range.getBoundingClientRect();
                found[ch] = [r.left, r.right];
            }
        }
    }
    return found;
}"""


def _browser_page():
    sys.path.insert(0, str(ROOT / "tests" / "app"))
    from test_browser import _browser_page, _needs_a_browser

    return _browser_page({"chromium": _needs_a_browser()}, "failure_reading_order", timeout_ms=120_000)


def test_chromium_draws_the_space_on_the_right_of_a_right_to_left_word():
    pytest.importorskip("playwright")
    inside = f"abc {HEBREW} def"
    alone = _infos(inside, [3, 4, 8, 9])
    cases = {
        "token": strip.render_tokens_html(inside, _infos(inside, [3, 8]), rank_of=lambda _: None, style=False),
        "alone": strip.render_tokens_html(inside, alone, rank_of=lambda _: None, style=False),
        "word": strip.words_html([([b" ", *(ch.encode() for ch in HEBREW)], 2)], highlight=None),
        "cell": f"<table><tr><td>\u200e{glyphs.token_label(f' {HEBREW}'.encode())}</td></tr></table>",
        "svg": f'<svg width="300" height="40"><text x="10" y="20">{glyphs.reading_order(f"␣{HEBREW}")}</text></svg>',
    }
    body = "".join(f'<div id="{name}" style="margin:1rem">{markup}</div>' for name, markup in cases.items())
    with _browser_page() as page:
        page.set_content(f"<html><body>{TOKEN_CSS}{body}</body></html>")
        for name in cases:
            found = page.evaluate(POSITIONS, name)
            assert found["␣"][0] >= found["ש"][1] - 0.5, (name, found)  # the mark right of the word's first letter
