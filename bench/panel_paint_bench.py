#!/usr/bin/env python
"""The token panels' own browser cost, without Streamlit: one page (2,000 characters) of
``browser_bench``'s mixed text under its built-in tokenizers, drawn as Tokenize draws it (five panels
and five id lists, the page style once) into a static page in Chromium, and timed by phase: inserting
the markup (``innerHTML``), style, layout, then paint and commit (two animation frames). Each CSS
variant is the page style plus a few rules, alternated round by round; medians.

    .venv/bin/python bench/panel_paint_bench.py --rounds 11

Where the figures in bench/PERFORMANCE.md ("After view4") on opaque pieces and square boxes come from.
Timed inside the page, so less noisy than ``browser_bench`` on a loaded machine, and blind to
everything Streamlit adds (the round trip, React, its style sheets). Never downloads a browser.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench``, ``bpe_core`` and ``pages`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import browser_bench as bb  # noqa: E402

VARIANTS = {
    "as drawn": "",
    "square boxes": "<style>.bpe-tokens .t, .bpe-tokens .g .gc { border-radius: 0; }</style>",
    "translucent pieces": "<style>.bpe-tokens .g .p { opacity: 0.85; }</style>",
    "contain: content": "<style>.bpe-tokens, .bpe-ids { contain: content; }</style>",
}
DRAW = """async ([blocks, css]) => {
  const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  document.body.innerHTML = '<div id=css></div><div id=grid style="display:grid;grid-template-columns:repeat(3,430px);gap:16px"></div>';
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


def panel_blocks(chars: int) -> list[str]:
    """Panel and id-list markup (no style) of the first page of the mixed text, per tokenizer."""
    import bpe_core
    from pages._ui import linked, render, window

    text = bb.mixed_text(chars, seed=1)
    starts = window.page_starts(text)
    page = text[: starts[1] if len(starts) > 1 else len(text)]
    blocks = []
    for key in bb.tokenizer_keys():
        tokenizer = bpe_core.load("gpt2" if key == "default" else key)
        infos = tokenizer.encode_with_details(page, allowed_special="all")
        blocks.append(render.render_tokens_html(page, infos, rank_of=tokenizer.merge_rank_of, key=key, switchable=True, style=False))
        blocks.append(linked.ids_html(infos, key, style=False))
    return blocks


def run(rounds: int, chars: int) -> list[str]:
    from playwright.sync_api import sync_playwright

    from pages._ui import linked, render

    blocks = panel_blocks(chars)
    page_style = render.TOKEN_CSS + linked.IDS_CSS + render.toggle_css(show_whitespace=True, show_bytes=False)
    times: dict[str, list[list[float]]] = {name: [] for name in VARIANTS}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=bb.CHROMIUM, args=bb.CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_content("<html><head><meta charset=utf-8></head><body></body></html>")
        for _ in range(rounds):
            for name, extra in VARIANTS.items():
                times[name].append(page.evaluate(DRAW, [blocks, page_style + extra]))
        elements = page.evaluate("() => document.querySelectorAll('#grid *').length")
        browser.close()
    lines = [f"{elements:,} elements; medians of {rounds} rounds (ms)",
             "| variant | insert | style | layout | paint and commit | total |", "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
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
