#!/usr/bin/env python
"""SuperBPE and Picky BPE against BPE on real code and documentation: compression on held-out text,
and the time and peak memory of SuperBPE's two stages.

    .venv/bin/python bench/variants_bench.py                       # 100 MB, vocab 32768, t = 80%
    .venv/bin/python bench/variants_bench.py --size-mb 30 --vocab 32768,65536

The corpus is the scale benchmark's real one (``corpora.prepare_real_file``: the machine's .py, .pyi,
.md, .rst and .txt files, de-duplicated, in a seeded shuffle, whole files until the size); the held-out
text is the files that come next in the same order (none of them trained on), cut into code (.py,
.pyi) and documentation (.md, .rst, .txt), about ``--heldout-mb`` of each. Every tokenizer uses the
paper's stage-1 pre-tokenization (SuperBPE's recipe "paper"), ``min_frequency`` 2 and Hugging Face's
tie rule, so BPE is SuperBPE without stage 2. Each training runs in a fresh interpreter, one at a
time, timed from the call (counting included) with its CPU time and peak resident size (VmHWM; no worker processes
are started: custom patterns count in one process): BPE to the full vocabulary, SuperBPE's stage 1
(BPE to t = ``--transition`` of the vocabulary), its stage 2 from stage 1's saved tokenizer (count
the stage-2 pieces, encode each distinct one by the inherited merges, merge), and Picky BPE
(``--threshold``). One run: all ratios come from the same run. The report prints a Markdown section.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpora import prepare_real_file, real_sources
from bench.timing import MB, load_average, own_peak_rss, run_script_child, versions

DEFAULT_DATA = Path(__file__).resolve().parent / ".data"
CODE_SUFFIXES = (".py", ".pyi")


# ------------------------------------------------------------------------------------------------
# in the child process


def _train(spec: dict) -> dict:
    """One training (``spec["step"]``), saved to ``spec["output"]``; its wall seconds and details."""
    from bpe_core.tokenizer import Tokenizer
    from bpe_core.training.counting import count_files
    from bpe_core.training.picky import picky_training
    from bpe_core.training.superbpe import RECIPES, superwords_from_counts
    from bpe_core.training.trainer import TrainingSettings, merge_counts

    recipe = RECIPES["paper"]
    path, step = spec["path"], spec["step"]
    pattern = recipe.stage2_pattern if step == "stage2" else recipe.stage1_pattern
    vocab = spec["vocab_size"]
    started, cpu = time.perf_counter(), time.process_time()
    counts = count_files([path], pretokenizer=TrainingSettings(300, pattern=pattern).pretokenizer(), workers=1)
    if step == "stage2":
        stage1 = Tokenizer.from_json(Path(spec["stage1"]).read_text(encoding="utf-8"))
        tokenizer = superwords_from_counts(stage1, counts, vocab, started=started)
    else:
        settings = TrainingSettings(vocab, 2, pattern, (), "huggingface", step)
        if step == "picky":
            tokenizer = picky_training(counts, settings, threshold=spec["threshold"], started=started).tokenizer()
        else:
            tokenizer = merge_counts(counts, settings, started=started)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    tokenizer.save(spec["output"])
    training = tokenizer.training
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "merges": len(tokenizer.merges),
        "vocab_size": tokenizer.vocab_size,
        "unique_pieces": training["corpus"]["unique_pretokens"],
        "superbpe": training.get("superbpe"),
        "removals": training.get("picky", {}).get("removals"),
        "stop_reason": training["stop_reason"],
    }


def _measure(spec: dict) -> dict:
    """Every saved tokenizer on the held-out texts (``analysis.variants.compare_variants``)."""
    from bpe_core.analysis.variants import HeldOutSample, compare_variants
    from bpe_core.tokenizer import Tokenizer

    tokenizers = {
        label: Tokenizer.from_json(Path(file).read_text(encoding="utf-8")) for label, file in spec["tokenizers"].items()
    }
    samples = [
        HeldOutSample(kind, kind, kind, Path(file).read_text(encoding="utf-8"))
        for kind, file in spec["heldout"].items()
    ]
    started = time.perf_counter()
    result = compare_variants(tokenizers, samples, baseline="BPE")
    return {
        "seconds": time.perf_counter() - started,
        "summary": result.summary,
        "superwords": result.superwords,
        "removed": result.removed,
    }


CHILD_TASKS = {"train": _train, "measure": _measure}


def run_child(spec: dict, timeout: float = 6 * 3600) -> dict:
    """``spec`` in a fresh interpreter (this script with ``--child``); its result and peak RSS."""
    return run_script_child(Path(__file__).resolve(), spec, timeout=timeout)


# ------------------------------------------------------------------------------------------------
# in the parent


def prepare(data: Path, size_mb: float, heldout_mb: float, log=print) -> tuple[Path, dict[str, Path], dict]:
    """The training file and the held-out code and documentation files (the files after the
    training ones in ``prepare_real_file``'s order)."""
    sources = real_sources()
    train = data / f"real-{size_mb:g}MB.txt"
    made = prepare_real_file(train, int(size_mb * MB), sources)
    chosen = list(sources)
    random.Random(0).shuffle(chosen)  # prepare_real_file's order
    heldout = {kind: data / f"real-{size_mb:g}MB-heldout-{kind}.txt" for kind in ("code", "docs")}
    parts: dict[str, list[bytes]] = {"code": [], "docs": []}
    for source, content in chosen[made["files"] :]:
        kind = "code" if source.suffix in CODE_SUFFIXES else "docs"
        if sum(map(len, parts[kind])) < heldout_mb * MB:
            parts[kind].append(content if content.endswith(b"\n") else content + b"\n")
    for kind, path in heldout.items():
        path.write_bytes(b"".join(parts[kind]))
    log(
        f"training: {made['bytes'] / MB:.1f} MB in {made['files']:,} files {made['kinds']}; held out: "
        + ", ".join(f"{kind} {path.stat().st_size / MB:.1f} MB" for kind, path in heldout.items())
    )
    return train, heldout, made


def run(
    data: Path, size_mb: float, vocab: int, transition: float, threshold: float, heldout_mb: float, log=print
) -> dict:
    """Train the four, measure them; the results as one dict (what the report prints)."""
    from bpe_core.training.superbpe import transition_merges

    data.mkdir(parents=True, exist_ok=True)
    train, heldout, made = prepare(data, size_mb, heldout_mb, log)
    out = data / f"variants-{size_mb:g}MB-{vocab}"
    out.mkdir(exist_ok=True)
    merges = transition_merges(transition, vocab)
    steps = {
        "BPE": {"step": "bpe", "vocab_size": vocab},
        "SuperBPE stage 1": {"step": "stage1", "vocab_size": 256 + merges},
        "SuperBPE stage 2": {"step": "stage2", "vocab_size": vocab, "stage1": str(out / "SuperBPE stage 1.json")},
        f"Picky T={threshold}": {"step": "picky", "vocab_size": vocab, "threshold": threshold},
    }
    results: dict = {
        "corpus": made,
        "load_before": load_average(),
        "versions": versions(),
        "trainings": {},
        "vocab": vocab,
        "transition": transition,
        "transition_merges": merges,
        "size_mb": size_mb,
    }
    for label, step in steps.items():
        log(f"training {label} ...")
        spec = {"task": "train", "path": str(train), "output": str(out / f"{label}.json"), **step}
        results["trainings"][label] = run_child(spec)
        done = results["trainings"][label]
        log(f"  {done['seconds']:.1f} s, peak {done['own_peak_rss'] / MB:.0f} MB")
    tokenizers = {
        "BPE": out / "BPE.json",
        f"SuperBPE t={transition}": out / "SuperBPE stage 2.json",
        f"Picky T={threshold}": out / f"Picky T={threshold}.json",
    }
    log("measuring on the held-out text ...")
    results["measure"] = run_child(
        {
            "task": "measure",
            "tokenizers": {k: str(v) for k, v in tokenizers.items()},
            "heldout": {k: str(v) for k, v in heldout.items()},
        }
    )
    results["load_after"] = load_average()
    return results


def report(results: dict) -> str:
    """The Markdown section: compression on held-out text, then time and memory."""
    lines = [
        f"{results['size_mb']:g} MB of real code and documentation, vocab {results['vocab']:,}, SuperBPE t = "
        f"{results['transition']:.0%} of the vocabulary ({results['transition_merges']:,} merges inherited); "
        f"{results['versions']}; load {results['load_before']} before, {results['load_after']} after.",
        "",
        "| tokenizer | held-out text | tokens per byte | tokens saved vs BPE | Rényi eff. (2.5) | unique tokens "
        "| avg rank | superword share |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in results["measure"]["summary"]:
        if row["sample"] in ("code", "docs", "all"):
            saved = "-" if row["saved_vs_bpe"] is None else f"{row['saved_vs_bpe']:+.1%}"
            share = "-" if row["superword_share"] is None else f"{row['superword_share']:.1%}"
            lines.append(
                f"| {row['variant']} | {row['sample']} | {row['tokens_per_byte']:.4f} | {saved} | "
                f"{row['renyi_efficiency']:.3f} | {row['unique_tokens']:,} | {row['avg_token_rank']:.0f} | "
                f"{share} |"
            )
    lines += [
        "",
        "| training | wall | CPU | peak RSS | merges | distinct pieces | detail |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, run_ in results["trainings"].items():
        detail = ""
        if run_.get("superbpe"):
            parts = run_["superbpe"]
            detail = (
                f"count {parts['stage2_count_seconds']:.0f} s, encode pieces "
                f"{parts['stage2_encode_seconds']:.0f} s, merge {parts['stage2_merge_seconds']:.0f} s; "
                f"{parts['forbidden_pairs']:,} pairs refused"
            )
        elif run_.get("removals") is not None:
            detail = f"{run_['removals']:,} removals"
        lines.append(
            f"| {label} | {run_['seconds']:.1f} s | {run_['cpu_seconds']:.1f} s | "
            f"{run_['own_peak_rss'] / MB:.0f} MB | {run_['merges']:,} | {run_['unique_pieces']:,} | "
            f"{detail} |"
        )
    one, two = results["trainings"]["SuperBPE stage 1"], results["trainings"]["SuperBPE stage 2"]
    ratios = (
        two["seconds"] / one["seconds"],
        two["cpu_seconds"] / one["cpu_seconds"],
        two["own_peak_rss"] / one["own_peak_rss"],
    )
    lines += ["", "Stage 2 / stage 1: wall time {:.2f}x, CPU time {:.2f}x, peak memory {:.2f}x.".format(*ratios)]
    for variant, found in results["measure"]["superwords"].items():
        lines.append(f"Most frequent superwords of {variant}: " + ", ".join(f"`{t}` {c:,}" for t, c in found[:8]))
    for variant, removed in results["measure"]["removed"].items():
        lines.append(f"First tokens removed by {variant}: " + ", ".join(f"`{t}`" for t in removed[:8]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=100, help="training corpus size (default 100)")
    parser.add_argument("--heldout-mb", type=float, default=2, help="held-out code and documentation, each (MB)")
    parser.add_argument("--vocab", default="32768", help="vocabulary sizes, comma separated")
    parser.add_argument("--transition", type=float, default=0.8, help="SuperBPE's t as a share of the vocabulary")
    parser.add_argument("--threshold", type=float, default=0.9, help="Picky BPE's IoS threshold")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where corpora and tokenizers are written")
    parser.add_argument("--json", type=Path, help="also write all results as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        spec = json.loads(args.child)
        result = CHILD_TASKS[spec["task"]](spec)
        result["own_peak_rss"] = own_peak_rss()
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    everything = []
    for vocab in (int(v) for v in args.vocab.split(",") if v):
        results = run(args.data, args.size_mb, vocab, args.transition, args.threshold, args.heldout_mb)
        everything.append(results)
        print(report(results))
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
