#!/usr/bin/env python
"""The workbench's first view on a fresh server, in Chromium: Home complete, against a bare Streamlit
page's first load in the same run; then Tokenize's first complete view (every panel of the tokenizers
it opens with drawn), reached from Home as a visitor would, and opened directly as the server's first
page.

    .venv/bin/python bench/first_view_bench.py [--rounds 3] [--cold-disk]

Each measurement starts a fresh ``streamlit run`` (a new server process) and a new browser context (no
cached assets). Home and the bare page are timed in the browser until the page stops changing: a
``MutationObserver`` installed before the page loads notes when its title first shows and when the main
area last changed (an element added, removed or its text changed), and the figure is that last change
(milliseconds since navigation started) once the script run is over and nothing has changed for
``QUIET_MS``; "title to complete" is how long the page took to fill in after its title showed (Home
drawn in one step: close to 0). Tokenize is timed in Python from the click on Tokenize in the menu (or
``goto``) until a panel per default tokenizer is drawn and its script run is over. Rounds alternate the
bare page and the workbench, so a busy phase of the machine hits both; medians over rounds. By default
bpe_core's disk cache (the built models) is the user's, as after any earlier run (a restart);
``--cold-disk`` gives each server an empty one (the very first run on a machine). Measures no concurrency
(``sessions_bench``) nor loading alone (``load_bench``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, ROOT, commit, machine, serving, settled


def opening_count() -> int:
    """How many panels Tokenize opens with here: its default tokenizers (``OPENING`` in
    pages/_ui/builtins.py, read from the source: bench imports no app module) that are installed."""
    from bpe_core.pretrained import catalogue

    tree = ast.parse((ROOT / "pages" / "_ui" / "builtins.py").read_text(encoding="utf-8"))
    (opening,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "OPENING" for target in node.targets)
    ]
    return sum(catalogue.is_installed(name) for name in opening)


#: Milliseconds without a change in the main area after which a page counts as complete.
QUIET_MS = 1_500
#: Installed before any page script: when the title (the first h1) first showed, and when the main area
#: last changed, in ``performance.now()`` milliseconds (since navigation started).
WATCH_CHANGES = """
window.__changes = {title: null, last: 0};
new MutationObserver(records => {
  const now = performance.now();
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return;
  if (window.__changes.title === null && main.querySelector('h1')) window.__changes.title = now;
  if (records.some(r => main.contains(r.target) && (r.type === 'characterData' || r.addedNodes.length
      || r.removedNodes.length))) window.__changes.last = now;
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def until_it_stops_changing(page) -> tuple[float, float]:
    """(seconds from navigation to the main area's last change, seconds from the title to that change),
    once the script run is over and the main area has not changed for QUIET_MS."""
    settled(page)
    page.wait_for_function(
        f"() => performance.now() - window.__changes.last > {QUIET_MS}", timeout=PATIENCE_MS, polling=200
    )
    changes = page.evaluate("() => window.__changes")
    return changes["last"] / 1000, (changes["last"] - (changes["title"] or changes["last"])) / 1000


def bare_first_load(browser) -> tuple[float, float]:
    with serving("bench/bare_app.py") as url:
        context = browser.new_context()
        context.add_init_script(WATCH_CHANGES)
        page = context.new_page()
        page.goto(url)
        page.get_by_role("heading", name="Bare page").wait_for(timeout=PATIENCE_MS)
        times = until_it_stops_changing(page)
        context.close()
    return times


def panels_drawn(page, count: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('.bpe-tokens[data-k]').length >= {count}", timeout=PATIENCE_MS)
    settled(page)


def workbench_first_views(browser, env: dict[str, str], panels: int) -> tuple[float, float, float]:
    """(Home complete, Home's title to complete, then Tokenize complete from Home's menu), on one fresh server."""
    with serving(env=env) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1600})
        context.add_init_script(WATCH_CHANGES)
        page = context.new_page()
        page.goto(url)
        page.get_by_role("table").first.wait_for(timeout=PATIENCE_MS)
        home, spread = until_it_stops_changing(page)
        started = time.perf_counter()
        page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Tokenize", exact=True).click()
        panels_drawn(page, panels)
        tokenize = time.perf_counter() - started
        context.close()
    return home, spread, tokenize


def tokenize_as_first_page(browser, env: dict[str, str], panels: int) -> float:
    with serving(env=env) as url:
        page = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
        started = time.perf_counter()
        page.goto(f"{url}/tokenize_text")
        panels_drawn(page, panels)
        seconds = time.perf_counter() - started
        page.context.close()
    return seconds


@contextlib.contextmanager
def cache_env(cold: bool) -> Iterator[dict[str, str]]:
    """The server's environment: ``cold``, an empty bpe_core cache folder (removed after); else none."""
    if not cold:
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="bpe-cold-") as folder:
        yield {"BPE_CORE_CACHE_DIR": folder}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold-disk", action="store_true", help="an empty bpe_core cache for every server")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    panels = opening_count()
    started_at, load_before = time.strftime("%Y-%m-%d %H:%M"), machine()
    rows: dict[str, list[float]] = {
        "bare": [],
        "home": [],
        "home_spread": [],
        "tokenize_from_home": [],
        "tokenize_first": [],
    }
    ratios = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for round_number in range(args.rounds):
            bare, _ = bare_first_load(browser)
            with cache_env(args.cold_disk) as env:
                home, spread, tokenize = workbench_first_views(browser, env, panels)
            with cache_env(args.cold_disk) as env:
                first = tokenize_as_first_page(browser, env, panels)
            for key, value in zip(rows, (bare, home, spread, tokenize, first), strict=True):
                rows[key].append(value)
            ratios.append(home / bare)
            print(
                f"round {round_number + 1}: bare {bare:.2f} s, Home {home:.2f} s ({home / bare:.2f}x; title to "
                f"complete {spread:.2f} s), Tokenize from Home {tokenize:.2f} s, Tokenize as the first page "
                f"{first:.2f} s",
                file=sys.stderr,
            )
        browser.close()
    median = {key: statistics.median(values) for key, values in rows.items()}
    print(
        f"\n{started_at}, commit {commit()}, {machine()} (at the start: {load_before}); {args.rounds} rounds, "
        f"{panels} Tokenize panels, disk cache {'empty' if args.cold_disk else 'warm'}\n"
    )
    print("| view (fresh server, first load) | median | rounds |\n|---|---|---|")
    labels = {
        "bare": "bare Streamlit page (until it stops changing)",
        "home": "Home (until it stops changing)",
        "home_spread": "Home: its title to complete",
        "tokenize_from_home": "Tokenize from Home's menu",
        "tokenize_first": "Tokenize as the server's first page",
    }
    for key, label in labels.items():
        print(f"| {label} | {median[key]:.2f} s | {', '.join(f'{v:.2f}' for v in rows[key])} |")
    print(f"\nHome / bare page: {statistics.median(ratios):.2f}x (median of the rounds' ratios)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
