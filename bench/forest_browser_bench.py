#!/usr/bin/env python
"""The Merge forest in a real browser (target: every lookup and tree under 1 s at 50k-200k).

    .venv/bin/python bench/forest_browser_bench.py                  # gpt2, cl100k, o200k
    .venv/bin/python bench/forest_browser_bench.py --names o200k --runs 5

Starts the app headless (``browser_bench.start_server``) and drives Debian's Chromium with Playwright.
For each tokenizer: the first deep link ``/merge_forest?tokenizer=<name>&token=<id>`` (loading the
tokenizer and building the page's index, once per server), then deep links to other tokens (a page
load with the token's tree, what Tokenize's click on a token does), then, in the "Search the
vocabulary" tab, prefix searches typed into the box, and ids typed into the "Token id" box. Each
figure runs from the navigation (or the Enter key) to the finished view: the token's id in the id
box or the search's results shown, the script run over (Streamlit's status widget gone) and the page
painted. ``bench/forest_bench.py`` times the library's share of the same operations without a browser.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.browser_bench import CHROMIUM, PAINTED, start_server

#: Token ids opened per tokenizer (all below 50,000, so every vocabulary has them).
TOKEN_IDS = (1169, 25000, 40000, 9999, 31337, 4321)
PREFIXES = ("hel", " the", "ing", "pro", " con")
IDLE = "() => !document.querySelector('[data-testid=stStatusWidget]')"
#: The search's result line ("**1,234** matching tokens."), or null before a search.
COUNT_LINE = (
    "() => { const m = document.body.innerText.match(/[0-9][0-9,]* matching tokens/); return m ? m[0] : null; }"
)


def _finished(page, condition: str) -> None:
    page.wait_for_function(f"() => ({condition})() && ({IDLE})()", timeout=300_000, polling=50)
    page.wait_for_timeout(100)  # a run that starts late shows its status widget within this
    page.wait_for_function(IDLE, timeout=300_000, polling=50)
    page.evaluate(PAINTED)


def open_token(page, url: str, name: str, token: int) -> float:
    started = time.perf_counter()
    page.goto(f"{url}/merge_forest?tokenizer={name}&token={token}")
    shown = (
        f"() => [...document.querySelectorAll('input')].some(i => i.value === '{token}')"
        " && document.querySelector('.js-plotly-plot')"
    )
    _finished(page, shown)
    return time.perf_counter() - started


def type_token(page, token: int) -> float:
    """The id typed into the page's "Token id" box (on the page already): the token's facts and tree."""
    page.get_by_role("tab", name="Find a token").click()
    box = page.get_by_role("spinbutton", name="Token id")
    box.fill(str(token))
    started = time.perf_counter()
    box.press("Enter")
    shown = (
        "() => [...document.querySelectorAll('[data-testid=stMetricValue]')]"
        f".some(e => e.innerText.trim() === '{token}')"
    )
    _finished(page, shown)
    return time.perf_counter() - started


def search(page, prefix: str) -> float:
    page.get_by_role("tab", name="Search the vocabulary").click()
    box = page.get_by_role("textbox", name="Search the vocabulary")
    box.wait_for()
    box.fill(prefix)
    before = page.evaluate(COUNT_LINE)
    started = time.perf_counter()
    box.press("Enter")
    previous = "null" if before is None else repr(before)
    _finished(page, f"() => {{ const now = ({COUNT_LINE})(); return now && now !== {previous}; }}")
    return time.perf_counter() - started


def run(names: list[str], runs: int, log=print) -> list[str]:
    from playwright.sync_api import sync_playwright

    lines = ["| tokenizer | interaction | median | each run (s) |", "| --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_server(Path(folder))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1400, "height": 1600})
                for name in names:
                    first = open_token(page, url, name, TOKEN_IDS[0])
                    opens = [open_token(page, url, name, token) for token in TOKEN_IDS[1 : runs + 1]]
                    typed = [type_token(page, token + 1) for token in TOKEN_IDS[1 : runs + 1]]
                    searches = [search(page, prefix) for prefix in PREFIXES[:runs]]
                    first_link = "first deep link (loads the tokenizer, builds the index)"
                    lines.append(f"| {name} | {first_link} | {first:.2f} s | {first:.2f} |")
                    for label, times in (
                        ("deep link to a token (a new page load, tree)", opens),
                        ("id typed on the page (facts, tree, built-from)", typed),
                        ("prefix search", searches),
                    ):
                        each = ", ".join(f"{t:.2f}" for t in times)
                        lines.append(f"| {name} | {label} | {statistics.median(times):.2f} s | {each} |")
                    log(*lines[-4:], sep="\n")
                browser.close()
        finally:
            server.terminate()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", default="gpt2,cl100k,o200k", help="tokenizers (comma-separated)")
    parser.add_argument("--runs", type=int, default=5, help="deep links and searches per tokenizer (at most 5)")
    args = parser.parse_args()
    print("\n".join(run([n for n in args.names.split(",") if n], min(max(args.runs, 1), 5))))


if __name__ == "__main__":
    main()
