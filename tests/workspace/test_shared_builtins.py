"""Built-in tokenizers shared by a process's threads (bpe_core/workspace/shared_builtins.py): a result
many threads ask for at once is computed once (the others wait for it), an error is not kept, the
statuses follow the catalogue's entries, the installed ones come in a caller's order, and the warm-up
starts once, loads only installed built-ins, imports what it is told around the loads and goes on past
a load that fails; a cached hub model is loaded once per revision, and a built-in's file is that built-in.
(The workbench's own use of it, a fresh server's first view: tests/app/test_first_view.py.)"""

from __future__ import annotations

import sys
import threading
import time

import pytest
from fake_builtins import fresh_builtins

from bpe_core.pretrained import catalogue
from bpe_core.workspace import shared_builtins


def test_many_sessions_asking_at_once_share_one_computation():
    shared = shared_builtins.SharedResults()
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
    shared = shared_builtins.SharedResults()

    def failing() -> object:
        raise ValueError("the file failed its hash")

    with pytest.raises(ValueError, match="hash"):
        shared.get("x", failing)
    assert shared.get("x", lambda: "loaded") == "loaded"


def test_statuses_follow_a_change_of_the_catalogue(monkeypatch):
    before = shared_builtins.builtin_statuses()
    assert shared_builtins.builtin_statuses() is before  # asked once a minute
    missing = catalogue.Builtin(
        "llama3", "Llama 3", "llama-models", "no_such_package_here", ("x",), "0" * 64, build=lambda data: None
    )
    monkeypatch.setitem(catalogue.BUILTINS, "llama3", missing)
    after = {status.name: status for status in shared_builtins.builtin_statuses()}
    assert not after["llama3"].installed and "llama3" not in shared_builtins.installed_builtins()
    assert any(note.startswith("Llama 3") for note in shared_builtins.not_installed_notes())


def test_installed_builtins_come_in_the_order_asked_then_the_catalogues():
    installed = [status.name for status in catalogue.available() if status.installed]
    assert len(installed) >= 2, "fewer than two built-ins are installed here"
    wanted = [installed[-1], "no-such-tokenizer", installed[0]]
    ordered = list(shared_builtins.installed_builtins(wanted))
    assert ordered == [installed[-1], installed[0], *installed[1:-1]]
    assert list(shared_builtins.installed_builtins()) == installed


@pytest.fixture
def fresh_process(monkeypatch):
    """A process that has loaded nothing and started no warm-up; the names loaded, in order (faked:
    gpt2 fails)."""
    return fresh_builtins(monkeypatch, failing="gpt2")


def test_the_warm_up_starts_once_and_loads_only_installed_built_ins(fresh_process, monkeypatch, caplog):
    installed = list(shared_builtins.installed_builtins())
    assert "gpt2" in installed and len(installed) >= 2, "gpt2 and one more built-in are needed here"
    other = next(name for name in installed if name != "gpt2")
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    thread = shared_builtins.warm_up(
        ["no-such-tokenizer", "gpt2", other], imports_first=["no_such_module_here"], imports_after=["colorsys"]
    )
    assert shared_builtins.warm_up(["cl100k"]) is thread  # started once: the second call starts nothing
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert fresh_process == ["gpt2", other]  # in the order given, the uninstalled name skipped
    assert "gpt2 did not load (ValueError: gpt2's file failed its hash check)" in caplog.text
    assert shared_builtins.builtin_tokenizer(other).ranks_asked == 1  # loaded once, and prepared
    assert "colorsys" in sys.modules  # imported after the loads; the missing module was skipped
    with pytest.raises(ValueError, match="hash check"):  # a failed load is not kept: asked again, it fails again
        shared_builtins.builtin_tokenizer("gpt2")
    assert fresh_process == ["gpt2", other, "gpt2"]


def test_a_warm_up_started_from_another_thread_waits_for_it_to_end(fresh_process):
    release = threading.Event()
    started: list[threading.Thread] = []

    def script_run() -> None:
        started.append(shared_builtins.warm_up(["cl100k"]))
        release.wait(timeout=60)

    run = threading.Thread(target=script_run)
    run.start()
    while not started:
        time.sleep(0.01)
    time.sleep(0.2)
    assert fresh_process == []  # the run that started it is still going: nothing loaded yet
    release.set()
    run.join()
    started[0].join(timeout=60)
    assert fresh_process == (["cl100k"] if "cl100k" in shared_builtins.installed_builtins() else [])


def test_a_cached_hub_model_is_loaded_once_per_revision_and_a_builtins_file_is_that_builtin(monkeypatch, tmp_path):
    from bpe_core.pretrained import hub_cache
    from bpe_core.pretrained.hub_cache import CachedModel

    loads = fresh_builtins(monkeypatch, failing="none")
    monkeypatch.setattr(shared_builtins, "HUB_MODELS", shared_builtins.SharedResults())
    asked: list[tuple[str, str]] = []

    def load_model(model, *, builtins, load_builtin):
        asked.append((model.name, model.commit))
        assert builtins is catalogue.BUILTINS
        return load_builtin("gpt2") if model.file.endswith(".tiktoken") else object()

    monkeypatch.setattr(hub_cache, "load_model", load_model)
    main = CachedModel("org/model", "main", "a" * 40, "tokenizer.json", tmp_path / "tokenizer.json")
    other = CachedModel("org/model", "v2", "b" * 40, "tokenizer.json", tmp_path / "tokenizer.json")
    first = shared_builtins.hub_tokenizer(main)
    assert shared_builtins.hub_tokenizer(main) is first and shared_builtins.hub_tokenizer(other) is not first
    assert asked == [("org/model", "a" * 40), ("org/model@v2", "b" * 40)]  # one load each
    ranks = CachedModel("org/gpt2-ranks", "main", "c" * 40, "gpt2.tiktoken", tmp_path / "gpt2.tiktoken")
    assert shared_builtins.hub_tokenizer(ranks) is shared_builtins.builtin_tokenizer("gpt2")
    assert loads == ["gpt2"]  # the built-in loaded once, for both
