"""Legible in every script, on the pages: the one display convention for whitespace and bytes where
tokens are shown (the convention's own tests: tests/display/test_marks.py), split characters drawn
once as numbered pieces with no ``\\x`` escape, right-to-left runs isolated, token boxes that never
break, merge ranks counted from 0 on every page, the fonts named in the font stacks, one colour per
tokenizer, and the controls added for them (Tokenize's Show bytes and Mark whitespace, Merge forest's
search by shown text), driven with AppTest.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import drawn_html, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.display.marks import token_display  # noqa: E402
from bpe_core.pretrained import catalogue  # noqa: E402
from pages._ui import charts, render, tables, widgets  # noqa: E402
from pages.merge_forest import token_by_text  # noqa: E402

TOKENIZE = "pages/tokenize_text.py"
FOREST = "pages/merge_forest.py"
STEPS = "pages/step_through.py"
TRAIN = "pages/train.py"
HOME = "pages/home.py"
MULTILINGUAL = "नमस्ते दुनिया। 你好世界，机器学习。 🙂👍🏽"


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


def html_of(at: AppTest) -> str:
    return "\n".join(drawn_html(at))


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


# --------------------------------------------------------------------------------------------------
# token panels: split characters drawn once, no escapes, right-to-left isolated, boxes never break


def test_gpt2_hindi_and_chinese_have_no_byte_escapes(gpt2):
    infos = gpt2.encode_with_details(MULTILINGUAL)
    markup = render.render_tokens_html(MULTILINGUAL, infos, rank_of=gpt2.merge_rank_of)
    assert sum(info.partial for info in infos) > 20  # GPT-2 does split these characters
    assert "\\x" not in markup
    assert markup.count('class="t c') == len(infos)  # one box per token, each with its hover title
    for info in infos:
        assert f"bytes {info.bytes.hex(' ')}" in markup  # every token's bytes, one hover away
    shown = re.findall(r'<span class="gc"[^>]*>(.*?)</span><span class="gb">', markup)
    assert "स्ते" in shown and "你" in shown and "👍🏽" in shown  # graphemes drawn once, whole


def test_show_bytes_labels_the_pieces_with_their_bytes(gpt2):
    text = "你好"
    infos = gpt2.encode_with_details(text)
    plain = render.render_tokens_html(text, infos, rank_of=gpt2.merge_rank_of)
    with_bytes = render.render_tokens_html(text, infos, rank_of=gpt2.merge_rank_of, show_bytes=True)
    pieces = [info for info in infos if info.partial]
    assert pieces
    labels = re.findall(r'class="t c\d p[^"]*"[^>]*>([^<]*)<', with_bytes)
    assert labels == [info.bytes.hex(" ") for info in infos]
    assert re.findall(r'class="t c\d p[^"]*"[^>]*>([^<]*)<', plain)[:2] == ["1", "2"]


def test_token_groups_keep_a_letter_with_its_combining_mark():
    infos = [
        bpe_core.TokenInfo(1, b"e", 0, 1, False, False),
        bpe_core.TokenInfo(2, "\u0301".encode(), 1, 2, False, False),
        bpe_core.TokenInfo(3, b" x", 2, 4, False, False),
    ]
    assert render.token_groups(infos, "e\u0301 x") == [[0, 1], [2]]
    assert render.token_groups(infos) == [[0], [1], [2]]  # without the text: only overlapping spans


def test_right_to_left_runs_read_right_to_left(gpt2):
    for text, runs in [("abc def", 0), ("مرحبا بالعالم", 1), ("abc שלום עולם def مرحبا", 2)]:
        markup = render.render_tokens_html(text, gpt2.encode_with_details(text), rank_of=gpt2.merge_rank_of)
        assert markup.count('<span class="rtl" dir="rtl">') == runs, text
    assert render.text_direction("  12 שלום") == "rtl" and render.text_direction(" 12 ") is None


def test_tokens_never_break_inside_and_lines_stay_lines(gpt2):
    text = "def f():\n    return 1\n"
    markup = render.render_tokens_html(text, gpt2.encode_with_details(text), rank_of=gpt2.merge_rank_of)
    rule = re.search(r"\.bpe-tokens \.t \{([^}]*)\}", render.TOKEN_CSS).group(1)
    assert "display: inline-block" in rule and "unicode-bidi: isolate" in rule
    assert markup.count("↵") == 2 and markup.count("↵</span></span>\n") == 2  # a real line break after ↵
    assert "␣␣␣␣" in markup or markup.count("␣") >= 4  # the indent is visible


def test_cut_view_pieces_and_words_use_the_convention():
    cuts = render.render_cuts_html("a  b\tc\nd", {1}, {3})
    assert "␣␣" in cuts and "→" in cuts and "↵" in cuts
    assert "␣" in render.pieces_html([" x", "\n"]) and "↵" in render.pieces_html(["\n"])
    words = render.words_html([([b" ", b"\xe4"], 1)], highlight=None)
    assert "␣" in words and "⟨CJK 1/3⟩" in words and "\\x" not in words  # a stray byte named, never \xNN
    assert 'class="bpe-tokens bpe-words"' in words  # the token strip's boxes: inline blocks that wrap
    assert render.token_quote(b" the") == "‘␣the’" and render.symbol_text(b"\n") == "↵"


def test_merge_tables_show_space_tokens_never_as_empty_cells():
    tokenizer = bpe_core.train(["a  b\n\n  c " * 50], 300, min_frequency=1)
    table = tables.merges_table(tokenizer, range(len(tokenizer.merges)))
    assert (table[["left", "right", "new token"]] != "").all().all()
    assert {"␣", "↵"} <= set("".join(table["new token"]))


# --------------------------------------------------------------------------------------------------
# fonts, colours, numbers


def test_font_stacks_name_cjk_emoji_and_script_fonts():
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
    for family in [
        "Noto Sans CJK SC",
        "Noto Color Emoji",
        "Noto Sans Devanagari",
        "Noto Sans Myanmar",
        "Apple Color Emoji",
        "Segoe UI Emoji",
        "Microsoft YaHei",
        "PingFang SC",
    ]:
        assert family in render.SCRIPT_FONTS and family in theme["font"] and family in theme["codeFont"]
        assert family in render.TOKEN_CSS and family in render.words_html([([b"a"], 1)], None)
    assert theme["font"].replace("'", '"').find(render.SCRIPT_FONTS) > 0  # the same list, in order


def test_one_colour_per_tokenizer_whatever_else_is_chosen():
    alone = charts.tokenizer_colours(["gpt2", "new:mine"])
    crowded = charts.tokenizer_colours(["default", "cl100k", "o200k", "lib:other", "gpt2", "new:mine"])
    assert alone["gpt2"] == crowded["gpt2"] == charts.BUILTIN_COLOURS["gpt2"]
    assert alone["new:mine"] == charts.tokenizer_colours(["lib:mine"])["lib:mine"]  # saving keeps it
    assert len(set(crowded.values())) == len(crowded)
    frame = pd.DataFrame([{"tokenizer": n, "label": "x", "v": 1.0} for n in ("GPT-2", "mine")])
    colours = {"GPT-2": "#e03131", "mine": "#123456"}
    figure = charts.grouped_bars(frame, "v", ["mine", "GPT-2"], ["x"], "t", "v", colours)
    assert [bar.marker.color for bar in figure.data] == ["#123456", "#e03131"]


def test_many_curves_have_many_colours():
    series = {f"language {i}": ([1, 2], [i, i]) for i in range(21)}
    figure = charts.lines(series, "%{y}", 300)
    assert len({(trace.line.color, trace.line.dash) for trace in figure.data}) == 21


def test_tables_write_counts_with_separators_and_ids_plain():
    frame = pd.DataFrame({"rank": [0, 1], "id": [256, 15496], "count": [748967, None], "chars/token": [1.5, 2.25]})
    config = widgets.number_formats(frame)
    assert config["id"]["type_config"]["format"] == "%d"  # no separators, no float noise
    assert config["rank"]["type_config"]["format"] == config["count"]["type_config"]["format"] == "localized"
    assert "chars/token" not in config


# --------------------------------------------------------------------------------------------------
# the pages (AppTest): the new controls, the convention and the ranks


def test_tokenize_show_bytes_and_mark_whitespace_toggles(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2"])
    app.text_area(key="tokenize.text").set_value("你好  世界\n")
    run(app)
    assert app.toggle(key="tokenize.whitespace").value is True  # marks are the default
    assert app.toggle(key="tokenize.bytes").value is False
    # Tokenize's panels hold both forms of each toggle; the page's style (render.toggle_css) picks one
    markup = html_of(app)
    assert "\\x" not in markup and markup.count("␣") >= 2 and "↵" in markup
    assert ".p .ph { display: inline" not in markup and ".w.wb { color: transparent" not in markup
    app.toggle(key="tokenize.bytes").set_value(True)
    run(app)
    assert re.search(r'class="ph">e4 bd( a0)?<', html_of(app))  # 你 = e4 bd a0, split between tokens
    assert ".p .ph { display: inline" in html_of(app)
    app.toggle(key="tokenize.whitespace").set_value(False)
    run(app)
    panels = "".join(body for body in drawn_html(app) if 'class="bpe-tokens"' in body)
    assert '<span class="w wb">␣</span>' in panels and "↵" in panels  # spaces blanked, never collapsed
    assert ".w.wb { color: transparent" in html_of(app)  # newlines ("w" without "wb") still shown


def test_forest_finds_tokens_by_what_the_pages_show(app, gpt2):
    assert token_by_text(gpt2, "␣the") == token_by_text(gpt2, " the") == 262
    assert token_by_text(gpt2, "\\xe4\\xbd") == gpt2.encode_single_token("你".encode()[:2])
    assert token_by_text(gpt2, "no such token here") is None
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    box = app.text_input(key="forest.query:gpt2")
    shown = token_display(gpt2.decode_single_token_bytes(int(app.metric[0].value)))
    assert box.value == shown  # as the search boxes read it
    box.set_value("␣the")
    run(app)
    assert {m.label: m.value for m in app.metric}["id"] == "262"
    assert "‘␣the’" in texts(app.subheader)
    app.text_input(key="forest.query:gpt2").set_value("       ")  # seven spaces, never collapsed
    run(app)
    assert any("‘␣␣␣␣␣␣␣’ is not a single token" in i for i in texts(app.info)), texts(app.info)


def test_merge_ranks_count_from_zero_on_every_page(app):
    go(app, TRAIN)
    app.text_area(key="train.paste").set_value("low lower lowest newer wider " * 40)
    app.number_input(key="train.vocab_size").set_value(270)
    run(app)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    first = [table.value for table in app.dataframe if "rank" in table.value.columns][0]  # the first merges
    assert first["rank"].tolist()[:3] == [0, 1, 2]
    tokenizer = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    record = tokenizer.merge_records[0]
    first_token = tokenizer.vocab[record.id]
    go(app, FOREST)
    app.text_input(key="forest.query:new:my-bpe").set_value(token_display(first_token))
    run(app)
    assert {m.label: m.value for m in app.metric}["merge rank"] == "0"
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["new:my-bpe"])
    app.text_area(key="tokenize.text").set_value(first_token.decode())
    run(app)
    assert f"id {record.id} · merge rank 0 ·" in html_of(app)
    go(app, STEPS)
    app.button(key="steps.next").click()
    run(app)
    assert any(s.startswith("Merge rank 0:") for s in texts(app.subheader))
    assert app.dataframe[-1].value["rank"].tolist() == [0]


def test_home_table_cuts_no_name_or_column(app):
    """Home's tokenizers are a Markdown table (its cells wrap, so nothing is cut at any width; no data
    frame, so Home's first load needs no pandas), one row a built-in: what it is, its number of ids,
    licence and package."""
    go(app, HOME)
    assert not app.dataframe and not app.table  # a scrolling grid cuts long cells at its column width
    header = "| tokenizer | used by | ids | licence | package |"
    (table,) = [m.value for m in app.markdown if m.value.startswith(header)]
    labels = [line.split(" | ")[0].removeprefix("| ") for line in table.splitlines()[2:]]
    assert [label.replace("\\", "") for label in labels] == [b.label for b in catalogue.BUILTINS.values()]
