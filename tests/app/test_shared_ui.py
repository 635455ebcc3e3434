"""The shared UI modules' logic on its own, without a browser or AppTest: HTML escaping, progress
text, parsing of typed input, the comparison's names and frames, tables and downloads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import bpe_core  # noqa: E402
from bpe_core.formats import detect  # noqa: E402
from bpe_core.tokenizer import Tokenizer  # noqa: E402
from pages._compare import measures  # noqa: E402
from pages._tokenize_text.decode import parse_ids  # noqa: E402
from pages._train.settings import parse_special_tokens  # noqa: E402
from pages._ui import exports, render, tables, widgets  # noqa: E402
from pages._ui.tokenizers import TokenizerChoice  # noqa: E402

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def small():
    return bpe_core.train(["the cat sat on the mat " * 20, HOSTILE * 5], 300, name="small <b>")


# --------------------------------------------------------------------------------------------------
# render: every piece of user text is escaped


def test_token_spans_escape_text_and_titles(small):
    infos = small.encode_with_details(HOSTILE)
    markup = render.render_tokens_html(HOSTILE, infos, rank_of=small.merge_rank_of)
    assert "<script" not in markup and "<img" not in markup
    assert "&lt;" in markup and "&gt;" in markup and "&amp;" in markup
    assert markup.count('<span class="t c') == len(infos)
    assert 'title="id ' in markup


def test_token_spans_mark_cuts_show_whitespace_and_partial_bytes(small):
    text = "a b\n🙂"
    infos = small.encode_with_details(text)
    marked = {infos[1].start}
    markup = render.render_tokens_html(text, infos, rank_of=small.merge_rank_of, show_whitespace=True, marked=marked)
    assert " x" in markup and "↵" in markup
    assert 'class="t c' in markup and " p" in markup  # the emoji's bytes are split over tokens
    assert "\\x" not in markup and "piece 4 of 4 of ‘🙂’" in markup  # drawn once, in 4 pieces, no escapes


def test_cuts_legend_pieces_words_and_sentences_escape():
    assert "<b>" not in render.cuts_legend_html("<b>a</b>", "b", 1, 2, 3)
    assert "cut by both: 3" in render.cuts_legend_html("a", "b", 1, 2, 3)
    pieces = render.pieces_html(["<x>", " ", "y"])
    assert "&lt;x&gt;" in pieces and "␣" in pieces and "<x>" not in pieces
    words = render.words_html([([b"<", b"a b"], 3), (["lo", "w</w>"], 1)], highlight=b"a b")
    assert "&lt;" in words and '>a<span class="w wb">␣</span>b<' in words and "w&lt;/w&gt;" in words and "×3" in words
    assert words.count(" new") == 1 and "<" + "/w>" not in words
    assert "&lt;b&gt;" in render.sentences_html(["file <b>.txt"])
    cuts = render.render_cuts_html("ab<c", {1}, {3})
    assert '<span class="a">b&lt;</span>' in cuts and '<span class="b">c</span>' in cuts


def test_markdown_and_plot_text():
    assert render.markdown_text("a_b*c _d_") == r"a_b\*c \_d\_"  # an underscore inside a word is inert
    assert render.plot_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    assert render.cut_positions([]) == set()


# --------------------------------------------------------------------------------------------------
# the progress bar


def test_format_seconds():
    assert widgets.format_seconds(None) == "…"
    assert widgets.format_seconds(0.25) == "250 ms"
    assert widgets.format_seconds(12.34) == "12.3 s"
    assert widgets.format_seconds(125) == "2 min 5 s"


def test_progress_text_has_elapsed_time_and_eta():
    fraction, text = widgets.progress_text("merge", 25, 100, 10.0)
    assert fraction == pytest.approx(0.2 + 0.8 * 0.25)
    assert text == "Learning merges: 25/100 merges · 10.0 s elapsed · ETA 30.0 s"
    fraction, text = widgets.progress_text("count", 0, 4, 0.5)
    assert fraction == 0.0 and text.endswith("ETA …") and "0/4 documents" in text
    assert widgets.progress_text("count", 3, 0, 1.0)[1].startswith("Counting pre-tokens: 3 ·")


class FakeBar:
    def __init__(self):
        self.calls = []

    def progress(self, value, text):
        self.calls.append((value, text))


def test_training_progress_throttles_and_restarts_the_clock_per_phase():
    now = [100.0]
    bar = FakeBar()
    progress = widgets.TrainingProgress(bar, clock=lambda: now[0])
    progress("count", 1, 2)
    now[0] += 0.01
    progress("count", 1, 2)  # too soon: not drawn
    progress("count", 2, 2)  # the last step is always drawn
    now[0] += 5
    progress("merge", 10, 20)  # a new phase: its clock starts now
    assert len(bar.calls) == 3
    assert "0 ms elapsed" in bar.calls[-1][1]
    now[0] += 2
    progress("merge", 15, 20)
    assert "2.0 s elapsed" in bar.calls[-1][1] and "ETA 667 ms" in bar.calls[-1][1]


# --------------------------------------------------------------------------------------------------
# typed input


def test_parse_ids():
    assert parse_ids("[15496, 995]") == [15496, 995]
    assert parse_ids("1\n2;3") == [1, 2, 3]
    assert parse_ids("  ") == []
    with pytest.raises(ValueError, match="'x' is not a token id"):
        parse_ids("1, x")


def test_parse_special_tokens():
    assert parse_special_tokens("<a>, <b>\n<a>\n ,") == ["<a>", "<b>"]
    assert parse_special_tokens("") == []


# --------------------------------------------------------------------------------------------------
# comparison, tables, downloads


def choice(key: str, label: str) -> TokenizerChoice:
    return TokenizerChoice(key, label, "session", key, loader=lambda: None)


def test_display_names_are_short_and_unique():
    choices = {
        k: choice(k, label) for k, label in [("gpt2", "gpt2"), ("new:x", "✱ x"), ("lib:x", "📁 x"), ("lib:y", "📁 y")]
    }
    names = measures.display_names(list(choices), choices)
    assert names == {"gpt2": "GPT-2", "new:x": "✱ x", "lib:x": "📁 x", "lib:y": "y"}


def test_curve_series_and_versus_frame():
    curve = [
        {"text": "a", "vocab_size": 256, "chars_per_token": 1.0, "merges": 0},
        {"text": "b", "vocab_size": 256, "chars_per_token": 1.0, "merges": 0},
        {"text": "a", "vocab_size": 257, "chars_per_token": 1.5, "merges": 1},
    ]
    assert measures.curve_series(curve, ["a", "b"]) == {"a": ([256, 257], [1.0, 1.5]), "b": ([256], [1.0])}
    rows = [
        {"tokenizer": "t", "label": "English", "premium": None, "chars_per_token": 4.0, "tokens": 5},
        {"tokenizer": "t", "label": "Hindi", "premium": None, "chars_per_token": 2.0, "tokens": 9},
    ]
    frame, order, metric = measures.versus_frame(rows, {"Hindi"})
    assert order == ["English", "★ Hindi"] and metric == "chars_per_token"


def test_merges_table_and_ratio(small):
    table = tables.merges_table(small, [0, 1, 10**6])
    assert list(table.columns) == tables.MERGE_COLUMNS and list(table["rank"]) == [0, 1]
    assert tables.ratio_text(3, 2) == "1.50" and tables.ratio_text(1, 0) == "—"
    assert tables.pattern_label(small) == "gpt2"


def test_right_to_left_cells_are_laid_out_left_to_right_and_others_left_alone():
    import pandas as pd

    frame = pd.DataFrame({"token": ["⟨ا 1/2⟩", "␣القديمة", "שלום", "abc", "हिन्दी", "—"], "rank": range(6)})
    shown = tables.left_to_right(frame)
    assert shown["token"].tolist() == ["\u200e⟨ا 1/2⟩", "\u200e␣القديمة", "\u200eשלום", "abc", "हिन्दी", "—"]
    assert shown["rank"].tolist() == list(range(6)) and frame["token"][0] == "⟨ا 1/2⟩"  # the caller's frame kept
    latin = pd.DataFrame({"token": ["a", "b"]})
    assert tables.left_to_right(latin) is latin


def test_export_files_read_back(small):
    files = exports.export_files("small-test", small)
    data, _ = files["bpe_core"]
    assert Tokenizer.from_json(data.decode("utf-8")).merges == small.merges
    for fmt in ("huggingface", "tiktoken"):
        data, note = files[fmt]
        assert data is not None, note
        assert detect.loads_any(data, source=f"small.{fmt}").merges == small.merges


def test_one_naming_convention_for_a_name_already_used():
    from pages._ui.tokenizers import numbered_name, unused_name

    assert numbered_name("my-bpe", {}) == "my-bpe"
    assert numbered_name("my-bpe", {"my-bpe", "my-bpe 2"}) == "my-bpe 3"
    # Compare and Fairer (unused_name) follow the session list's "name 2": session and library names count
    choices = dict.fromkeys(["gpt2", "new:mix", "lib:mix 2", "lib:other", "new:mix-2"])
    assert unused_name("mix", choices) == "mix 3"
    assert unused_name("other", choices) == "other 2"
    assert unused_name("gpt2", choices) == "gpt2"  # a built-in key is not a name taken


def test_skipped_rows_are_called_what_the_reader_called_them():
    from pages._ui.uploads import Upload, in_plain_words, read_corpus_file, skipped_rows_message

    # reading is bpe_core.corpora.corpus_bytes' (tests/corpora/test_corpus_bytes.py); the page keeps its words
    documents, warnings, bad, unit, _, _ = read_corpus_file("c.json", b'["a", 3, {"text": "b"}]')
    assert (documents, bad, unit) == (["a", "b"], 1, "row") and warnings[0].startswith("c.json row 2:")
    hint = "c.parquet has no column 'c' (its columns: 'a'); name the text column with text_field= (--text-field)"
    assert in_plain_words(hint) == "c.parquet has no column 'c' (its columns: 'a'): pick the field that holds the text"
    # the message takes the reader's word, not the file name's
    upload = Upload("id", "c.jsonl", ("a",), tuple(warnings), bad_rows=1, row_unit="row")
    assert skipped_rows_message(upload).startswith("c.jsonl: 1 row skipped\n- c.json row 2")
    name, warning = "odd <name>.json", "odd <name>.json line 7: not valid JSON"
    upload = Upload("id", name, ("a",), (warning,), bad_rows=9, row_unit="line")
    md = render.markdown_text
    assert skipped_rows_message(upload, shown=5) == f"{md(name)}: 9 lines skipped\n- {md(warning)}\n- … and 8 more"
