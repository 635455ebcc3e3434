"""Models in the local Hugging Face cache in the workbench (AppTest): every picker offers them as
``🤗 org/name`` (Tokenize shows the model's ids, the same as the file it resolves to), the Merge forest
draws a cached BPE model and says why a read-only one has no merges, and the Library page lists them.
The cache is built by the test (tests/support/hub_layout.py); nothing is downloaded."""

from __future__ import annotations

import json
import re

import pytest
from apptest_support import APP, drawn_html, run
from hub_layout import add_snapshot
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.formats.huggingface import to_huggingface_dict

pytest.importorskip("huggingface_hub")
from huggingface_hub import constants as hub_constants


def _wordpiece_json() -> bytes:
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, "hello": 1, "world": 2, **{c: 3 + i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}}
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return tok.to_str().encode()


@pytest.fixture
def app(workspace_dir, tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    gpt2 = json.dumps(to_huggingface_dict(bpe_core.load("gpt2"))).encode()
    add_snapshot(cache, "openai-community/gpt2", {"tokenizer.json": gpt2})
    add_snapshot(cache, "org/wordpiece", {"tokenizer.json": _wordpiece_json()})
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    return run(AppTest.from_file(APP, default_timeout=180))


def test_tokenize_offers_the_cached_models_and_shows_their_ids(app):
    app.switch_page("pages/tokenize_text.py")
    run(app)
    picker = app.multiselect(key="tokenize.tokenizers")
    assert "🤗 openai-community/gpt2" in picker.options and "🤗 org/wordpiece" in picker.options, picker.options
    picker.set_value(["gpt2", "hf:openai-community/gpt2", "hf:org/wordpiece"])
    app.text_area(key="tokenize.text").set_value("hello world")
    run(app)
    assert not app.error
    id_lists = [", ".join(re.findall(r">(\d+)</span>", body)) for body in drawn_html(app) if 'class="bpe-ids"' in body]
    assert id_lists.count("31373, 995") == 2, id_lists  # GPT-2 built in, and from the cache: the same ids
    assert "1, 2" in id_lists  # the WordPiece model, run read-only by tokenizers


def test_the_merge_forest_draws_a_cached_bpe_model_and_refuses_a_read_only_one(app):
    app.switch_page("pages/merge_forest.py")
    run(app)
    picker = app.selectbox(key="forest.tokenizer")
    assert "🤗 openai-community/gpt2" in picker.options and "🤗 org/wordpiece" in picker.options, picker.options
    picker.set_value("hf:org/wordpiece")
    run(app)
    assert any("it is a WordPiece" in e.value and "no merge list" in e.value for e in app.error)
    app.selectbox(key="forest.tokenizer").set_value("hf:openai-community/gpt2")
    run(app)
    assert not app.error


def test_the_library_lists_the_cached_models(app):
    app.switch_page("pages/library.py")
    run(app)
    assert "Your Hugging Face models" in [h.value for h in app.subheader]
    table = next(t.value for t in app.dataframe if "model" in t.value.columns and "commit" in t.value.columns)
    assert sorted(table["model"]) == ["openai-community/gpt2", "org/wordpiece"]
    assert set(table["file"]) == {"tokenizer.json"} and set(table["revision"]) == {"main"}


def test_a_shared_link_to_a_model_not_cached_here_says_so():
    from pages._tokenize_text.inputs import describe_missing

    assert describe_missing("hf:Qwen/Qwen3-8B") == (
        "Qwen/Qwen3-8B (a model in the Hugging Face cache of whoever shared the link; hf download puts it in yours)"
    )
