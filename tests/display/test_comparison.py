"""``bpe_core.compare``: several tokenizers (built-in names, files, objects) side by side on several
texts, with the figures of ``analysis.metrics.measure``, the one token strip per row, a plain table in
a terminal and a pandas DataFrame; ``import bpe_core`` loads neither the renderer nor pandas."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import bpe_core
from bpe_core.analysis.metrics import measure
from bpe_core.display.comparison import COLUMNS, Comparison
from bpe_core.errors import BpeError

TEXTS = {"English": "The cat sat on the mat.", "Hindi": "नमस्ते दुनिया", "Arabic": "مرحبا بالعالم", "emoji": "👍🏽 ok"}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tokenizer = bpe_core.train(["the cat sat on the mat " * 40], 280, min_frequency=1)
    path = tmp_path_factory.mktemp("tok") / "mine.json"
    tokenizer.save(path)
    return tokenizer, path


def test_the_figures_are_the_librarys_metrics(trained):
    tokenizer, path = trained
    table = bpe_core.compare(TEXTS, ["gpt2", path, tokenizer])
    assert isinstance(table, Comparison) and table.tokenizers == ("gpt2", str(path), tokenizer.name)
    assert len(table.rows) == len(TEXTS) * 3
    loaded = {"gpt2": bpe_core.load("gpt2"), str(path): tokenizer, tokenizer.name: tokenizer}
    for row in table.rows:
        expected = measure(loaded[row["tokenizer"]], TEXTS[row["text"]])
        assert row["tokens"] == expected.tokens and row["characters"] == expected.characters
        assert row["bytes"] == expected.bytes
        assert row["chars_per_token"] == expected.chars_per_token
        assert row["bytes_per_token"] == expected.bytes_per_token
        first = next(r for r in table.rows if r["text"] == row["text"])
        assert row["relative_tokens"] == pytest.approx(row["tokens"] / first["tokens"])
    for row, view in zip(table.rows, table.views, strict=True):
        assert view.name == row["tokenizer"] and len(view.tokens) == row["tokens"]  # the strip is what is counted


def test_the_dataframe_holds_the_rows():
    table = bpe_core.compare(["Hello world", "你好世界"], {"GPT-2": "gpt2", "o200k": "o200k"})
    frame = table.to_pandas()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(COLUMNS)
    assert frame.to_dict("records") == list(table.rows)
    assert list(frame["tokenizer"]) == ["GPT-2", "o200k", "GPT-2", "o200k"]
    assert frame.loc[3, "tokens"] < frame.loc[2, "tokens"]  # o200k needs fewer tokens for Chinese
    assert table.dataframe.equals(frame)


def test_the_html_has_one_strip_per_row_and_the_text_form_a_table():
    table = bpe_core.compare(TEXTS, ["gpt2", "o200k"])
    markup = table._repr_html_()
    assert markup.count('<div class="bpe-tokens">') == len(TEXTS) * 2
    assert markup.count("<table") == len(TEXTS) and "\\x" not in markup and "<script" not in markup
    assert 'dir="rtl"' in markup and "स्ते" in markup  # the one renderer: right to left, clusters whole
    text = str(table)
    assert "Hindi" in text and "chars/token" in text and "\\x" not in text
    hindi = [r for r in table.rows if r["text"] == "Hindi"]
    assert f"{hindi[1]['relative_tokens']:.2f}" in text


def test_one_text_and_one_name_are_lists_of_one_and_labels_stay_apart(trained):
    table = bpe_core.compare("Hello world", "gpt2")
    assert [(r["text"], r["tokenizer"], r["tokens"]) for r in table.rows] == [("Hello world", "gpt2", 2)]
    tokenizer, _ = trained
    twice = bpe_core.compare("Hello world", [tokenizer, tokenizer, "gpt2", "gpt2"])
    assert twice.tokenizers == (tokenizer.name, f"{tokenizer.name} (2)", "gpt2", "gpt2 (2)")


@pytest.mark.parametrize(
    ("texts", "tokenizers", "message"),
    [
        ([], ["gpt2"], "at least one text"),
        (["x"], [], "at least one tokenizer"),
        (["x"], [42], "built-in names, file paths or tokenizers"),
        ([b"bytes"], ["gpt2"], "decode bytes first"),
        (["x"], ["no-such-tokenizer"], "unknown tokenizer 'no-such-tokenizer'"),
    ],
)
def test_bad_input_is_a_message(texts, tokenizers, message):
    with pytest.raises(BpeError, match=message):
        bpe_core.compare(texts, tokenizers)


def test_importing_bpe_core_loads_neither_the_renderer_nor_pandas():
    code = (
        "import sys, bpe_core\n"
        "light = {'bpe_core.display', 'bpe_core.display.marks'}  # vocab_dump's plain text\n"
        "loaded = [m for m in sys.modules if m == 'pandas' or m.startswith('bpe_core.display') and m not in light]\n"
        "bpe_core.load('gpt2').show('hi')\n"
        "table = bpe_core.compare(['hi'], ['gpt2'])\n"
        "print(loaded, 'pandas' in sys.modules, 'bpe_core.display.comparison' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "False", "True"]  # pandas only when a DataFrame is asked for
