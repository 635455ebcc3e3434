#!/usr/bin/env python
"""Where the browser's time goes on the Tokenize page: a Chrome trace and a JavaScript CPU profile of
one first render (Ctrl+Enter), one page turn ("Next ▶") and one flip of each toggle (Mark whitespace,
Show bytes) at 20k characters x 5 tokenizers.

    .venv/bin/python bench/browser_trace.py                  # prints the breakdown
    .venv/bin/python bench/browser_trace.py --out /tmp/tr    # also keeps trace and profile files

Uses ``browser_bench``'s server, text and tokenizers. For each interaction it records, from the click
to the finished view (``browser_bench.timed``): the renderer main thread's trace events
(``devtools.timeline``), summed by phase as self time (a parent's time minus its children's: script,
HTML parsing, style recalculation, layout, paint, garbage collection), and a sampled CPU profile of
the page's JavaScript (CDP ``Profiler``), summed by the script file (Streamlit's bundle is split into
named chunks such as ``Html.*.js``) and by function. Does not time anything for the tables of
PERFORMANCE.md (tracing slows the page); the shares are what it is for. Never downloads a browser.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import browser_bench as bb

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink", "toplevel"]
#: Trace event names grouped into phases (the rest are shown by their own name).
PHASES = {
    "FunctionCall": "script",
    "EvaluateScript": "script",
    "v8.run": "script",
    "EventDispatch": "script",
    "TimerFire": "script",
    "FireAnimationFrame": "script",
    "RunMicrotasks": "script",
    "V8.Execute": "script",
    "v8.callFunction": "script",
    "ParseHTML": "parse HTML",
    "UpdateLayoutTree": "style recalculation",
    "ScheduleStyleRecalculation": "style recalculation",
    "Layout": "layout",
    "Paint": "paint",
    "PrePaint": "paint",
    "Layerize": "paint",
    "Commit": "paint",
    "MinorGC": "garbage collection",
    "MajorGC": "garbage collection",
    "V8.GC_SCAVENGER": "garbage collection",
    "BlinkGC.AtomicPhase": "garbage collection",
    "v8.compile": "compile",
    "V8.CompileCode": "compile",
    "v8.parseOnBackground": "compile",
}


def main_thread(events: list[dict]) -> tuple[int, int]:
    """(pid, tid) of the page's renderer main thread: the CrRendererMain with the most events."""
    names = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    counts = collections.Counter((e["pid"], e["tid"]) for e in events if (e.get("pid"), e.get("tid")) in names)
    return counts.most_common(1)[0][0]


def self_times(events: list[dict]) -> tuple[dict[str, float], float]:
    """Self time (ms) per event name on the main thread, and the sum of its top-level tasks (ms)."""
    thread = main_thread(events)
    spans = sorted(
        (
            (e["ts"], e["ts"] + e.get("dur", 0), e["name"])
            for e in events
            if (e.get("pid"), e.get("tid")) == thread and e.get("ph") == "X" and e.get("dur", 0) > 0
        ),
        key=lambda s: (s[0], -s[1]),
    )
    own: dict[str, float] = collections.defaultdict(float)
    stack: list[list] = []  # [end, name, children's time]
    busy = 0.0

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            end, name, children, start = stack.pop()
            own[name] += (end - start - children) / 1000
            if stack:
                stack[-1][2] += end - start

    for start, end, name in spans:
        close(start)
        if not stack:
            busy += (end - start) / 1000
        stack.append([end, name, 0.0, start])
    close(float("inf"))
    return own, busy


def by_phase(own: dict[str, float]) -> dict[str, float]:
    phases: dict[str, float] = collections.defaultdict(float)
    for name, ms in own.items():
        phases[PHASES.get(name, name)] += ms
    return phases


def profile_breakdown(profile: dict) -> tuple[dict[str, float], dict[str, float]]:
    """Self time (ms) of the sampled CPU profile by script file and by function (file:line name)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    by_file: dict[str, float] = collections.defaultdict(float)
    by_function: dict[str, float] = collections.defaultdict(float)
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]["callFrame"]
        url = frame.get("url", "").rsplit("/", 1)[-1] or frame["functionName"] or "(native)"
        by_file[url] += delta / 1000
        name = frame["functionName"] or "(anonymous)"
        by_function[f"{url}:{frame.get('lineNumber', 0) + 1}:{frame.get('columnNumber', 0) + 1} {name}"] += delta / 1000
    for idle in ("(idle)",):
        by_file.pop(idle, None)
    return by_file, by_function


def style_recalcs(events: list[dict]) -> str:
    """Each style recalculation over 10 ms on the main thread (when, how long, how many elements), and
    with ``--invalidations`` the reasons Blink logged for invalidating styles, counted."""
    thread = main_thread(events)
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == thread]
    origin = min((e["ts"] for e in mine if e.get("ph") == "X"), default=0)
    lines = [
        f"  at {(e['ts'] - origin) / 1000:7.0f} ms: {e['dur'] / 1000:6.1f} ms, "
        f"{e['args'].get('elementCount', '?')} elements"
        for e in sorted(mine, key=lambda e: e["ts"])
        if e.get("name") == "UpdateLayoutTree" and e.get("dur", 0) > 10_000
    ]
    reasons = collections.Counter()
    for e in mine:
        if "InvalidationTracking" in e.get("name", ""):
            data = e.get("args", {}).get("data", {})
            what = (
                data.get("reason")
                or data.get("invalidationList")
                or data.get("changedClass")
                or data.get("changedAttribute")
                or ""
            )
            reasons[f"{e['name']}: {json.dumps(what)[:120]} {data.get('nodeName', '')[:40]}"] += 1
    lines += [f"  {count:6d} x {reason}" for reason, count in reasons.most_common(25)]
    return "\n".join(lines)


def top(table: dict[str, float], count: int) -> str:
    rows = sorted(table.items(), key=lambda item: -item[1])[:count]
    return "\n".join(f"  {ms:8.1f} ms  {name}" for name, ms in rows)


def traced(browser, page, action, signature: str, panels: int, name: str, out: Path, categories: list[str]) -> str:
    """Trace and profile one interaction; the breakdown as text."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    trace_path = out / f"{name}.trace.json"
    browser.start_tracing(page=page, path=str(trace_path), categories=categories)
    cdp.send("Profiler.start")
    result = bb.timed(page, action, signature, panels)
    profile = cdp.send("Profiler.stop")["profile"]
    browser.stop_tracing()
    cdp.detach()
    (out / f"{name}.cpuprofile").write_text(json.dumps(profile))
    events = json.loads(trace_path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    own, busy = self_times(events)
    by_file, by_function = profile_breakdown(profile)
    return "\n".join(
        [
            f"## {name}: {result['seconds']:.2f} s click to view (traced), main thread busy {busy:,.0f} ms",
            "by phase (self ms):",
            top(by_phase(own), 12),
            "by trace event (self ms):",
            top(own, 15),
            "JS profile by file (self ms):",
            top(by_file, 12),
            "JS profile by function (self ms):",
            top(by_function, 25),
            "style recalculations (and invalidation reasons):",
            style_recalcs(events),
        ]
    )


def run(chars: int, out: Path, invalidations: bool = False) -> str:
    from playwright.sync_api import sync_playwright

    keys = bb.tokenizer_keys()
    categories = CATEGORIES + (["disabled-by-default-devtools.timeline.invalidationTracking"] if invalidations else [])
    reports = [f"tokenizers: {', '.join(keys)}"]
    with tempfile.TemporaryDirectory() as folder:
        process, url = bb.start_server(Path(folder))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=bb.CHROMIUM, args=bb.CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(300_000)
                bb.open_tokenize(page, url, keys)
                box = page.get_by_label("Text", exact=True)
                for seed in (0, 1):  # the first builds the engines; the second is measured
                    box.fill(bb.mixed_text(chars, seed=seed))
                    if seed == 0:
                        bb.timed(page, lambda: box.press("Control+Enter"), bb.FIRST_TOKENS, len(keys))
                reports.append(
                    traced(
                        browser,
                        page,
                        lambda: box.press("Control+Enter"),
                        bb.FIRST_TOKENS,
                        len(keys),
                        "first",
                        out,
                        categories,
                    )
                )
                button = page.get_by_role("button", name="Next ▶")
                bb.timed(page, button.click, bb.FIRST_TOKENS, len(keys))  # warm the fragment path once
                reports.append(traced(browser, page, button.click, bb.FIRST_TOKENS, len(keys), "next", out, categories))
                for label, signature in (("Mark whitespace", bb.MARKS), ("Show bytes", bb.HEX)):
                    name = label.lower().replace(" ", "_")
                    reports.append(
                        traced(browser, page, bb.toggle(page, label), signature, len(keys), name, out, categories)
                    )
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    return "\n\n".join(reports)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=None, help="folder for the trace and profile files")
    parser.add_argument("--invalidations", action="store_true", help="also log why styles were invalidated")
    args = parser.parse_args(argv)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        print(run(args.chars, args.out, args.invalidations))
    else:
        with tempfile.TemporaryDirectory() as folder:
            print(run(args.chars, Path(folder), args.invalidations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
