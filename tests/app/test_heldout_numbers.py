"""Honest numbers (held-out evaluation and in-sample marks), driven with streamlit.testing.v1.AppTest.

Train: the held-out split trains on the rest only and measures the new tokenizer on the held-out text
beside the reference tokenizers, with numbers equal to a direct computation; without a split the page
says its figures are in-sample; a corpus too small to split says why and keeps Train disabled.
Compare: a tokenizer measured on text it was trained on is marked † (tables, charts, sentences) with a
caption, and a tokenizer that never saw the text is not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import compare_table, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis.heldout import split_heldout  # noqa: E402
from bpe_core.corpora.samples import load_samples  # noqa: E402

TRAIN = "pages/train.py"
COMPARE = "pages/compare.py"
NATURAL = load_samples("natural")
INSTALLED = {s.name for s in bpe_core.available() if s.installed}


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def html_of(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in at.get("html"))


def train_on_natural_samples(app: AppTest, *, held_out: bool, others: list[str] | None = None) -> AppTest:
    go(app, TRAIN)
    app.multiselect(key="train.samples").set_value([s.id for s in NATURAL])
    app.number_input(key="train.vocab_size").set_value(600)
    app.toggle(key="train.heldout.on").set_value(held_out)
    run(app)
    if others is not None:
        app.session_state["train.heldout.others"] = others
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    return run(app)


# --------------------------------------------------------------------------------------------------
# Train


def test_train_held_out_trains_on_the_rest_and_measures_beside_the_references(app):
    train_on_natural_samples(app, held_out=True)
    split = split_heldout([s.text for s in NATURAL], fraction=0.1, seed=0)
    assert any(split.describe() in c for c in texts(app.caption))
    trained = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    assert trained.training["corpus"]["characters"] == split.train_characters  # the held-out part left out
    assert "On held-out text" in texts(app.subheader)
    frame = next(d.value for d in app.dataframe if "chars/token" in d.value.columns)
    names = list(frame["tokenizer"])
    assert names[0] == "my-bpe"
    expected = ["gpt2", "cl100k"] + [n for n in ("o200k", "llama3", "qwen3.5") if n in INSTALLED]
    assert app.multiselect(key="train.heldout.others").value == expected
    assert len(names) == 1 + len(expected)
    assert names[1:3] == ["GPT-2", "cl100k (GPT-4)"]  # the built-ins' labels

    characters = sum(map(len, split.heldout))
    for name, tokenizer in (
        ("my-bpe", trained),
        ("GPT-2", bpe_core.load("gpt2")),
        ("cl100k (GPT-4)", bpe_core.load("cl100k")),
    ):
        tokens = sum(len(tokenizer.encode_ordinary(t)) for t in split.heldout)
        row = frame[frame["tokenizer"] == name].iloc[0]
        assert row["tokens"] == tokens and row["characters"] == characters
        assert row["chars/token"] == pytest.approx(characters / tokens)
        assert row["tokens per 1,000 chars"] == pytest.approx(1000 * tokens / characters)
    specs = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    chart = next(spec for spec in specs if "held-out" in json.dumps(spec["layout"].get("title", "")))
    assert chart["data"][0]["x"][:3] == ["my-bpe", "GPT-2", "cl100k (GPT-4)"]
    assert "On the held-out text, my-bpe needs" in html_of(app)
    assert not any("in-sample" in i for i in texts(app.info))


def test_train_without_a_split_says_the_figures_are_in_sample(app):
    train_on_natural_samples(app, held_out=False)
    assert "4 · Result: my-bpe" in texts(app.header)
    assert any("**in-sample**" in i for i in texts(app.info))
    assert "On held-out text" not in texts(app.subheader)
    trained = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    assert trained.training["corpus"]["characters"] == sum(len(s.text) for s in NATURAL)


def test_the_held_out_numbers_follow_the_tokenizer_into_the_library(app):
    train_on_natural_samples(app, held_out=True, others=["gpt2"])
    app.text_input(key="train.save_name").set_value("kept")
    app.button(key="train.save").click()
    run(app)
    assert "4 · Result: kept" in texts(app.header)
    assert "On held-out text" in texts(app.subheader)


def test_the_share_and_seed_set_the_split_the_page_describes(app):
    go(app, TRAIN)
    app.multiselect(key="train.samples").set_value([s.id for s in NATURAL])
    app.toggle(key="train.heldout.on").set_value(True)
    run(app)
    app.slider(key="train.heldout.share").set_value(25)
    app.number_input(key="train.heldout.seed").set_value(5)
    run(app)
    split = split_heldout([s.text for s in NATURAL], fraction=0.25, seed=5)
    assert any(split.describe() in c for c in texts(app.caption))


def test_a_corpus_too_small_to_split_says_why_and_keeps_train_disabled(app):
    go(app, TRAIN)
    app.text_area(key="train.paste").set_value("one short line")
    app.toggle(key="train.heldout.on").set_value(True)
    run(app)
    errors = texts(app.error)
    assert any("No held-out split" in e and "held-out part would be empty" in e for e in errors)
    assert app.button(key="train.go").disabled
    app.toggle(key="train.heldout.on").set_value(False)
    run(app)
    assert not app.button(key="train.go").disabled


# --------------------------------------------------------------------------------------------------
# Compare


def compare_page(app: AppTest) -> AppTest:
    go(app, COMPARE)
    app.multiselect(key="cmp.tokenizers").set_value(["default", "gpt2"])
    return run(app)


def comparison_table(app: AppTest):
    return compare_table(app)


def chart_names(app: AppTest, words: str) -> list[str]:
    for chart in app.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if words in json.dumps(spec["layout"].get("title", "")):
            return (
                [trace.get("name") for trace in spec["data"]]
                if spec["data"][0].get("type") != "heatmap"
                else list(spec["data"][0]["x"])
            )
    raise AssertionError(f"no chart titled with {words!r}")


def test_compare_marks_the_default_tokenizer_in_sample_on_the_builtin_samples(app):
    compare_page(app)
    rows = comparison_table(app)
    assert set(rows["tokenizer"]) == {"sample-bpe †", "GPT-2"}
    mine = rows[rows["tokenizer"] == "sample-bpe †"]
    # the full table as shown: a share as a percentage, a dash where it does not apply
    assert list(mine["seen_in_training"]) == ["100%"] * len(NATURAL)
    assert (rows[rows["tokenizer"] == "GPT-2"]["seen_in_training"] == "—").all()  # its training text is unknown
    assert "sample-bpe †" in chart_names(app, "Characters per token")
    assert "sample-bpe †" in chart_names(app, "Tokens needed relative to")
    assert "sample-bpe †" in chart_names(app, "token premium")  # the heatmap's columns
    assert any(
        "sample-bpe †: characters per token" in json.dumps(json.loads(c.proto.spec)["layout"], ensure_ascii=False)
        for c in app.get("plotly_chart")
    )  # the curve
    shown = html_of(app)
    assert "† sample-bpe was trained on all the samples shown: its numbers there are in-sample" in shown
    assert "GPT-2 †" not in shown


def test_compare_on_the_held_out_sentences_leaves_the_default_unmarked(app):
    compare_page(app)
    app.radio(key="cmp.source").set_value("Held-out sentences")
    run(app)
    rows = comparison_table(app)
    assert set(rows["tokenizer"]) == {"sample-bpe", "GPT-2"}
    assert (rows[rows["tokenizer"] == "sample-bpe"]["seen_in_training"] == "0%").all()
    assert "was trained on" not in html_of(app)
    # the numbers are those of the held-out lines 91-120, each language one text
    from bpe_core.corpora.samples import parallel_text

    held = parallel_text(split="heldout", languages=["eng", "hin"])
    expected = {lang: len(bpe_core.load("gpt2").encode_ordinary("\n".join(lines))) for lang, lines in held.items()}
    gpt2 = rows[rows["tokenizer"] == "GPT-2"].set_index("sample")
    assert gpt2.loc["eng", "tokens"] == expected["eng"] and gpt2.loc["hin", "tokens"] == expected["hin"]
    assert gpt2.loc["hin", "premium"] == pytest.approx(expected["hin"] / expected["eng"])


def test_compare_marks_a_session_tokenizer_only_where_it_saw_the_text(app):
    go(app, COMPARE)
    app.multiselect(key="cmp.train.samples").set_value(["eng"])
    app.number_input(key="cmp.train.vocab").set_value(300)
    app.button(key="cmp.train.go").click()
    run(app)
    app.multiselect(key="cmp.tokenizers").set_value(["new:mix-eng-300", "gpt2"])
    app.multiselect(key="cmp.samples").set_value(["eng", "deu"])
    run(app)
    rows = comparison_table(app).set_index(["tokenizer", "sample"])
    assert rows.loc[("mix-eng-300 †", "eng"), "seen_in_training"] == "100%"
    assert rows.loc[("mix-eng-300 †", "deu"), "seen_in_training"] == "0%"
    assert "† mix-eng-300 was trained on English:" in html_of(app)

    app.multiselect(key="cmp.samples").set_value(["deu", "fra"])  # text it never saw: no mark
    run(app)
    assert set(comparison_table(app)["tokenizer"]) == {"mix-eng-300", "GPT-2"}
    assert "was trained on" not in html_of(app)


def test_the_star_follows_the_text_not_the_language(app):
    """Trained on the English passage, the shortcut's tokenizer is starred on that passage and not on
    the English held-out sentences."""
    go(app, COMPARE)
    app.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    app.multiselect(key="cmp.samples").set_value(["eng", "deu"])
    app.multiselect(key="cmp.train.samples").set_value(["eng"])
    app.number_input(key="cmp.train.vocab").set_value(300)
    app.button(key="cmp.train.go").click()
    run(app)
    versus = next(
        json.loads(c.proto.spec)
        for c in app.get("plotly_chart")
        if json.loads(c.proto.spec)["data"] and "★ English" in json.loads(c.proto.spec)["data"][0].get("x", [])
    )
    assert "German" in versus["data"][0]["x"]

    app.radio(key="cmp.source").set_value("Held-out sentences")
    run(app)
    app.multiselect(key="cmp.heldout_languages").set_value(["eng", "deu"])
    run(app)
    traces = [trace for c in app.get("plotly_chart") for trace in json.loads(c.proto.spec)["data"]]
    xs = [x for trace in traces for x in trace.get("x") or []]
    assert "English" in xs and not any(str(x).startswith("★") for x in xs)
