"""docs/notebook.ipynb runs from top to bottom in a real Jupyter kernel (``nbclient`` with
``ipykernel``, offline) and its outputs are what a reader sees: the workbench's token strip as HTML
with grapheme clusters whole, right-to-left runs and hover titles, the text form naming pieces of
characters, the side-by-side table and its DataFrame, GPT-2 extended for Hindi and its curve; never
a ``\\xNN`` escape. The notebook is committed with its outputs cleared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
FAMILY = "👨\u200d👩\u200d👧"


def test_the_notebook_is_committed_without_outputs():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert code and all(not cell["outputs"] and cell["execution_count"] is None for cell in code)


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    return notebook


def _outputs(cell, mime: str) -> str:
    found = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            found.append(output["text"] if mime == "text/plain" else "")
        else:
            found.append(output.get("data", {}).get(mime, ""))
    return "".join(found)


def test_every_cell_runs_and_no_output_shows_an_escape(executed):
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert all(cell.outputs for cell in code)  # every cell shows something
    for cell in code:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
        for mime in ("text/html", "text/plain"):
            assert not re.search(r"\\x[0-9a-fA-F]{2}", _outputs(cell, mime)), (cell.source, mime)


def test_show_draws_the_strip_with_clusters_whole(executed):
    html = _outputs(executed.cells[1], "text/html")
    assert '<div class="bpe-tokens">' in html and "<style>" in html and "<script" not in html
    drawn = re.findall(r'<span class="gc"[^>]*>(.*?)</span><span class="gb">', html)
    plain = [re.sub(r"<[^>]+>", "", d) for d in drawn]
    assert any("स्ते" in d for d in plain) and any(FAMILY in d for d in plain) and any("👍🏽" in d for d in plain)
    assert '<span class="rtl" dir="rtl">' in html  # the Arabic words, right to left
    assert re.search(r'title="id 15496 · merge rank [\d,]+ · bytes 48 65 6c 6c 6f"', html)  # hover: id and bytes


def test_the_text_form_names_the_pieces(executed):
    printed = _outputs(executed.cells[3], "text/plain")
    assert printed.startswith("gpt2: ") and "[Hello]" in printed and "⟨न 1–2/3⟩" in printed


def test_compare_draws_a_table_per_text_and_a_dataframe(executed):
    table = _outputs(executed.cells[7], "text/html")
    assert table.count('<table class="bpe-cmp">') == 5 and table.count('<div class="bpe-tokens">') == 15
    frame = _outputs(executed.cells[9], "text/html")
    assert "chars_per_token" in frame and "relative_tokens" in frame and "o200k" in frame
    mine = _outputs(executed.cells[11], "text/html")
    assert ">mine<" in mine and ">GPT-2<" in mine


def test_an_extension_compares_and_shows_its_curve(executed):
    table = _outputs(executed.cells[13], "text/html")
    assert ">GPT-2 + Hindi<" in table and table.count('<table class="bpe-cmp">') == 2
    printed = _outputs(executed.cells[15], "text/plain").splitlines()
    assert printed == [
        "  0 new tokens: 2,782 tokens, 6.87x English's",
        " 75 new tokens: 1,442 tokens, 3.56x English's",
        "149 new tokens: 1,326 tokens, 3.27x English's",
        "224 new tokens: 1,277 tokens, 3.15x English's",
        "embedding rows to add: 224, unused on this text: 70",
    ]
