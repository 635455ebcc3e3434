"""A Streamlit server and a headless Chromium for the browser benchmarks (``first_view_bench``,
``sessions_bench``): ``serving`` starts ``streamlit run`` on a free port (a fresh server each time, a
temporary library folder, removed after) and stops it after; ``chromium`` launches Debian's Chromium through
Playwright (never downloading one); ``settled`` waits until a page's script run is over. Measures
nothing itself."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
]
#: Milliseconds any wait on a page may take (the benchmarks run on a busy, shared machine).
PATIENCE_MS = 600_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(script: str | Path = "app.py", env: dict[str, str] | None = None) -> Iterator[str]:
    """The URL of ``streamlit run script`` (relative to the project), started now and stopped after."""
    port = _free_port()
    workspace = tempfile.mkdtemp(prefix="bpe-bench-")
    environment = {**os.environ, "BPE_WORKBENCH_DIR": workspace, "PYTHONPATH": str(ROOT), **(env or {})}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    with open(Path(workspace) / "streamlit.log", "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    raise RuntimeError(f"streamlit exited early (see {log.name})")
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                        if answer.read().strip() == b"ok":
                            break
                except OSError:
                    time.sleep(0.2)
            else:  # never healthy: a figure measured against no server would be meaningless
                raise RuntimeError(f"streamlit did not answer /_stcore/health within 120 s (see {log.name})")
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
    shutil.rmtree(workspace, ignore_errors=True)  # kept (with its log) when the server failed


#: Streamlit's app root while no script runs (the attribute its front end keeps for tests, 1.67).
SCRIPT_OVER = '[data-testid="stApp"][data-test-script-state="notRunning"]'
STATUS = '[data-testid="stStatusWidget"]'


def settled(page, *, timeout: float = PATIENCE_MS) -> None:
    """Wait until the page's script run is over: the app root says no script runs and the status widget
    is gone. Call it once the page shows what its run draws (so the run has begun): it adds no fixed
    wait (an earlier version gave the status widget a second to appear, a second in every figure)."""
    page.locator(SCRIPT_OVER).wait_for(state="attached", timeout=timeout)
    page.locator(STATUS).wait_for(state="detached", timeout=timeout)


def machine() -> str:
    """CPU count, load average and Python, for a report's first line."""
    import platform

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return f"{os.cpu_count()} CPUs, load average {load}, Python {platform.python_version()}"


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"
