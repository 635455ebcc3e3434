#!/usr/bin/env python
"""Extending Llama 3 and GPT-2 for a language (``bpe_core.extend``, new tokens only in its scripts)
against training a tokenizer of the same size from scratch: time and peak memory, and what each added
token saves on held-out text.

    .venv/bin/python bench/extend_bench.py                                  # Russian, 100 MB, +2k, +8k, +16k
    .venv/bin/python bench/extend_bench.py --language hin --size-mb 10 --add 1000,4000 --bases gpt2

The corpus is generated on the machine (``language_like``), since no 100 MB of any language ships with
the project: a lexicon of ``LEXICON`` made-up words drawn letter by letter from a second-order character
model of the language's built-in training sentences (``bpe_core.corpora.samples``, lines 1-90), each
word given a Zipf weight (rank ** -1.05), and sentences of 6 to 18 of them drawn by weight, ended by a
full stop (a danda in Hindi). Its statistics are the language's letters, and its word frequencies a
natural language's, but its words are made up: the figures are about the method's cost, the saving is
indicative. Held out: 1 MB more of the same text (other seeds, never trained on), and the language's
built-in held-out sentences (lines 91-120, real text) with English's for the premium.

Each run is a fresh interpreter (this script with ``--child``), one at a time, counting in one process
(``workers=1``) so that its own peak resident size (VmHWM) is the run's: an extension (base loaded,
corpus counted with its pre-tokenization, pieces encoded by it, merges, the tokenizer built and checked
on the built-in samples), and per base one training from scratch with its pattern and special tokens to
the largest size, the time to each smaller size read from its progress (the merges of a smaller
vocabulary are a prefix). One run: the ratios come from the same run. The report prints a Markdown section.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MB, load_average, own_peak_rss, run_script_child, versions

DEFAULT_DATA = Path(__file__).resolve().parent / ".data"
#: How many made-up words the generated language has.
LEXICON = 100_000
#: The letters of context of the character model (a third-order model of 90 sentences knows too few words).
ORDER = 2
HELDOUT_MB = 1.0
#: What ends a sentence, by language (a full stop otherwise).
SENTENCE_END = {"hin": "।"}


# ------------------------------------------------------------------------------------------------
# the corpus


def _letter_model(lines: list[str], order: int = ORDER) -> dict[str, Counter]:
    """What follows each ``order`` letters in the words of ``lines`` (``^`` pads a word's start, ``$`` ends it)."""
    model: dict[str, Counter] = defaultdict(Counter)
    for line in lines:
        for word in line.replace("।", " ").replace(",", " ").split():
            padded = "^" * order + word + "$"
            for i in range(order, len(padded)):
                model[padded[i - order : i]][padded[i]] += 1
    return model


@functools.cache  # the training and held-out text share it
def _lexicon(language: str, size: int, seed: int) -> list[str]:
    from bpe_core.corpora.samples import parallel_text

    model = _letter_model(parallel_text(split="train", languages=[language])[language])
    tables = {key: (list(c), list(c.values())) for key, c in model.items()}
    rng = random.Random(seed)
    words: dict[str, None] = {}
    for _ in range(100 * size):  # bounded: a model that knows fewer words stops with a message
        state, word = "^" * ORDER, ""
        while len(word) < 16:
            letters, weights = tables[state]
            letter = rng.choices(letters, weights)[0]
            if letter == "$":
                break
            word += letter
            state = state[1:] + letter
        if len(word) >= 2:
            words[word] = None
            if len(words) == size:
                return list(words)
    raise SystemExit(f"the character model made only {len(words):,} distinct words of the {size:,} asked")


def language_like(language: str, path: Path, size_bytes: int, *, seed: int = 0, lexicon_seed: int = 0) -> dict:
    """Write ``size_bytes`` (about) of text generated for ``language`` to ``path`` (see the module docstring)."""
    words = _lexicon(language, LEXICON, lexicon_seed)
    end = SENTENCE_END.get(language, ".")
    cumulative, total = [], 0.0
    for rank in range(len(words)):
        total += (rank + 1) ** -1.05
        cumulative.append(total)
    rng = random.Random(1000 + seed)
    written, lines = 0, 0
    with path.open("w", encoding="utf-8") as out:
        while written < size_bytes:
            block = []
            for _ in range(2000):
                chosen = rng.choices(words, cum_weights=cumulative, k=rng.randint(6, 18))
                block.append(" ".join(chosen) + end + "\n")
            text = "".join(block)
            out.write(text)
            written += len(text.encode("utf-8"))
            lines += len(block)
    return {"bytes": written, "lines": lines, "lexicon": len(words)}


# ------------------------------------------------------------------------------------------------
# in the child process


def _extend(spec: dict) -> dict:
    import bpe_core
    from bpe_core.analysis.extension import extension_report
    from bpe_core.corpora.samples import parallel_text

    base = bpe_core.load(spec["base"])
    started, cpu = time.perf_counter(), time.process_time()
    extended = bpe_core.extend(base, files=[spec["path"]], add=spec["add"], scripts=spec["scripts"], workers=1)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = own_peak_rss()
    record = extended.training["extension"]
    language = spec["language"]
    real = parallel_text(split="heldout", languages=[language, "eng"])
    generated = Path(spec["heldout"]).read_text(encoding="utf-8").splitlines()
    on_real = extension_report(base, extended, real[language], reference=real["eng"], points=2)
    on_generated = extension_report(base, extended, generated, points=2)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "own_peak_rss": peak,
        "added": record["added"],
        "stop_reason": extended.training["stop_reason"],
        "count_seconds": record["seconds"]["count"],
        "merge_seconds": record["seconds"]["merge"],
        "unique_pieces": extended.training["corpus"]["unique_pretokens"],
        "other_text_changed": record["other_text"]["pretokens_changed"],
        "real": [(p.tokens, p.reference_tokens) for p in on_real.curve],
        "generated": [p.tokens for p in on_generated.curve],
        "unused_real": len(on_real.unused),
    }


def _scratch(spec: dict) -> dict:
    """A tokenizer trained from scratch with the base's pattern and special tokens to the largest
    size; the seconds (from the call) at which each size's merges were done."""
    import bpe_core

    base = bpe_core.load(spec["base"])
    targets = sorted(size - 256 - len(base.special_tokens) for size in spec["sizes"])
    reached: dict[int, float] = {}
    reached_cpu: dict[int, float] = {}
    started, cpu = time.perf_counter(), time.process_time()
    counted: list[float] = []

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter() - started
        if phase == "merge":
            if not counted:
                counted.append(now)
            for target in targets:
                if done >= target and target not in reached:
                    reached[target] = now
                    reached_cpu[target] = time.process_time() - cpu

    trained = bpe_core.train_files(
        [spec["path"]],
        max(spec["sizes"]),
        pattern=base._pattern_argument,
        special_tokens=list(base.special_tokens),
        tie_break="huggingface",
        workers=1,
        progress=progress,
    )
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "own_peak_rss": own_peak_rss(),
        "count_seconds": counted[0] if counted else seconds,
        "reached": {str(target + 256 + len(base.special_tokens)): t for target, t in reached.items()},
        "reached_cpu": {str(target + 256 + len(base.special_tokens)): t for target, t in reached_cpu.items()},
        "merges": len(trained.merges),
        "stop_reason": trained.training["stop_reason"],
    }


CHILD_TASKS = {"extend": _extend, "scratch": _scratch}


def run_child(spec: dict, timeout: float = 6 * 3600) -> dict:
    """``spec`` in a fresh interpreter (this script with ``--child``); its result."""
    return run_script_child(Path(__file__).resolve(), spec, timeout=timeout)


# ------------------------------------------------------------------------------------------------
# in the parent


def run(language: str, data: Path, size_mb: float, adds: list[int], bases: list[str], log=print) -> dict:
    """Generate the corpus, extend each base by each number, train from scratch; the results."""
    import bpe_core
    from bpe_core.corpora.samples import parallel_text
    from bpe_core.training.scripts import dominant_scripts

    data.mkdir(parents=True, exist_ok=True)
    train, heldout = data / f"{language}-like-{size_mb:g}MB.txt", data / f"{language}-like-heldout.txt"
    made = language_like(language, train, int(size_mb * MB))
    language_like(language, heldout, int(min(HELDOUT_MB, size_mb) * MB), seed=1)
    scripts = list(dominant_scripts(Counter(parallel_text(split="train", languages=[language])[language])))
    log(f"corpus: {made['bytes'] / MB:.1f} MB, {made['lines']:,} lines, a lexicon of {made['lexicon']:,} words")
    results: dict = {"language": language, "scripts": scripts, "corpus": made, "size_mb": size_mb, "adds": adds}
    results["versions"] = versions()
    results["load_before"] = load_average()
    for name in bases:
        size = bpe_core.load(name).vocab_size
        entry: dict = {"vocab_size": size, "extend": {}}
        for add in adds:
            log(f"extending {name} by {add:,} ...")
            spec = {"task": "extend", "base": name, "add": add, "path": str(train), "heldout": str(heldout)}
            spec.update(language=language, scripts=scripts)
            entry["extend"][add] = done = run_child(spec)
            log(f"  {done['seconds']:.1f} s, peak {done['own_peak_rss'] / MB:.0f} MB, {done['added']:,} added")
        log(f"training from scratch to {size + max(adds):,} ids with {name}'s pattern ...")
        spec = {"task": "scratch", "base": name, "sizes": [size + add for add in adds], "path": str(train)}
        entry["scratch"] = done = run_child(spec)
        log(f"  {done['seconds']:.1f} s, peak {done['own_peak_rss'] / MB:.0f} MB")
        results[name] = entry
    results["load_after"] = load_average()
    return results


def report(results: dict) -> str:
    """The results as a Markdown section (tables for bench/PERFORMANCE.md)."""
    lines = [
        f"Corpus: {results['corpus']['bytes'] / MB:.1f} MB of generated {results['language']}-like text "
        f"({results['corpus']['lines']:,} lines, a lexicon of {results['corpus']['lexicon']:,} words), new tokens "
        f"only in {', '.join(results['scripts'])}; load average {results['load_before']} before, "
        f"{results['load_after']} after. {results['versions']}",
        "",
        "| base | added | extend: wall (count, merge) | extend: CPU | from scratch to the same size: wall, CPU "
        "| wall ratio | CPU ratio | extend: peak | from scratch: peak | memory ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    savings = [
        "| base | added | real held-out sentences: tokens before → after (saved) | premium over English "
        "| generated held-out text: saved | its share saved per 1,000 more tokens (from the row above) "
        "| new tokens unused on the real sentences |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    notes = []
    for name in (key for key in results if isinstance(results[key], dict) and "extend" in results[key]):  # the bases
        entry = results[name]
        scratch = entry["scratch"]
        notes.append(
            f"From scratch with {name}'s pattern and special tokens: {scratch['merges']:,} merges "
            f"({scratch['stop_reason']}) in {scratch['seconds']:.1f} s wall, {scratch['cpu_seconds']:.1f} s CPU "
            f"(counting {scratch['count_seconds']:.1f} s), peak {scratch['own_peak_rss'] / MB:.0f} MB."
        )
        previous = (0, 0.0)  # tokens added, share of the generated held-out text saved
        for add, done in sorted(entry["extend"].items(), key=lambda item: int(item[0])):
            add = int(add)
            reached = scratch["reached"].get(str(entry["vocab_size"] + add))
            reached_cpu = scratch.get("reached_cpu", {}).get(str(entry["vocab_size"] + add))
            same_size = f"{reached:.1f} s" if reached else f"not reached ({scratch['merges']:,} merges at most)"
            same_size += f", {reached_cpu:.1f} s" if reached_cpu else ""
            ratio = f"{done['seconds'] / reached:.2f}x" if reached else "—"
            cpu_ratio = f"{done['cpu_seconds'] / reached_cpu:.2f}x" if reached_cpu else "—"
            memory = done["own_peak_rss"] / scratch["own_peak_rss"]
            lines.append(
                f"| {name} | {done['added']:,} | {done['seconds']:.1f} s ({done['count_seconds']:.1f} s, "
                f"{done['merge_seconds']:.1f} s) | {done['cpu_seconds']:.1f} s | {same_size} | {ratio} | {cpu_ratio} | "
                f"{done['own_peak_rss'] / MB:.0f} MB | {scratch['own_peak_rss'] / MB:.0f} MB | {memory:.2f}x |"
            )
            (before, english), (after, _) = done["real"]
            generated_before, generated_after = done["generated"]
            generated_saved = (generated_before - generated_after) / generated_before
            more = (generated_saved - previous[1]) * 1000 / max(done["added"] - previous[0], 1)
            previous = (done["added"], generated_saved)
            savings.append(
                f"| {name} | {done['added']:,} | {before:,} → {after:,} ({(before - after) / before:.1%}) | "
                f"{before / english:.2f}x → {after / english:.2f}x | {generated_saved:.1%} | "
                f"{more * 100:.1f} points | {done['unused_real']:,} |"
            )
    return "\n".join(lines + [""] + notes + [""] + savings) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--language", default="rus", help="a language of the built-in parallel text (default rus)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where the generated corpus is written")
    parser.add_argument("--size-mb", type=float, default=100.0)
    parser.add_argument("--add", default="2000,8000,16000", help="the numbers of tokens to add, comma-separated")
    parser.add_argument("--bases", default="llama3,gpt2", help="the built-ins to extend, comma-separated")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    parser.add_argument("--report", type=Path, metavar="JSON", help="print the report of an earlier run's --json")
    args = parser.parse_args(argv)
    if args.report:
        print(report(json.loads(args.report.read_text(encoding="utf-8"))))
        return 0
    if args.child:
        spec = json.loads(args.child)
        print(json.dumps(CHILD_TASKS[spec["task"]](spec)))
        return 0
    adds = [int(value) for value in args.add.split(",")]
    results = run(
        args.language, args.data, args.size_mb, adds, args.bases.split(","), log=lambda *a: print(*a, file=sys.stderr)
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
