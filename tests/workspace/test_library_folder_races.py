"""The tokenizer library under concurrent use: threads and processes hammering the same names.

Promises checked: no tokenizer is ever lost or comes back after a delete; every caller
gets an honest answer (of several callers taking one new name exactly one is told it succeeded, the
others get a ValueError saying why); no temporary file stays behind; a dead lock holder never blocks
the library and a live one makes others wait a bounded time, then say "busy".

Tokenizers are told apart by their number of merges (each scenario gives each one its own count).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import bpe_core
from bpe_core import file_lock, safe_io
from bpe_core.workspace.library_folder import LOCK_NAME, LibraryFolder

ROOT = Path(__file__).resolve().parents[2]
TEXT = "low low low low low lower newer newer newer newer wider wide " * 10
CONTEXT = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


@pytest.fixture(scope="module")
def tokenizers():
    """Five tokenizers with 1..5 merges, so a file's merge count says which one it holds."""
    full = bpe_core.train(TEXT, 270, min_frequency=1)
    return {k: full.truncated(k) for k in range(1, 6)}


def _merges_in(ws: LibraryFolder) -> dict[str, int]:
    """Every tokenizer in the library: name -> number of merges (the file's stored name must match)."""
    found = {}
    for entry, tokenizer in ws.scan():
        assert entry.ok, entry.error
        assert tokenizer.name == entry.name
        found[entry.name] = len(tokenizer.merges)
    return found


def _assert_no_temporary_files(ws: LibraryFolder) -> None:
    leftovers = [p.name for p in ws.folder.iterdir() if safe_io.is_temporary(p.name)]
    assert leftovers == []
    assert {p.name for p in ws.folder.iterdir() if not p.name.endswith(".json")} <= {LOCK_NAME}


def _outcome(call, *args, **kwargs) -> str:
    """'ok', or the kind of ValueError ('exists', 'missing'); anything else is recorded as it is
    (a worker never dies, so the others never wait for it) and fails the checks."""
    try:
        call(*args, **kwargs)
    except ValueError as exc:
        message = str(exc)
        if "already exists" in message:
            return "exists"
        if "no tokenizer named" in message:
            return "missing"
        return f"dishonest failure: {message}"
    except Exception as exc:  # a traceback in the app; recorded, then failed on
        return f"crash: {exc!r}"
    return "ok"


# -------------------------------------------------------------------------------------------------
# one round of four competing operations, run by threads or by processes


def _round_operations(ws: LibraryFolder, tokenizers: dict, r: int) -> list:
    """Round ``r``: A (1 merge) in "r-a", B (2 merges) in "r-b"; then at once: rename a -> x,
    rename b -> x, delete a, save C (3 merges) as x without overwriting."""
    return [
        ("rename a", ws.rename, (f"{r}-a", f"{r}-x")),
        ("rename b", ws.rename, (f"{r}-b", f"{r}-x")),
        ("delete a", ws.delete, (f"{r}-a",)),
        ("save c", ws.save, (tokenizers[3], f"{r}-x")),
    ]


def _check_round(results: dict[str, str], state: dict[str, int], r: int) -> None:
    a, b, x = f"{r}-a", f"{r}-b", f"{r}-x"
    assert all(outcome in ("ok", "exists", "missing") for outcome in results.values()), results
    claims = [results["rename a"], results["rename b"], results["save c"]]
    assert claims.count("ok") == 1, results  # exactly one caller took the new name
    # A: deleted, or renamed, never both, and never back after its delete.
    assert (results["delete a"] == "ok") != (results["rename a"] == "ok"), results
    assert a not in state
    merges_of = {"rename a": 1, "rename b": 2, "save c": 3}
    (winner,) = [label for label in merges_of if results[label] == "ok"]
    assert state[x] == merges_of[winner]  # the new name holds the winner's tokenizer
    # B: where its rename left it, never lost.
    assert state.get(b if results["rename b"] != "ok" else x) == 2
    if results["rename b"] != "ok":
        assert results["rename b"] == "exists"
    if results["delete a"] != "ok":
        assert results["delete a"] == "missing"


def _prepare_rounds(ws: LibraryFolder, tokenizers: dict, rounds: int) -> None:
    for r in range(rounds):
        ws.save(tokenizers[1], f"{r}-a")
        ws.save(tokenizers[2], f"{r}-b")


def _check_rounds(ws: LibraryFolder, outcomes: dict[int, dict[str, str]], rounds: int) -> None:
    state = _merges_in(ws)
    for r in range(rounds):
        in_round = {name: n for name, n in state.items() if name.startswith(f"{r}-")}
        _check_round(outcomes[r], in_round, r)
    _assert_no_temporary_files(ws)


def test_threads_renaming_deleting_and_saving_one_name(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws")
    rounds = 25
    _prepare_rounds(ws, tokenizers, rounds)
    outcomes: dict[int, dict[str, str]] = {r: {} for r in range(rounds)}
    barrier = threading.Barrier(4)

    def worker(slot: int) -> None:
        for r in range(rounds):
            label, call, args = _round_operations(ws, tokenizers, r)[slot]
            barrier.wait(timeout=30)
            outcomes[r][label] = _outcome(call, *args)

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    _check_rounds(ws, outcomes, rounds)


def _process_worker(root: str, slot: int, rounds: int, barrier, queue) -> None:
    full = bpe_core.train(TEXT, 270, min_frequency=1)
    tokenizers = {k: full.truncated(k) for k in range(1, 6)}
    ws = LibraryFolder(root)
    for r in range(rounds):
        label, call, args = _round_operations(ws, tokenizers, r)[slot]
        barrier.wait(timeout=30)
        queue.put((r, label, _outcome(call, *args)))


def test_processes_renaming_deleting_and_saving_one_name(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws")
    rounds = 12
    _prepare_rounds(ws, tokenizers, rounds)
    barrier, queue = CONTEXT.Barrier(4), CONTEXT.Queue()
    workers = [
        CONTEXT.Process(target=_process_worker, args=(str(ws.root), slot, rounds, barrier, queue)) for slot in range(4)
    ]
    for process in workers:
        process.start()
    outcomes: dict[int, dict[str, str]] = {r: {} for r in range(rounds)}
    for _ in range(4 * rounds):
        r, label, outcome = queue.get(timeout=120)
        outcomes[r][label] = outcome
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0
    _check_rounds(ws, outcomes, rounds)


# -------------------------------------------------------------------------------------------------
# saving one name, and importing (save_as_new), from many callers at once


def _run_threads(count: int, target) -> list:
    results: list = [None] * count
    barrier = threading.Barrier(count)

    def run(slot: int) -> None:
        barrier.wait(timeout=30)
        try:
            results[slot] = target(slot)
        except Exception as exc:  # returned to the test, which checks its kind
            results[slot] = exc

    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_threads_saving_one_new_name_have_exactly_one_winner(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws")
    for r in range(15):
        results = _run_threads(5, lambda slot, r=r: ws.save(tokenizers[slot + 1], f"shared {r}"))
        winners = [slot for slot, result in enumerate(results) if not isinstance(result, Exception)]
        assert len(winners) == 1, results
        losers = [result for result in results if isinstance(result, Exception)]
        assert all(isinstance(result, ValueError) and "already exists" in str(result) for result in losers)
        assert len(ws.load(f"shared {r}").merges) == winners[0] + 1  # the file holds the winner's
    _assert_no_temporary_files(ws)


def test_threads_importing_one_name_get_distinct_names(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws")
    results = _run_threads(5, lambda slot: ws.save_as_new(tokenizers[slot + 1], "imported"))
    names = [entry.name for entry in results]
    assert sorted(names) == ["imported", "imported 2", "imported 3", "imported 4", "imported 5"]
    state = _merges_in(ws)
    assert {state[entry.name] for entry in results} == {1, 2, 3, 4, 5}
    assert all(state[entry.name] == slot + 1 for slot, entry in enumerate(results))
    _assert_no_temporary_files(ws)


def _import_worker(root: str, merges: int, barrier, queue) -> None:
    tokenizer = bpe_core.train(TEXT, 270, min_frequency=1).truncated(merges)
    barrier.wait(timeout=30)
    try:
        queue.put((merges, LibraryFolder(root).save_as_new(tokenizer, "imported").name))
    except Exception as exc:  # reported to the test instead of leaving it waiting
        queue.put((merges, f"crash: {exc!r}"))


def test_processes_importing_one_name_get_distinct_names(tmp_path):
    ws = LibraryFolder(tmp_path / "ws")
    ws.save(bpe_core.train(TEXT, 270, min_frequency=1).truncated(5), "imported")
    barrier, queue = CONTEXT.Barrier(3), CONTEXT.Queue()
    workers = [CONTEXT.Process(target=_import_worker, args=(str(ws.root), k, barrier, queue)) for k in (1, 2, 3)]
    for process in workers:
        process.start()
    chosen = dict(queue.get(timeout=120) for _ in workers)
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert sorted(chosen.values()) == ["imported 2", "imported 3", "imported 4"]
    state = _merges_in(ws)
    assert state["imported"] == 5 and all(state[name] == k for k, name in chosen.items())
    _assert_no_temporary_files(ws)


def test_saving_one_tokenizer_object_under_many_names_at_once(tmp_path, tokenizers):
    """The object is never renamed for a moment, so no thread writes another thread's name."""
    ws = LibraryFolder(tmp_path / "ws")
    shared = tokenizers[4]
    before = shared.name
    _run_threads(6, lambda slot: ws.save(shared, f"copy {slot}"))
    assert shared.name == before
    assert set(_merges_in(ws)) == {f"copy {slot}" for slot in range(6)}  # each file stores its own name


# -------------------------------------------------------------------------------------------------
# the lock: bounded waiting, never stale; failed writes clean up


@pytest.mark.skipif(file_lock.fcntl is None, reason="POSIX flock")
def test_a_held_lock_makes_changes_wait_then_say_busy(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws", lock_timeout=0.3)
    ws.save(tokenizers[1], "kept")
    with open(ws.folder / LOCK_NAME, "a+b") as handle:  # another holder: its own open file
        file_lock.fcntl.flock(handle.fileno(), file_lock.fcntl.LOCK_EX)
        started = time.monotonic()
        with pytest.raises(ValueError, match="busy"):
            ws.delete("kept")
        assert time.monotonic() - started >= 0.3
        assert ws.names() == ["kept"]  # reading needs no lock
    ws.delete("kept")  # released: the change goes through
    assert ws.names() == []


def test_a_killed_lock_holder_leaves_no_stale_lock(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws", lock_timeout=5)
    ws.save(tokenizers[1], "kept")
    code = (
        "import os, signal, sys\n"
        "from bpe_core.workspace.library_folder import LibraryFolder\n"
        "ws = LibraryFolder(sys.argv[1])\n"
        "with ws._changing():\n"
        "    print('locked', flush=True)\n"
        "    os.kill(os.getpid(), getattr(signal, 'SIGKILL', signal.SIGTERM))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(ws.root)],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.stdout.strip() == "locked" and result.returncode != 0
    assert (ws.folder / LOCK_NAME).exists()  # the lock file stays; the lock died with its holder
    ws.rename("kept", "moved")
    assert ws.names() == ["moved"]


def test_a_thread_holding_the_lock_makes_another_wait(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws", lock_timeout=0.2)
    ws.save(tokenizers[1], "a")
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with ws._changing():
            entered.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait(10)
    try:
        with pytest.raises(ValueError, match="busy"):
            LibraryFolder(ws.root, lock_timeout=0.2).save(tokenizers[2], "b")
    finally:
        release.set()
        holder.join(10)
    assert ws.names() == ["a"]
    ws.save(tokenizers[2], "b")
    assert ws.names() == ["a", "b"]


def test_stale_temporary_files_are_removed_by_the_next_change(tmp_path, tokenizers):
    ws = LibraryFolder(tmp_path / "ws")
    ws.save(tokenizers[1], "a")
    old = time.time() - 3600
    stale = [ws.folder / ".bpe_core-0123456789abcdef.tmp", ws.folder / "a.json.tmp-4242"]  # current and old naming
    fresh = ws.folder / ".bpe_core-fedcba9876543210.tmp"  # may be a write in progress
    for path in [*stale, fresh]:
        path.write_text("{half", encoding="utf-8")
    for path in stale:
        os.utime(path, (old, old))
    assert ws.names() == ["a"]  # none of them is listed
    ws.save(tokenizers[2], "b")
    assert not any(path.exists() for path in stale)
    assert fresh.exists()
    assert ws.remove_stale_files(older_than=0) == [fresh.name]
    _assert_no_temporary_files(ws)


def test_a_failed_write_is_a_value_error_and_leaves_nothing(tmp_path, tokenizers, monkeypatch):
    ws = LibraryFolder(tmp_path / "ws")
    ws.save(tokenizers[1], "a")

    def disk_full(temporary, path, *, overwrite):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safe_io, "publish", disk_full)
    with pytest.raises(ValueError, match="No space left"):
        ws.save(tokenizers[2], "b")
    with pytest.raises(ValueError, match="No space left"):
        ws.rename("a", "c")
    assert _merges_in(ws) == {"a": 1}
    _assert_no_temporary_files(ws)


def test_write_atomic_never_shares_temporary_files(tmp_path):
    """Many threads of one process writing one path: every write lands whole (the old names
    ``<path>.tmp-<pid>`` collided here)."""
    target = tmp_path / "out.json"
    texts = [f'{{"writer": {slot}, "pad": "{"x" * 20000}"}}' for slot in range(8)]
    results = _run_threads(8, lambda slot: safe_io.write_atomic(target, texts[slot]))
    assert results == [None] * 8
    assert target.read_text(encoding="utf-8") in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    with pytest.raises(FileExistsError):
        safe_io.write_atomic(target, "{}", overwrite=False)
    assert target.read_text(encoding="utf-8") in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
