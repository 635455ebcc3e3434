"""Every page that shows tokens shows characters, never ``\\xNN``, driven with AppTest: the Merge forest's
lookup of Hindi on GPT-2 (a token strip, the merged tokens named by the characters they are part of, the
derivation tree's nodes), its tables (all merges, search results, unused tokens), Step through on Hindi
and Chinese, Vocabulary diff's tables, Train's merge tables, Tokenize's cut view and decode table; and
no table cell anywhere reads "None"; every chart saves as SVG from its modebar.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from apptest_support import drawn_html, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402

FOREST = "pages/merge_forest.py"
STEPS = "pages/step_through.py"
TOKENIZE = "pages/tokenize_text.py"
VDIFF = "pages/vocab_diff.py"
TRAIN = "pages/train.py"
HINDI_CHINESE = "नमस्ते नमस्ते नमस्ते\n你好 你好 你好 你好\nlow lower lowest 🙂🙂🙂"


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def everything_shown(at: AppTest) -> str:
    """Every text the page shows: Markdown sources, alerts, metrics, widget labels and options, HTML,
    graphviz sources, chart strings and table cells."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "subheader", "header", "title", "info", "warning", "error", "success"):
        parts += texts(at.get(kind))
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [str(option) for box in at.selectbox for option in box.options]
    parts += drawn_html(at)
    parts += [chart.proto.spec for chart in at.get("graphviz_chart")]
    parts += [chart.proto.spec for chart in at.get("plotly_chart")]
    parts += [table.value.to_csv(index=False) for table in at.dataframe]
    return "\n".join(parts)


def no_none_cells(at: AppTest) -> None:
    for table in at.dataframe:
        frame: pd.DataFrame = table.value
        assert not frame.isna().any().any(), frame[frame.isna().any(axis=1)].head()


def test_forest_lookup_of_hindi_on_gpt2_shows_characters(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    app.text_input(key="forest.query:gpt2").set_value("नमस्ते")
    run(app)
    shown = everything_shown(app)
    assert "\\x" not in shown, shown[shown.find("\\x") - 200 : shown.find("\\x") + 50]
    assert any("is not a single token of GPT-2" in i for i in texts(app.info))
    strip = [body for body in drawn_html(app) if 'class="gc"' in body]
    assert strip and ">न</span>" in strip[0] and ">स्ते</span>" in strip[0]  # characters drawn once over pieces
    options = app.selectbox(key="forest.pick").options
    assert any("⟨न 1–2/3⟩" in option for option in options), options
    tree = app.get("graphviz_chart")[0].proto.spec
    assert "⟨" in tree and "byte e0" in tree  # nodes named by character and position; bytes on the leaves
    assert any("Its bytes: e0 a4" in c or "Its bytes:" in c for c in texts(app.caption))


def test_forest_tables_show_characters_and_no_none(app, monkeypatch):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    app.radio(key="forest.search_mode").set_value("contains")
    app.text_input(key="forest.search:gpt2").set_value("\\xe0\\xa4")  # searched as the boxes read it
    run(app)
    found = [t.value for t in app.dataframe if "made from" in t.value.columns][0]
    assert len(found) >= 2 and not any("\\x" in cell for cell in found["token"] + found["made from"])
    assert any(token.startswith("⟨") for token in found["token"])
    gpt2 = bpe_core.load("gpt2")
    sys.path.insert(0, str(ROOT))
    from bpe_core.analysis.forest import MergeForest
    from pages._merge_forest.index import Picked
    from pages._merge_forest.merges import merges_frame

    forest = MergeForest.of(gpt2)
    ranks = [r for r in range(len(forest)) if not _valid(gpt2.decode_single_token_bytes(forest.made[r]))][:200]
    frame = merges_frame(Picked(None, gpt2, forest), ranks)
    assert len(frame) == 200 and not frame[["left", "right", "result"]].map(lambda s: "\\x" in s).any().any()
    no_none_cells(app)


def _valid(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_step_through_hindi_and_chinese_at_byte_level(app):
    go(app, STEPS)
    app.selectbox(key="steps.example").set_value("custom")
    run(app)
    app.selectbox(key="steps.mode").set_value("bytes")
    app.text_area(key="steps.text").set_value(HINDI_CHINESE)
    run(app)
    for _ in range(4):
        app.button(key="steps.next").click()
        run(app)
    shown = everything_shown(app)
    assert "\\x" not in shown, shown[shown.find("\\x") - 200 : shown.find("\\x") + 50]
    words = [body for body in drawn_html(app) if "bpe-words" in body][0]
    assert 'class="gc"' in words and ">न</span>" in words and ">你</span>" in words  # split characters drawn once
    assert "⟨" in " ".join(texts(app.subheader)) or "你" in " ".join(texts(app.subheader))
    no_none_cells(app)


def test_vocab_diff_tables_show_characters(app):
    go(app, VDIFF)
    app.selectbox(key="vdiff.a").set_value("gpt2")
    app.selectbox(key="vdiff.b").set_value("cl100k")
    run(app)
    tables = [t.value for t in app.dataframe if "token" in t.value.columns]
    assert tables and all(not t["token"].str.contains("\\\\x", regex=False).any() for t in tables)
    assert any(t["token"].str.startswith("⟨").any() for t in tables)  # gpt2's byte pieces, named
    no_none_cells(app)


def test_train_merge_tables_show_characters():
    sys.path.insert(0, str(ROOT))
    from pages._ui import tables

    tokenizer = bpe_core.train(["नमस्ते दुनिया 你好世界 " * 40], 300, min_frequency=1)
    table = tables.merges_table(tokenizer, range(len(tokenizer.merges)))
    cells = table[["left", "right", "new token"]].to_numpy().ravel().tolist()
    assert not any("\\x" in cell for cell in cells)
    assert any(cell.startswith("⟨") and "/3⟩" in cell for cell in cells)  # e.g. ⟨न 1–2/3⟩
    assert "count" in table.columns and not table.isna().any().any()
    from bpe_core.bpe.tokens import MergeRecord  # a tokenizer without counts has no column of None

    records = [MergeRecord(r.rank, r.left, r.right, r.id, None) for r in tokenizer.merge_records]
    assert "count" not in tables.merges_table(tokenizer, range(3), records=records).columns


def test_tokenize_decode_table_and_cut_view(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2", "cl100k"])
    app.text_area(key="tokenize.text").set_value("नमस्ते दुनिया 你好世界 مرحبا بالعالم 👨‍👩‍👧‍👦👍🏽")
    run(app)
    gpt2 = bpe_core.load("gpt2")
    app.selectbox(key="tokenize.decode_tokenizer").set_value("gpt2")
    app.text_input(key="tokenize.decode_ids").set_value(", ".join(map(str, gpt2.encode("नमस्ते"))))
    run(app)
    decoded = [t.value for t in app.dataframe if "bytes" in t.value.columns][0]
    assert decoded["token"].tolist()[:2] == ["⟨न 1–2/3⟩", "⟨न 3/3⟩"]
    cuts = [body for body in drawn_html(app) if 'class="bpe-cuts"' in body][0]
    assert "\\x" not in everything_shown(app) and 'dir="rtl"' in cuts


@pytest.mark.parametrize("page", [FOREST, STEPS, VDIFF, "pages/compare.py"])
def test_every_chart_saves_as_svg(app, page):
    go(app, page)
    charts = app.get("plotly_chart")
    assert charts, page
    for chart in charts:
        config = json.loads(chart.proto.config)
        assert config["toImageButtonOptions"]["format"] == "svg" and config["displaylogo"] is False
        assert config["toImageButtonOptions"]["filename"]
