"""The Compare page of the workbench, driven with streamlit.testing.v1.AppTest.

Every test starts the app with BPE_WORKBENCH_DIR in a temporary folder, opens the Compare page,
drives its widgets and checks the charts, sentences and table against bpe_core.analysis.metrics computed
here directly, and that no exception reached the page. The big tokenizers are left out of the
selections except where the default selection (today's models) includes them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import compare_table, opened, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis import metrics  # noqa: E402
from bpe_core.corpora.samples import get_sample, load_samples  # noqa: E402
from bpe_core.pretrained import catalogue  # noqa: E402
from pages._ui import tables  # noqa: E402
from pages._ui.builtins import OPENING  # noqa: E402

COMPARE = "pages/compare.py"
NATURAL = load_samples("natural")


@pytest.fixture
def page(workspace_dir):
    return opened(COMPARE, timeout=60)


def sentences(at: AppTest) -> str:
    return "\n".join(e.value for e in at.get("html"))


def table(at: AppTest):
    return compare_table(at)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart_titled(at: AppTest, words: str) -> dict:
    for spec in charts(at):
        title = spec["layout"].get("title", {})
        if words in (title.get("text", "") if isinstance(title, dict) else str(title)):
            return spec
    raise AssertionError(f"no chart titled with {words!r}")


def choose(at: AppTest, tokenizers: list[str], samples: list[str]) -> AppTest:
    at.multiselect(key="cmp.tokenizers").set_value(tokenizers)
    at.multiselect(key="cmp.samples").set_value(samples)
    return run(at)


# --------------------------------------------------------------------------------------------------
# defaults


def test_defaults_show_charts_table_and_the_burmese_sentence(page):
    selected = page.multiselect(key="cmp.tokenizers").value
    assert selected == [name for name in OPENING if catalogue.is_installed(name)]  # today's models, no example
    assert "default" not in selected
    assert page.multiselect(key="cmp.samples").value == [s.id for s in NATURAL]
    headers = texts(page.subheader)
    for header in (
        "Characters per token",
        "Token premium against English",
        "Heatmap",
        "Full table",
        "Compression against vocabulary size",
        "Train to see the difference",
    ):
        assert header in headers
    assert len(page.get("plotly_chart")) == 4  # chars/token, premium, heatmap, curve
    rows = table(page)
    assert len(rows) == len(selected) * len(NATURAL)
    assert set(rows["label"]) == {s.label for s in NATURAL}

    # the sentence is the library's, for GPT-2 on the built-in passage
    expected = metrics.summary_sentence(metrics.compare({"GPT-2": bpe_core.load("gpt2")}, NATURAL), "GPT-2")
    assert "Burmese" in expected
    assert expected in sentences(page)
    gpt2 = rows[rows["tokenizer"] == "GPT-2"].set_index("sample")
    assert gpt2.loc["eng", "premium"] == pytest.approx(1.0)
    assert gpt2.loc["mya", "premium"] > 10

    premium = chart_titled(page, "relative to English")
    assert any(shape.get("y0") == 1.0 for shape in premium["layout"].get("shapes", []))  # the parity line
    buttons = {button.key: button.proto.label for button in page.get("download_button")}
    assert buttons["cmp.csv"].startswith("⬇ Table as CSV") and buttons["cmp.report"].startswith("⬇ Report as HTML")
    assert not page.error and not page.warning


# --------------------------------------------------------------------------------------------------
# selections


def test_changing_tokenizers_and_samples_changes_the_table(page):
    choose(page, ["gpt2"], ["eng", "hin"])
    rows = table(page)
    assert list(rows["tokenizer"]) == ["GPT-2", "GPT-2"]
    assert list(rows["label"]) == ["English", "Hindi"]
    expected = metrics.compare({"GPT-2": bpe_core.load("gpt2")}, [get_sample("eng"), get_sample("hin")])
    assert list(rows["tokens"]) == [r["tokens"] for r in expected]
    assert rows["premium"].iloc[1] == pytest.approx(expected[1]["premium"])

    page.multiselect(key="cmp.tokenizers").set_value(["default", "gpt2"])
    run(page)
    rows = table(page)
    assert list(rows["tokenizer"]) == ["sample-bpe †", "sample-bpe †", "GPT-2", "GPT-2"]  # † in-sample
    bars = chart_titled(page, "Characters per token")["data"]
    assert [trace["name"] for trace in bars] == ["sample-bpe †", "GPT-2"]
    assert list(bars[1]["x"]) == ["English", "Hindi"]
    assert "needs" in sentences(page) and "for Hindi than for English" in sentences(page)


def test_reference_picker_moves_parity(page):
    choose(page, ["gpt2"], ["eng", "hin", "mya"])
    page.selectbox(key="cmp.reference").set_value("hin")
    run(page)
    rows = table(page).set_index("sample")
    assert rows.loc["hin", "premium"] == pytest.approx(1.0)
    assert rows.loc["eng", "premium"] < 1.0
    assert "Token premium against Hindi" in texts(page.subheader)
    assert "than for Hindi" in sentences(page)


def test_code_and_data_have_no_premium_but_do_have_chars_per_token(page):
    page.button(key="cmp.preset.code").click()
    run(page)
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    run(page)
    rows = table(page)
    assert set(rows["kind"]) == {"code", "data"}
    assert (rows["premium"] == "—").all()  # no premium for code: a dash, never "None"
    assert rows["chars_per_token"].notna().all() and not rows.isna().any().any()
    assert any("No premium to show" in i for i in texts(page.info))
    assert page.selectbox(key="cmp.heat_metric").value == "chars_per_token"
    assert "GPT-2 fits the most characters into a token for" in sentences(page)


def test_heatmap_metric_follows_the_picker(page):
    choose(page, ["default", "gpt2"], ["eng", "hin", "mya"])
    page.selectbox(key="cmp.heat_metric").set_value("tokens")
    run(page)
    heat = [s for s in charts(page) if s["data"][0]["type"] == "heatmap"][0]["data"][0]
    rows = table(page)
    gpt2_tokens = rows[rows["tokenizer"] == "GPT-2"]["tokens"].tolist()
    assert [row[1] for row in heat["z"]] == gpt2_tokens
    assert "GPT-2 uses the most tokens for Burmese" in sentences(page)


def test_empty_selections_explain_instead_of_failing(page):
    page.multiselect(key="cmp.tokenizers").set_value([])
    run(page)
    assert any("Pick at least one tokenizer" in i for i in texts(page.info))
    assert not page.dataframe
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    page.button(key="cmp.preset.clear").click()
    run(page)
    assert any("Pick at least one sample" in i for i in texts(page.info))
    assert not page.get("plotly_chart")


# --------------------------------------------------------------------------------------------------
# the user's own files


def compare_own_files(page, files) -> None:
    """GPT-2 alone, on the user's own ``files`` (name, bytes, MIME type) uploaded on the page."""
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    page.radio(key="cmp.source").set_value("My files")
    run(page)
    page.file_uploader(key="cmp.uploads").set_value(files)
    run(page)


def test_user_files_are_labelled_by_name_and_bad_files_are_reported(page):
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    page.radio(key="cmp.source").set_value("My files")
    run(page)
    assert any("Upload one or more" in i for i in texts(page.info))
    english, hindi = get_sample("eng").text, get_sample("hin").text
    page.file_uploader(key="cmp.uploads").set_value(
        [
            ("hindi.txt", hindi.encode("utf-8"), "text/plain"),
            ("english.txt", english.encode("utf-8"), "text/plain"),
            ("latin1.txt", "café au lait".encode("latin-1"), "text/plain"),
            ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00", "text/plain"),
        ]
    )
    run(page)
    errors = texts(page.error)
    assert any("latin1" in e and "not valid UTF-8" in e for e in errors)
    assert any("image" in e and "binary" in e for e in errors)
    assert page.selectbox(key="cmp.reference").value == "english.txt"  # guessed from the name
    rows = table(page).set_index("label")
    assert list(rows.index) == ["hindi.txt", "english.txt"]
    files = [("hindi.txt", hindi), ("english.txt", english)]
    expected = metrics.compare({"GPT-2": bpe_core.load("gpt2")}, files, "english.txt")
    assert rows.loc["hindi.txt", "premium"] == pytest.approx(expected[0]["premium"])
    assert "GPT-2 needs" in sentences(page) and "for hindi.txt than for english.txt" in sentences(page)

    page.selectbox(key="cmp.reference").set_value("hindi.txt")
    run(page)
    rows = table(page).set_index("label")
    assert rows.loc["hindi.txt", "premium"] == pytest.approx(1.0)


def test_a_right_to_left_file_name_is_laid_out_as_the_other_cells(page):
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    page.radio(key="cmp.source").set_value("My files")
    run(page)
    page.file_uploader(key="cmp.uploads").set_value(
        [
            ("english.txt", get_sample("eng").text.encode("utf-8"), "text/plain"),
            ("العربية.txt", get_sample("ara").text.encode("utf-8"), "text/plain"),
        ]
    )
    run(page)
    labels = list(table(page)["label"])
    # a left-to-right mark first: the grid would otherwise set the cell against the column's right edge
    assert labels == ["english.txt", tables.LRM + "العربية.txt"]


def test_user_labels_are_escaped_in_html(page):
    compare_own_files(
        page,
        [
            ("en.txt", get_sample("eng").text.encode(), "text/plain"),
            ("<b>bold</b>.txt", get_sample("mya").text.encode(), "text/plain"),
        ],
    )
    markup = sentences(page)
    assert "&lt;b&gt;bold&lt;/b&gt;.txt" in markup and "<b>bold</b>" not in markup
    bars = chart_titled(page, "Characters per token")["data"][0]
    assert "&lt;b&gt;bold&lt;/b&gt;.txt" in bars["x"]


# --------------------------------------------------------------------------------------------------
# compression against vocabulary size


def test_curve_has_one_line_per_sample_up_to_the_full_vocabulary(page):
    choose(page, ["default", "gpt2"], ["eng", "mya", "python"])
    assert page.selectbox(key="cmp.curve_tokenizer").value == "default"
    curve = chart_titled(page, "by vocabulary size")["data"]
    assert [trace["name"] for trace in curve] == ["English", "Burmese", "Python"]
    sizes = curve[0]["x"]  # the default tokenizer: 500 merges on top of the 256 bytes
    assert sizes[0] == 256 and sizes[-1] == 756 and len(sizes) == 501  # every vocabulary size
    rows = table(page)
    final = rows[(rows["tokenizer"] == "sample-bpe †")].set_index("label")["chars_per_token"]
    for trace in curve:
        assert trace["y"][-1] == pytest.approx(final[trace["name"]])
        assert trace["y"][0] <= trace["y"][-1]
    assert "At its full vocabulary of 756 ids (500 merges)" in sentences(page)

    page.selectbox(key="cmp.curve_tokenizer").set_value("gpt2")
    run(page)
    curve = chart_titled(page, "GPT-2: characters per token")["data"]
    assert curve[0]["x"][-1] == 50257


# --------------------------------------------------------------------------------------------------
# train to see the difference


def test_train_shortcut_adds_a_tokenizer_and_compares_it_with_gpt2(page):
    choose(page, ["gpt2"], ["eng", "hin", "mya"])
    page.multiselect(key="cmp.train.samples").set_value(["eng", "mya"])
    page.number_input(key="cmp.train.vocab").set_value(400)
    page.button(key="cmp.train.go").click()
    run(page)
    assert any("Trained **mix-eng-mya-400**" in s for s in texts(page.success))
    assert page.multiselect(key="cmp.tokenizers").value[:2] == ["new:mix-eng-mya-400", "gpt2"]
    rows = table(page)
    assert set(rows["tokenizer"]) == {"mix-eng-mya-400 †", "GPT-2"}  # † measured on its own training text
    mine = rows[rows["tokenizer"] == "mix-eng-mya-400 †"].set_index("sample")
    gpt2 = rows[rows["tokenizer"] == "GPT-2"].set_index("sample")
    # trained on Burmese: Burmese costs far less than under GPT-2; Hindi (not trained on) stays dear
    assert mine.loc["mya", "premium"] < gpt2.loc["mya", "premium"] / 2
    assert mine.loc["hin", "premium"] > mine.loc["mya", "premium"]
    versus = chart_titled(page, "Token premium against English")
    names = [trace["name"] for trace in versus["data"]]
    assert "mix-eng-mya-400" in names and "GPT-2" in names
    assert "★ Burmese" in versus["data"][0]["x"] and "Hindi" in versus["data"][0]["x"]
    assert "mix-eng-mya-400" in sentences(page) and "against GPT-2" in sentences(page)
    # the curve defaults to the new tokenizer
    assert page.selectbox(key="cmp.curve_tokenizer").value == "new:mix-eng-mya-400"

    # training the same mix again keeps the first one under another name
    page.button(key="cmp.train.go").click()
    run(page)
    assert "new:mix-eng-mya-400 2" in page.multiselect(key="cmp.tokenizers").value  # the session's "name 2"
    assert "✱ mix-eng-mya-400 (unsaved) · 400" in page.multiselect(key="cmp.tokenizers").options


def test_train_shortcut_trains_through_files_and_equals_bpe_core_train(page):
    # Compare trains as Train does (training_jobs: train_files in a process of its own, progress in bytes
    # read); the tokenizer is bpe_core.train's on the same texts and settings, statistics included
    texts_used = [get_sample("eng").text, get_sample("deu").text]
    expected = bpe_core.train(texts_used, 420, min_frequency=2, pattern="gpt2")
    page.multiselect(key="cmp.train.samples").set_value(["eng", "deu"])
    page.number_input(key="cmp.train.vocab").set_value(420)
    page.button(key="cmp.train.go").click()
    run(page)
    trained = page.session_state["wb.session_tokenizers"][f"mix-eng-deu-{expected.vocab_size}"].tokenizer
    assert trained.merges == expected.merges and trained.vocab_size == expected.vocab_size
    assert trained.training["corpus"] == expected.training["corpus"]
    assert trained.training["tokens_after_merge"] == expected.training["tokens_after_merge"]


def test_a_trained_tokenizer_is_named_after_the_vocabulary_it_reached_and_drops_no_choice(page):
    chosen = page.multiselect(key="cmp.tokenizers").value
    page.multiselect(key="cmp.train.samples").set_value(["eng", "hin", "mya"])
    page.number_input(key="cmp.train.vocab").set_value(1000)
    page.button(key="cmp.train.go").click()
    run(page)
    (name,) = page.session_state["wb.session_tokenizers"]
    reached = page.session_state["wb.session_tokenizers"][name].tokenizer.vocab_size
    assert reached < 1000 and name == f"mix-eng-hin-mya-{reached}"  # not "-1000": it stopped short
    assert any(f"vocabulary {reached:,} (of the 1,000 asked for)" in s for s in texts(page.success))
    selected = page.multiselect(key="cmp.tokenizers").value
    assert set(chosen) <= set(selected) and f"new:{name}" in selected  # added beside the choice


def test_a_full_comparison_keeps_the_users_choice_and_says_why_the_new_one_is_not_in(page):
    full = ["default", "gpt2", "cl100k", "llama3", "qwen", "mistral"]
    full = [k for k in full if k in ("default", "gpt2") or catalogue.is_installed(k)]
    page.multiselect(key="cmp.tokenizers").set_value(full)
    page.multiselect(key="cmp.samples").set_value(["eng"])
    run(page)
    page.multiselect(key="cmp.train.samples").set_value(["eng"])
    page.number_input(key="cmp.train.vocab").set_value(300)
    page.button(key="cmp.train.go").click()
    run(page)
    if len(full) == 6:
        assert page.multiselect(key="cmp.tokenizers").value == full
        assert any("is not in the comparison" in w and "Remove one above" in w for w in texts(page.warning))


def test_train_shortcut_needs_samples_and_takes_a_name(page):
    page.multiselect(key="cmp.train.samples").set_value([])
    run(page)
    assert page.button(key="cmp.train.go").disabled
    page.multiselect(key="cmp.train.samples").set_value(["eng"])
    run(page)
    assert not page.button(key="cmp.train.go").disabled
    page.text_input(key="cmp.train.name").set_value("tiny")
    page.number_input(key="cmp.train.vocab").set_value(257)
    page.button(key="cmp.train.go").click()
    run(page)
    assert any("Trained **tiny**" in s for s in texts(page.success))
    assert "new:tiny" in page.multiselect(key="cmp.tokenizers").value


def test_train_shortcut_can_train_on_uploaded_files(page):
    compare_own_files(
        page,
        [
            ("english.txt", get_sample("eng").text.encode(), "text/plain"),
            ("thai.txt", get_sample("tha").text.encode(), "text/plain"),
        ],
    )
    page.multiselect(key="cmp.train.samples").set_value([])
    page.toggle(key="cmp.train.use_files").set_value(True)
    page.number_input(key="cmp.train.vocab").set_value(350)
    page.text_input(key="cmp.train.name").set_value("files-bpe")
    run(page)
    page.button(key="cmp.train.go").click()
    run(page)
    assert any("Trained **files-bpe** on english.txt, thai.txt" in s for s in texts(page.success))
    rows = table(page)
    assert set(rows["tokenizer"]) == {"files-bpe †", "GPT-2"}
    versus = chart_titled(page, "Token premium against english.txt")["data"][0]
    assert list(versus["x"]) == ["★ english.txt", "★ thai.txt"]
