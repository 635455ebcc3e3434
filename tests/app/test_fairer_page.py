"""The Fairer training page (parity-aware against standard BPE), driven with streamlit.testing.v1.AppTest.

Runs use four languages, a small vocabulary and GPT-2 alone beside the two trained tokenizers, so
each takes seconds; the figures shown are checked against ``bpe_core.analysis.parity_report.compare_training``
called here directly with the same inputs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import opened, run  # noqa: E402
from markup_audit import shown_text  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis.parity_report import PARITY, STANDARD, compare_training  # noqa: E402
from bpe_core.corpora.samples import parallel_text  # noqa: E402
from bpe_core.training.parity import byte_ratios  # noqa: E402
from bpe_core.workspace.library_folder import LibraryFolder  # noqa: E402
from pages._fairer.inputs import split_heldout  # noqa: E402

FAIRER = "pages/fairer.py"
LANGUAGES = ["eng", "deu", "hin", "mya"]
VOCAB = 700


@pytest.fixture
def page(workspace_dir):
    at = opened(FAIRER, timeout=180)
    at.number_input(key="fair.vocab").set_value(VOCAB)
    at.multiselect(key="fair.others").set_value(["gpt2"])
    return run(at)


def train_both(at: AppTest) -> AppTest:
    at.button(key="fair.go").click()
    return run(at)


def chart_titled(at: AppTest, words: str) -> dict:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if words in spec["layout"].get("title", {}).get("text", ""):
            return spec
    raise AssertionError(f"no chart titled with {words!r}")


def expected(languages=LANGUAGES, **parity):
    options = {"variant": "window", "global_merges": round((VOCAB - 256) * 0.8), "window": 100, "alpha": 3.0}
    return compare_training(
        parallel_text(split="train", languages=languages),
        parallel_text(split="heldout", languages=languages),
        VOCAB,
        others={"gpt2": bpe_core.load("gpt2")},
        parity_options={**options, **parity},
        pattern="o200k",
    )


def test_section_waits_for_the_button_with_its_defaults(page):
    assert [t.value for t in page.title] == ["Train a fairer tokenizer"]
    assert page.multiselect(key="fair.languages").value[:3] == ["eng", "deu", "fra"]
    assert len(page.multiselect(key="fair.languages").value) == 21
    assert page.selectbox(key="fair.pattern").value == "o200k"
    assert page.radio(key="fair.variant").value == "window"
    assert page.slider(key="fair.share").value == 80
    assert not [s for s in page.markdown if "Parity-aware training" in s.value]  # nothing trained yet


def test_run_shows_the_sentence_metrics_and_charts_of_compare_training(page):
    page.multiselect(key="fair.languages").set_value(LANGUAGES)
    at = train_both(run(page))
    want = expected()
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown), [m.value for m in at.markdown][-3:]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Worst premium, standard BPE"] == f"{want.fairness[STANDARD].max_premium:.2f}x"
    assert metrics["Worst premium, parity-aware"] == f"{want.fairness[PARITY].max_premium:.2f}x"
    assert metrics["Gini of token counts"] == f"{want.fairness[PARITY].gini:.3f}"
    assert metrics["English pays"] == f"{want.reference_cost:+.1%}"
    # the premium chart: a row per language, a bar per trained tokenizer, error bars from the intervals,
    # the parity line
    spec = chart_titled(at, "Held-out premium against English")
    bars = [trace for trace in spec["data"] if trace["type"] == "bar"]
    assert [bar["name"] for bar in bars] == [STANDARD, PARITY]  # the two trained ones, not dwarfed by GPT-2
    burmese = want.fairness[PARITY].premiums["mya"]
    parity_bar = bars[1]
    assert parity_bar["orientation"] == "h"  # the names at the left: 21 of them never overlap
    index = parity_bar["y"].index("Burmese")
    assert parity_bar["x"][index] == pytest.approx(burmese.premium)
    assert parity_bar["error_x"]["array"][index] == pytest.approx(burmese.high - burmese.premium)
    assert parity_bar["error_x"]["arrayminus"][index] == pytest.approx(burmese.premium - burmese.low)
    assert any(shape.get("x0") == 1.0 for shape in spec["layout"].get("shapes", []))
    assert spec["layout"]["xaxis"].get("type") != "log"
    # one line per language and trained tokenizer against vocabulary size
    curves = chart_titled(at, "Premium against vocabulary size")["data"]
    lines = [c for c in curves if c["x"] != [None]]  # the rest is the legend entry of the grey lines
    assert len(lines) == 2 * len(LANGUAGES) and max(lines[0]["x"]) == VOCAB
    # in colour: English (the reference) and the two languages standard BPE charges most; the rest grey
    standard = want.fairness[STANDARD].premiums
    dearest = sorted((code for code in LANGUAGES if code != "eng"), key=lambda code: -standard[code].premium)[:2]
    coloured = {c["legendgroup"] for c in lines if c["legendgroup"] != "others"}
    assert coloured == {"eng", *dearest}
    grey = [c for c in lines if c["legendgroup"] == "others"]
    assert len(grey) == 2 * (len(LANGUAGES) - 3) and {c["line"]["color"] for c in grey} == {"#ced4da"}
    legend = [c["name"] for c in curves if c.get("showlegend", True)]
    assert len(legend) == 4 and "other languages" in legend and "English" in legend
    assert chart_titled(at, "Premium against vocabulary size")["layout"]["legend"]["orientation"] == "h"  # no scroll
    served = chart_titled(at, "by the language they served")["data"][0]
    languages = want.parity.training["parity"]["merge_language"]
    assert dict(zip(served["x"], served["y"], strict=True))["Burmese"] == languages.count(3)
    table = at.dataframe[-1].value
    assert len(table) == 3 * len(LANGUAGES) and set(table["tokenizer"]) == {STANDARD, PARITY, "GPT-2"}
    at.toggle(key="fair.beside").set_value(True)
    spec = chart_titled(run(at), "Held-out premium")
    assert [bar["name"] for bar in spec["data"] if bar["type"] == "bar"] == [STANDARD, PARITY, "GPT-2"]
    assert spec["layout"]["xaxis"]["type"] == "log"  # GPT-2's premium does not flatten the trained ones'
    assert min(spec["layout"]["xaxis"]["tickvals"]) <= 1 <= max(spec["layout"]["xaxis"]["tickvals"])


def test_changed_settings_say_the_result_is_stale(page):
    page.multiselect(key="fair.languages").set_value(LANGUAGES)
    at = train_both(run(page))
    at.slider(key="fair.share").set_value(0)
    run(at)
    assert any("settings changed" in c.value for c in at.caption)
    at = train_both(at)
    want = expected(global_merges=0)
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    assert not any("settings changed" in c.value for c in at.caption)


def test_target_rates_train_without_a_development_text(page):
    page.multiselect(key="fair.languages").set_value(LANGUAGES)
    page.selectbox(key="fair.balance").set_value("target rates: equal token counts (rate proportional to bytes)")
    page.selectbox(key="fair.tie").set_value("huggingface")
    at = train_both(run(page))
    train = parallel_text(split="train", languages=LANGUAGES)
    options = {
        "variant": "window",
        "global_merges": round((VOCAB - 256) * 0.8),
        "window": 100,
        "alpha": 3.0,
        "ratio": byte_ratios(train),
    }
    want = compare_training(
        train,
        parallel_text(split="heldout", languages=LANGUAGES),
        VOCAB,
        others={"gpt2": bpe_core.load("gpt2")},
        parity_options=options,
        pattern="o200k",
        tie_break="huggingface",
    )
    assert want.parity.training["settings"]["ratio"][2] > 2  # Hindi: more than twice English's bytes
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    served = chart_titled(at, "by the language they served")["data"][0]
    languages = want.parity.training["parity"]["merge_language"]
    assert dict(zip(served["x"], served["y"], strict=True))["Hindi"] == languages.count(2)
    # rates of my own: none yet says what to write, a missing language says which
    at.selectbox(key="fair.balance").set_value("target rates: my own")
    at = run(at)
    assert any("Write a target rate for every language" in i.value for i in at.info)
    at.text_input(key="fair.ratio").set_value("eng=1, deu=1.1, hin=2.5")
    at = run(at)
    assert any("none for mya" in e.value for e in at.error)
    assert at.button(key="fair.go").disabled


def test_english_and_one_more_language_are_needed(page):
    page.multiselect(key="fair.languages").set_value(["deu", "hin"])
    at = run(page)
    assert any("Pick English" in i.value for i in at.info)
    assert at.button(key="fair.go").disabled


def upload(at: AppTest, files: dict[str, str]) -> AppTest:
    at.radio(key="fair.source").set_value("My parallel files")
    run(at)
    at.file_uploader(key="fair.uploads").set_value(
        [(name, text.encode(), "text/plain") for name, text in files.items()]
    )
    return run(at)


def test_uploads_with_different_line_counts_say_which(page):
    at = upload(page, {"eng.txt": "One.\nTwo.\nThree.\n", "deu.txt": "Eins.\nZwei.\n"})
    errors = [shown_text(e.value) for e in at.error]
    wanted = ("same number of lines", "eng.txt: 3 lines", "deu.txt: 2 lines")
    assert any(all(w in e for w in wanted) for e in errors), errors
    assert at.button(key="fair.go").disabled


def test_uploads_train_on_three_quarters_and_measure_the_rest(page):
    held = parallel_text(split="all", languages=["eng", "fra"])
    at = upload(page, {"en.txt": "\n".join(held["eng"]), "french.txt": "\n".join(held["fra"])})
    assert at.selectbox(key="fair.reference").value == "en"
    assert any("90 sentences each to train on, the last 30 held out" in c.value for c in at.caption)
    at = train_both(at)
    assert any(m.value.startswith("**Parity-aware training") for m in at.markdown)
    table = at.dataframe[-1].value
    assert set(table["name"]) == {"en", "french"}


def test_split_heldout_needs_two_lines():
    assert split_heldout({"a": ["1", "2"], "b": ["3", "4"]}) == ({"a": ["1"], "b": ["3"]}, {"a": ["2"], "b": ["4"]})
    with pytest.raises(ValueError, match="at least 2 sentences"):
        split_heldout({"a": ["1"], "b": ["2"]})


def test_keep_and_save_both(page, workspace_dir):
    page.multiselect(key="fair.languages").set_value(LANGUAGES)
    at = train_both(run(page))
    at.button(key="fair.keep").click()
    run(at)
    assert any("kept for this session" in s.value for s in at.success)
    at.button(key="fair.save").click()
    run(at)
    assert any("saved to the library" in s.value for s in at.success), [e.value for e in at.error]
    names = set(LibraryFolder(workspace_dir).names())
    assert {"standard-o200k-700 2", "parity-o200k-700-window-h80 2"} <= names  # the session's "name 2"
    saved = LibraryFolder(workspace_dir).load("parity-o200k-700-window-h80 2")
    assert saved.merges == expected().parity.merges
    at.switch_page("pages/compare.py")  # the kept ones are offered on the other pages
    options = run(at).multiselect(key="cmp.tokenizers").options
    assert any("standard-o200k-700" in o for o in options) and any("parity-o200k-700-window-h80" in o for o in options)


def test_compare_links_to_the_page(workspace_dir):
    at = opened("pages/compare.py", timeout=180)
    assert "Train a fairer tokenizer" in [s.value for s in at.subheader]
    links = [link for link in at.get("page_link") if link.proto.page == "fairer"]
    assert [link.proto.label for link in links] == ["Fairer training"]
    assert not [key for key in at.session_state if str(key).startswith("fair.")]  # no widget of it on Compare


def test_hostile_file_names_are_shown_as_text(page):
    from test_user_text_stays_text import HOSTILE, assert_no_live_markup, figure_strings

    from pages._ui.render import plot_text

    lines = parallel_text(split="all", languages=["eng", "deu"])
    at = upload(page, {"eng.txt": "\n".join(lines["eng"]), f"{HOSTILE}.txt": "\n".join(lines["deu"])})
    at = train_both(at)
    shown = assert_no_live_markup(at)
    assert any(HOSTILE in line for line in shown)  # the worst language, named in the sentence and cards
    assert plot_text(HOSTILE) in figure_strings(at)  # the language's name on the chart's axis, escaped
    at = upload(at, {"eng.txt": "a\nb\n", f"{HOSTILE}.txt": "c\n"})
    shown = assert_no_live_markup(at)
    assert any(f"{HOSTILE}.txt: 1 lines" in line for line in shown)
