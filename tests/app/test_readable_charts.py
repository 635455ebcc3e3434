"""Charts and tables that read at 1280 px (AppTest and the chart builders): every figure's text is 12 px
or more, even where plotly would shrink a bar's label; many samples are drawn as rows of dots, not 60
groups of thin bars; Compare's heatmap opens on a metric every row has, and leaves out (and names) the
rows a chosen metric does not apply to; the full table comes in views of a few columns; Vocabulary
diff's shares run from 0% to 100% on a log axis labelled in full-size numbers; the Lab's sources are
links. The browser test measures the same on every page (tests/app/test_browser_workbench.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from apptest_support import opened, run, texts
from streamlit.testing.v1 import AppTest

from pages._compare.table import TABLE_VIEWS
from pages._ui import charts


def specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart_titled(at: AppTest, words: str) -> dict:
    for spec in specs(at):
        title = spec["layout"].get("title", {})
        if words in (title.get("text", "") if isinstance(title, dict) else str(title)):
            return spec
    raise AssertionError(f"no chart titled with {words!r}")


def test_every_figure_writes_12_px_or_more():
    figure = charts.compact(charts.go.Figure(charts.go.Bar(x=["a"], y=[1], text=["1.00"])), 300)
    assert figure.layout.font.size == charts.FONT_SIZE == 12
    assert figure.layout.uniformtext.minsize == 12 and figure.layout.uniformtext.mode == "hide"


def test_log_ticks_are_whole_numbers_from_1_2_5():
    assert charts.log_ticks(1, 1744) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    assert charts.log_ticks(256, 2000) == [500, 1000, 2000]
    figure = charts.log_x(charts.go.Figure(charts.go.Scatter(x=[256, 2000], y=[1, 1])), [256, 2000])
    assert figure.layout.xaxis.type == "log" and list(figure.layout.xaxis.ticktext) == ["500", "1,000", "2,000"]


def test_many_samples_are_rows_of_dots():
    order = [f"sample {n}" for n in range(30)]
    frame = pd.DataFrame(
        [{"label": label, "tokenizer": name, "v": n} for n, label in enumerate(order) for name in ("A", "B")]
    )
    figure = charts.grouped_bars(frame, "v", ["A", "B"], order, "title", "value")
    assert {trace.type for trace in figure.data} == {"scatter"} and figure.layout.yaxis.type == "category"
    assert list(figure.data[0].y) == order and figure.layout.height >= charts.ROW_HEIGHT * len(order)
    few = charts.grouped_bars(frame[frame["label"].isin(order[:5])], "v", ["A", "B"], order[:5], "title", "value")
    assert {trace.type for trace in few.data} == {"bar"}


@pytest.fixture
def everything(workspace_dir) -> AppTest:
    at = opened("pages/compare.py", timeout=300)
    at.multiselect(key="cmp.tokenizers").set_value(["gpt2", "cl100k"])
    at.button(key="cmp.preset.all").click()
    return run(at)


def test_compare_everything_reads(everything):
    at = everything
    assert at.selectbox(key="cmp.heat_metric").value == "chars_per_token"  # every row has one
    heat = next(s for s in specs(at) if s["data"][0]["type"] == "heatmap")["data"][0]
    rows = len(heat["y"])
    assert rows > charts.MAX_BAR_GROUPS and all(all(v is not None for v in row) for row in heat["z"])
    cpt = chart_titled(at, "Characters per token")
    assert {trace["type"] for trace in cpt["data"]} == {"scatter"}  # rows of dots, not 60 groups of bars
    at.selectbox(key="cmp.heat_metric").set_value("premium")
    at = run(at)
    heat = next(s for s in specs(at) if s["data"][0]["type"] == "heatmap")["data"][0]
    assert len(heat["y"]) == 21 and all(all(v is not None for v in row) for row in heat["z"])  # the languages
    left_out = [c for c in texts(at.caption) if c.startswith("Left out, no premium")]
    assert len(left_out) == 1 and "Python" in left_out[0] and "JSON" in left_out[0]


def test_compare_full_table_in_views_that_fit(everything):
    views = [d.value for d in everything.dataframe if {"label", "tokenizer"} <= set(d.value.columns)]
    assert [list(v.columns) for v in views] == [["label", "tokenizer", *columns] for columns in TABLE_VIEWS.values()]
    assert all(len(v.columns) <= 7 for v in views)


def test_vocabulary_diff_shares_run_from_0_to_100_percent(workspace_dir):
    at = opened("pages/vocab_diff.py", timeout=300)
    at.selectbox(key="vdiff.a").set_value("gpt2")
    at.selectbox(key="vdiff.b").set_value("gpt2")
    at = run(at)
    for words in ("vs", "Share of the first k merges"):
        spec = chart_titled(at, words)
        assert spec["layout"]["yaxis"]["range"] == [0, 1.04]  # a flat 100% is not drawn on an axis to 200%
        assert spec["layout"]["xaxis"]["type"] == "log" and 1000 in spec["layout"]["xaxis"]["tickvals"]
    labels = [m.label for m in at.metric]
    assert "Jaccard" in labels and max(map(len, labels)) <= 22  # none cut in a column at 1280 px


def test_the_labs_sources_are_links():
    from pages._lab import results

    assert "docs/library/variants.md" not in results.MEASURES_EXPLAINED
    assert "<a href='https://arxiv.org/abs/2306.16842'>Zouhar et al. 2023</a>" in results.MEASURES_EXPLAINED
    assert set(results.SUMMARY_GROUPS) and all(len(fields) <= 5 for fields in results.SUMMARY_GROUPS.values())
