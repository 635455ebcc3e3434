#!/usr/bin/env python
"""The Tokenize page in a real browser: click to finished view, and whether the
page stays responsive.

    .venv/bin/python bench/browser_bench.py               # 20k x 5 tokenizers, then 2 M characters
    .venv/bin/python bench/browser_bench.py --runs 3 --big-chars 0   # skip the 2 M case

Starts ``streamlit run app.py`` headless on a free port (a temporary workspace, the default engine
``auto``) and drives Debian's Chromium (``/usr/bin/chromium``) with Playwright for Python; never
downloads a browser. The text is mixed: ``corpora.multilingual_text`` (21 languages, CJK, emoji) with
Python source from the standard library, one third code. Five tokenizers: the default trained one,
GPT-2, cl100k, o200k and one more installed built-in (Llama 3 or Qwen), named in the page's URL.

What is timed, from the click (or Ctrl+Enter in the text box) to the finished view: the script run
over (Streamlit's status widget gone) and the panels showing the new state, then two animation
frames (painted). Measured in Python around Playwright calls, so each figure includes tens of ms of
polling. A ``requestAnimationFrame`` heartbeat in the page records the longest gap between frames
during each interaction: the time the page was frozen (no paint, no input). The DOM size is the
number of elements inside the token panels and in the whole document. A ``PerformanceObserver`` sums
the browser's long tasks (over 50 ms) during each interaction: the page's own work, less dependent on
the machine's load than the wall time. Medians over ``--runs``.

20k characters are pasted into the text box; 2 M characters are uploaded as a file (the text box
would be the same text, but typing 2 M characters through the browser is the slow part then).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
HEARTBEAT = """() => { window.__gap = 0; window.__long = 0; let last = performance.now();
  const beat = now => { window.__gap = Math.max(window.__gap, now - last); last = now; requestAnimationFrame(beat); };
  requestAnimationFrame(beat);
  new PerformanceObserver(list => { for (const task of list.getEntries()) window.__long += task.duration; })
    .observe({type: 'longtask'}); }"""
PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
DOM_SIZE = """() => ({panels: document.querySelectorAll('.bpe-tokens *').length,
  document: document.querySelectorAll('*').length})"""


def mixed_text(chars: int, seed: int = 0) -> str:
    """About ``chars`` characters: two thirds multilingual prose, one third Python source, in blocks."""
    from bench import corpora

    prose = corpora.multilingual_text(chars * 2 // 3 + 1, seed=seed)
    code_parts, size = [], 0
    for path in corpora.stdlib_sources()[seed * 7 :]:
        try:
            code_parts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
        size += len(code_parts[-1])
        if size >= chars // 3:
            break
    code = "".join(code_parts)[: chars - len(prose[: chars * 2 // 3])]
    block = 4_000  # alternate prose and code every few thousand characters
    prose = prose[: chars * 2 // 3]
    out = []
    for index in range(0, max(len(prose), len(code) * 2), block):
        out.append(prose[index : index + block])
        out.append(code[index // 2 : index // 2 + block // 2])
    return "".join(out)[:chars]


def tokenizer_keys() -> list[str]:
    """The default trained tokenizer, GPT-2, cl100k, o200k and one more installed built-in."""
    from bpe_core.pretrained import catalogue

    keys = ["default", "gpt2"] + [k for k in ("cl100k", "o200k") if catalogue.is_installed(k)]
    extra = [k for k in ("llama3", "qwen", "mistral", "deepseek") if catalogue.is_installed(k)]
    return keys + extra[:1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(workspace: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "BPE_WORKBENCH_DIR": str(workspace), "PYTHONPATH": str(ROOT)}
    env.pop("BPE_CORE_ENGINE", None)  # the app's default: tiktoken's engine where proved exact
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
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
    with open(workspace / "streamlit.log", "w") as log:  # the server writes to its own copy of the file
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return process, url
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise TimeoutError("streamlit did not start within 90 s")


def settle(page, timeout: float = 300_000) -> None:
    """Until the script run is over (the status widget gone) and the view painted."""
    page.wait_for_timeout(50)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=timeout)
    page.evaluate(PAINTED)


def timed(page, action, signature: str, minimum_panels: int, also: str = "() => true") -> dict:
    """Seconds from ``action()`` to the finished view (the page's ``signature`` changed, at least
    ``minimum_panels`` token panels, the run over, painted), the longest gap between animation
    frames meanwhile, and the browser's long tasks (over 50 ms) summed: its own share of the time,
    which depends less on the machine's load than the wall time does. ``also``: a further condition
    of the finished view (a script returning true)."""
    before = page.evaluate(signature)
    page.evaluate("() => { window.__gap = 0; window.__long = 0; }")
    ready = (
        f"([before, n]) => document.querySelectorAll('.bpe-tokens').length >= n && ({signature})() !== before"
        f" && ({also})()"
    )
    started = time.perf_counter()
    action()
    page.wait_for_function(ready, arg=[before, minimum_panels], timeout=300_000, polling=50)
    settle(page)
    seconds = time.perf_counter() - started
    gap, long_tasks = page.evaluate("() => [window.__gap, window.__long]")
    return {"seconds": seconds, "max_frame_gap_ms": gap, "long_tasks_ms": long_tasks}


def toggle(page, label: str):
    return lambda: page.get_by_text(label, exact=True).click()


#: What changes on the page with each interaction (compared before and after).
FIRST_TOKENS = "() => [...document.querySelectorAll('.bpe-tokens')].map(p => p.textContent.slice(0, 200)).join('|')"
MARKS = """() => { const e = document.querySelector('.bpe-tokens .wb');
  return [...document.querySelectorAll('.bpe-tokens')].length + ':' + (e ? getComputedStyle(e).color : ''); }"""
HEX = """() => { const e = document.querySelector('.bpe-tokens .ph');
  return [...document.querySelectorAll('.bpe-tokens')].length + ':' + (e ? getComputedStyle(e).display : ''); }"""


def flips(page, runs: int, label: str, signature: str, panels: int) -> list[dict]:
    """``runs`` clicks on the toggle ``label``; ``signature`` tells the view changed."""
    return [timed(page, toggle(page, label), signature, panels) for _ in range(runs)]


def next_pages(page, runs: int, panels: int) -> list[dict]:
    """``runs`` clicks on "Next ▶" (the page turns: a new window of every panel)."""
    button = page.get_by_role("button", name="Next ▶")
    return [timed(page, button.click, FIRST_TOKENS, panels) for _ in range(runs)]


def open_tokenize(page, url: str, keys: list[str]) -> None:
    """Tokenize with ``keys`` named in the URL (whitespace marked, bytes off), its run over, the frame
    heartbeat installed."""
    query = urllib.parse.urlencode({"tok": keys, "ws": "1", "bytes": "0"}, doseq=True)
    page.goto(f"{url}/tokenize_text?{query}")
    page.get_by_role("heading", name="Tokenize", exact=True).wait_for()
    settle(page)
    page.evaluate(HEARTBEAT)


def run_20k(page, url: str, keys: list[str], chars: int, runs: int) -> dict:
    open_tokenize(page, url, keys)
    firsts = []
    for seed in range(runs):
        box = page.get_by_label("Text", exact=True)
        box.fill(mixed_text(chars, seed=seed))
        firsts.append(timed(page, lambda box=box: box.press("Control+Enter"), FIRST_TOKENS, len(keys)))
    dom = page.evaluate(DOM_SIZE)
    whitespace = flips(page, runs, "Mark whitespace", MARKS, len(keys))
    show_bytes = flips(page, runs, "Show bytes", HEX, len(keys))
    turns = next_pages(page, runs, len(keys))
    return {"first": firsts, "whitespace": whitespace, "bytes": show_bytes, "next": turns, "dom": dom}


def run_big(page, url: str, keys: list[str], chars: int, runs: int, folder: Path) -> dict:
    path = folder / "big.txt"
    path.write_text(mixed_text(chars, seed=7), encoding="utf-8")
    open_tokenize(page, url, keys)
    upload = page.locator('[data-testid="stFileUploader"] input[type="file"]').first
    # The panels change more than once while the file arrives: finished is when the page says it
    # shows the whole file ("... of 2,000,000").
    whole = f"() => document.body.innerText.includes('of {chars:,}')"
    first = timed(page, lambda: upload.set_input_files(str(path)), FIRST_TOKENS, len(keys), also=whole)
    dom = page.evaluate(DOM_SIZE)
    whitespace = flips(page, runs, "Mark whitespace", MARKS, len(keys))
    turns = next_pages(page, runs, len(keys))
    return {"first": [first], "whitespace": whitespace, "next": turns, "dom": dom}


def median(results: list[dict], field: str) -> float:
    return statistics.median(r[field] for r in results)


def each(runs: list[dict]) -> str:
    return ", ".join(f"{r['seconds']:.2f}" for r in runs)


def report(name: str, measured: dict) -> list[str]:
    lines = []
    for what, label in (
        ("first", "first render"),
        ("whitespace", "flip Mark whitespace"),
        ("bytes", "flip Show bytes"),
        ("next", "next page"),
    ):
        if what in measured:
            runs = measured[what]
            lines.append(
                f"| {name} | {label} | {median(runs, 'seconds'):.2f} s | {median(runs, 'max_frame_gap_ms'):,.0f} ms "
                f"| {median(runs, 'long_tasks_ms'):,.0f} ms | {len(runs)} | {each(runs)} |"
            )
    dom = measured["dom"]
    lines.append(
        f"| {name} | DOM elements in the panels (whole page) | {dom['panels']:,} ({dom['document']:,}) | | | | |"
    )
    return lines


def run(chars: int, big_chars: int, runs: int, log=print) -> list[str]:
    from playwright.sync_api import sync_playwright

    keys = tokenizer_keys()
    log(f"tokenizers: {', '.join(keys)}")
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(300_000)
                lines = [
                    "| text | interaction | median, click to finished view | longest frame gap (median) "
                    "| browser long tasks (median sum) | runs | each run (s) |",
                    "| --- | --- | --- | --- | --- | --- | --- |",
                ]
                lines += report(f"{chars:,} chars x {len(keys)}", run_20k(page, url, keys, chars, runs))
                log("\n".join(lines))
                if big_chars:
                    big = run_big(page, url, keys, big_chars, runs, Path(folder))
                    lines += report(f"{big_chars:,} chars x {len(keys)} (file)", big)
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--big-chars", type=int, default=2_000_000, help="0 skips the large case")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} is missing: apt-get install chromium")
        return 1
    print("\n".join(run(args.chars, args.big_chars, args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
