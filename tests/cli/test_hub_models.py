"""``-t org/name`` names a model in the local Hugging Face cache in every subcommand, and ``list`` shows
the cached models; the cache is built by the test (tests/support/hub_layout.py), nothing is downloaded."""

from __future__ import annotations

import json
import sys

import pytest
from hub_layout import add_snapshot

import bpe_core
from bpe_core.cli.main import main
from bpe_core.formats.huggingface import to_huggingface_dict

pytest.importorskip("huggingface_hub")
from huggingface_hub import constants as hub_constants


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(folder))
    gpt2 = json.dumps(to_huggingface_dict(bpe_core.load("gpt2"))).encode()
    commit = add_snapshot(folder, "openai-community/gpt2", {"tokenizer.json": gpt2})
    return folder, commit


def test_encode_and_decode_with_a_cached_model(cache, capsys):
    assert main(["encode", "-t", "openai-community/gpt2", "--text", "Hello world"]) == 0
    assert capsys.readouterr().out.strip() == "15496 995"
    assert main(["decode", "-t", "openai-community/gpt2@main", "15496", "995"]) == 0
    assert capsys.readouterr().out == "Hello world\n"
    assert main(["inspect", "-t", "openai-community/gpt2", "--merges", "1"]) == 0
    assert "openai-community/gpt2" in capsys.readouterr().out


def test_list_shows_the_cached_models(cache, capsys):
    _, commit = cache
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "or a model in the Hugging Face cache, as org/name[@revision]:\n" in out
    assert f"  openai-community/gpt2  tokenizer.json  {commit[:12]}\n" in out


def test_a_model_that_is_not_cached_is_one_line_naming_the_download(cache, capsys):
    assert main(["encode", "-t", "Qwen/Qwen3-8B", "--text", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Qwen/Qwen3-8B: no such file, and no model Qwen/Qwen3-8B in the Hugging Face cache")
    assert "`hf download Qwen/Qwen3-8B tokenizer.json`" in err and err.count("\n") == 1


def test_without_huggingface_hub(cache, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "or a model in the Hugging Face cache, as org/name[@revision] (needs huggingface_hub: pip install" in out
    assert main(["encode", "-t", "openai-community/gpt2", "--text", "x"]) == 2
    assert "needs huggingface_hub, which is not installed: pip install huggingface_hub" in capsys.readouterr().err
