"""Models from the Hugging Face cache by name (``bpe_core.load("org/name")``, ``org/name@rev``), offline.

Every test builds its own cache, laid out as ``huggingface_hub`` writes it (tests/support/hub_layout.py),
from files the project has: GPT-2 exported as a ``tokenizer.json``, a small trained tokenizer, cl100k's
``.tiktoken`` file, a WordPiece ``tokenizer.json``. A cached model gives the same ids as the file it
resolves to; branches, tags and commits pick the snapshot; a model that is not cached is one message
naming the download command; ``$HF_HUB_CACHE`` wins over ``$HF_HOME`` (checked in fresh interpreters,
since ``huggingface_hub`` reads them when imported). The network is cut off for every test here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hub_layout import add_snapshot

import bpe_core
from bpe_core.formats.huggingface import to_huggingface_dict
from bpe_core.formats.tiktoken_file import dumps_tiktoken
from bpe_core.pretrained import catalogue, hub_cache
from bpe_core.pretrained.external import ExternalTokenizer

pytest.importorskip("huggingface_hub")
from huggingface_hub import constants as hub_constants

ROOT = Path(__file__).resolve().parents[2]
SMALL_VOCAB = 266  # a tokenizer trained to this size on a short text (it has 13 merges to make)
TEXTS = ["Hello world", "Grüße aus Köln; 日本語 🙂👍🏽", "def f(x):\n    return x ** 2", "<|endoftext|> and more"]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test here may reach the network: any connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a connection was attempted: the hub cache must be read offline")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty hub cache, the one ``huggingface_hub`` uses in this process."""
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(folder))
    return folder


def gpt2_json() -> bytes:
    return json.dumps(to_huggingface_dict(bpe_core.load("gpt2")), ensure_ascii=False).encode()


def small_json() -> bytes:
    small = bpe_core.train(["low lower lowest newer newest " * 20], vocab_size=SMALL_VOCAB, name="small")
    return json.dumps(to_huggingface_dict(small)).encode()


def wordpiece_json() -> bytes:
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, "hello": 1, "world": 2, **{c: 3 + i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}}
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return tok.to_str().encode()


def ids(tokenizer, allowed="all") -> list[list[int]]:
    return [tokenizer.encode(text, allowed_special=allowed) for text in TEXTS]


def test_a_cached_model_gives_the_ids_of_the_file_it_resolves_to(cache):
    commit = add_snapshot(cache, "openai-community/gpt2", {"tokenizer.json": gpt2_json(), "config.json": b"{}"})
    model = hub_cache.find("openai-community/gpt2")
    assert (model.repo_id, model.revision, model.commit, model.file) == (
        "openai-community/gpt2",
        "main",
        commit,
        "tokenizer.json",
    )
    assert model.path == cache / "models--openai-community--gpt2" / "snapshots" / commit / "tokenizer.json"
    loaded = bpe_core.load("openai-community/gpt2")
    assert loaded.name == "openai-community/gpt2"
    assert ids(loaded) == ids(bpe_core.load(model.path)) == ids(bpe_core.load("gpt2"))
    assert loaded.encode("Hello world") == [15496, 995]


def test_branches_tags_and_commits_pick_the_snapshot(cache):
    main = add_snapshot(cache, "org/model", {"tokenizer.json": gpt2_json()}, refs=["main"])
    tagged = add_snapshot(cache, "org/model", {"tokenizer.json": small_json()}, refs=["v1.0", "small-branch"])
    small = bpe_core.load(hub_cache.find("org/model@v1.0").path)
    assert small.vocab_size == SMALL_VOCAB
    for name in ("org/model@v1.0", "org/model@small-branch", f"org/model@{tagged}", f"org/model@{tagged[:9]}"):
        model = hub_cache.find(name)
        assert model.commit == tagged and model.name == name, name
        assert ids(bpe_core.load(name)) == ids(small), name
    assert hub_cache.find("org/model").commit == hub_cache.find(f"org/model@{main}").commit == main
    assert bpe_core.load("org/model").vocab_size == 50257
    with pytest.raises(bpe_core.BpeError) as error:
        bpe_core.load("org/model@v2.0")
    message = str(error.value)
    assert "org/model is cached, but not at revision v2.0" in message
    assert f"main ({main[:12]})" in message and f"small-branch, v1.0 ({tagged[:12]})" in message
    assert "hf download org/model tokenizer.json --revision v2.0" in message


def test_a_model_that_is_not_cached_names_the_download_command(cache):
    with pytest.raises(bpe_core.BpeError) as error:
        bpe_core.load("Qwen/Qwen3-8B")
    message = str(error.value)
    assert f"no model Qwen/Qwen3-8B in the Hugging Face cache ({cache})" in message
    assert "`hf download Qwen/Qwen3-8B tokenizer.json`" in message
    assert "`huggingface-cli download Qwen/Qwen3-8B tokenizer.json`" in message
    assert "bpe_core never downloads" in message
    add_snapshot(cache, "Qwen/Qwen3-8B", {"config.json": b"{}"})
    with pytest.raises(bpe_core.BpeError, match=r"cached without a tokenizer file .*hf download Qwen/Qwen3-8B"):
        bpe_core.load("Qwen/Qwen3-8B")


def test_no_cache_folder_at_all_is_the_same_message(tmp_path, monkeypatch):
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path / "never-made"))
    with pytest.raises(bpe_core.BpeError, match="no model org/model in the Hugging Face cache"):
        bpe_core.load("org/model")
    assert hub_cache.cached_models() == []


def test_a_file_path_is_still_a_file(cache, tmp_path, monkeypatch):
    """A path that exists is read as a file even when it looks like org/name; file names keep their
    own messages; a missing org/name with no such model says both."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org").mkdir()
    (tmp_path / "org" / "model").write_bytes(small_json())
    assert bpe_core.load("org/model").vocab_size == SMALL_VOCAB
    assert not hub_cache.is_hub_name("org/model")
    assert not hub_cache.is_hub_name("models/missing.json")
    assert not hub_cache.is_hub_name("a/b/c") and not hub_cache.is_hub_name("gpt2")
    with pytest.raises(bpe_core.BpeError, match="org/other: no such file, and no model org/other"):
        bpe_core.load("org/other")


def test_without_huggingface_hub_the_message_says_what_to_install(cache, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails as if not installed
    with pytest.raises(bpe_core.BpeError) as error:
        bpe_core.load("org/model")
    assert str(error.value) == (
        "org/model: no such file, and finding it as a model in the Hugging Face cache (org/name) needs "
        "huggingface_hub, which is not installed: pip install huggingface_hub"
    )


def test_a_rank_file_identical_to_a_builtins_is_that_builtin(cache):
    """A ``.tiktoken`` file holds no pattern or special tokens: when it is a built-in's file byte for
    byte, the built-in's are used; another rank file loads as ``bpe_core.load`` loads that file."""
    add_snapshot(cache, "someone/cl100k-copy", {"cl100k_base.tiktoken": catalogue.builtin_file("cl100k")})
    model = hub_cache.find("someone/cl100k-copy")
    assert model.file == "cl100k_base.tiktoken"
    assert bpe_core.load("someone/cl100k-copy") is bpe_core.load("cl100k")
    small = bpe_core.train(["low lower lowest newer newest " * 20], vocab_size=SMALL_VOCAB)
    add_snapshot(cache, "someone/small", {"small.tiktoken": dumps_tiktoken(small).encode()})
    from_hub = bpe_core.load("someone/small")
    assert from_hub.name == "someone/small"
    assert ids(from_hub, allowed=set()) == ids(bpe_core.load(hub_cache.find("someone/small").path), allowed=set())


def test_a_model_bpe_core_does_not_run_is_read_only(cache):
    add_snapshot(cache, "org/wordpiece", {"tokenizer.json": wordpiece_json()})
    with pytest.raises(bpe_core.BpeError, match=r"bpe_core.load_external\('org/wordpiece'\)"):
        bpe_core.load("org/wordpiece")
    external = bpe_core.load_external("org/wordpiece")
    assert isinstance(external, ExternalTokenizer) and external.name == "org/wordpiece"
    assert external.encode("hello world") == [1, 2]
    assert isinstance(catalogue.resolve("org/wordpiece"), ExternalTokenizer)


def test_cached_models_lists_every_model_with_a_tokenizer(cache):
    main = add_snapshot(cache, "org/model", {"tokenizer.json": gpt2_json()})
    tagged = add_snapshot(cache, "org/model", {"tokenizer.json": small_json()}, refs=["v1.0"])
    add_snapshot(cache, "Other/Weights-Only", {"config.json": b"{}"})
    loose = add_snapshot(cache, "another/one", {"tokenizer.json": small_json()}, refs=[])
    listed = [(m.name, m.commit) for m in hub_cache.cached_models()]
    assert listed == [(f"another/one@{loose}", loose), ("org/model", main), ("org/model@v1.0", tagged)]
    assert hub_cache.describe(hub_cache.cached_models())[1] == f"org/model  tokenizer.json  {main[:12]}"
    for name, _ in listed:
        assert bpe_core.load(name).vocab_size in (SMALL_VOCAB, 50257)


def _load_in_fresh_python(env: dict[str, str], name: str) -> str:
    """``bpe_core.load(name).vocab_size`` in a new interpreter with ``env`` (huggingface_hub reads
    HF_HOME and HF_HUB_CACHE when it is imported)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    script = f"import bpe_core; print(bpe_core.load({name!r}).vocab_size)"
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**clean, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


def test_hf_hub_cache_wins_over_hf_home(tmp_path):
    home, hub = tmp_path / "home", tmp_path / "elsewhere"
    add_snapshot(home / "hub", "org/model", {"tokenizer.json": gpt2_json()})
    add_snapshot(hub, "org/model", {"tokenizer.json": small_json()})
    assert _load_in_fresh_python({"HF_HOME": str(home)}, "org/model") == "50257"
    assert _load_in_fresh_python({"HF_HOME": str(home), "HF_HUB_CACHE": str(hub)}, "org/model") == str(SMALL_VOCAB)
    xdg = tmp_path / "xdg"
    add_snapshot(xdg / "huggingface" / "hub", "org/model", {"tokenizer.json": small_json()})
    assert _load_in_fresh_python({"XDG_CACHE_HOME": str(xdg)}, "org/model") == str(SMALL_VOCAB)
