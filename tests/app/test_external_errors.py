"""An external tokenizer whose library fails on a text (a WordLevel tokenizer.json whose unk_token is
missing from its vocab: ``tokenizers`` raises a plain Exception on an unknown word) is one message in
the workbench, naming the file and what is wrong, never an exception box: on Tokenize (from the URL,
as a shared link opens it) and on Compare."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, run  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

pytest.importorskip("tokenizers")

WORDLEVEL = {
    "version": "1.0",
    "truncation": None,
    "padding": None,
    "added_tokens": [],
    "normalizer": None,
    "pre_tokenizer": {"type": "Whitespace"},
    "post_processor": None,
    "decoder": None,
    "model": {"type": "WordLevel", "vocab": {"hello": 0, "world": 1}, "unk_token": "[UNK]"},
}


@pytest.fixture
def app_with_wordlevel(workspace_dir):
    folder = Path(workspace_dir) / "external"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "wl.json").write_text(json.dumps(WORDLEVEL), encoding="utf-8")
    return run(AppTest.from_file(APP, default_timeout=180))


def _messages(app) -> str:
    return " ".join(e.value for e in app.error).replace("\\", "")


def test_tokenize_shows_the_failure_as_a_message(app_with_wordlevel):
    app = app_with_wordlevel
    app.query_params["tok"] = "ext:wl"
    app.query_params["text"] = "hello zzz"
    app.switch_page("pages/tokenize_text.py")
    run(app)
    assert not app.exception
    assert "Missing [UNK] token" in _messages(app)


def test_compare_shows_the_failure_as_a_message(app_with_wordlevel):
    app = app_with_wordlevel
    app.switch_page("pages/compare.py")
    run(app)
    app.multiselect(key="cmp.tokenizers").set_value(["gpt2", "ext:wl"])
    run(app)
    assert not app.exception
    assert "Missing [UNK] token" in _messages(app) or "Missing [UNK] token" in " ".join(w.value for w in app.warning)
