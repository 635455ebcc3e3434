"""The built-in tokenizers of a server (pages/_ui/builtins.py): a result many sessions ask for at
once is computed once (the others wait for it), an error is not kept, and the statuses follow the
catalogue's entries."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bpe_core.pretrained import catalogue  # noqa: E402
from pages._ui import builtins  # noqa: E402


def test_many_sessions_asking_at_once_share_one_computation():
    shared = builtins.SharedResults()
    calls = []
    start = threading.Barrier(8)

    def slow() -> object:
        calls.append(1)
        time.sleep(0.2)  # long enough for every other thread to arrive meanwhile
        return object()

    results = []

    def session() -> None:
        start.wait()
        results.append(shared.get("o200k", slow))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(results) == 8 and all(r is results[0] for r in results)
    assert shared.get("gpt2", lambda: "other") == "other"  # another key, its own computation


def test_an_error_is_not_kept():
    shared = builtins.SharedResults()

    def failing() -> object:
        raise ValueError("the file failed its hash")

    with pytest.raises(ValueError, match="hash"):
        shared.get("x", failing)
    assert shared.get("x", lambda: "loaded") == "loaded"


def test_statuses_follow_a_change_of_the_catalogue(monkeypatch):
    before = builtins.builtin_statuses()
    assert builtins.builtin_statuses() is before  # asked once a minute
    missing = catalogue.Builtin(
        "llama3", "Llama 3", "llama-models", "no_such_package_here", ("x",), "0" * 64, build=lambda data: None
    )
    monkeypatch.setitem(catalogue.BUILTINS, "llama3", missing)
    after = {status.name: status for status in builtins.builtin_statuses()}
    assert not after["llama3"].installed and "llama3" not in builtins.installed_builtins()
