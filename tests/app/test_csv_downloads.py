"""The workbench's CSV downloads are spreadsheet-safe (bpe_core/analysis/csv_export.py): a tokenizer
named like a formula (``=cmd|' /C calc'!A0``) is text in Compare's "Table as CSV" and in the fairer
tokenizer's table, and no cell of any CSV a page offers begins as a formula does. (Every place that
writes CSV is found by tests/analysis/test_csv_export.py, which also holds the Lab's, the CLI's and
the vocabulary diff's CSV.)"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import opened, run  # noqa: E402
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis.csv_export import FORMULA_STARTS, csv_value, frame_csv  # noqa: E402
from bpe_core.analysis.parity_report import compare_training  # noqa: E402
from bpe_core.corpora.samples import parallel_text  # noqa: E402
from bpe_core.workspace.library_folder import LibraryFolder  # noqa: E402

HOSTILE = "=cmd|' /C calc'!A0"


@pytest.fixture
def offered(monkeypatch) -> dict[str, bytes]:
    """Every file a download button offers, by file name."""
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, data, mimetype, kind, filename=None):
        files[filename] = data if isinstance(data, bytes) else data.encode("utf-8")
        return original(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return files


def safe_cells(data: bytes) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    for row in rows:
        for cell in row:
            number = cell.lstrip("-+").replace(".", "", 1).replace("e", "", 1).isdigit()
            assert number or not cell.startswith(FORMULA_STARTS), f"a spreadsheet would run {cell!r}"
    return rows


def test_compares_table_keeps_a_tokenizer_named_like_a_formula_as_text(workspace_dir, offered):
    saved = LibraryFolder(workspace_dir).save(bpe_core.train("abab abab abc", 260, min_frequency=1), HOSTILE)
    assert saved.name.startswith("=")  # the name keeps its "=": a formula, were it not for the CSV's rule
    page = opened("pages/compare.py", timeout=120)
    page.multiselect(key="cmp.tokenizers").set_value(["gpt2", f"lib:{saved.name}"])
    page.multiselect(key="cmp.samples").set_value(["eng", "hin"])
    run(page)
    header, *body = safe_cells(offered["tokenizer-comparison.csv"])
    names = {csv_value(row[header.index("tokenizer")]) for row in body}
    assert names == {"GPT-2", saved.name} and len(body) == 4


def test_the_languages_numbers_are_safe(workspace_dir, offered):
    run(opened("pages/languages.py", timeout=120))
    (name,) = [name for name in offered if name.endswith(".csv")]
    header, *body = safe_cells(offered[name])
    assert header[:3] == ["language", "characters", "tokens"] and len(body) == 21


def test_the_fairer_tokenizers_table_keeps_a_tokenizer_named_like_a_formula_as_text():
    from pages._fairer.view import results_table

    languages = ["eng", "hin"]
    result = compare_training(
        parallel_text(split="train", languages=languages),
        parallel_text(split="heldout", languages=languages),
        400,
        others={HOSTILE: bpe_core.load("gpt2")},
        pattern="o200k",
        resamples=20,
    )
    rows = safe_cells(frame_csv(results_table(result)).encode("utf-8"))
    assert HOSTILE in {csv_value(cell) for row in rows for cell in row}
