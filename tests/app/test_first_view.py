"""A fresh server's first Tokenize view: the background warm-up (pages/_ui/builtins.py's, run by
bpe_core/workspace/shared_builtins.py) loads each default tokenizer once however many sessions start at
once, and goes on past one that fails, whose error the page then shows as its message; the page draws a
panel per tokenizer as each is ready (pages/_tokenize_text/encodings.py), in the chosen order whatever
the order they were loaded in."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, drawn_html, run, texts  # noqa: E402
from fake_builtins import fresh_builtins  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.pretrained import catalogue  # noqa: E402
from bpe_core.workspace import shared_builtins  # noqa: E402
from pages._tokenize_text.encodings import Encodings  # noqa: E402
from pages._ui import builtins  # noqa: E402
from pages._ui.encoding import Page, indexed_text, text_digest  # noqa: E402
from pages._ui.tokenizers import TokenizerChoice  # noqa: E402


@pytest.fixture
def fresh_server(monkeypatch):
    """A server that has loaded nothing and started no warm-up; the names loaded, in order (faked: llama3
    fails)."""
    monkeypatch.setattr(builtins, "TOKENIZE_IMPORTS", ())
    monkeypatch.setattr(builtins, "COMPARE_IMPORTS", ())
    return fresh_builtins(monkeypatch, failing="llama3")


def test_the_warm_up_loads_each_default_once_when_many_sessions_start_at_once(fresh_server):
    names = [name for name in builtins.OPENING if name in builtins.installed_builtins()]
    assert names, "no default tokenizer is installed here"
    start = threading.Barrier(8)
    started: list[threading.Thread] = []

    def session() -> None:  # a first script run: starts the warm-up, then asks for every default itself
        start.wait()
        started.append(builtins.warm_up())
        for name in names:
            try:
                shared_builtins.builtin_tokenizer(name)
            except ValueError:
                pass

    sessions = [threading.Thread(target=session) for _ in range(8)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join()
    started[0].join(timeout=60)
    assert not started[0].is_alive() and len(set(started)) == 1  # one warm-up for the server
    working = [name for name in names if name != "llama3"]
    assert all(fresh_server.count(name) == 1 for name in working), fresh_server  # loaded once, shared
    for name in working:  # and the merge ranks the panels' hover text reads were built ahead
        assert shared_builtins.builtin_tokenizer(name).ranks_asked >= 1


def test_a_failed_background_load_goes_on_to_the_others_and_is_not_kept(fresh_server, caplog):
    names = [name for name in builtins.OPENING if name in builtins.installed_builtins()]
    if "llama3" not in names:
        pytest.skip("llama3 is not installed here")
    shared_builtins._load_all(names, threading.main_thread())
    assert "llama3 did not load (ValueError: llama3's file failed its hash check)" in caplog.text
    assert all(fresh_server.count(name) == 1 for name in names)  # the ones after llama3 were loaded too
    with pytest.raises(ValueError, match="hash check"):  # not kept: the page asking loads it again...
        shared_builtins.builtin_tokenizer("llama3")
    assert fresh_server.count("llama3") == 2


def test_the_page_shows_a_background_failure_as_its_message(workspace_dir, monkeypatch):
    if not catalogue.is_installed("llama3"):
        pytest.skip("llama3 is not installed here")
    monkeypatch.setattr(shared_builtins, "BUILTINS", shared_builtins.SharedResults())
    real_load = catalogue.load

    def load(name: str):
        if name == "llama3":
            raise ValueError("llama3's file failed its hash check")
        return real_load(name)

    monkeypatch.setattr(bpe_core, "load", load)  # first: bpe_core.load is looked up in catalogue on first use
    monkeypatch.setattr(catalogue, "load", load)
    shared_builtins._load_all(["llama3", "gpt2"], threading.main_thread())  # the warm-up, failing on llama3
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["tok"] = ["llama3", "gpt2", "cl100k"]
    at.switch_page("pages/tokenize_text.py")
    run(at)
    errors = " ".join(texts(at.error)).replace("\\", "")
    assert "Llama 3" in errors and "failed its hash check" in errors
    markup = "\n".join(drawn_html(at))
    assert markup.count('class="bpe-tokens"') == 2  # the other two are drawn
    assert [row["tokenizer"] for row in at.dataframe[0].value.to_dict("records")] == ["GPT-2", "cl100k (GPT-4)"]


def choice(key: str, loader) -> TokenizerChoice:
    return TokenizerChoice(key, key, "built-in", f"test:{key}", loader)


def test_encodings_keep_the_chosen_order_and_load_each_once():
    text = "internationalization of tokenizers"
    digest = text_digest(text)
    page = Page(text, digest, indexed_text(digest, text), 0, len(text))
    gpt2 = bpe_core.load("gpt2")
    calls: Counter[str] = Counter()

    def loader(key: str):
        def load():
            calls[key] += 1
            if key == "broken":
                raise ValueError("no such file")
            return gpt2

        return load

    keys = ["first", "broken", "reference"]
    encodings = Encodings({key: choice(key, loader(key)) for key in keys}, keys, page, True)
    assert encodings.ensure("reference") and not encodings.ensure("broken")  # the reference first
    assert list(encodings.encoded) == ["reference"]
    encodings.ensure_all()
    encodings.ensure_all()
    assert list(encodings.encoded) == list(encodings.loaded) == list(encodings.cuts) == ["first", "reference"]
    assert encodings.errors == {"broken": "no such file"}
    assert calls == {"first": 1, "broken": 1, "reference": 1}  # an error is asked once a run, not again
    assert encodings.encoded["first"].ids_total == len(gpt2.encode(text))
