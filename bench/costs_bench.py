#!/usr/bin/env python
"""The four costs a user feels first, as ratios from one run, with their targets.

    .venv/bin/python bench/costs_bench.py --data /work/bench_data                 # ~30-60 min here
    .venv/bin/python bench/costs_bench.py --data /work/bench_data --superbpe-mb 26,1000

1. ``import bpe_core`` against ``import tiktoken`` (``load_bench.measure_imports``): target 2x.
2. ``import bpe_core; load(name).encode(text)`` against tiktoken building the same Encoding from the same
   file, imports included, warm cache, every built-in (``load_bench.measure_user_view``): target 1.5x.
3. SuperBPE's peak memory against plain BPE's, same corpus and vocab 32,768 (``superbpe_memory``), on
   the real code and documentation cut to 26 MB and on each ``--superbpe-mb`` size (above the real pool,
   a file resampled from its lines: ``corpora.generate_resampled_file``), with the slope to 10 GB:
   target 2x.
4. Training at vocab 32,768 against rustbpe and HF ``tokenizers``: the standard library's sources (11 MB,
   ``training_bench.train_rounds``, the texts in memory) and the real 100 MB (``scale_bench``, from the
   file): target 1.5x rustbpe's time.

Every tool alternates with its reference round by round; ratios are medians of per-round ratios. The
corpora are made under ``--data`` (never committed). It does not measure encoding at length
(``benchmark.py``) nor quality (``variants_bench``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import load_bench, scale_bench, superbpe_memory, training_bench
from bench.corpora import generate_resampled_file, prepare_real_file, prepare_stdlib, real_sources
from bench.timing import MB, available_tools, fmt_ratio, load_average, verdict, versions

TOOLS = ("bpe_core", "hf", "rustbpe")


def superbpe_corpora(data: Path, sizes: list[int], log) -> list[tuple[str, str, float]]:
    """(label, path, MB) for each size: real files up to the real pool's size, resampled lines above it."""
    sources = real_sources()
    pool = sum(len(data) for _, data in sources) / MB
    found = []
    for size in sizes:
        if size <= pool:
            made = prepare_real_file(data / f"real-{size}MB.txt", size * MB, sources)
            found.append((f"real code + docs {size} MB", str(data / f"real-{size}MB.txt"), made["bytes"] / MB))
        else:
            lines = [line for _, text in sources for line in text.decode("utf-8").splitlines(keepends=True)]
            path = generate_resampled_file(data / f"resampled-{size}MB.txt", size * MB, lines)
            found.append((f"resampled real lines {size} MB", str(path), path.stat().st_size / MB))
        log(f"SuperBPE corpus: {found[-1][0]} ({found[-1][2]:.1f} MB)")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent / ".data")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the import, load and 11 MB training")
    parser.add_argument("--scale-rounds", type=int, default=3, help="rounds of the 100 MB training")
    parser.add_argument("--superbpe-mb", default="26", help="corpus sizes of the SuperBPE memory case (MB)")
    parser.add_argument("--superbpe-rounds", type=int, default=1)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: import,load,superbpe,train")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    log = print
    from bench.app_server import commit, machine

    started = time.strftime("%Y-%m-%d %H:%M")
    log(f"{started}, commit {commit()}, {machine()}, load {load_average()}; {versions()}")
    verdicts = []
    if "import" not in skip:
        imports = load_bench.measure_imports(args.rounds)
        log(f"\n## import\n\nwhole process {imports['ratio']:.2f}x, the import alone {imports['own_ratio']:.2f}x")
        verdicts.append(verdict("import <= 2x tiktoken's", imports["own_ratio"] <= 2, f"{imports['own_ratio']:.2f}x"))
    if "load" not in skip:
        rows = load_bench.measure_user_view(load_bench.USER_NAMES, args.rounds)
        log("\n## load + first encode, imports included\n")
        load_bench.print_user_view(None, rows, cold=False)
        worst = max(rows, key=lambda row: row["ratio"])
        verdicts.append(verdict("load + encode <= 1.5x tiktoken's", worst["ratio"] <= 1.5, f"worst {worst['name']}"))
    if "superbpe" not in skip:
        sizes = [int(size) for size in args.superbpe_mb.split(",")]
        memory = superbpe_memory.memory_rounds(superbpe_corpora(args.data, sizes, log), args.superbpe_rounds, log)
        log("\n## SuperBPE against BPE\n\n" + superbpe_memory.memory_table(memory))
        for rounds in memory:
            ratio = rounds.ratio("superbpe", "bpe", "peak_rss")
            verdicts.append(verdict(f"SuperBPE peak <= 2x BPE's, {rounds.label}", ratio <= 2, f"{ratio:.2f}x"))
    if "train" not in skip:
        tools = available_tools(TOOLS, log)
        stdlib = prepare_stdlib(args.data)
        log(f"\n## training, {stdlib.name} ({stdlib.train_bytes / MB:.1f} MB), vocab 32768")
        trained = [training_bench.train_rounds(stdlib, 32768, tools, args.rounds, log)]
        real = scale_bench.prepare(args.data, [], scale_bench.REAL_MB, log)
        trained += scale_bench.scale_rounds(real, tools, args.scale_rounds, vocab_size=32768, log=log)
        log("\n| corpus | bpe_core / rustbpe (median of rounds) | bpe_core / HF | bpe_core | HF | rustbpe |")
        log("|---|---|---|---|---|---|")
        for rounds in trained:
            times = " | ".join(f"{rounds.median(tool, 'seconds'):.2f} s" if rounds.has(tool) else "" for tool in TOOLS)
            to_rust, to_hf = rounds.ratio("bpe_core", "rustbpe"), rounds.ratio("bpe_core", "hf")
            log(f"| {rounds.label} | **{fmt_ratio(to_rust)}** | {fmt_ratio(to_hf)} | {times} |")
            if to_rust is not None:
                verdicts.append(verdict(f"training <= 1.5x rustbpe, {rounds.label}", to_rust <= 1.5, f"{to_rust:.2f}x"))
    log(f"\n## Targets\n\n{started} to {time.strftime('%H:%M')}, load at the end {load_average()}\n")
    log("\n".join(verdicts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
