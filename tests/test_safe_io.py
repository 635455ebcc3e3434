"""safe_io's two rules: reading takes regular files only, within a size limit, and never blocks;
writing is atomic, all or nothing over several files, replaces only regular files, never writes
through a symbolic link, and leaves nothing behind after any failure, a full disk included; the next
write removes what a killed writer left.

Device nodes, FIFOs and full disks are made privately in the test's folder (tests/support/private_files)."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from private_files import char_device, fifo, is_char_device, small_disk, without_hanging

from bpe_core import safe_io
from bpe_core.errors import BpeError


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------------------------------------
# reading


def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = fifo(tmp_path)
    with pytest.raises(BpeError, match=r"named pipe \(FIFO\), not a regular file \(expected a tokenizer file\)"):
        without_hanging(lambda: safe_io.read_limited(path, limit=100, what="a tokenizer file"), unblock=path)
    with pytest.raises(BpeError, match="FIFO"):
        without_hanging(lambda: safe_io.open_regular(path), unblock=path)


def test_a_device_node_is_refused(tmp_path):
    node = char_device(tmp_path)
    with pytest.raises(BpeError, match="it is a character device, not a regular file"):
        safe_io.read_limited(node, limit=100)


def test_folders_and_dangling_links_are_refused_saying_what_they_are(tmp_path):
    with pytest.raises(BpeError, match="it is a folder"):
        safe_io.read_limited(tmp_path, limit=100)
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    with pytest.raises(BpeError, match="No such file"):
        safe_io.read_limited(tmp_path / "dangling", limit=100)


def test_the_size_limit_is_named_and_nothing_more_is_read(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 101)
    with pytest.raises(BpeError, match=r"too big \(101 bytes\).*at most 100 bytes"):
        safe_io.read_limited(path, limit=100)
    assert safe_io.read_limited(path, limit=101) == b"x" * 101
    with pytest.raises(BpeError, match="standard input is too big"):
        safe_io.read_stream_limited(io.BytesIO(b"y" * 11), limit=10, source="standard input", what="a text")
    assert safe_io.read_stream_limited(io.BytesIO(b"y" * 10), limit=10, source="-", what="a text") == b"y" * 10


@given(st.binary(max_size=2000))
def test_what_is_written_is_read_back(data):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "f")
        safe_io.write_atomic(path, data)
        assert safe_io.read_limited(path, limit=len(data)) == data
        assert _listing(Path(folder)) == ["f"]


def test_invalid_utf8_is_an_error_naming_the_offset():
    with pytest.raises(BpeError, match=r"stdin is not valid UTF-8 \(byte offset 2"):
        safe_io.decode_utf8(b"ab\xffcd", source="stdin")


# ------------------------------------------------------------------------------------------------
# the targets rule


def test_a_device_node_is_never_replaced(tmp_path):
    node = char_device(tmp_path)
    with pytest.raises(BpeError, match="character device, not a regular file, and bpe_core only writes regular"):
        safe_io.write_atomic(node, "data")
    assert is_char_device(node) and _listing(tmp_path) == ["node"]


def test_fifos_and_folders_are_never_replaced(tmp_path):
    path = fifo(tmp_path)
    (tmp_path / "folder").mkdir()
    for target in (path, tmp_path / "folder"):
        with pytest.raises(BpeError, match="not a regular file"):
            safe_io.write_atomic(target, "data")
    assert stat.S_ISFIFO(os.lstat(path).st_mode) and (tmp_path / "folder").is_dir()
    assert _listing(tmp_path) == ["fifo", "folder"]


@pytest.mark.parametrize("overwrite", [True, False])
def test_a_symbolic_link_is_never_written_through(tmp_path, overwrite):
    (tmp_path / "real.json").write_text("old", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    with pytest.raises((BpeError, FileExistsError)) as refused:
        safe_io.write_atomic(tmp_path / "link.json", "new", overwrite=overwrite)
    if overwrite:
        assert "symbolic link" in str(refused.value) and "never writes through a link" in str(refused.value)
    assert os.readlink(tmp_path / "link.json") == "real.json"
    assert (tmp_path / "real.json").read_text(encoding="utf-8") == "old"
    assert _listing(tmp_path) == ["link.json", "real.json"]


def test_links_to_nothing_or_to_a_device_are_refused(tmp_path):
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    with pytest.raises(BpeError, match="symbolic link .*nothing.*never writes through a link"):
        safe_io.write_atomic(tmp_path / "dangling", "data")
    assert not (tmp_path / "nothing").exists()
    node = char_device(tmp_path)
    (tmp_path / "to-node").symlink_to(node)
    with pytest.raises(BpeError, match="symbolic link"):
        safe_io.write_atomic(tmp_path / "to-node", "data")
    assert is_char_device(node)


def test_a_link_put_in_place_after_the_check_is_replaced_not_followed(tmp_path, monkeypatch):
    """Between the check and the move a link may appear: the move replaces the name, never its target."""
    (tmp_path / "outside").write_text("precious", encoding="utf-8")
    real_publish = safe_io.publish

    def link_first(temporary, path, *, overwrite):
        os.symlink(tmp_path / "outside", path)
        real_publish(temporary, path, overwrite=overwrite)

    monkeypatch.setattr(safe_io, "publish", link_first)
    safe_io.write_atomic(tmp_path / "out.json", "mine")
    assert not os.path.islink(tmp_path / "out.json") and (tmp_path / "out.json").read_text(encoding="utf-8") == "mine"
    assert (tmp_path / "outside").read_text(encoding="utf-8") == "precious"


def test_create_new_never_opens_what_is_there(tmp_path):
    (tmp_path / "outside").write_text("precious", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "outside")
    for path in (tmp_path / "link", tmp_path / "outside"):
        with pytest.raises(FileExistsError):
            safe_io.create_new(path)
    with safe_io.create_new(tmp_path / "new") as handle:
        handle.write(b"data")
    assert (tmp_path / "new").read_bytes() == b"data" and (tmp_path / "outside").read_text() == "precious"


def test_the_next_write_removes_what_a_killed_writer_left(tmp_path):
    """A writer killed mid-write (here: a process that made its temporary file, then died by SIGKILL)
    leaves its temporary file; the next write into that folder removes it at once, whatever its age.
    A live writer's file stays."""
    import signal
    import subprocess
    import sys

    script = (
        "import os, sys; from bpe_core import safe_io; "
        "safe_io.write_temporary(sys.argv[1], b'x' * 1000); os.kill(os.getpid(), 9)"
    )
    for _ in range(3):
        killed = subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False)
        assert killed.returncode == -signal.SIGKILL
    assert len([name for name in _listing(tmp_path) if safe_io.is_temporary(name)]) == 3
    live = safe_io.write_temporary(tmp_path, b"a write in progress in this process")
    safe_io.write_atomic(tmp_path / "out.json", "next")
    assert _listing(tmp_path) == sorted(["out.json", os.path.basename(live)])
    safe_io.remove_quietly(live)


def test_overwrite_false_never_replaces(tmp_path):
    (tmp_path / "a").write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError):
        safe_io.write_atomic(tmp_path / "a", "theirs", overwrite=False)
    assert (tmp_path / "a").read_text(encoding="utf-8") == "mine" and _listing(tmp_path) == ["a"]


# ------------------------------------------------------------------------------------------------
# all or nothing


def test_several_files_are_written_all_or_nothing(tmp_path, monkeypatch):
    (tmp_path / "vocab.json").write_text("old vocab", encoding="utf-8")
    real_publish = safe_io.publish
    calls = []

    def second_fails(temporary, path, *, overwrite):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(path))
        real_publish(temporary, path, overwrite=overwrite)

    monkeypatch.setattr(safe_io, "publish", second_fails)
    files = {str(tmp_path / "vocab.json"): "new vocab", str(tmp_path / "merges.txt"): "new merges"}
    with pytest.raises(BpeError, match="cannot write .*merges.txt: No space left on device"):
        safe_io.write_files_atomic(files)
    assert (tmp_path / "vocab.json").read_text(encoding="utf-8") == "old vocab"  # put back
    assert _listing(tmp_path) == ["vocab.json"]  # no merges.txt, no temporary, no backup
    monkeypatch.setattr(safe_io, "publish", real_publish)
    safe_io.write_files_atomic(files)
    assert (tmp_path / "merges.txt").read_text(encoding="utf-8") == "new merges"


def test_a_full_disk_leaves_the_old_file_and_nothing_else(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        (disk / "t.json").write_text("old", encoding="utf-8")
        with pytest.raises(BpeError, match=r"cannot write .*t\.json: No space left on device"):
            safe_io.write_atomic(disk / "t.json", "x" * 200_000)
        with pytest.raises(BpeError, match="No space left on device"):
            safe_io.write_files_atomic({str(disk / "t.json"): "new", str(disk / "b"): "y" * 100_000})
        assert (disk / "t.json").read_text(encoding="utf-8") == "old"
        assert _listing(disk) == ["t.json"]
