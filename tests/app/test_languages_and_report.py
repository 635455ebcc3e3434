"""The demonstration page "Languages side by side" (one sentence in every language, stacked token strips,
each row's cost as a multiple of the reference and in money, an SVG and a CSV), Compare's curve read at a
glance (reference and chosen samples in colour, the rest grey, a legend that never scrolls), its HTML
report (one self-contained file: plotly.js inline, user text escaped), and the Merge forest's overview
tree, driven with AppTest and on the builders themselves.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT))

from apptest_support import drawn_html, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.corpora.samples import parallel_text  # noqa: E402
from pages._compare.report import Report, report_html  # noqa: E402
from pages._languages.strips import Row, rows_svg  # noqa: E402
from pages._ui import charts  # noqa: E402

LANGUAGES = "pages/languages.py"
COMPARE = "pages/compare.py"
HOSTILE = '</script><script>alert(1)</script> <b>z</b> & "q"'


def go_to(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def test_languages_side_by_side_stacks_every_language_with_its_cost(app):
    go_to(app, LANGUAGES)
    app.selectbox(key="langs.tokenizer").set_value("gpt2")
    run(app)
    sentences = parallel_text(split="all")
    gpt2 = bpe_core.load("gpt2")
    strips = [body for body in drawn_html(app) if "bpe-langs" in body][0]
    assert strips.count('class="lrow"') == len(sentences) == 21
    assert "\\x" not in strips and 'class="gc"' in strips  # split characters drawn once, never escaped
    english = len(gpt2.encode(sentences["eng"][0]))
    hindi = len(gpt2.encode(sentences["hin"][0]))
    assert f"{hindi:,} tokens · " in strips and f"×{hindi / english:.2f}" in strips
    rows = re.findall(r'<div class="meta[^"]*"><b>([^<]+)</b>', strips)
    assert rows[0] == "English"  # the reference first, then the cheapest to the dearest
    counts = [int(n.replace(",", "")) for n in re.findall(r"<br>([\d,]+) tokens", strips)]
    assert counts[1:] == sorted(counts[1:])
    assert 'dir="rtl"' in strips  # Arabic and Hebrew rows read right to left
    app.number_input(key="langs.price").set_value(2.5)
    app.selectbox(key="langs.sentence").set_value(3)
    app.selectbox(key="langs.reference").set_value("hin")
    run(app)
    strips = [body for body in drawn_html(app) if "bpe-langs" in body][0]
    hindi = len(gpt2.encode(sentences["hin"][3]))
    assert re.findall(r'<div class="meta[^"]*"><b>([^<]+)</b>', strips)[0] == "Hindi"
    assert f"{hindi * 2.5:,.2f} per million such sentences" in strips  # tokens x price per million tokens
    numbers = [t.value for t in app.dataframe if "× reference" in t.value.columns][0]
    assert numbers["× reference"].tolist()[0] == "reference" and not numbers.isna().any().any()
    buttons = {b.key: b for b in app.get("download_button")}
    assert {"langs.svg", "langs.csv"} <= set(buttons)
    app.multiselect(key="langs.languages").set_value([])
    run(app)
    assert any("Pick at least one language" in i for i in texts(app.info))


def test_the_svg_is_well_formed_escaped_and_lays_rtl_rows_from_the_right():
    gpt2 = bpe_core.load("gpt2")
    rows = []
    for name, text in [("English", "The cat"), ("Arabic", "مرحبا بالعالم"), (HOSTILE, "नमस्ते 👨‍👩‍👧‍👦")]:
        infos = gpt2.encode_with_details(text)
        rows.append(Row(name, text, infos, len(infos) / 2, None, name == "English"))
    svg = rows_svg(rows, title=HOSTILE, subtitle="s")
    root = ElementTree.fromstring(svg)  # well-formed XML: every text escaped
    assert root.tag.endswith("svg") and "<script" not in svg and "<b>" not in svg
    shown = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert HOSTILE in shown and any("न" in s for s in shown) and any("👨\u200d👩\u200d👧\u200d👦" in s for s in shown)
    assert not any("\\x" in s for s in shown)
    lines: dict[float, list[float]] = {}  # the boxes of each line, by their top
    for x, y in re.findall(r'<g transform="translate\(([\d.]+),([\d.]+)\)">', svg):
        lines.setdefault(float(y), []).append(float(x))
    english, arabic = list(lines.values())[:2]
    assert english == sorted(english) and arabic == sorted(arabic, reverse=True)  # right to left


def test_compare_curve_highlights_the_reference_and_a_few_and_greys_the_rest(app):
    go_to(app, COMPARE)
    chosen = app.multiselect(key="cmp.curve_highlight").value
    assert chosen[0] == "English" and 2 <= len(chosen) <= 6
    spec = [json.loads(c.proto.spec) for c in app.get("plotly_chart") if "by vocabulary size" in c.proto.spec][0]
    lines = [t for t in spec["data"] if t.get("x") != [None]]
    coloured = [t for t in lines if t.get("legendgroup") != "others"]
    assert sorted(t["name"] for t in coloured) == sorted(chosen)
    assert len(lines) == 21 and all(t["line"]["color"] == charts.BACKGROUND_LINE for t in lines if t not in coloured)
    legend = [t["name"] for t in spec["data"] if t.get("showlegend", True)]
    assert len(legend) == len(chosen) + 1 and spec["layout"]["legend"]["orientation"] == "h"  # one row, no scroll
    assert {a["text"] for a in spec["layout"]["annotations"]} >= set(chosen)  # named at their ends
    app.multiselect(key="cmp.curve_highlight").set_value(["Hindi"])
    run(app)
    spec = [json.loads(c.proto.spec) for c in app.get("plotly_chart") if "by vocabulary size" in c.proto.spec][0]
    assert [t["name"] for t in spec["data"] if t.get("legendgroup") not in ("others",)] == ["Hindi"]
    assert any(b.key == "cmp.report" for b in app.get("download_button"))


def test_the_report_is_one_offline_file_with_escaped_text():
    report = Report()
    report.setting("tokenizers", HOSTILE)
    figure = go.Figure(go.Bar(x=["a"], y=[1], name=HOSTILE))  # a raw name: the report must still hold
    report.figure(HOSTILE, figure)
    report.table("Full table", pd.DataFrame({"tokenizer": [HOSTILE], "premium": [None]}))
    report.sentences([HOSTILE])
    page = report_html(report).decode("utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<script>") == 2  # plotly.js, the one figure
    assert "</script><script>alert" not in page and "<b>z</b>" not in page
    assert page.count("&lt;/script&gt;&lt;script&gt;alert(1)") >= 3  # settings, heading, table, sentence
    figure_script = page.split("<script>")[2]
    assert figure_script.count("</script>") == 1  # the name cannot close the script holding it
    assert "\\u003c\\u002fscript" in figure_script or "<\\/script" in figure_script
    ours = page.split("<script>", 2)[0] + page.split("</script>", 1)[1]  # all but plotly.js's own source
    assert not re.search(r'(src|href)="https?:', ours) and "<link" not in ours  # nothing to fetch
    assert "<td>—</td>" in page.split("Full table", 1)[1]  # an empty cell is a dash


def test_the_forest_overview_is_a_readable_tree(app):
    app.switch_page("pages/merge_forest.py")
    run(app)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    tree = [body for body in drawn_html(app) if "bpe-outline" in body][0]
    assert tree.count("<li") == 300 + tree.count('class="nt">id ')  # 300 merges under their roots
    assert "<details open>" in tree and "␣the" in tree and "\\x" not in tree
    kinds = {trace["type"] for c in app.get("plotly_chart") for trace in json.loads(c.proto.spec)["data"]}
    assert "icicle" not in kinds


def test_the_report_restyles_a_copy_and_leaves_the_shared_figure_as_the_page_drew_it():
    figure = charts.count_bars([1, 2, 2], "length", "tokens", "lengths")  # as shared by every session
    before = figure.to_json()
    report = Report()
    report.figure("lengths", figure)
    page = report_html(report).decode("utf-8")
    assert figure.to_json() == before  # the page's figure keeps Streamlit's styling
    assert '"template":' in page.split("<script>")[2]  # the report's copy carries its own light template
