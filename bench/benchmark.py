#!/usr/bin/env python
"""Benchmark bpe_core against Hugging Face tokenizers, rustbpe and tiktoken.

    .venv/bin/python bench/benchmark.py            # ~11 MB of stdlib sources, vocab 8192 and 32768
    .venv/bin/python bench/benchmark.py --quick    # small data, well under a minute (CI smoke run)
    .venv/bin/python bench/benchmark.py --big      # also train_files on generated 100 MB, 250 MB, 1 GB
    .venv/bin/python bench/benchmark.py --scale    # only training at scale vs HF and rustbpe
                                                   # (sizes in MB: --scale-sizes 100,300,1000)

Every measurement runs in a subprocess of its own, timing only the training or encoding call (not
interpreter start-up or reading the corpus). The tools alternate round by round, so a noisy phase of
the machine hits all of them; ratios are medians over rounds of bpe_core's time divided by the
reference's time in the same round. Peak memory is the peak resident size of the whole process tree
(bpe_core's counting workers included), sampled from /proc every 10 ms, and never less than the
process's own peak (VmHWM).

The reference tools are benchmark dependencies (bench/requirements.txt); a missing one is skipped.
Corpora are prepared under --data (default bench/.data): the Python standard library's own .py
sources (sysconfig's "stdlib" path without site-packages and test directories) in sorted order, every
tenth file held out; ../shared/corpora/tinyshakespeare.txt when present; a multilingual text built
from bpe_core's samples; and, with --big, generated files for the larger-than-memory case.

The render timing measures the library's share of the Tokenize page (per-token detail and merge
ranks); HTML rendering is the app's and is not measured here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import (
    corpora,
    dask_bench,
    encoding_bench,
    forest_bench,
    parity_bench,
    render_bench,
    scale_bench,
    superbpe_memory,
    training_bench,
)
from bench.timing import MB, available_tools, load_average, own_peak_rss, versions
from bpe_core.pretrained import catalogue

DEFAULT_DATA = Path(__file__).resolve().parent / ".data"
CHILD_TASKS = {
    **training_bench.CHILD_TASKS,
    **encoding_bench.CHILD_TASKS,
    **parity_bench.CHILD_TASKS,
    **scale_bench.CHILD_TASKS,
    **superbpe_memory.CHILD_TASKS,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small data, one round (CI smoke run)")
    parser.add_argument("--big", action="store_true", help="also the larger-than-memory train_files case")
    parser.add_argument("--big-sizes", default="100,250,1000", help="sizes in MB for --big")
    parser.add_argument(
        "--scale",
        action="store_true",
        help="only training at scale: real 100 MB and generated corpora, vs HF and rustbpe",
    )
    parser.add_argument(
        "--scale-sizes",
        default=",".join(map(str, scale_bench.DEFAULT_SIZES)),
        help="generated corpus sizes in MB for --scale (e.g. 100,300,1000; empty for none)",
    )
    parser.add_argument(
        "--scale-real-mb",
        type=int,
        default=scale_bench.REAL_MB,
        help="size of the real code + docs corpus for --scale (0: none)",
    )
    parser.add_argument("--scale-tools", default=",".join(scale_bench.SCALE_TOOLS), help="tools for --scale")
    parser.add_argument(
        "--dask",
        action="store_true",
        help="only counting on 1, 2 and 4 local Dask workers against count_files (bench/dask_bench.py)",
    )
    parser.add_argument("--repeats", type=int, default=None, help="rounds per scenario (default 3; 1 with --quick)")
    parser.add_argument("--vocab", default=None, help="vocab sizes, comma separated (default 8192,32768)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where corpora are prepared")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-encode", action="store_true")
    parser.add_argument("--skip-render", action="store_true", help="skip the Tokenize page render timing")
    parser.add_argument(
        "--browser",
        action="store_true",
        help="only the Tokenize page in Chromium (bench/browser_bench.py: 20k x 5 tokenizers, 2 M chars)",
    )
    parser.add_argument("--skip-batch", action="store_true", help="skip batch encoding in worker processes")
    parser.add_argument("--skip-forest", action="store_true", help="skip the merge forest timings")
    parser.add_argument("--json", type=Path, help="also write all results as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def run_child_task(spec_json: str) -> int:
    """The child side of ``timing.run_child``: run one task, print its result as one JSON line."""
    spec = json.loads(spec_json)
    result = CHILD_TASKS[spec["task"]](spec)
    result["own_peak_rss"] = own_peak_rss()
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


def prepare_corpora(data: Path, quick: bool, log) -> list[corpora.Corpus]:
    """The stdlib corpus first, then tinyshakespeare when present."""
    found = [corpora.prepare_stdlib(data, 1_000_000 if quick else None)]
    shakespeare = corpora.prepare_shakespeare(data, 300_000 if quick else None)
    if shakespeare is None:
        log(f"({corpora.SHAKESPEARE} not found: the tinyshakespeare corpus is skipped)")
    else:
        found.append(shakespeare)
    for corpus in found:
        log(
            f"corpus {corpus.name}: {corpus.documents} documents, {corpus.train_bytes / MB:.1f} MB training, "
            f"{corpus.heldout_chars / MB:.2f} M characters held out"
        )
    return found


def run_training(found: list[corpora.Corpus], vocabs: list[int], repeats: int, log) -> list:
    tools = available_tools(training_bench.TRAIN_TOOLS)
    results = []
    for corpus in found:
        for vocab in vocabs if corpus.name == "stdlib" else vocabs[:1]:
            log(f"\n## training: {corpus.name}, vocab {vocab}, min_frequency 2")
            results.append(training_bench.train_rounds(corpus, vocab, tools, repeats, log))
    return results


def run_encoding(found: list[corpora.Corpus], data: Path, quick: bool, repeats: int, log) -> list:

    tools = available_tools(encoding_bench.ENCODE_TOOLS)
    shakespeare = next((c for c in found if c.name == "shakespeare"), None)
    results = []
    for label, path in corpora.encoding_texts(data, found[0], shakespeare, 200_000 if quick else 1_000_000):
        log(f"\n## encode_ordinary, GPT-2 merges, one call: {label}")
        results.append(encoding_bench.encode_rounds(label, path, tools, repeats, log))
    if catalogue.is_installed("cl100k"):
        label = "code: held-out stdlib, cl100k merges (not a target)"
        log(f"\n## encode_ordinary, one call: {label}")
        results.append(
            encoding_bench.encode_rounds(label, found[0].heldout_path, tools, repeats, log, vocabulary="cl100k")
        )
    return results


def report(results: dict, log) -> None:
    """The tables and the targets summary, after all measurements."""
    sections = [
        ("Training", results["train"] and training_bench.training_table(results["train"])),
        ("Encoding", results["encode"] and encoding_bench.encoding_table(results["encode"])),
        (
            "Building the encoding engine (once per tokenizer)",
            results.get("engine_build") and encoding_bench.engine_build_table(results["engine_build"]),
        ),
        ("Batch encoding", results["batch"] and encoding_bench.batch_table(results["batch"])),
        ("Larger than memory (train_files, bpe_core)", results["big"] and training_bench.big_table(results["big"])),
        ("Tie rules on one long raw stream", training_bench.tie_rule_table(results.get("ties"))),
        (
            "Tokenize page render, the library's share (target: under a second of server time)",
            results["render"] and render_bench.render_report(results["render"]),
        ),
        (
            "Merge forest (target: every lookup and tree under 1 s; ms: first call (its processor time) / median of 3)",
            results.get("forest") and forest_bench.report(results["forest"]),
        ),
    ]
    for title, body in sections:
        if body:
            log(f"\n### {title}\n")
            log(body)
    log("\n### Targets\n")
    targets = (
        training_bench.training_targets(results["train"])
        + encoding_bench.encoding_targets(results["encode"])
        + training_bench.big_targets(results["big"])
        + training_bench.tie_rule_targets(results.get("ties"))
        + forest_bench.targets(results.get("forest") or {})
    )
    log("\n".join(targets))


def write_json(path: Path, results: dict) -> None:
    payload = {
        "train": [{"label": r.label, "runs": r.runs} for r in results["train"]],
        "encode": [{"label": r.label, "runs": r.runs} for r in results["encode"]],
        "big": results["big"],
    }
    path.write_text(json.dumps(payload, indent=1))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return run_child_task(args.child)
    repeats = args.repeats or (1 if args.quick else 3)
    vocabs = [int(v) for v in (args.vocab or ("2048" if args.quick else "8192,32768")).split(",")]
    data = args.data / ("quick" if args.quick else "full")
    log = print
    log(f"# bpe_core benchmark ({'quick' if args.quick else 'full'}): {versions()}")
    log(f"load average at start: {load_average()}")
    if args.browser:  # the app in a real browser: its own server and Chromium, nothing else
        from bench import browser_bench

        log("\n".join(browser_bench.run(20_000, 2_000_000, args.repeats or 5, log)))
        log(f"\nload average at end: {load_average()}")
        return 0
    if args.scale:
        sizes = [int(s) for s in args.scale_sizes.split(",") if s.strip()]
        tools = available_tools([t for t in args.scale_tools.split(",") if t])
        scale_bench.run(args.data / "scale", sizes, tools, args.repeats or 1, log, real_mb=args.scale_real_mb)
        log(f"\nload average at end: {load_average()}")
        return 0
    if args.dask:
        return dask_bench.main(["--data", str(args.data), "--size-mb", "10" if args.quick else "80"])
    found = prepare_corpora(data, args.quick, log)
    results: dict = {"train": [], "encode": [], "batch": None, "render": [], "big": []}
    if not args.skip_train:
        results["train"] = run_training(found, vocabs, repeats, log)
        log("\n## tie rules: the built-in passages as one raw stream (pattern=None), 3000 merges")
        results["ties"] = training_bench.tie_rule_rounds(repeats, log)
        results["parity"] = parity_bench.run(repeats, log, [2000] if args.quick else parity_bench.VOCAB_SIZES)
    if not args.skip_encode:
        results["encode"] = run_encoding(found, data, args.quick, repeats, log)
        log("\n## building tiktoken's engine for a bpe_core tokenizer (build_engine), fresh process each")
        results["engine_build"] = encoding_bench.engine_build_rounds(repeats, log)
    if not args.skip_batch and not args.skip_encode:
        log("\n## encode_ordinary_batch on the stdlib training documents, cold: one and all CPUs")
        results["batch"] = encoding_bench.batch_rounds(found[0].train_path, repeats, log)
    if not args.skip_render:
        log(
            "\n## Tokenize page: 20,000 characters x 3 tokenizers (per-token details + merge ranks; "
            "HTML rendering is the app's, not measured), first render"
        )
        results["render"] = render_bench.render_rounds(repeats, log)
    if not args.skip_forest:
        log("\n## Merge forest at 50k-200k vocabularies: each page operation, the library's share")
        results["forest"] = forest_bench.run(log, ("gpt2",) if args.quick else forest_bench.NAMES)
    if args.big:
        sizes = [int(s) for s in args.big_sizes.split(",")]
        log(f"\n## train_files on generated files (vocab 8192), sizes {sizes} MB")
        results["big"] = training_bench.big_runs(args.data / "big", sizes, 8192, log)
    log(f"\nload average at end: {load_average()}")
    report(results, log)
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
