"""Spreadsheet-safe CSV (bpe_core/analysis/csv_export.py) in every CSV the project writes: no cell
begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (a spreadsheet would run it as a
formula), whatever the samples, files and tokenizers are named; numbers stay numbers. The grep below
finds every place that writes CSV, so a new one cannot skip the helper; the app's downloads are in
tests/app/test_csv_downloads.py."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis import vocab_diff
from bpe_core.analysis.csv_export import FORMULA_STARTS, csv_text, csv_value
from bpe_core.analysis.variants import ROW_FIELDS, HeldOutSample, compare_variants
from bpe_core.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(1,1)", "\tpadded", "\rreturn", '=HYPERLINK("x")']


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def assert_no_formula(text: str) -> None:
    """No cell a spreadsheet would run: none begins with a formula's first character, but numbers."""
    for row in cells(text):
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS) or is_number(cell), f"a spreadsheet would run {cell!r}"


def test_hostile_cells_are_text_and_read_back():
    rows = [[name, -5, 2.5, None] for name in HOSTILE]
    text = csv_text(["name", "=n", "x", "empty"], rows)
    assert_no_formula(text)
    header, *body = cells(text)
    assert header == ["name", "'=n", "x", "empty"]
    assert [csv_value(row[0]) for row in body] == HOSTILE
    assert {tuple(row[1:]) for row in body} == {("-5", "2.5", "")}  # numbers as numbers, None empty


@given(st.lists(st.text(), min_size=1, max_size=5))
def test_any_text_is_safe_and_reads_back(values):
    text = csv_text(["a"] * len(values), [values])
    assert_no_formula(text)
    assert [csv_value(cell) for cell in cells(text)[1]] == values


# ------------------------------------------------------------------------------------------------
# every CSV export


#: Every file that offers or writes CSV (found by the grep below), and what does its writing.
EXPORTS = {
    "bpe_core/analysis/variants.py": "VariantComparison.to_csv: the Lab's downloads, the CLI's lab --csv",
    "bpe_core/cli/main.py": "compare --csv",
    "bpe_core/cli/variants.py": "lab --csv (VariantComparison.to_csv)",
    "pages/_lab/results.py": "Every text (CSV), Summary (CSV) (VariantComparison.to_csv)",
    "pages/_compare/table.py": "Compare's Table as CSV",
    "pages/_fairer/view.py": "the fairer tokenizer's Table as CSV",
    "pages/languages.py": "Numbers as CSV",
    "pages/vocab_diff.py": "every token as CSV",
}


def test_every_csv_export_is_found_and_goes_through_the_helper():
    sources = [path for folder in ("bpe_core", "pages") for path in (ROOT / folder).rglob("*.py")]
    found, unsafe = set(), []
    for path in sources:
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        if name == "bpe_core/analysis/csv_export.py":
            continue
        if re.search(r"text/csv|\"--csv\"|\.to_csv\(|csv\.(writer|DictWriter)\(|csv_text\(|frame_csv\(", text):
            found.add(name)
        if re.search(r"csv\.(writer|DictWriter)\(|\.to_csv\([^)]*index", text):
            unsafe.append(name)
        if name in EXPORTS and "csv_export" not in text and ".to_csv(" not in text:
            unsafe.append(name)
    assert found == set(EXPORTS), "a CSV export was added or removed: add it here, with a test of its cells"
    assert unsafe == [], f"CSV written without bpe_core.analysis.csv_export in {unsafe}"


def test_compare_variants_csv_keeps_hostile_names_as_text():
    samples = [HeldOutSample(f"s{i}", name, name, "abab abab x = 1") for i, name in enumerate(HOSTILE)]
    tokenizer = bpe_core.train("abab abab", 258, min_frequency=1)
    result = compare_variants({"=BPE": tokenizer, "@other": tokenizer}, samples, baseline="=BPE")
    for text in (result.to_csv(), result.to_csv(summary=True)):
        assert_no_formula(text)
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert list(rows[0]) == list(ROW_FIELDS) and {csv_value(row["label"]) for row in rows} == set(HOSTILE)
    assert {row["saved_vs_bpe"] for row in rows} == {"0.0"}  # numbers unchanged


def hostile_files(folder: Path) -> list[Path]:
    made = []
    for index, name in enumerate(["=cmd|' -C calc'!A0", "@SUM(1+1)", "+1", "-2"]):
        path = folder / f"{name}.txt"
        path.write_text("".join(f"the cat {i} sat on mat {index} and log {i * 7}.\n" for i in range(200)), "utf-8")
        made.append(path)
    return made


def test_the_clis_compare_csv_keeps_hostile_file_names_as_text(tmp_path, capsys):
    assert main(["compare", *map(str, hostile_files(tmp_path)), "--csv"]) == 0
    out = capsys.readouterr().out
    assert_no_formula(out)
    samples = {csv_value(row["sample"]) for row in csv.DictReader(io.StringIO(out))}
    assert {"=cmd|' -C calc'!A0.txt", "@SUM(1+1).txt", "+1.txt", "-2.txt"} <= samples


def test_the_clis_lab_csv_keeps_hostile_file_names_as_text(tmp_path, capsys):
    table = tmp_path / "lab.csv"
    args = ["lab", *map(str, hostile_files(tmp_path)), "--vocab-size", "300", "--variants", "bpe,picky:0.9"]
    assert main([*args, "--min-frequency", "1", "--csv", str(table)]) == 0
    text = table.read_text(encoding="utf-8")
    assert_no_formula(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "=cmd|' -C calc'!A0.txt" in {csv_value(row["sample"]) for row in rows}


def test_the_vocabulary_diffs_csv_keeps_tokens_as_text():
    from pages.vocab_diff import csv_bytes

    one = bpe_core.train("=a=a=a=a=a -b -b +c @d", 262, min_frequency=1, pattern=None, special_tokens=["=sp"])
    two = bpe_core.train("=x =x -y", 259, min_frequency=1, pattern=None)
    text = csv_bytes(vocab_diff.diff(one, two)).decode("utf-8")
    assert_no_formula(text)
    by_hex = {row[1]: csv_value(row[0]) for row in cells(text)[1:]}
    assert by_hex["3d"] == "=" and by_hex["2d"] == "-" and by_hex["3d61"] == "=a"
    assert by_hex["3d7370"] == "=sp"  # the special token


@pytest.mark.parametrize("value", ["=1+1", "'=1+1", "plain", "'", "''-"])
def test_csv_value_undoes_safe_cells_only(value):
    assert csv_value(cells(csv_text(["v"], [[value]]))[1][0]) == value
