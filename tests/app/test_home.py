"""Home (AppTest and a fresh interpreter): what the workbench answers, a path through it with one click a
step (train, tokenize, compare), the same sentence's cost in six languages as token strips whose
stored cuts are o200k's and whose GPT-2 counts are GPT-2's, the other pages linked; and the page
imports no pandas and loads no tokenizer, so that a fresh server draws it in one step (the browser test
times it against a bare page: tests/app/test_browser_workbench.py, bench/first_view_bench.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from apptest_support import APP, run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.pretrained import catalogue
from pages._home import glance
from pages._home.glance_data import GLANCE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(workspace_dir, monkeypatch):
    from pages._ui import builtins

    monkeypatch.setattr(builtins, "warm_up", lambda: None)  # the background load is not Home's
    monkeypatch.setattr(bpe_core, "load", lambda name: pytest.fail(f"Home loaded {name}"))
    monkeypatch.setattr(catalogue, "load", lambda name: pytest.fail(f"Home loaded {name}"))
    return run(AppTest.from_file(APP, default_timeout=180))


def test_the_stored_glance_is_what_the_tokenizers_give():
    if not (catalogue.is_installed("o200k") and catalogue.is_installed("gpt2")):
        pytest.skip("o200k's or GPT-2's package is not installed")
    assert glance.measure() == GLANCE, "the stored cuts are stale: run python -m pages._home.glance, then ruff format"


def test_home_answers_and_leads_train_tokenize_compare_one_click_each(home):
    assert any(t.startswith("**What it answers:**") for t in texts(home.markdown))
    links = [(link.proto.page, link.proto.label) for link in home.get("page_link")]
    pages = [page for page, _ in links]
    assert pages[:3] == ["train", "tokenize_text", "compare"]
    assert [label for _, label in links[:3]] == [
        "1 · Train a tokenizer",
        "2 · Tokenize a text",
        "3 · Compare the costs",
    ]
    assert {"merge_forest", "step_through", "fairer", "languages", "vocab_diff", "lab", "library"} <= set(pages)
    assert not home.error


def test_home_shows_one_sentence_in_six_languages_with_its_cost(home):
    (strips,) = [h for h in texts(home.get("html")) if "bpe-glance" in h]
    rows = GLANCE["rows"]
    english = len(rows["eng"]["tokens"])
    for row in rows.values():
        assert f"<b>{row['name']}</b>" in strips
        tokens = len(row["tokens"])
        assert f"{tokens:,} tokens · " in strips and f"×{tokens / english:.2f}" in strips
        assert f"GPT-2: {row['gpt2']:,} · " in strips
    burmese = len(rows["mya"]["tokens"]) / english
    assert burmese >= 2 and f'<span class="m x2">×{burmese:.2f}</span>' in strips  # the dearest in red
    assert strips.count('class="bpe-tokens"') == len(glance.LANGUAGES)
    assert 'dir="rtl"' in strips  # Arabic laid out right to left
    assert re.search(r'<span class="t[^"]*"[^>]*title="id 976 ', strips)  # o200k's 'The', its id on hover
    assert "Languages side by side" in " ".join(link.proto.label for link in home.get("page_link"))


def test_home_imports_no_pandas_and_loads_no_tokenizer():
    probe = (
        "import sys; sys.path.insert(0, '.'); import streamlit; "
        "from pages._ui import navigation, render, state, tokenizers; from pages import home; "
        "home.builtin_rows(); home.glance.glance_html(); "
        "assert 'pandas' not in sys.modules, 'pandas'; "
        "from bpe_core.workspace import shared_builtins; "
        "assert not shared_builtins.BUILTINS._values, 'a tokenizer was loaded'"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
