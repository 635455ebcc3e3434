#!/usr/bin/env python
"""Every way of training in two checkouts of bpe_core, timed against each other: the merging of
standard BPE (lexicographic and first rule), SuperBPE's stage 2 and Picky BPE on the standard library's
sources, and parity-aware training on the built-in parallel text.

    .venv/bin/python bench/commit_bench.py OLD_CHECKOUT NEW_CHECKOUT --rounds 6

Two worker interpreters, one importing bpe_core from each checkout, load the pre-token counts once
(made by NEW and pickled) and then run one training call at a time, in turn, each round in the other
order; a row's ratio is the median over rounds of new / old measured in the same round, in processor
seconds of the call alone (parity-aware training counts its small text inside the call). The merges
of the two must be the same (``same``). What it does not measure: counting the corpus, reading it,
the interpreter's start.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCENARIOS = ("bpe", "bpe first rule", "superbpe stage 2", "picky", "parity hybrid window")


def _train(data: Path, scenario: str, vocab: int, loaded: dict) -> dict:
    """One training call, with the bpe_core on ``sys.path``; ``loaded`` keeps what was read before."""
    from bpe_core.tokenizer import Tokenizer
    from bpe_core.training.trainer import TrainingSettings, merge_counts

    name = "stage2.pkl" if scenario == "superbpe stage 2" else "stage1.pkl"
    if name not in loaded:
        loaded[name] = pickle.loads((data / name).read_bytes())
    counts = loaded[name]
    stage1 = Tokenizer.from_json((data / "stage1.json").read_text(encoding="utf-8"))
    from bpe_core.corpora.samples import parallel_text

    texts = parallel_text(split="train")
    started = time.process_time()
    if scenario in ("bpe", "bpe first rule"):
        tie = "first" if scenario == "bpe first rule" else "lexicographic"
        tokenizer = merge_counts(counts, TrainingSettings(vocab, 2, "gpt2", (), tie))
    elif scenario == "picky":
        from bpe_core.training.picky import picky_training

        tokenizer = picky_training(
            counts, TrainingSettings(vocab, 2, "gpt2", (), "huggingface"), threshold=0.9
        ).tokenizer()
    elif scenario == "superbpe stage 2":
        from bpe_core.training.superbpe import superwords_from_counts

        tokenizer = superwords_from_counts(stage1, counts, vocab + vocab // 4)
    else:
        from bpe_core.training.parity import train_parity

        first = int(0.8 * (4000 - 256))
        tokenizer = train_parity(texts, texts, 4000, variant="window", global_merges=first, alpha=3.0, pattern="o200k")
    seconds = time.process_time() - started
    digest = hashlib.sha256(json.dumps(tokenizer.merges, default=lambda b: b.hex()).encode()).hexdigest()
    return {"seconds": seconds, "merges": len(tokenizer.merges), "digest": digest}


def _worker(checkout: str) -> None:
    """Read one request a line (JSON: data, scenario, vocab), answer one result a line."""
    sys.path.insert(0, checkout)
    loaded: dict = {}
    for line in sys.stdin:
        spec = json.loads(line)
        result = _train(Path(spec["data"]), spec["scenario"], spec["vocab"], loaded)
        print(json.dumps(result), flush=True)


def _prepare(new: str, data: Path, vocab: int, corpus: Path) -> None:
    """The pickled pre-token counts (GPT-2's pattern; SuperBPE's stage-2 pattern) and stage 1's tokenizer."""
    if (data / "stage1.json").exists():
        return
    sys.path.insert(0, new)
    from bpe_core.pretokenization.pretokenizer import PreTokenizer
    from bpe_core.training.counting import count_words
    from bpe_core.training.superbpe import RECIPES
    from bpe_core.training.trainer import TrainingSettings, merge_counts

    data.mkdir(parents=True, exist_ok=True)
    documents = json.loads(corpus.read_text(encoding="utf-8"))
    stage1 = count_words(documents, pretokenizer=PreTokenizer.build("gpt2"), workers=1)
    (data / "stage1.pkl").write_bytes(pickle.dumps(stage1))
    stage2 = count_words(documents, pretokenizer=PreTokenizer.build(RECIPES["paper"].stage2_pattern), workers=1)
    (data / "stage2.pkl").write_bytes(pickle.dumps(stage2))
    tokenizer = merge_counts(stage1, TrainingSettings(vocab, 2, "gpt2", (), "huggingface"))
    (data / "stage1.json").write_text(tokenizer.to_json(), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", nargs="?", help="the checkout measured against (a folder holding bpe_core/)")
    parser.add_argument("new", nargs="?", help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument(
        "--vocab", type=int, default=16384, help="vocabulary of BPE and Picky BPE (stage 2 adds a quarter)"
    )
    parser.add_argument("--corpus", type=Path, default=BENCH / ".data" / "full" / "stdlib.train.json")
    parser.add_argument("--data", type=Path, default=BENCH / ".data" / "commit_bench")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _worker(args.child)
        return 0
    _prepare(args.new, args.data, args.vocab, args.corpus)
    with open("/proc/loadavg", encoding="ascii") as handle:
        print(f"load average at start: {handle.read().split()[:3]}")
    workers = {
        name: subprocess.Popen(
            [sys.executable, __file__, "--child", getattr(args, name)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("old", "new")
    }
    rows = []
    for scenario in args.scenarios.split(","):
        ratios, times, digests = [], {"old": [], "new": []}, set()
        for number in range(args.rounds + 1):  # the first round warms up and is not counted
            seconds = {}
            for name in ("new", "old") if number % 2 else ("old", "new"):
                worker = workers[name]
                request = {"data": str(args.data), "scenario": scenario, "vocab": args.vocab}
                worker.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
                worker.stdin.flush()  # type: ignore[union-attr]
                result = json.loads(worker.stdout.readline())  # type: ignore[union-attr]
                seconds[name] = result["seconds"]
                digests.add((result["merges"], result["digest"]))
            if number:
                ratios.append(seconds["new"] / seconds["old"])
                times["old"].append(seconds["old"])
                times["new"].append(seconds["new"])
            print(f"  {scenario} round {number}: old {seconds['old']:.2f} s, new {seconds['new']:.2f} s", flush=True)
        merges = sorted(digests)[0][0]
        old_median, new_median = statistics.median(times["old"]), statistics.median(times["new"])
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
        same = "yes" if len(digests) == 1 else "NO"
        rows.append(
            f"| {scenario} | {merges:,} | {old_median:.2f} s | {new_median:.2f} s "
            f"| {statistics.median(ratios):.3f} ({spread}) | {same} |"
        )
    for worker in workers.values():
        worker.stdin.close()  # type: ignore[union-attr]
        worker.wait()
    with open("/proc/loadavg", encoding="ascii") as handle:
        print(f"load average at the end: {handle.read().split()[:3]}")
    print("\n| training | merges | old (median CPU) | new (median CPU) | new / old, median (range) | same merges |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
