"""The Compare page measures uploaded files whole, up to its cap (pages/_compare/measures.py's
MAX_FILE_CHARS, 2,000,000 characters), and says when a longer file is cut: AppTest, with the table
checked against bpe_core.analysis.metrics computed here. The cap is lowered for the cut test (the page reads
it at run time) so no test uploads megabytes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import compare_table, opened, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis import metrics  # noqa: E402
from bpe_core.corpora.samples import get_sample  # noqa: E402
from pages._compare import measures  # noqa: E402

COMPARE = "pages/compare.py"
COLUMNS = ["characters", "bytes", "tokens", "words", "fertility", "split_share", "renyi_efficiency", "premium"]


@pytest.fixture
def page(workspace_dir):
    return opened(COMPARE, timeout=120)


def upload(at: AppTest, files: list[tuple[str, str]]) -> AppTest:
    at.multiselect(key="cmp.tokenizers").set_value(["gpt2"])
    at.radio(key="cmp.source").set_value("My files")
    run(at)
    at.file_uploader(key="cmp.uploads").set_value([(name, text.encode("utf-8"), "text/plain") for name, text in files])
    return run(at)


def long_text(sample_id: str, size: int) -> str:
    text = get_sample(sample_id).text + "\n"
    return (text * (size // len(text) + 1))[:size]


def assert_table_is(at: AppTest, files: list[tuple[str, str]], reference: str) -> None:
    rows = compare_table(at).set_index("label")
    expected = metrics.compare({"GPT-2": bpe_core.load("gpt2")}, files, reference)
    for row in expected:
        for column in COLUMNS:
            assert rows.loc[row["label"], column] == pytest.approx(row[column]), (row["label"], column)


def test_a_file_above_200k_characters_is_measured_whole(page):
    assert measures.MAX_FILE_CHARS == 2_000_000
    files = [("en.txt", long_text("eng", 250_000)), ("hi.txt", long_text("hin", 230_000))]
    at = upload(page, files)
    assert not at.exception
    assert not any("are measured" in w for w in texts(at.warning))
    rows = compare_table(at).set_index("label")
    assert rows.loc["en.txt", "characters"] == 250_000 and rows.loc["hi.txt", "characters"] == 230_000
    assert_table_is(at, files, "en.txt")


def test_a_file_above_the_cap_is_cut_with_a_warning(page, monkeypatch):
    monkeypatch.setattr(measures, "MAX_FILE_CHARS", 3_000)
    english, hindi = long_text("eng", 5_000), long_text("hin", 2_000)
    at = upload(page, [("en.txt", english), ("hi.txt", hindi)])
    assert not at.exception
    warnings = texts(at.warning)
    assert any("en.txt has 5,000 characters: the first 3,000 are measured" in w for w in warnings)
    assert not any("hi.txt" in w for w in warnings)  # under the cap: whole, no warning
    rows = compare_table(at).set_index("label")
    assert rows.loc["en.txt", "characters"] == 3_000 and rows.loc["hi.txt", "characters"] == 2_000
    assert_table_is(at, [("en.txt", english[:3_000]), ("hi.txt", hindi)], "en.txt")
