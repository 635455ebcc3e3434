"""Smaller points of the workbench (AppTest): the Decode box's example ids are the chosen tokenizer's
own (they decode to "Hello world", never to " agency�"); the Merge forest opens on a real model, not
the example; a tokenizer gets one name whatever format it is imported in (its built-in's name when its
ranks are a built-in's)."""

from __future__ import annotations

from apptest_support import opened, run
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.pretrained import catalogue
from bpe_core.workspace.library_folder import LibraryFolder
from pages._tokenize_text import decode
from pages._ui.builtins import OPENING


def test_the_decode_example_is_the_chosen_tokenizers_own_ids(workspace_dir):
    at = opened("pages/tokenize_text.py", timeout=180)
    for key in ("gpt2", next(k for k in OPENING if catalogue.is_installed(k))):
        at.selectbox(key="tokenize.decode_tokenizer").set_value(key)
        at = run(at)
        placeholder = at.text_input(key="tokenize.decode_ids").placeholder
        ids = bpe_core.load(key).encode("Hello world")
        assert placeholder == f"{', '.join(map(str, ids))} (Hello world in these ids)"
        assert bpe_core.load(key).decode(decode.parse_ids(placeholder.split(" (")[0])) == "Hello world"


def test_the_merge_forest_opens_on_a_real_model(workspace_dir):
    at = opened("pages/merge_forest.py", timeout=300)
    opening = next(k for k in OPENING if catalogue.is_installed(k))
    assert at.selectbox(key="forest.tokenizer").value == opening != "default"


def _import(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="library.upload").set_value((name, data, "application/octet-stream"))
    return run(at)


def test_one_tokenizer_one_name_whatever_its_format(workspace_dir, tmp_path):
    from bpe_core.formats.huggingface import save_huggingface
    from bpe_core.formats.tiktoken_file import save_tiktoken

    gpt2 = bpe_core.load("gpt2")
    save_huggingface(gpt2, tmp_path / "tokenizer.json")
    save_tiktoken(gpt2, tmp_path / "ranks.tiktoken")
    at = opened("pages/library.py", timeout=300)
    at = _import(at, "tokenizer.json", (tmp_path / "tokenizer.json").read_bytes())
    assert LibraryFolder(workspace_dir).names() == ["gpt2"]  # not "tokenizer"
    at = _import(at, "ranks.tiktoken", (tmp_path / "ranks.tiktoken").read_bytes())
    (pattern,) = [s for s in at.selectbox if s.key and s.key.endswith(".pattern")]
    assert pattern.value == "model:gpt2"  # its ranks are GPT-2's: GPT-2's pattern first
    (go,) = [b for b in at.button if b.key and b.key.endswith(".go")]
    go.click()
    at = run(at)
    assert sorted(LibraryFolder(workspace_dir).names()) == ["gpt2", "gpt2 2"]  # not "ranks": the same name, numbered
