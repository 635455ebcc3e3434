"""``Tokenizer.show``: the HTML a notebook draws is the workbench's token strip (grapheme clusters whole,
right-to-left runs in reading order, whitespace marked, id and bytes on hover, everything escaped,
nothing fetched), on Hindi, Chinese, Arabic, emoji with zero-width joiners and whitespace; and the
text form a terminal prints names characters, never ``\\xNN``."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

import bpe_core
from bpe_core.display import strip
from bpe_core.display.view import TokenView, show
from bpe_core.errors import BpeError

FAMILY = "👨\u200d👩\u200d👧"


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


class _Shown(HTMLParser):
    """The text a strip shows (outside style sheets and the numbered pieces under a split character),
    each split character's drawn text (``gc``), each right-to-left run's text, and every title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[set[str]] = []
        self.text: list[str] = []
        self.drawn: list[str] = []
        self.runs: list[str] = []
        self.titles: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split()) | ({"style"} if tag == "style" else set())
        if "title" in attributes:
            self.titles.append(attributes["title"])
        if "gc" in classes:
            self.drawn.append("")
        if "rtl" in classes:
            self.runs.append("")
        self.stack.append(classes)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        inside = set().union(*self.stack) if self.stack else set()
        if inside & {"style", "p", "bpe-nb-head", "bpe-nb-more"}:
            return
        data = data.replace("\n", "")
        self.text.append(data)
        if "gc" in inside:
            self.drawn[-1] += data
        if "rtl" in inside:
            self.runs[-1] += data


def shown(markup: str) -> _Shown:
    reader = _Shown()
    reader.feed(markup)
    return reader


def test_show_is_the_one_renderer_and_self_contained(gpt2):
    text = "Hello <b>world</b> & 'friends'"
    view = gpt2.show(text)
    assert isinstance(view, TokenView) and view.ids == gpt2.encode_ordinary(text)
    markup = view._repr_html_()
    infos = gpt2.encode_with_details(text, disallowed_special=())
    panel = strip.render_tokens_html(text, infos, rank_of=gpt2.merge_rank_of, style=False)
    assert panel in markup  # the app's renderer, token for token
    assert markup.startswith("<style>") and "<b>" not in markup and "&lt;" in markup and "&amp;" in markup
    for absent in ("<script", "src=", "href=", "http:", "https:", "url(", "@import"):
        assert absent not in markup, absent  # nothing fetched, nothing run
    assert "".join(shown(markup).text) == text.replace(" ", "␣")


def test_hover_titles_give_id_merge_rank_and_bytes(gpt2):
    view = gpt2.show("Hello world")
    titles = shown(view.to_html()).titles
    assert titles == [
        f"id 15496 · merge rank {gpt2.merge_rank_of(15496):,} · bytes 48 65 6c 6c 6f",
        f"id 995 · merge rank {gpt2.merge_rank_of(995):,} · bytes 20 77 6f 72 6c 64",
    ]


def test_hindi_clusters_are_drawn_whole_without_escapes(gpt2):
    text = "नमस्ते हिन्दी"
    markup = gpt2.show(text).to_html()
    reader = shown(markup)
    assert "स्ते" in reader.drawn and "न्दी" in reader.drawn  # a conjunct with its vowel sign: one cluster
    assert "\\x" not in markup and "".join(reader.text).replace("␣", " ") == text


def test_chinese_characters_split_between_tokens_are_drawn_once_over_their_pieces(gpt2):
    text = "你好世界"
    infos = gpt2.encode_with_details(text)
    markup = gpt2.show(text, show_bytes=True).to_html()
    reader = shown(markup)
    assert [d for d in reader.drawn] == [d for d in reader.drawn if len(d) == 1] and "你" in reader.drawn
    pieces = re.findall(r'class="t c\d p[^"]*"[^>]*>([^<]*)<', markup)
    assert pieces == [info.bytes.hex(" ") for info in infos if info.partial]  # show_bytes labels the pieces
    assert any("piece 1 of 2 of ‘你’" in title for title in reader.titles)


def test_arabic_reads_right_to_left_in_one_run_in_order(gpt2):
    text = "Hi مرحبا بالعالم ok"
    reader = shown(gpt2.show(text).to_html())
    assert [run.replace("␣", " ").strip() for run in reader.runs] == ["مرحبا بالعالم"]  # logical order kept
    assert "".join(reader.text).replace("␣", " ") == text


def test_an_emoji_family_with_joiners_is_one_drawn_cluster(gpt2):
    markup = gpt2.show(f"we {FAMILY}!").to_html()
    reader = shown(markup)
    assert [d for d in reader.drawn if FAMILY in d] == ["␣" + FAMILY]  # 7 code points in many tokens, drawn once
    assert "\\x" not in markup


def test_whitespace_is_marked_and_runs_never_collapse(gpt2):
    text = "a   b\tc\n\nd"
    view = gpt2.show(text)
    assert "".join(shown(view.to_html()).text) == "a␣␣␣b→c↵↵d"
    blank = gpt2.show(text, show_whitespace=False).to_html()
    assert "␣" not in "".join(shown(blank).text) and "↵" in blank  # spaces blank, newlines still marked


def test_the_text_form_names_characters_and_says_the_figures(gpt2):
    view = gpt2.show("Hello world नमस्ते 👍")
    lines = str(view).splitlines()
    count = len(view.tokens)
    assert lines[0] == f"gpt2: {count} tokens · 20 characters · {20 / count:.2f} characters per token"
    body = "".join(lines[1:])
    assert body.startswith("[Hello][␣world][␣⟨न 1–2/3⟩][⟨न 3/3⟩]")
    assert "\\x" not in body and "⟨👍 1–3/4⟩" in body
    assert repr(view) == str(view)


def test_limit_draws_the_first_tokens_and_says_how_many_are_left(gpt2):
    text = "one two three four five"
    view = gpt2.show(text, limit=2)
    assert view.hidden == 3 and len(view.tokens) == 5
    reader = shown(view.to_html())
    assert "".join(reader.text) == "one␣two" and "3 more tokens" in view.to_html()
    assert str(view).splitlines()[-1].startswith("… 3 more tokens")
    assert gpt2.show(text, limit=None).hidden == 0
    with pytest.raises(BpeError, match="limit"):
        gpt2.show(text, limit=-1)


def test_special_tokens_are_text_unless_allowed(gpt2):
    text = "a<|endoftext|>"
    assert gpt2.show(text).ids == gpt2.encode_ordinary(text)
    allowed = gpt2.show(text, allowed_special="all")
    assert allowed.ids[-1] == 50256 and 'class="t c1 s"' in allowed.to_html()


def test_a_picky_tokenizer_shows_without_merge_ranks():
    from bpe_core.training.picky import train_picky

    picky = train_picky(["the cat sat on the mat " * 30], 280, threshold=0.5)
    view = picky.show("the cat")
    assert view.ids == picky.encode("the cat") and set(view.ranks) == {None}
    assert "single byte" in view.to_html() or "id " in view.to_html()


def test_show_refuses_bytes_with_a_message(gpt2):
    with pytest.raises(BpeError, match="decode"):
        show(gpt2, b"bytes")  # type: ignore[arg-type]
