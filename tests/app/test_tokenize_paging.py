"""Tokenize's paging (AppTest): a long text is drawn one page at a time with previous / next, a page
number box and jumps to a character or a line; the drawn tokens are the whole text's; the counts
cover the whole text; a toggle keeps the page."""

from __future__ import annotations

import re

import pytest
from apptest_support import drawn_html, run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.workspace import window
from pages._ui import render

TOKENIZE = "pages/tokenize_text.py"
LINES = "".join(f"line {n:05d}: the quick brown fox, 你好世界 {'x' * (n % 40)}\n" for n in range(600))
PAGE = "tokenize.page"


def _open(app: AppTest, text: str, tokenizers: list[str]) -> AppTest:
    app.switch_page(TOKENIZE).run()
    app.multiselect(key="tokenize.tokenizers").set_value(tokenizers)
    app.text_area(key="tokenize.text").set_value(text)
    return run(app)


def _html(app: AppTest) -> str:
    return "\n".join(drawn_html(app))


def _shown(app: AppTest) -> str:
    """The text the token panels show (tags and the style sheet taken out)."""
    panels = re.findall(r'<div class="bpe-tokens"[^>]*>(.*?)</div>', _html(app), re.S)
    return re.sub(r"<[^>]+>", "", "".join(panels))


def _page_caption(app: AppTest) -> str:
    return next(c for c in texts(app.caption) if c.startswith("Page "))


def _panel_ids(app: AppTest, key: str) -> list[int]:
    """The ids in the id list of tokenizer ``key``'s panel, as drawn."""
    block = re.search(rf'<div class="bpe-ids" data-k="{key}">(.*?)</div>', _html(app), re.S).group(1)
    return [int(i) for i in re.findall(r">(\d+)</span>", block)]


def test_a_short_text_has_no_paging(app):
    _open(app, "Hello world", ["gpt2"])
    assert not [n for n in app.number_input if n.key == PAGE]
    assert not any(c.startswith("Page ") for c in texts(app.caption))


def test_previous_next_and_the_page_box(app):
    _open(app, LINES, ["gpt2", "default"])
    pages = len(window.page_starts(LINES))
    assert pages > 3
    assert _page_caption(app).startswith(f"Page 1 of {pages}:")
    assert "line␣00000" in _shown(app) and "line␣00599" not in _shown(app)
    app.button(key=f"{PAGE}.next").click()
    run(app)
    assert _page_caption(app).startswith(f"Page 2 of {pages}:")
    assert "line␣00000" not in _shown(app)
    app.button(key=f"{PAGE}.prev").click()
    run(app)
    assert _page_caption(app).startswith("Page 1 of")
    app.number_input(key=PAGE).set_value(pages)
    run(app)
    assert "line␣00599" in _shown(app)
    assert app.button(key=f"{PAGE}.next").disabled


def test_jump_to_a_character_and_a_line(app):
    _open(app, LINES, ["gpt2"])
    starts = window.page_starts(LINES)
    position = LINES.index("line 00400")
    app.number_input(key=f"{PAGE}.character").set_value(position + 1)
    run(app)
    assert app.number_input(key=PAGE).value == window.page_of(starts, position) + 1
    assert "line␣00400" in _shown(app)
    app.number_input(key=f"{PAGE}.line").set_value(123)
    run(app)
    assert "line␣00122" in _shown(app)  # line 123 is the one numbered 00122
    assert app.number_input(key=PAGE).value == window.page_of(starts, LINES.index("line 00122")) + 1


def test_drawn_tokens_are_the_whole_text_tokens_and_counts_cover_the_whole_text(app):
    _open(app, LINES, ["gpt2"])
    app.number_input(key=PAGE).set_value(3)
    run(app)
    gpt2 = bpe_core.load("gpt2")
    full = gpt2.encode_with_details(LINES, allowed_special="all")
    starts = window.page_starts(LINES)
    start, end = starts[2], starts[3]
    drawn = [info.id for info in full if info.end > start and info.start < end]
    assert _panel_ids(app, "gpt2") == drawn
    assert app.dataframe[0].value["tokens"].tolist() == [len(full)]


@pytest.mark.parametrize("toggle", ["tokenize.whitespace", "tokenize.bytes"])
def test_a_toggle_keeps_the_page(app, toggle):
    _open(app, LINES, ["gpt2"])
    app.number_input(key=PAGE).set_value(4)
    run(app)
    before = _panel_ids(app, "gpt2")
    app.toggle(key=toggle).set_value(not app.toggle(key=toggle).value)
    run(app)
    assert _page_caption(app).startswith("Page 4 of")
    assert _panel_ids(app, "gpt2") == before


def test_cut_difference_counts_cover_the_whole_text(app):
    _open(app, LINES, ["gpt2", "cl100k"])
    app.number_input(key=PAGE).set_value(2)
    run(app)
    cuts = {
        name: render.cut_positions(bpe_core.load(name).encode_with_details(LINES, allowed_special="all"))
        for name in ("gpt2", "cl100k")
    }
    first, second = app.selectbox(key="tokenize.cut_a").value, app.selectbox(key="tokenize.cut_b").value
    legend = re.findall(r"cut only by [^:<]+: ([\d,]+)|cut by both: ([\d,]+)", _html(app))
    counts = [int((a or b).replace(",", "")) for a, b in legend]
    a, b = cuts[first], cuts[second]
    assert counts == [len(a - b), len(b - a), len(a & b)]
    table = app.dataframe[0].value.set_index("tokenizer")["cuts not in reference"]
    assert sorted(table.tolist()) == sorted(["reference", f"{len(cuts['cl100k'] - cuts['gpt2']):,}"])


def test_a_run_writes_each_toggle_to_the_url_once(app, monkeypatch):
    from streamlit.runtime.state.query_params_proxy import QueryParamsProxy

    written: list[str] = []
    write = QueryParamsProxy.__setitem__
    monkeypatch.setattr(
        QueryParamsProxy, "__setitem__", lambda self, name, value: (written.append(name), write(self, name, value))[1]
    )
    _open(app, "Hello world", ["gpt2", "cl100k"])
    written.clear()
    app.toggle(key="tokenize.special").set_value(False)
    run(app)
    assert sorted(n for n in written if n in ("ws", "bytes", "special", "diff")) == ["bytes", "diff", "special", "ws"]
    assert app.query_params["special"] == "0" and app.query_params["ws"] == "1"
