#!/usr/bin/env python
"""How long Tokenize takes to follow typing, in Chromium: from the last keystroke of a typed word to the
view updated (the first panel's token count is the new text's, and the page's script run is over),
with no key press but the typing (the page applies the text after a pause: pages/_tokenize_text/live.py).
The reference, in the same run and the same session: the same word typed then applied at once with
Ctrl+Enter, timed from that key press. Texts of several sizes (typed at their end), the opening
tokenizers (o200k, Llama 3, Qwen 3.5, cl100k, GPT-2, those installed); medians over rounds that
alternate the two ways.

    .venv/bin/python bench/typing_bench.py [--rounds 5] [--sizes 60,2000,100000]

Measures the view following one person's typing on a fresh server (``sessions_bench`` measures many
people at once; ``first_view_bench`` the first view).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, commit, machine, serving, settled

SENTENCE = "The quick brown fox jumps over the lazy dog; naïve café, 你好世界, नमस्ते. "


def text_of(size: int) -> str:
    return (SENTENCE * (size // len(SENTENCE) + 1))[:size]


def counted(page, label: str, count: int) -> None:
    """Wait until the panel of ``label`` says ``count`` tokens and the script run is over."""
    page.get_by_text(f"{label} · {count:,} tokens", exact=True).wait_for(timeout=PATIENCE_MS)
    settled(page)


def one_word(page, typed: str, expected: int, label: str, *, apply_now: bool) -> float:
    """Type ``typed`` at the end of the text box; seconds from the last keystroke (or the Ctrl+Enter
    after it, ``apply_now``) until the view shows ``expected`` tokens."""
    box = page.get_by_role("textbox", name="Text")
    box.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(typed, delay=40)
    if apply_now:
        page.keyboard.press("Control+Enter")
    started = time.perf_counter()
    counted(page, label, expected)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="60,2000,100000", help="characters of text typed into, comma-separated")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    import bpe_core
    from bpe_core.pretrained import catalogue

    first = next(name for name in ("o200k", "llama3", "qwen3.5", "cl100k", "gpt2") if catalogue.is_installed(name))
    tokenizer, label = bpe_core.load(first), catalogue.BUILTINS[first].label
    started_at, load_before = time.strftime("%Y-%m-%d %H:%M"), machine()
    results: dict[int, dict[str, list[float]]] = {}
    with serving() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(PATIENCE_MS)
        page.goto(f"{url}/tokenize_text")
        page.get_by_role("heading", name="Tokenize", exact=True).wait_for()
        settled(page)
        for size in (int(s) for s in args.sizes.split(",")):
            text = text_of(size)
            box = page.get_by_role("textbox", name="Text")
            box.fill(text)
            box.press("Control+Enter")
            counted(page, label, len(tokenizer.encode(text)))
            times: dict[str, list[float]] = {"typing": [], "ctrl_enter": []}
            for round_number in range(args.rounds):
                for way in ("typing", "ctrl_enter"):
                    typed = f" zebra{round_number}{way[0]}"
                    text += typed
                    seconds = one_word(page, typed, len(tokenizer.encode(text)), label, apply_now=way == "ctrl_enter")
                    times[way].append(seconds)
                print(
                    f"{size:,} characters, round {round_number + 1}: typing {times['typing'][-1]:.2f} s, "
                    f"Ctrl+Enter {times['ctrl_enter'][-1]:.2f} s",
                    file=sys.stderr,
                )
            results[size] = times
        browser.close()
    print(f"\n{started_at}, commit {commit()}, {machine()} (at the start: {load_before}); {args.rounds} rounds\n")
    print("| text | typing: last keystroke to the view updated | Ctrl+Enter: key press to the view updated | ratio |")
    print("|---|---|---|---|")
    for size, times in results.items():
        typing, ctrl = statistics.median(times["typing"]), statistics.median(times["ctrl_enter"])
        rounds = ", ".join(f"{t:.2f}" for t in times["typing"])
        print(f"| {size:,} characters | {typing:.2f} s ({rounds}) | {ctrl:.2f} s | {typing / ctrl:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
