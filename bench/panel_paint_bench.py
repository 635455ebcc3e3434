#!/usr/bin/env python
"""The token panels' own browser cost, without Streamlit around them: the five panels and five id
lists Tokenize draws for the first page of ``browser_bench``'s mixed text (read from the running app,
with their style sheets) are drawn again into a static page in Chromium and timed by phase: inserting
the markup (``innerHTML``), style, layout, then paint and commit (two animation frames). Each CSS
variant is the page's style plus a few rules, alternated round by round; medians.

    .venv/bin/python bench/panel_paint_bench.py --rounds 11

Where the figures in bench/PERFORMANCE.md ("The Tokenize page in a browser") on opaque pieces and square
boxes come from.
Timed inside the page, so less noisy than ``browser_bench`` on a loaded machine, and blind to
everything Streamlit adds (the round trip, React, its style sheets). Never downloads a browser.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import browser_bench as bb

VARIANTS = {
    "as drawn": "",
    "rounded boxes (before)": "<style>.bpe-tokens .t { border-radius: 3px; } .bpe-tokens .g .p { border-radius: 0; } "
    ".bpe-tokens .g .gc { border-radius: 3px 3px 0 0; }</style>",
    "translucent pieces (before)": "<style>.bpe-tokens .g .p { opacity: 0.85; }</style>",
    "contain: content": "<style>.bpe-tokens, .bpe-ids { contain: content; }</style>",
}
DRAW = """async ([blocks, css]) => {
  const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  document.body.innerHTML = '<div id=css></div>'
    + '<div id=grid style="display:grid;grid-template-columns:repeat(3,430px);gap:16px"></div>';
  document.getElementById('css').innerHTML = css;
  await frames();
  const grid = document.getElementById('grid');
  const started = performance.now();
  for (let i = 0; i < blocks.length; i += 2) {
    const cell = document.createElement('div');
    cell.innerHTML = blocks[i] + '<details open><summary>ids</summary>' + blocks[i + 1] + '</details>';
    grid.appendChild(cell);
  }
  const inserted = performance.now();
  getComputedStyle(grid.lastChild.firstChild).color;
  const styled = performance.now();
  document.body.offsetHeight;
  const laid = performance.now();
  await frames();
  return [inserted - started, styled - inserted, laid - styled, performance.now() - laid];
}"""


#: The drawn panels and their id lists (outerHTML, panel then ids), and the page's style sheets for them.
DRAWN = """() => {
  const blocks = [...document.querySelectorAll('.bpe-tokens[data-k]')].flatMap(panel => {
    const ids = [...document.querySelectorAll('.bpe-ids[data-k]')].find(list => list.dataset.k === panel.dataset.k);
    return [panel.outerHTML, ids ? ids.outerHTML : ''];
  });
  const styles = [...document.querySelectorAll('style')].map(s => s.outerHTML).filter(s => s.includes('.bpe-'));
  return [blocks, styles.join('')];
}"""


def drawn_panels(browser, url: str, chars: int) -> tuple[list[str], str]:
    """The panels and id lists Tokenize draws for the first page of the mixed text, and their style,
    read from the running app (bench/ drives the app; it never imports it)."""
    keys = bb.tokenizer_keys()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(300_000)
    bb.open_tokenize(page, url, keys)  # its heartbeat is harmless here
    box = page.get_by_label("Text", exact=True)
    box.fill(bb.mixed_text(chars, seed=1))
    box.press("Control+Enter")
    page.wait_for_function("n => document.querySelectorAll('.bpe-tokens[data-k]').length >= n", arg=len(keys))
    bb.settle(page)
    blocks, style = page.evaluate(DRAWN)
    page.close()
    return blocks, style


def timed_variants(browser, blocks: list[str], style: str, rounds: int) -> tuple[dict[str, list[list[float]]], int]:
    """Each variant's phases (ms) per round, alternated, and the number of elements drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_content("<html><head><meta charset=utf-8></head><body></body></html>")
    times: dict[str, list[list[float]]] = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name, extra in VARIANTS.items():
            times[name].append(page.evaluate(DRAW, [blocks, style + extra]))
    return times, page.evaluate("() => document.querySelectorAll('#grid *').length")


def run(rounds: int, chars: int) -> list[str]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        process, url = bb.start_server(Path(folder))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=bb.CHROMIUM, args=bb.CHROMIUM_ARGS, headless=True)
                blocks, style = drawn_panels(browser, url, chars)
                times, elements = timed_variants(browser, blocks, style, rounds)
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    lines = [
        f"{elements:,} elements; medians of {rounds} rounds (ms)",
        "| variant | insert | style | layout | paint and commit | total |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, rows in times.items():
        phases = [statistics.median(row[i] for row in rows) for i in range(4)]
        lines.append(f"| {name} | " + " | ".join(f"{ms:.0f}" for ms in phases) + f" | {sum(phases):.0f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--chars", type=int, default=20_000)
    args = parser.parse_args(argv)
    print("\n".join(run(args.rounds, args.chars)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
