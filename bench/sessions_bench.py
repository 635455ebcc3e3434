#!/usr/bin/env python
"""Ten people on one server (a class, a team), in Chromium: page-content times of Tokenize and Compare
for one session alone, and for one session among nine opening them at once, with and without a tenth
session training on about 80 MB; each against one session alone in the same run.

    .venv/bin/python bench/sessions_bench.py [--sessions 9] [--waves 5] [--train-mb 80]

One fresh server (``streamlit run app.py``; bpe_core's disk cache as after any earlier run). A first
visitor opens Tokenize then Compare (the server's caches fill: reported, not a target); then, before
each wave below, one session alone does the same (the reference: the median of them). A page's content time runs from
``goto`` (or the click on Compare in the menu) until it shows what it should (Tokenize: a panel per
default tokenizer; Compare: its charts and full table) and its script run is over.

The targets are measured with the nine people's browsers off this machine, as on a real server: in
each of ``--waves`` waves one timed Chromium session and ``--sessions`` - 1 emulated visitors
(``emulated_visitor``: the same files and script runs over Streamlit's protocol, drawing nothing)
open Tokenize at once, then, when all have it, Compare at once; median and worst of the Chromium
sessions' times over the waves. Then the same waves
while a session trains (it uploads a generated ``--train-mb`` MB corpus on Train and starts training;
cancelled after).

Beside them, for what a machine that also runs all nine browsers gives: one wave of ``--sessions``
Chromium sessions, and a bare Streamlit page (``bare_app.py``, its own server) opened alone and by
``--sessions`` Chromium sessions at once: the floor that sharing two CPUs with nine browsers sets for
any Streamlit page.
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

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, ROOT, SCRIPT_OVER, STATUS, commit, machine, serving
from bench.emulated_visitor import Barrier, EmulatedVisitor, recorded_requests

CORPUS = ROOT / "bench" / ".data" / "sessions_corpus.txt"
VIEWPORT = {"width": 1400, "height": 1600}
PAGES = ("tokenize_text", "compare")
#: The targets: median and worst page-content time among nine, as a multiple of one session alone.
MEDIAN_TARGET, WORST_TARGET = 2.0, 3.0


async def settled(page) -> None:
    """``app_server.settled``, for the asynchronous API."""
    await page.locator(SCRIPT_OVER).wait_for(state="attached", timeout=PATIENCE_MS)
    await page.locator(STATUS).wait_for(state="detached", timeout=PATIENCE_MS)


async def tokenize_shown(page, panels: int) -> None:
    await page.wait_for_function(
        f"document.querySelectorAll('.bpe-tokens[data-k]').length >= {panels}", timeout=PATIENCE_MS
    )
    await settled(page)


async def compare_shown(page) -> None:
    await page.get_by_role("heading", name="Full table").wait_for(timeout=PATIENCE_MS)
    await page.wait_for_function(
        "document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length >= 4", timeout=PATIENCE_MS
    )
    await settled(page)


async def server_seconds(page) -> float:
    """The page's own report of its script run ("Server time for this view: 1,234 ms.")."""
    text = await page.get_by_text("Server time for this view").first.inner_text()
    return float(re.search(r"([\d,]+) ms", text).group(1).replace(",", "")) / 1000


async def visit(browser, url: str, panels: int, record: list[str] | None = None, between=None) -> dict[str, float]:
    """A new session: Tokenize (its first page), then Compare from the menu: each one's content time,
    and its server time (the script run alone). ``record`` gets the paths the browser asked for;
    ``between`` is awaited before Compare, untimed."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    paths = recorded_requests(page, url) if record is not None else []
    times: dict[str, float] = {}
    try:
        started = time.perf_counter()
        await page.goto(f"{url}/tokenize_text")
        await tokenize_shown(page, panels)
        times["tokenize"] = time.perf_counter() - started
        times["tokenize server"] = await server_seconds(page)
        if between is not None:
            await between()
        started = time.perf_counter()
        await page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Compare", exact=True).click()
        await compare_shown(page)
        times["compare"] = time.perf_counter() - started
        times["compare server"] = await server_seconds(page)
        if record is not None:
            record.extend(paths)
        return times
    finally:
        await context.close()


async def emulated(url: str, paths: list[str], between=None) -> dict[str, float]:
    seconds = await EmulatedVisitor(url, paths, PAGES).visit(between)
    return {"tokenize": seconds["tokenize_text"], "compare": seconds["compare"]}


async def waves(browser, url: str, panels: int, paths: list[str], count: int, others: int, alone=None):
    """``count`` waves of one Chromium session and ``others`` emulated visitors opening Tokenize at once,
    then (when all have it) Compare at once: the Chromium sessions' times, and the emulated visitors'.
    With ``alone`` (a dict of two lists), one Chromium session and one emulated visitor alone go before
    each wave, so the reference meets the machine's busy and quiet phases as the waves do."""
    timed: list[dict[str, float]] = []
    rest: list[dict[str, float]] = []
    for _ in range(count):
        if alone is not None:
            alone["chromium"].append(await visit(browser, url, panels))
            alone["emulated"].append(await emulated(url, paths))
        compare_together = Barrier(1 + others)
        first, *more = await asyncio.gather(
            visit(browser, url, panels, between=compare_together.wait),
            *(emulated(url, paths, compare_together.wait) for _ in range(others)),
        )
        timed.append(first)
        rest.extend(more)
    return timed, rest


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


async def bare_visit(browser, url: str) -> float:
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    try:
        started = time.perf_counter()
        await page.goto(url)
        await page.get_by_role("heading", name="Bare page").wait_for(timeout=PATIENCE_MS)
        await settled(page)
        return time.perf_counter() - started
    finally:
        await context.close()


def corpus(megabytes: int) -> Path:
    from bench import corpora

    sources = [p.read_text(encoding="utf-8", errors="replace") for p in corpora.stdlib_sources()[:400]]
    return corpora.generate_big_file(CORPUS, megabytes * 1_000_000, sources)


def row(label: str, times: list[float], alone: float) -> str:
    median, worst = statistics.median(times), max(times)
    return f"| {label} | {median:.2f} s | {worst:.2f} s | {median / alone:.2f}x | {worst / alone:.2f}x | {len(times)} |"


def verdicts(label: str, calm: list[float], training: list[float], alone: float) -> list[str]:
    checks = [
        ("median among nine", statistics.median(calm), MEDIAN_TARGET),
        ("worst among nine", max(calm), WORST_TARGET),
        ("worst among nine while one trains", max(training), WORST_TARGET),
    ]
    return [
        f"- {label}, {what}: {seconds / alone:.2f}x alone (at most {target:g}x): "
        f"{'PASS' if seconds / alone <= target else 'MISS'}"
        for what, seconds, target in checks
    ]


async def measure(sessions: int, wave_count: int, train_mb: int) -> dict:
    from playwright.async_api import async_playwright

    from bench.first_view_bench import opening_count

    panels = opening_count()
    corpus(train_mb)
    found: dict = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        with serving() as url:
            paths: list[str] = []
            found["first"] = await visit(browser, url, panels, record=paths)
            alone: dict[str, list] = {"chromium": [], "emulated": []}
            found["elsewhere"] = await waves(browser, url, panels, paths, wave_count, sessions - 1, alone)
            found["alone"], found["emulated alone"] = alone["chromium"], alone["emulated"]
            compare_together = Barrier(sessions)
            found["all chromium"] = await asyncio.gather(
                *(visit(browser, url, panels, between=compare_together.wait) for _ in range(sessions))
            )
            trainer = await start_training(browser, url)
            found["elsewhere, training"] = await waves(browser, url, panels, paths, wave_count, sessions - 1)
            cancel = trainer.get_by_role("button", name="Cancel training")
            found["still training"] = await cancel.count() == 1
            if found["still training"]:
                await cancel.click()
            await trainer.context.close()
            found["requests"] = len(paths)
        with serving("bench/bare_app.py") as url:
            await bare_visit(browser, url)  # the server's first page, as for the workbench's first visitor
            found["bare alone"] = [await bare_visit(browser, url) for _ in range(3)]
            found["bare together"] = await asyncio.gather(*(bare_visit(browser, url) for _ in range(sessions)))
        await browser.close()
    return found


def report(found: dict, sessions: int, train_mb: int) -> list[str]:
    first = found["first"]
    lines = [
        f"first visitor (caches filling): Tokenize {first['tokenize']:.2f} s, Compare {first['compare']:.2f} s; "
        f"{found['requests']} files per visit; the training still running after the measurement: "
        f"{'yes' if found['still training'] else 'no'}",
        "\n| page, sessions | median | worst | median / alone | worst / alone | pages |",
        "|---|---|---|---|---|---|",
    ]
    others = sessions - 1
    calm, calm_rest = found["elsewhere"]
    busy, busy_rest = found["elsewhere, training"]
    targets: list[str] = []
    for what in ("tokenize", "compare"):
        name = what.capitalize()
        alone = statistics.median(v[what] for v in found["alone"])
        lines.append(f"| {name}, one session alone | {alone:.2f} s | | | | {len(found['alone'])} |")
        lines.append(row(f"{name}, one of {sessions} at once ({others} emulated)", [v[what] for v in calm], alone))
        lines.append(
            row(
                f"{name}, one of {sessions} at once ({others} emulated), one training on {train_mb} MB",
                [v[what] for v in busy],
                alone,
            )
        )
        targets += verdicts(name, [v[what] for v in calm], [v[what] for v in busy], alone)
        server_alone = statistics.median(v[f"{what} server"] for v in found["alone"])
        count = len(found["alone"])
        lines.append(f"| {name} (server time), one session alone | {server_alone:.2f} s | | | | {count} |")
        lines.append(
            row(f"{name} (server time), one of {sessions} at once", [v[f"{what} server"] for v in calm], server_alone)
        )
        emulated_alone = statistics.median(v[what] for v in found["emulated alone"])
        lines.append(f"| {name}, emulated visitor alone | {emulated_alone:.2f} s | | | | {count} |")
        lines.append(row(f"{name}, emulated visitors among {sessions}", [v[what] for v in calm_rest], emulated_alone))
        lines.append(
            row(
                f"{name}, emulated visitors among {sessions}, one training",
                [v[what] for v in busy_rest],
                emulated_alone,
            )
        )
        lines.append(
            row(f"{name}, all {sessions} in Chromium on this machine", [v[what] for v in found["all chromium"]], alone)
        )
    bare = statistics.median(found["bare alone"])
    lines.append(f"| bare Streamlit page, alone | {bare:.2f} s | | | | {len(found['bare alone'])} |")
    lines.append(row(f"bare Streamlit page, all {sessions} in Chromium on this machine", found["bare together"], bare))
    return [*lines, "", *targets]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=9, help="people opening the pages at once (at least 2)")
    parser.add_argument("--waves", type=int, default=5, help="waves of them, one timed in Chromium in each")
    parser.add_argument("--train-mb", type=int, default=80)
    args = parser.parse_args(argv)
    if args.sessions < 2 or args.waves < 1 or args.train_mb < 1:
        parser.error("--sessions must be at least 2, --waves and --train-mb at least 1")
    # the commit the server starts from (a commit made while the benchmark runs is not what it measured)
    started_at, load_before, measured = time.strftime("%Y-%m-%d %H:%M"), machine(), commit()
    found = asyncio.run(measure(args.sessions, args.waves, args.train_mb))
    print(
        f"\n{started_at}, commit {measured}, {machine()} (at the start: {load_before}); "
        f"{args.sessions} sessions, {args.waves} waves, a training on {args.train_mb} MB\n"
    )
    print("\n".join(report(found, args.sessions, args.train_mb)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
