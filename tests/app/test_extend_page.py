"""The Extend page, driven with streamlit.testing.v1.AppTest: its defaults, inputs checked where typed,
an extension of GPT-2 for Hindi run in a process of its own whose figures equal
``bpe_core.analysis.extension.extension_report`` on the same tokenizer, text in other scripts unchanged,
the strips before and after, the curve, the new tokens with a link to their merge trees (the extended
tokenizer is one of the session's, so the Merge forest opens it), the three files, and the Languages
page's link here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import opened, run  # noqa: E402
from markup_audit import shown_text  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis.extension import extension_report  # noqa: E402
from bpe_core.corpora.samples import parallel_text  # noqa: E402
from bpe_core.display.glyphs import token_quote  # noqa: E402
from pages._extend import inputs as keys  # noqa: E402
from pages._ui import state  # noqa: E402

EXTEND = "pages/extend.py"
ADD = 150


@pytest.fixture
def page(workspace_dir):
    at = opened(EXTEND, timeout=240)
    at.selectbox(key=keys.K_BASE).set_value("gpt2")
    at.number_input(key=keys.K_ADD).set_value(ADD)
    return run(at)


@pytest.fixture
def extended(page):
    page.button(key="extend.go").click()
    run(page)  # starts the job and runs the page again
    return run(page) if state.EXTEND_RESULT not in page.session_state else page


def expected():
    hindi = parallel_text(split="train", languages=["hin"])["hin"]
    gpt2 = bpe_core.load("gpt2")
    tokenizer = bpe_core.extend(gpt2, hindi, add=ADD, scripts=["Devanagari"])
    held = parallel_text(split="heldout", languages=["hin", "eng"])
    return gpt2, tokenizer, extension_report(gpt2, tokenizer, held["hin"], reference=held["eng"])


def test_the_page_opens_with_hindi_its_script_and_nothing_run(page):
    assert [t.value for t in page.title] == ["Extend a tokenizer"]
    assert page.selectbox(key=keys.K_LANGUAGE).value == "hin"
    assert page.text_input(key=keys.K_SCRIPTS).value == "Devanagari"
    assert page.checkbox(key=keys.K_ONLY).value is True
    assert not page.button(key="extend.go").disabled
    assert not page.get("plotly_chart")
    page.selectbox(key=keys.K_LANGUAGE).set_value("jpn")
    run(page)
    assert {"Han", "Hiragana"} <= set(page.text_input(key=keys.K_SCRIPTS).value.split(", "))  # for the language


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        (keys.K_SCRIPTS, "Devangari", "unknown script"),
        (keys.K_SCRIPTS, "Common", "shared by every language"),
        (keys.K_FIRST_ID, "12", "50,256"),
        (keys.K_FIRST_ID, "50256", "uses already"),
        (keys.K_FIRST_ID, "abc", "is not an id"),
    ],
)
def test_inputs_are_checked_where_typed(page, key, value, words):
    page.text_input(key=key).set_value(value)
    run(page)
    assert any(words in e.value for e in page.error), [e.value for e in page.error]
    assert page.button(key="extend.go").disabled


def test_the_extension_shows_the_librarys_figures(extended):
    gpt2, tokenizer, report = expected()
    result = extended.session_state[state.EXTEND_RESULT]
    assert result.report.curve == report.curve and result.report.unused == report.unused
    assert result.report.new_ids == report.new_ids and result.report.extended == "GPT-2 + Hindi"
    metrics = {m.label: m.value for m in extended.metric}
    assert metrics["New tokens"] == f"{report.added:,}" and report.added == ADD
    assert metrics["Embedding rows"] == f"{ADD:,}"
    assert metrics["Premium over English"] == f"{report.after.premium:.2f}×"
    assert metrics["Unused on held-out"] == f"{len(report.unused):,}"
    shown = " ".join(shown_text(m.value) for m in extended.markdown)
    assert f"**{report.before.premium:.2f}×** English's tokens" in shown
    assert any("encodes exactly as before" in s.value for s in extended.success)
    assert any(
        c.value.startswith("Training ended: it reached the vocabulary size asked for.") for c in extended.caption
    )
    chart = json.loads(extended.get("plotly_chart")[0].proto.spec)
    assert chart["data"][0]["y"] == [row["premium"] for row in report.rows()]
    table = extended.dataframe[0].value
    assert list(table["id"]) == report.new_ids[:ADD]
    assert list(table["token"]) == [token_quote(tokenizer.vocab[i]) for i in report.new_ids[:ADD]]


def test_the_strips_the_link_and_the_files(extended):
    _, tokenizer, _ = expected()
    strips = [h.value for h in extended.get("html") if "data-" in str(h.value)]
    assert len(strips) >= 2
    gpt2 = bpe_core.load("gpt2")
    sentence = parallel_text(split="heldout", languages=["hin"])["hin"][0]
    shown = [shown_text(m.value) for m in extended.markdown]
    assert f"**before**: {len(gpt2.encode(sentence)):,} tokens (GPT-2)" in shown  # the model's name, as picked
    assert f"**after**: {len(tokenizer.encode(sentence)):,} tokens (GPT-2 + Hindi)" in shown
    key = extended.session_state[state.EXTEND_RESULT].extended_key
    assert key.startswith("new:") and key[4:] in extended.session_state[state.SESSION_TOKENIZERS]
    links = [e for e in extended.get("page_link")]
    assert any("merge_forest" in str(link.proto.page) for link in links)
    downloads = {d.proto.label: d for d in extended.get("download_button")}
    assert {"⬇ bpe_core JSON", "⬇ tokenizer.json (HF)", "⬇ .tiktoken"} <= set(downloads)


def test_the_merge_forest_opens_the_extended_tokenizer(extended):
    key = extended.session_state[state.EXTEND_RESULT].extended_key
    new_id = extended.session_state[state.EXTEND_RESULT].report.new_ids[-1]
    extended.query_params["tokenizer"] = key
    extended.query_params["token"] = str(new_id)
    extended.switch_page("pages/merge_forest.py")
    run(extended)
    assert extended.session_state["forest.tokenizer"] == key
    assert not extended.error


def test_the_languages_page_links_here(workspace_dir):
    at = opened("pages/languages.py", timeout=240)
    assert any("extend" in str(link.proto.page) for link in at.get("page_link"))
