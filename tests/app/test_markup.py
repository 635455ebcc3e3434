"""The token panels drawn without st.html's sanitiser (pages/_tokenize_text/markup.py) stay inert: hostile text
(tags, event handlers, a closing style tag, quotes) becomes text in the markup, only the renderers'
own tags and attributes remain, and ``draw`` takes nothing but a renderer's output. The real browser
check (no element made, no handler run) is in test_browser.py."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from apptest_support import drawn_html, run
from streamlit.testing.v1 import AppTest

import bpe_core
from pages._tokenize_text import linked, markup
from pages._ui import render

HOSTILE = "<img src=x onerror=alert(1)> </style><script>alert(2)</script> \" onmouseover=\"alert(3) 'x' &amp;"
TAGS = {"div", "span"}
ATTRIBUTES = {"class", "title", "data-s", "data-e", "data-i", "data-k", "dir"}


class _Parsed(HTMLParser):
    """Tags, attribute names and text of a piece of markup, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.values: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes |= {name for name, _ in attrs}
        self.values += [value or "" for _, value in attrs]

    def handle_data(self, data):
        self.text.append(data)


def parsed(markup_text: str) -> _Parsed:
    parser = _Parsed()
    parser.feed(markup_text)
    parser.close()
    return parser


def assert_inert(markup_text: str) -> _Parsed:
    """Only the renderers' tags and attributes; no style or script element, no event handler."""
    found = parsed(markup_text)
    assert found.tags <= TAGS, found.tags - TAGS
    assert found.attributes <= ATTRIBUTES, found.attributes - ATTRIBUTES
    return found


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


def test_hostile_text_is_text_in_every_unsanitised_block(gpt2):
    infos = gpt2.encode_with_details(HOSTILE)
    panel = render.render_tokens_html(
        HOSTILE, infos, rank_of=gpt2.merge_rank_of, key=HOSTILE, switchable=True, style=False
    )
    found = assert_inert(panel)
    shown = "".join(found.text).replace("␣", " ")
    assert "<img src=x onerror=alert(1)>" in shown and "</style><script>alert(2)</script>" in shown
    assert HOSTILE in found.values  # the panel's tokenizer key: an attribute value, quotes and all
    assert any("onerror" in value for value in found.values)  # hover titles hold the token text, as a value
    ids = assert_inert(linked.ids_html(infos, HOSTILE, style=False))
    assert HOSTILE in ids.values and "".join(ids.text).replace(", ", "") == "".join(str(i.id) for i in infos)
    cuts = assert_inert(render.render_cuts_html(HOSTILE, {3, 10}, {5}, style=False))
    assert "".join(cuts.text).replace("␣", " ") == HOSTILE


def test_split_characters_special_tokens_and_added_pieces_stay_inert():
    """The other paths of the renderer: characters split over several tokens (fragments with byte
    labels), a special token whose name is markup, in both display modes."""
    special = "<img src=x onerror=alert(1)>\"'"
    tok = bpe_core.train("hello world " * 20, 300, special_tokens=[special])
    text = f"東京 🙂 e\u0301 {special} {HOSTILE}"
    infos = tok.encode_with_details(text, allowed_special="all")
    assert any(info.special for info in infos)
    for switchable, show_bytes in ((True, False), (False, True), (False, False)):
        panel = render.render_tokens_html(
            text,
            infos,
            rank_of=tok.merge_rank_of,
            key=special,
            switchable=switchable,
            show_bytes=show_bytes,
            style=False,
        )
        found = assert_inert(panel)
        assert "onerror" not in found.attributes
    assert_inert(linked.ids_html(infos, special, style=False))


def test_the_audit_sees_live_markup():
    assert parsed("<img src=x onerror=alert(1)>").attributes == {"src", "onerror"}
    with pytest.raises(AssertionError):
        assert_inert('<span class="t">x</span><script>alert(1)</script>')
    with pytest.raises(AssertionError):
        assert_inert('<span onmouseover="alert(1)">x</span>')


def test_without_style_the_blocks_hold_no_style_sheet(gpt2):
    infos = gpt2.encode_with_details("hello world")
    assert render.render_tokens_html("hello world", infos, rank_of=gpt2.merge_rank_of).startswith(render.TOKEN_CSS)
    for block in (
        render.render_tokens_html("hello world", infos, rank_of=gpt2.merge_rank_of, style=False),
        linked.ids_html(infos, "gpt2", style=False),
        render.render_cuts_html("hello world", {5}, {6}, style=False),
        render.cuts_legend_html("a", "b", 1, 2, 3, style=False),
    ):
        assert "<style" not in block and block.startswith("<div")


def test_draw_takes_only_a_renderers_output():
    with pytest.raises(TypeError, match="trusted_html"):
        markup.draw("<b>user text</b>", key="x")
    assert isinstance(markup.trusted_html("<span>x</span>"), str)


def test_tokenize_draws_its_panels_unsanitised_and_inert(app: AppTest):
    app.switch_page("pages/tokenize_text.py").run()
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2", "default"])
    app.text_area(key="tokenize.text").set_value(HOSTILE)
    run(app)
    unsanitised = [
        json.loads(e.proto.json) for e in app.get("bidi_component") if e.proto.component_name == "bpe_markup"
    ]
    assert sum('class="bpe-tokens"' in body for body in unsanitised) == 2  # the two panels
    assert sum('class="bpe-ids"' in body for body in unsanitised) == 2
    assert sum('class="bpe-cuts"' in body for body in unsanitised) == 1
    for body in unsanitised:
        assert_inert(body)
        assert "<img" not in body and "<script" not in body and "</style>" not in body
    assert not any('class="bpe-tokens"' in e.value for e in app.get("html"))  # not also through st.html
    # the page style is drawn once, outside the panels
    assert sum(render.TOKEN_CSS in body for body in drawn_html(app)) == 1
