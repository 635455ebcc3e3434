"""The one character-aware token renderer (``bpe_core.display.strip`` with ``bpe_core.display.glyphs``;
the pages draw it under ``pages/_ui/render.py``'s names): what a strip shows reads back as the text
(hypothesis, random Unicode through GPT-2 and a small byte-level tokenizer), never a ``\\x`` escape for
valid text, grapheme clusters (ZWJ emoji, skin tones, Indic vowel signs and conjuncts) never split
between drawn boxes, right-to-left runs in reading order, a character split between tokens drawn once
over its numbered pieces with its bytes on hover, and the cut view neither isolating its pieces nor
cutting inside a cluster. Tokens written as text (``glyphs``) name characters, never ``\\xNN``, whatever
the bytes, and are never an empty cell (a joiner alone is named).
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.display import glyphs
from bpe_core.display import strip as render
from bpe_core.display.marks import WHITESPACE_MARKS
from bpe_core.display.styles import TOKEN_CSS

SHOWCASE = "नमस्ते दुनिया हिन्दी 你好世界 مرحبا بالعالم שלום 👨‍👩‍👧‍👦👍🏽 e\u0301 naïve\tcafé\r\nend"
MARKS = set(WHITESPACE_MARKS.values()) | {chr(0x2400 + c) for c in range(32)} | {"␡"}
UNMARK = {mark: ch for ch, mark in WHITESPACE_MARKS.items()} | {chr(0x2400 + c): chr(c) for c in range(32)}
UNMARK["␡"] = "\x7f"
# Text as users type it: any character but surrogates, unassigned code points and the marks themselves
# (a literal ␣ in the text reads back as a space: the display convention's documented ambiguity).
TEXT = st.text(st.characters(exclude_categories=("Cs", "Cn", "Co"), exclude_characters="".join(MARKS)), max_size=40)
CLUSTERS = regex.findall(r"\X", SHOWCASE) + ["ক্ষ", "ழ்", "ஸ்ரீ", "🏳️‍🌈", "🇯🇵", "\n", "  "]
SCRIPTS = st.lists(st.sampled_from(CLUSTERS), max_size=20)


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


@pytest.fixture(scope="module")
def small():
    """A byte-level tokenizer with few merges: it splits most non-ASCII characters into pieces."""
    return bpe_core.train([SHOWCASE * 3 + "the cat sat on the mat " * 20], 300, min_frequency=1)


class _Reader(HTMLParser):
    """The text a strip shows: element text outside style sheets and outside the pieces' labels (the
    numbers and bytes under a split character), real newlines dropped (a newline shows as ↵)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip: list[bool] = []
        self.out: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        parent = bool(self.skip and self.skip[-1])
        self.skip.append(parent or tag == "style" or "p" in classes)

    def handle_endtag(self, tag):
        if self.skip:
            self.skip.pop()

    def handle_data(self, data):
        if not (self.skip and self.skip[-1]):
            self.out.append(data.replace("\n", ""))


def read_back(markup: str) -> str:
    reader = _Reader()
    reader.feed(markup)
    return "".join(UNMARK.get(ch, ch) for ch in "".join(reader.out))


class _Runs(_Reader):
    """The text inside each right-to-left run (``<span class="rtl">``)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth: list[bool] = []
        self.runs: list[str] = []

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        opens = "rtl" in (dict(attrs).get("class") or "").split()
        if opens:
            self.runs.append("")
        self.depth.append(opens)

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if self.depth:
            self.depth.pop()

    def handle_data(self, data):
        if any(self.depth) and not (self.skip and self.skip[-1]):
            self.runs[-1] += "".join(UNMARK.get(ch, ch) for ch in data.replace("\n", ""))


def rtl_runs(markup: str) -> list[str]:
    reader = _Runs()
    reader.feed(markup)
    return reader.runs


# --------------------------------------------------------------------------------------------------
# reading back, escapes


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
@example(text=SHOWCASE)
@example(text="<b>x</b> &amp; \" ' \x00\x1b")
def test_a_strip_reads_back_as_the_text_and_never_shows_an_escape(gpt2, small, text):
    for tokenizer in (gpt2, small):
        infos = tokenizer.encode_with_details(text, disallowed_special=())
        markup = render.render_tokens_html(text, infos, rank_of=tokenizer.merge_rank_of, style=False)
        assert read_back(markup) == text
        if "\\x" not in text:
            assert "\\x" not in markup  # characters, never an escape
        ranks = tokenizer.merge_rank_of
        switchable = render.render_tokens_html(text, infos, rank_of=ranks, switchable=True, style=False)
        assert read_back(switchable) == text
        assert markup.count(' title="') >= len(infos)  # every token has its hover text


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=SCRIPTS)
def test_grapheme_clusters_are_never_split_between_drawn_units(small, pieces):
    text = "".join(pieces)
    infos = small.encode_with_details(text)
    groups = render.token_groups(infos, text)
    starts = glyphs.cluster_starts(text)
    for group in groups:  # every drawn unit starts and ends on a cluster boundary
        start, end = infos[group[0]].start, max(infos[i].end for i in group)
        assert start in starts and end in starts, (text, [infos[i] for i in group])
    markup = render.render_tokens_html(text, infos, rank_of=small.merge_rank_of, style=False)
    assert read_back(markup) == text


def test_zwj_emoji_skin_tones_and_conjuncts_stay_whole(gpt2):
    text = "हिन्दी नमस्ते 👨‍👩‍👧‍👦👍🏽"
    markup = render.render_tokens_html(text, gpt2.encode_with_details(text), rank_of=gpt2.merge_rank_of)
    drawn = re.findall(r'<span class="gc"[^>]*>(.*?)</span><span class="gb">', markup)
    shown = [read_back(d) for d in drawn]
    assert "👨\u200d👩\u200d👧\u200d👦" in shown or any("👨\u200d👩\u200d👧\u200d👦" in s for s in shown)
    assert any("👍🏽" in s for s in shown) and any("स्ते" in s for s in shown)
    assert any("न्दी" in s for s in shown)  # a conjunct with its vowel sign: one cluster, drawn once
    for s in shown:  # no drawn character starts with a mark that belongs to the one before it
        assert not s or glyphs.cluster_starts(s) >= {0, len(s)}


#: Categories drawn as nothing (or only on another character): a label made of these alone is an empty cell.
UNSEEN = {"Cf", "Cc", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"}


@given(token=st.binary(max_size=12))
@example(token=b"\xe0\xa4")
@example(token=b"\xa8")
@example(token="न".encode()[:1] + b"\xff")
@example(token="\u200d".encode())
@example(token="\u093f\u200f".encode())
def test_tokens_written_alone_name_characters_never_escapes(token):
    label = glyphs.token_label(token)
    assert "\\x" not in label
    assert label or not token
    assert not token or any(unicodedata.category(ch) not in UNSEEN for ch in label), (token, label)
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        assert "⟨" in label  # what the stray bytes can be part of, named
    else:
        if text.isprintable() and not any(ch.isspace() for ch in text):
            assert label.replace("◌", "") == text


@given(
    text=st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 60), max_size=5),
)
def test_tokens_in_sequence_name_the_character_and_the_bytes_they_hold(text, cuts):
    data = text.encode("utf-8")
    positions = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    tokens = [data[a:b] for a, b in zip(positions, positions[1:], strict=False)]
    labels = glyphs.labels_in(tokens)
    assert len(labels) == len(tokens) and not any("\\x" in label for label in labels)
    for token, label in zip(tokens, labels, strict=True):
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            assert re.search(r"⟨.+ \d(–\d)?/\d⟩", label), (token, label)  # ⟨न 1–2/3⟩


def test_joiners_and_bidi_controls_alone_are_named_and_whole_words_keep_their_vowel_signs():
    for char in ("\u200d", "\u200c", "\u200f", "\u202e", "\u2066"):  # ZWJ, ZWNJ, RLM, RLO, LRI
        assert glyphs.token_label(char.encode()) == f"⟨U+{ord(char):04X}⟩"
    assert glyphs.labels_in(["\u200d".encode(), "👩".encode()[:3]]) == ["⟨U+200D⟩", "⟨emoji 1–3/4⟩"]
    assert glyphs.token_label("\u200d".encode() + "👩".encode()[:3]) == "⟨U+200D⟩⟨emoji 1–3/4⟩"
    assert glyphs.token_label("👨\u200d👩".encode()) == "👨\u200d👩"  # a joiner inside its sequence joins
    word = "नमस्ते".encode()  # whole characters beside a split one: no dotted circle inside the word
    assert glyphs.labels_in([word, "न".encode()[:2]]) == ["नमस्ते", "⟨Devanagari 1–2/3⟩"]
    assert glyphs.span_label(word, 2, len(word)) == "⟨न 3/3⟩मस्ते"
    assert glyphs.token_label("\u093f".encode()) == "◌ि"  # a vowel sign alone: on a dotted circle
    assert glyphs.token_label("\u0947\u0902".encode()) == "◌ें"  # two marks alone: on one dotted circle
    alef = "ا".encode()  # the byte numbers stay after an Arabic letter (a left-to-right mark between)
    assert glyphs.labels_in([alef[:1], alef[1:]]) == ["⟨ا\u200e 1/2⟩", "⟨ا\u200e 2/2⟩"]


def test_a_split_character_is_drawn_once_over_its_numbered_pieces_with_bytes_on_hover(gpt2):
    infos = gpt2.encode_with_details("न")
    assert len(infos) == 2 and all(info.partial for info in infos)
    markup = render.render_tokens_html("न", infos, rank_of=gpt2.merge_rank_of)
    assert markup.count('class="gc"') == 1 and read_back(markup) == "न"
    pieces = re.findall(r'<span class="t c\d p[^"]*" title="([^"]*)"[^>]*>([^<]*)<', markup)
    assert [label for _, label in pieces] == ["1", "2"]
    assert "bytes e0 a4 · piece 1 of 2 of ‘न’" in pieces[0][0] and "bytes a8 · piece 2 of 2" in pieces[1][0]
    assert glyphs.labels_in([info.bytes for info in infos]) == ["⟨न 1–2/3⟩", "⟨न 3/3⟩"]


def test_sequences_of_tokens_draw_as_the_text_they_spell(gpt2):
    ids = gpt2.encode("नमस्ते 你好")
    tokens = [gpt2.decode_single_token_bytes(i) for i in ids]
    markup = render.sequence_html(tokens, ids=ids)
    assert read_back(markup.split("</style>", 1)[1]) == "नमस्ते 你好" and "\\x" not in markup
    assert f'title="id {ids[0]} · bytes {tokens[0].hex(" ")}' in markup
    text, infos = glyphs.sequence_infos(tokens, ids)
    expected = gpt2.encode_with_details("नमस्ते 你好")
    assert [(i.id, i.start, i.end, i.partial) for i in infos] == [(i.id, i.start, i.end, i.partial) for i in expected]
    alone = render.sequence_html([b"\xe0\xa4"])  # bytes that spell no text: one labelled box
    assert "⟨Devanagari 1–2/3⟩" in alone and "\\x" not in alone


# --------------------------------------------------------------------------------------------------
# right to left, the cut view


def test_right_to_left_runs_are_isolated_in_reading_order(gpt2):
    text = "abc مرحبا بالعالم def שלום 12"
    markup = render.render_tokens_html(text, gpt2.encode_with_details(text), rank_of=gpt2.merge_rank_of)
    assert markup.count('dir="rtl"') == 2
    # each phrase in one run; the number ending the line belongs to the Hebrew run before it
    assert [run.strip() for run in rtl_runs(markup)] == ["مرحبا بالعالم", "שלום 12"]


def test_the_cut_view_keeps_clusters_whole_and_its_pieces_unisolated(gpt2):
    small_cuts = {1, 2, 4, 7}  # inside हि (between ह and ि) and inside न्दी
    text = "हिन्दी مرحبا"
    markup = render.render_cuts_html(text, small_cuts, {2, 6}, style=False)
    assert "isolate" not in TOKEN_CSS.split(".bpe-cuts {", 1)[1].split("}")[0]
    assert ".bpe-cuts span { unicode-bidi" not in TOKEN_CSS
    pieces = [read_back(p) for p in re.findall(r'<span class="[^"]*"[^>]*>(.*?)</span>', markup) if p]
    starts = glyphs.cluster_starts(text)
    position = 0
    for piece in pieces:
        assert position in starts, (pieces, position)
        position += len(piece)
    assert read_back(markup) == text
    assert 'class="a ia"' in markup or "ia" in markup  # a cut inside a cluster is marked on it
    assert markup.count('dir="rtl"') == 1  # the Arabic word reads right to left


def test_show_bytes_lets_pieces_wrap_instead_of_overflowing():
    css = render.toggle_css(show_whitespace=True, show_bytes=True)
    assert "min-width: 0" in css and "overflow-wrap: anywhere" in css
    rule = re.search(r"\.bpe-tokens \.g \.gb \{([^}]*)\}", TOKEN_CSS).group(1)
    assert "flex-wrap: wrap" in rule
    assert "max-width: 100%" in re.search(r"\.bpe-tokens \.g \{([^}]*)\}", TOKEN_CSS).group(1)


def test_hostile_text_stays_text_in_every_builder(gpt2):
    text = '<img src=x onerror="alert(1)"> </style><script>x</script> & "'
    infos = gpt2.encode_with_details(text)
    built = [
        render.render_tokens_html(text, infos, rank_of=gpt2.merge_rank_of, style=False),
        render.sequence_html([i.bytes for i in infos], ids=[i.id for i in infos]).split("</style>", 1)[1],
        render.words_html([([i.bytes for i in infos], 2)], infos[0].bytes).split("</style>", 2)[2],
        render.render_cuts_html(text, {3, 9}, {5}, style=False),
    ]
    for markup in built:
        assert "<img" not in markup and "<script" not in markup and "</style>" not in markup
        assert read_back(markup).replace("×2", "") == text
