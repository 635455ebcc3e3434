"""The model cache under hostile files and folders (bpe_core/pretrained/disk_cache.py, used by
model_cache.ranks_tables and catalogue.cached_structure): a link in place of a cache file is never
written through nor read, a file too big for its format or of another user is never read, a killed
writer's temporary files go with the next write, and a cache that cannot be used leaves loading, the
CLI's inspect and export working, with one warning. Each test here failed before the rule."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import tracemalloc
import warnings
from pathlib import Path

import pytest

from bpe_core.bpe.ranks import rank_structure
from bpe_core.errors import BpeWarning
from bpe_core.pretrained import catalogue, disk_cache, model_cache

ROOT = Path(__file__).resolve().parents[2]
BYTES = {bytes([b]): b for b in range(256)}
RANKS = BYTES | {b"abc": 256, b"ab": 257, b"ca": 258, b"abca": 259, b"xyz": 260, b"xy": 261}
DATA = b"the file the ranks came from"
DIGEST = hashlib.sha256(DATA).digest()
NOBODY = 65534


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch):
    """Each test is a process of its own as far as the cache's once-a-process warnings go."""
    monkeypatch.setattr(disk_cache, "_off", {})
    monkeypatch.setattr(disk_cache, "_checked", set())
    monkeypatch.setattr(disk_cache, "_ignored", set())


def proved() -> tuple:
    return model_cache.ranks_tables(None, DIGEST, RANKS)


@pytest.fixture
def folder(tmp_path):
    made = tmp_path / "rank-structures"
    made.mkdir()
    return made


def test_a_link_in_place_of_a_tables_file_is_never_written_through(folder, tmp_path):
    outside = tmp_path / "passwd-copy"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (folder / f"{DIGEST.hex()}.tables").symlink_to(outside)
    with pytest.warns(BpeWarning, match="is not used \\(it is a symbolic link\\)"):
        tables = model_cache.ranks_tables(folder, DIGEST, RANKS)
    assert tables == proved()
    assert outside.read_text(encoding="utf-8") == "root:x:0:0:root:/root:/bin/bash\n"
    assert os.path.islink(folder / f"{DIGEST.hex()}.tables")


def test_a_link_in_place_of_a_rank_structure_file_is_never_written_through(tmp_path, monkeypatch):
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    folder = tmp_path / "rank-structures"
    folder.mkdir()
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"precious")
    (folder / f"{hashlib.sha256(DATA).hexdigest()}.bin").symlink_to(outside)
    with pytest.warns(BpeWarning, match="symbolic link"):
        assert catalogue.cached_structure(RANKS, DATA) == rank_structure(RANKS)
    assert outside.read_bytes() == b"precious"


@pytest.mark.parametrize("as_link", [True, False], ids=["link", "file"])
def test_a_file_bigger_than_its_format_needs_is_never_read(folder, tmp_path, as_link):
    huge = tmp_path / "huge" if as_link else folder / f"{DIGEST.hex()}.tables"
    with open(huge, "wb") as handle:  # sparse: 64 MB that take no room
        handle.truncate(64 << 20)
    if as_link:
        (folder / f"{DIGEST.hex()}.tables").symlink_to(huge)
    tracemalloc.start()
    try:
        with pytest.warns(BpeWarning, match="symbolic link" if as_link else "more than the .* its format can need"):
            tables = model_cache.ranks_tables(folder, DIGEST, RANKS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tables == proved() and peak < 8 << 20  # never read into memory
    if not as_link:  # a regular file of ours: replaced by sound tables
        assert (folder / f"{DIGEST.hex()}.tables").stat().st_size < model_cache.tables_size_limit(RANKS)


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_another_users_cache_file_is_never_read(folder):
    """Another user's tables, sound by their own hash but with merges that are not these ranks': a
    cache file someone else wrote could say anything, so it is not read."""
    good = proved()
    left, right, made = (column[::-1] for column in good.merges)  # the same merges in another order
    poisoned = model_cache.ModelTables(
        good.rule, good.token_to_id, (left, right, made), good.late_merges, good.whole_tokens, good.self_encoding,
        good.whole_pieces,
    )  # fmt: skip
    path = folder / f"{DIGEST.hex()}.tables"
    path.write_bytes(model_cache.tables_to_bytes(poisoned, DIGEST))
    os.chown(path, NOBODY, NOBODY)
    with pytest.warns(BpeWarning, match="belongs to another user"):
        assert model_cache.ranks_tables(folder, DIGEST, RANKS) == good


def test_the_next_write_removes_what_a_writer_killed_during_a_cold_load_left(folder):
    script = (
        "import os, sys; from bpe_core import safe_io; "
        "safe_io.write_temporary(sys.argv[1], b'x' * 3_000_000); os.kill(os.getpid(), 9)"
    )
    for _ in range(4):
        killed = subprocess.run([sys.executable, "-c", script, str(folder)], cwd=ROOT, check=False)
        assert killed.returncode == -signal.SIGKILL
    assert len(list(folder.iterdir())) == 4
    model_cache.ranks_tables(folder, DIGEST, RANKS)  # cold: proves the tables and writes them
    assert [path.name for path in folder.iterdir()] == [f"{DIGEST.hex()}.tables"]


def test_the_tables_limit_holds_the_largest_tables_of_a_real_model():
    if not catalogue.is_installed("llama3"):
        pytest.skip("llama3's package is not installed")
    from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks

    ranks = parse_tiktoken_ranks(catalogue.builtin_file("llama3").decode("ascii"))
    tables = model_cache.ranks_tables(None, DIGEST, ranks)  # late merges and whole-word tokens too
    assert len(model_cache.tables_to_bytes(tables, DIGEST)) <= model_cache.tables_size_limit(ranks)


# ------------------------------------------------------------------------------------------------
# a cache that cannot be used


@contextlib.contextmanager
def reachable_folder():
    """A folder for a program that runs without root's powers (pytest's folders are its user's only)."""
    made = Path(tempfile.mkdtemp(prefix="bpe-cache-test-"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def without_root_powers() -> list[str]:
    """The command prefix that runs a program without root's power to pass permission bits (as root,
    a folder of mode 000 and another user's read-only folder are open), so that it meets them as any
    user does; nothing when not root."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running without root's powers needs setpriv (util-linux)")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def run(args: list[str], env: dict[str, str], *, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*without_root_powers(), sys.executable, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def case_environment(case: str, base: Path) -> dict[str, str]:
    """The environment that makes the cache unusable in ``case``."""
    if case == "5000-character path":
        return {catalogue.CACHE_ENV_VAR: str(base / "/".join(["d" * 199] * 25))}
    if case == "300-character name":
        return {catalogue.CACHE_ENV_VAR: str(base / ("n" * 300))}
    if case == "folder of mode 000":
        (base / "locked").mkdir(mode=0o000)
        return {catalogue.CACHE_ENV_VAR: str(base / "locked")}
    if os.geteuid() != 0:
        pytest.skip("another user's home needs root to make")
    home = base / "someone"  # another user's cache, readable but not writable by the one running
    cached = home / ".cache" / "bpe-workbench" / "rank-structures"
    cached.mkdir(parents=True)
    for path in (home, *home.rglob("*")):
        path.chmod(0o755)
        os.chown(path, NOBODY, NOBODY)
    return {"XDG_CACHE_HOME": str(home / ".cache"), catalogue.CACHE_ENV_VAR: ""}


CASES = ["5000-character path", "300-character name", "folder of mode 000", "another user's home"]


@pytest.mark.parametrize("case", CASES)
def test_a_cache_that_cannot_be_used_leaves_inspect_working_with_one_warning(case):
    if not catalogue.is_installed("cl100k"):
        pytest.skip("cl100k's package is not installed")
    with reachable_folder() as base:
        done = run(["-m", "bpe_core", "inspect", "-t", "cl100k"], case_environment(case, base), cwd=base)
    assert done.returncode == 0, done.stderr
    assert "merges=100000" in done.stdout and "[␣] + [c] -> 272" in done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: bpe_core's model cache at "), done.stderr
    assert "cannot be used" in lines[0] and "BPE_CORE_CACHE_DIR" in lines[0]


@pytest.mark.parametrize("case", ["5000-character path", "folder of mode 000"])
def test_load_and_export_work_without_a_usable_cache(case):
    if not catalogue.is_installed("cl100k"):
        pytest.skip("cl100k's package is not installed")
    script = (
        "import warnings, bpe_core\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    t = bpe_core.load('cl100k')\n"
        "    print(t.encode('hello world'), len(t.merges), len(t.whole_word_tokens))\n"
        "    from bpe_core.cli.main import main\n"
        "    print(main(['export', '-t', 'cl100k', '--format', 'huggingface', '-o', 'out/tokenizer.json']))\n"
        "print(sorted({type(w.message).__name__ for w in caught}), len(caught))\n"
    )
    with reachable_folder() as base:
        env = case_environment(case, base)
        (base / "out").mkdir()
        done = run(["-c", script], env, cwd=base)
        exported = (base / "out" / "tokenizer.json").stat().st_size if (base / "out" / "tokenizer.json").exists() else 0
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    loaded, code, caught = lines[0], lines[-2], lines[-1]
    assert loaded.startswith("[15339, 1917] 100000") and code == "0" and exported > 1_000_000
    assert caught == "['BpeWarning'] 1"  # one warning in all, though the cache was wanted twice
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing here warns in this process
        assert disk_cache._off == {}
