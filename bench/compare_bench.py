"""CPU time of ``metrics.measure`` (Compare's per-file metrics) per tokenizer at 200k and 2 M characters.

Usage: ``.venv/bin/python bench/compare_bench.py [--sizes 200000,2000000] [--profile NAME]``. Texts:
``bench/.data/full/multilingual.txt`` repeated, and Python source from the standard library, each cut
to the size. CPU time (``time.process_time``), best of 3, engine built beforehand; the encode alone is
reported next to the whole measure so the metrics' own share shows. ``--profile`` prints cProfile's top
entries for one tokenizer at the largest size.
"""

from __future__ import annotations

import argparse
import cProfile
import glob
import os
import pstats
import sys
import sysconfig
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import bpe_core
from bpe_core.analysis import metrics

HERE = os.path.dirname(os.path.abspath(__file__))


def texts(size: int) -> dict[str, str]:
    with open(os.path.join(HERE, ".data", "full", "multilingual.txt"), encoding="utf-8") as handle:
        multi = handle.read()
    source, total = [], 0
    for path in sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py"))):
        with open(path, encoding="utf-8", errors="replace") as handle:
            chunk = handle.read()
        source.append(chunk)
        total += len(chunk)
        if total > size:
            break
    code = "".join(source)
    return {
        "multilingual": (multi * (size // len(multi) + 1))[:size],
        "python": (code * (size // len(code) + 1))[:size],
    }


def tokenizers() -> dict[str, object]:
    with open(os.path.join(HERE, ".data", "full", "multilingual.txt"), encoding="utf-8") as handle:
        train_text = handle.read()[:300_000]
    found = {name: bpe_core.load(name) for name in ("gpt2", "cl100k", "o200k")}
    found["trained-4k"] = bpe_core.train(train_text, 4000, pattern="o200k")
    for tok in found.values():
        tok.build_engine()
    return found


def best(call, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


def compare_six(toks: dict, sizes: list[int]) -> None:
    """``metrics.compare`` as the Compare page calls it: 6 tokenizers x one file, best of 3."""
    six = dict(toks)
    for name in ("llama3", "qwen"):
        six[name] = bpe_core.load(name)
        six[name].build_engine()
    print(f"uptime: {os.popen('uptime').read().strip()}")
    for size in sizes:
        for kind, text in texts(size).items():
            encode = best(lambda text=text: [tok.encode_ordinary(text) for tok in six.values()])
            whole = best(lambda kind=kind, text=text: metrics.compare(six, [(kind, text)], None))
            print(f"{size:>9,} {kind:<12} 6 tokenizers: encode {encode:6.2f} s  compare {whole:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="200000,2000000")
    parser.add_argument("--profile", default=None, help="a tokenizer name to profile at the largest size")
    parser.add_argument("--compare", action="store_true", help="only metrics.compare: 6 tokenizers x one file")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    toks = tokenizers()
    if args.compare:
        compare_six(toks, sizes)
        return
    print(f"uptime: {os.popen('uptime').read().strip()}")
    for size in sizes:
        for kind, text in texts(size).items():
            for name, tok in toks.items():
                encode = best(lambda tok=tok, text=text: tok.encode_ordinary(text))
                whole = best(lambda tok=tok, text=text: metrics.measure(tok, text))
                print(f"{size:>9,} {kind:<12} {name:<11} encode {encode:6.2f} s  measure {whole:6.2f} s")
    if args.profile:
        text = texts(sizes[-1])["multilingual"]
        profiler = cProfile.Profile()
        profiler.runcall(metrics.measure, toks[args.profile], text)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()
