"""Hostile files made privately inside a test's own folder, never the system's: a FIFO, a character
device node with /dev/null's numbers (root only), and a tiny tmpfs that a large write overflows (root only).

Tests that need a node or a full disk skip, saying why, when they cannot make one."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def fifo(folder: Path, name: str = "fifo") -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    path = folder / name
    os.mkfifo(path)
    return path


def char_device(folder: Path, name: str = "node") -> Path:
    """A private character device node (major/minor of /dev/null) in ``folder``: root only."""
    if not hasattr(os, "mknod") or os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    path = folder / name
    null = os.stat("/dev/null").st_rdev  # reading the numbers only: /dev/null itself is never opened
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, null)
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def is_char_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "64k") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder`` (root only; skipped otherwise), unmounted after."""
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def without_hanging(call: Callable[[], Any], *, unblock: Path | None = None, seconds: float = 60.0) -> Any:
    """``call()`` in a thread, failing the test if it has not returned after ``seconds`` (a FIFO
    opened for reading blocks until a writer comes: ``unblock`` is then opened for writing, so the
    thread ends and the suite goes on)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if unblock is not None:
            with open(os.open(unblock, os.O_WRONLY | os.O_NONBLOCK), "wb"):
                pass
        pytest.fail(f"still blocked after {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
