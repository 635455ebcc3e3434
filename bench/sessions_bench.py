#!/usr/bin/env python
"""Ten people on one server (a class, a team), in Chromium: page-content times of Tokenize and Compare
for one session alone, for 9 sessions opening them at once, and for 9 sessions while a tenth trains
on about 80 MB; each against one session alone in the same run.

    .venv/bin/python bench/sessions_bench.py [--sessions 9] [--train-mb 80]

One fresh server (``streamlit run app.py``; bpe_core's disk cache as after any earlier run). A first
visitor opens Tokenize then Compare (the server's caches fill: reported, not a target); then one
session alone does the same, twice (the reference: the median); then ``--sessions`` new sessions (one
browser context each) do it at once; then a session uploads a generated ``--train-mb`` MB corpus on
Train and starts training, and while it trains (its progress bar moving) ``--sessions`` new sessions
do it at once again; the training is cancelled after. A page's content time runs from ``goto`` (or the
click on Compare in the menu) until it shows what it should (Tokenize: a panel per default tokenizer;
Compare: its charts and full table) and its script run is over. The browser runs on the same two CPUs
as the server, so the figures include its rendering of every session.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, ROOT, commit, machine, serving

CORPUS = ROOT / "bench" / ".data" / "sessions_corpus.txt"
VIEWPORT = {"width": 1400, "height": 1600}


async def settled(page) -> None:
    status = page.locator('[data-testid="stStatusWidget"]')
    try:
        await status.wait_for(state="attached", timeout=1_000)
    except Exception:  # over before it showed
        pass
    await status.wait_for(state="detached", timeout=PATIENCE_MS)


async def tokenize_shown(page, panels: int) -> None:
    await page.wait_for_function(f"document.querySelectorAll('.bpe-tokens[data-k]').length >= {panels}",
                                 timeout=PATIENCE_MS)  # fmt: skip
    await settled(page)


async def compare_shown(page) -> None:
    await page.get_by_role("heading", name="Full table").wait_for(timeout=PATIENCE_MS)
    await page.wait_for_function("document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length >= 4",
                                 timeout=PATIENCE_MS)  # fmt: skip
    await settled(page)


async def server_seconds(page) -> float:
    """The page's own report of its script run ("Server time for this view: 1,234 ms.")."""
    text = await page.get_by_text("Server time for this view").first.inner_text()
    return float(re.search(r"([\d,]+) ms", text).group(1).replace(",", "")) / 1000


async def visit(browser, url: str, panels: int) -> dict[str, float]:
    """A new session: Tokenize (its first page), then Compare from the menu: each one's content time,
    and its server time (the script run alone)."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    times: dict[str, float] = {}
    try:
        started = time.perf_counter()
        await page.goto(f"{url}/tokenize_text")
        await tokenize_shown(page, panels)
        times["tokenize"] = time.perf_counter() - started
        times["tokenize server"] = await server_seconds(page)
        started = time.perf_counter()
        await page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Compare", exact=True).click()
        await compare_shown(page)
        times["compare"] = time.perf_counter() - started
        times["compare server"] = await server_seconds(page)
        return times
    finally:
        await context.close()


async def start_training(browser, url: str):
    """A session on Train with the generated corpus uploaded and training started (its page returned)."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    await page.goto(f"{url}/train")
    await page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(CORPUS))
    await page.get_by_text("unique pre-tokens").first.wait_for(timeout=PATIENCE_MS)
    await settled(page)
    await page.get_by_role("button", name="Train", exact=True).click()
    await page.get_by_text("Counting pre-tokens:").first.wait_for(timeout=PATIENCE_MS)
    return page


def corpus(megabytes: int) -> Path:
    from bench import corpora

    sources = [p.read_text(encoding="utf-8", errors="replace") for p in corpora.stdlib_sources()[:400]]
    return corpora.generate_big_file(CORPUS, megabytes * 1_000_000, sources)


def summary(label: str, times: list[float], alone: float) -> str:
    median, worst = statistics.median(times), max(times)
    return (f"| {label} | {median:.2f} s | {worst:.2f} s | {median / alone:.2f}x | {worst / alone:.2f}x | "
            f"{len(times)} |")  # fmt: skip


async def run(sessions: int, train_mb: int) -> list[str]:
    from playwright.async_api import async_playwright

    from bench.first_view_bench import opening_count

    panels = opening_count()
    corpus(train_mb)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        with serving() as url:
            first = await visit(browser, url, panels)
            alone = [await visit(browser, url, panels) for _ in range(2)]
            together = await asyncio.gather(*(visit(browser, url, panels) for _ in range(sessions)))
            trainer = await start_training(browser, url)
            training = await asyncio.gather(*(visit(browser, url, panels) for _ in range(sessions)))
            cancel = trainer.get_by_role("button", name="Cancel training")
            still = await cancel.count() == 1
            if still:
                await cancel.click()
            await trainer.context.close()
        await browser.close()
    lines = [f"first visitor (caches filling): Tokenize {first['tokenize']:.2f} s, Compare {first['compare']:.2f} s; "
             f"the training still running after the measurement: {'yes' if still else 'no'}",  # fmt: skip
             "\n| page, sessions | median | worst | median / alone | worst / alone | pages |",
             "|---|---|---|---|---|---|"]
    groups = [("", together), (f", one training on {train_mb} MB", training)]
    for what in ("tokenize", "compare", "tokenize server", "compare server"):
        alone_time = statistics.median(visit_times[what] for visit_times in alone)
        label = what.capitalize().replace(" server", " (server time)")
        lines.append(f"| {label}, one session alone | {alone_time:.2f} s | | | | {len(alone)} |")
        for suffix, group in groups:
            lines.append(summary(f"{label}, {sessions} at once{suffix}", [v[what] for v in group], alone_time))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=9)
    parser.add_argument("--train-mb", type=int, default=80)
    args = parser.parse_args(argv)
    started_at, load_before = time.strftime("%Y-%m-%d %H:%M"), machine()
    lines = asyncio.run(run(args.sessions, args.train_mb))
    print(f"\n{started_at}, commit {commit()}, {machine()} (at the start: {load_before}); "
          f"{args.sessions} sessions, a training on {args.train_mb} MB\n")  # fmt: skip
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
