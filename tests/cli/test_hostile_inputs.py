"""The command line on hostile inputs and outputs: a FIFO, a device node, a folder, invalid UTF-8 on
standard input, a tokenizer whose library fails, terminal escapes in a file, bad counts and lone
surrogates: each is exit status 2 with one ``error:`` line (never a traceback, hang or MemoryError),
outputs that are device nodes are never replaced, and a full disk leaves nothing behind. Nodes, FIFOs
and the full disk are private (tests/support/private_files)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from private_files import char_device, fifo, is_char_device, small_disk

import bpe_core
from bpe_core.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture()
def tok_path(tmp_path):
    path = tmp_path / "tok.json"
    bpe_core.train("low lower newest widest " * 30, 280, min_frequency=1).save(path)
    return path


def _cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    """The real command in a process of its own, bounded in time (a FIFO must not make it wait)."""
    return subprocess.run(
        [sys.executable, "-m", "bpe_core", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120, check=False
    )


@pytest.mark.parametrize(
    "argv",
    [
        lambda p: ["encode", "-t", str(p), "--text", "hi"],
        lambda p: ["encode", str(p)],
        lambda p: ["compare", str(p)],
        lambda p: ["inspect", "-t", str(p)],
    ],
)
def test_fifos_are_refused_at_once(tmp_path, argv):
    path = fifo(tmp_path)
    done = _cli(*argv(path))
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert "named pipe (FIFO), not a regular file" in err


@pytest.mark.parametrize(
    "argv",
    [lambda p: ["encode", "-t", str(p), "--text", "hi"], lambda p: ["encode", str(p)], lambda p: ["compare", str(p)]],
)
def test_device_nodes_are_refused_as_inputs(tmp_path, capsys, argv):
    node = char_device(tmp_path)
    assert main(argv(node)) == 2
    assert "character device, not a regular file" in _one_line_error(capsys)


def test_texts_over_the_limit_are_refused_naming_it(tmp_path, capsys, monkeypatch):
    from bpe_core.cli import common

    monkeypatch.setattr(common, "TEXT_LIMIT", 10)
    (tmp_path / "t.txt").write_text("x" * 11, encoding="utf-8")
    assert main(["encode", str(tmp_path / "t.txt")]) == 2
    assert "at most 10 bytes" in _one_line_error(capsys)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y" * 11)))
    assert main(["encode"]) == 2
    assert "standard input is too big" in _one_line_error(capsys)


def test_invalid_utf8_on_standard_input_is_an_error_as_in_files(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"ab\xffcd")))
    assert main(["encode"]) == 2
    assert "standard input is not valid UTF-8 (byte offset 2" in _one_line_error(capsys)
    (tmp_path / "bad.txt").write_bytes(b"ab\xffcd")
    assert main(["encode", str(tmp_path / "bad.txt")]) == 2
    assert "not valid UTF-8 (byte offset 2" in _one_line_error(capsys)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("héllo".encode())))
    assert main(["encode"]) == 0
    assert capsys.readouterr().out.split() == [str(i) for i in bpe_core.load("gpt2").encode("héllo")]


def _wordlevel_without_unk(folder: Path) -> Path:
    pytest.importorskip("tokenizers")
    (folder / "wl").mkdir()
    path = folder / "wl" / "tokenizer.json"
    path.write_text(
        json.dumps(
            {
                "version": "1.0",
                "truncation": None,
                "padding": None,
                "added_tokens": [],
                "normalizer": None,
                "pre_tokenizer": {"type": "Whitespace"},
                "post_processor": None,
                "decoder": None,
                "model": {"type": "WordLevel", "vocab": {"hello": 0, "world": 1}, "unk_token": "[UNK]"},
            }
        ),
        encoding="utf-8",
    )
    return path


def test_an_external_tokenizer_that_fails_is_one_error_line(tmp_path, capsys):
    path = _wordlevel_without_unk(tmp_path)
    assert main(["encode", "-t", str(path), "--text", "hello world"]) == 0
    assert capsys.readouterr().out.split() == ["0", "1"]
    for argv in (["encode", "-t", str(path), "--text", "hello zzz"], ["compare", "-t", str(path)]):
        assert main(argv) == 2
        line = _one_line_error(capsys)
        assert str(path) in line and "Missing [UNK] token" in line


def test_inspect_escapes_what_comes_from_the_file(tmp_path, capsys):
    hostile = "\x1b]0;pwned\x07\x1b[2J\nerror: forged"
    path = tmp_path / "hostile.json"
    bpe_core.train("ab ab ab", 260, special_tokens=[hostile], name="n\x1b[31m").save(path)
    assert main(["inspect", str(path), "--vocab"]) == 0
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert not any(line.startswith("error:") for line in out.splitlines())
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\nerror: forged" in out


def test_inspect_refuses_a_negative_merge_count(tok_path, capsys):
    assert main(["inspect", str(tok_path), "--merges", "-1"]) == 2
    assert "--merges -1 is negative" in _one_line_error(capsys)
    assert main(["inspect", str(tok_path), "--merges", "0"]) == 0
    assert "merges (rank" not in capsys.readouterr().out


def test_special_tokens_with_lone_surrogates_name_the_option(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("ab ab ab", encoding="utf-8")
    argv = ["train", str(tmp_path / "c.txt"), "--vocab-size", "300", "-o", str(tmp_path / "t.json")]
    assert main([*argv, "--special-token", "\udced\udca0\udc80"]) == 2  # what Python makes of bytes ED A0 80
    line = _one_line_error(capsys)
    assert line.startswith("error: --special-token: special token") and "lone surrogate" in line
    assert _listing(tmp_path) == ["c.txt"]


@pytest.mark.parametrize(
    "argv",
    [
        lambda tok, out: ["train", str(tok.with_name("c.txt")), "--vocab-size", "300", "-o", str(out)],
        lambda tok, out: ["export", str(tok), "--format", "bpe_core", "-o", str(out)],
        lambda tok, out: ["export", str(tok), "--format", "huggingface", "-o", str(out)],
        lambda tok, out: ["export", str(tok), "--format", "tiktoken", "-o", str(out)],
    ],
)
def test_outputs_that_are_device_nodes_are_never_replaced(tmp_path, tok_path, capsys, argv):
    (tmp_path / "c.txt").write_text("ab ab ab", encoding="utf-8")
    (tmp_path / "out").mkdir()
    node = char_device(tmp_path / "out")
    assert main(argv(tok_path, node)) == 2
    assert "character device, not a regular file" in _one_line_error(capsys)
    assert is_char_device(node) and _listing(tmp_path / "out") == ["node"]


def test_gpt2_export_into_a_folder_holding_a_device_node_writes_nothing(tmp_path, tok_path, capsys):
    (tmp_path / "g").mkdir()
    node = char_device(tmp_path / "g", "merges.txt")
    assert main(["export", str(tok_path), "--format", "gpt2", "-o", str(tmp_path / "g")]) == 2
    assert "merges.txt: it is a character device" in _one_line_error(capsys)
    assert is_char_device(node) and _listing(tmp_path / "g") == ["merges.txt"]


@pytest.mark.parametrize("fmt", ["gpt2", "huggingface", "tiktoken", "bpe_core"])
def test_exports_on_a_full_disk_leave_nothing(tmp_path, capsys, fmt):
    with small_disk(tmp_path / "disk") as disk:
        assert main(["export", "-t", "gpt2", "--format", fmt, "-o", str(disk / "out")]) == 2
        assert "No space left on device" in _one_line_error(capsys)
        assert _listing(disk) == []
