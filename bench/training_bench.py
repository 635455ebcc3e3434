"""Training time, peak memory and held-out compression: bpe_core against HF tokenizers and rustbpe.

``train_rounds`` trains each tool on one corpus (a JSON list of documents) to one vocabulary size
with GPT-2's pre-tokenization, in a child process per run, timing the training call only; the child
then encodes the held-out text with the result, for characters per token. ``big_runs`` is the
larger-than-memory case: ``bpe_core.train_files`` on generated files under a 1.5 GB address-space
limit, timing wall and CPU seconds (the counting workers' included). ``tie_rule_rounds`` times
bpe_core's tie rules against each other on one long raw stream (the built-in passages, 34 KB, as
one document with ``pattern=None``), where the first-seen rule used to be 90x slower.

What it does not measure: reading the corpus, interpreter start-up, building a tokenizer for
encoding, or the quality of the merges beyond held-out characters per token (the tests check that
bpe_core's merges are the textbook's). HF and rustbpe are not run on the --big files.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from pathlib import Path

from bench.corpora import Corpus, generate_big_file, stdlib_sources
from bench.timing import MB, Rounds, fmt_ratio, rotated, run_child, verdict

TRAIN_TOOLS = ("bpe_core", "hf", "rustbpe")


# ------------------------------------------------------------------------------------------------
# in the child process: one tool's training call


def _train_bpe_core(docs: list[str], spec: dict):
    import bpe_core

    kwargs = {} if spec.get("workers") is None else {"workers": spec["workers"]}
    started = time.perf_counter()
    tok = bpe_core.train(docs, spec["vocab_size"], min_frequency=spec.get("min_frequency", 2), **kwargs)
    seconds = time.perf_counter() - started
    digest = hashlib.sha256(json.dumps(tok.merges, default=lambda b: b.hex()).encode()).hexdigest()
    return seconds, len(tok.merges), tok.encode_ordinary, digest


def _train_hf(docs: list[str], spec: dict):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=spec["vocab_size"],
        min_frequency=spec.get("min_frequency", 2),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    started = time.perf_counter()
    tok.train_from_iterator(docs, trainer=trainer, length=len(docs))
    seconds = time.perf_counter() - started
    return seconds, tok.get_vocab_size() - 256, lambda text: tok.encode(text).ids, None


def _train_rustbpe(docs: list[str], spec: dict):
    import rustbpe

    from bpe_core.pretokenization.pretokenizer import GPT2_PATTERN

    tok = rustbpe.Tokenizer()
    started = time.perf_counter()
    tok.train_from_iterator(iter(docs), spec["vocab_size"], pattern=GPT2_PATTERN)
    seconds = time.perf_counter() - started
    return seconds, tok.vocab_size - 256, tok.encode, None


TRAINERS = {"bpe_core": _train_bpe_core, "hf": _train_hf, "rustbpe": _train_rustbpe}


def child_train(spec: dict) -> dict:
    """Train one tool on a corpus; time the training call only, then encode the held-out text."""
    if spec["tool"] not in TRAINERS:
        raise ValueError(f"unknown training tool {spec['tool']!r}")
    docs = json.loads(Path(spec["train"]).read_text(encoding="utf-8"))
    heldout = Path(spec["heldout"]).read_text(encoding="utf-8")
    seconds, merges, encode, digest = TRAINERS[spec["tool"]](docs, spec)
    return {
        "seconds": seconds,
        "merges": merges,
        "heldout_chars": len(heldout),
        "heldout_tokens": len(encode(heldout)),
        "merges_sha256": digest,
    }


def child_train_files(spec: dict) -> dict:
    """bpe_core.train_files on one (big) file, wall and CPU time (this process and its workers)."""
    import resource

    import bpe_core

    def cpu():
        own = resource.getrusage(resource.RUSAGE_SELF)
        workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the counting workers, once ended
        return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime

    cpu_before = cpu()
    started = time.perf_counter()
    tok = bpe_core.train_files(spec["path"], spec["vocab_size"], min_frequency=spec.get("min_frequency", 2))
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "cpu_seconds": cpu() - cpu_before,
        "merges": len(tok.merges),
        "unique_pretokens": tok.training["corpus"]["unique_pretokens"],
    }


def child_tie_rule(spec: dict) -> dict:
    """bpe_core.train on the built-in passages as one raw stream with one tie rule."""
    import bpe_core
    from bpe_core.corpora.samples import load_samples

    text = "\n".join(sample.text for sample in load_samples("natural"))
    started = time.perf_counter()
    tok = bpe_core.train(text, 256 + spec["merges"], pattern=None, min_frequency=1, tie_break=spec["tie_break"])
    seconds = time.perf_counter() - started
    digest = hashlib.sha256(json.dumps(tok.merges, default=lambda b: b.hex()).encode()).hexdigest()
    return {"seconds": seconds, "merges": len(tok.merges), "bytes": len(text.encode("utf-8")), "merges_sha256": digest}


CHILD_TASKS = {"train": child_train, "train_files": child_train_files, "tie_rule": child_tie_rule}


# ------------------------------------------------------------------------------------------------
# in the parent: scenarios and their report


def train_rounds(corpus: Corpus, vocab_size: int, tools: list[str], repeats: int, log=print, **extra) -> Rounds:
    """``repeats`` rounds of training every tool on ``corpus``, the first tool changing each round."""
    rounds = Rounds(f"{corpus.name} vocab {vocab_size}")
    for number in range(repeats):
        for tool in rotated(list(tools), number):
            spec = {
                "task": "train",
                "tool": tool,
                "train": str(corpus.train_path),
                "heldout": str(corpus.heldout_path),
                "vocab_size": vocab_size,
                **extra,
            }
            result = rounds.add(tool, run_child(spec))
            log(
                f"  round {number + 1} {tool:9s} {result['seconds']:7.2f} s  "
                f"peak {result['peak_rss'] / MB:7.1f} MB  merges {result['merges']}"
            )
    return rounds


def big_runs(data_dir: Path, sizes_mb: list[int], vocab_size: int, log=print) -> list[dict]:
    """bpe_core.train_files on generated files of ``sizes_mb``, one child each."""
    sources = [p.read_text(encoding="utf-8") for p in stdlib_sources()]
    results = []
    for size in sizes_mb:
        path = generate_big_file(data_dir / f"big-{size}MB.txt", size * MB, sources)
        spec = {"task": "train_files", "path": str(path), "vocab_size": vocab_size}
        # A 1.5 GB address-space limit per process: loading the 1 GB file (bytes, then str) could
        # not fit, so passing proves streaming.
        result = run_child(spec, memory_limit=int(1.5 * 2**30))
        result["size_mb"] = size
        results.append(result)
        log(
            f"  {size:5d} MB  {result['seconds']:8.1f} s  {result['seconds'] / size:6.3f} s/MB  "
            f"CPU {result['cpu_seconds'] / size:6.3f} s/MB  peak {result['peak_rss'] / MB:7.1f} MB  "
            f"unique pre-tokens {result['unique_pretokens']:,}"
        )
    return results


def tie_rule_rounds(repeats: int, log=print, merges: int = 3000) -> Rounds:
    """``repeats`` rounds of every tie rule on one long raw stream, the first rule changing each round."""
    from bpe_core.training.tie_rules import TIE_BREAKS

    rounds = Rounds(f"raw stream, {merges} merges")
    for number in range(repeats):
        for rule in rotated(list(TIE_BREAKS), number):
            result = rounds.add(rule, run_child({"task": "tie_rule", "tie_break": rule, "merges": merges}))
            log(f"  round {number + 1} {rule:13s} {result['seconds']:7.2f} s  merges {result['merges']}")
    return rounds


def tie_rule_table(rounds: Rounds | None) -> str:
    if rounds is None or not rounds.runs:
        return ""
    size = next(iter(rounds.runs.values()))[0]["bytes"]
    lines = [
        f"The built-in passages as one document ({size / 1000:.0f} KB, pattern=None, min_frequency 1), {rounds.label}.",
        "",
        "| tie rule | time (median) | rule / lexicographic (median of rounds) |",
        "|---|---|---|",
    ]
    for rule in rounds.runs:
        lines.append(
            f"| {rule} | {rounds.median(rule, 'seconds'):.2f} s | {fmt_ratio(rounds.ratio(rule, 'lexicographic'))} |"
        )
    return "\n".join(lines)


def tie_rule_targets(rounds: Rounds | None) -> list[str]:
    """The target: the first-seen rule at most twice the lexicographic rule's time."""
    if rounds is None or not rounds.has("first", "lexicographic"):
        return []
    ratio = rounds.ratio("first", "lexicographic")
    return [
        verdict(
            f"first tie rule on one long raw stream ({rounds.label}) <= 2x lexicographic", ratio <= 2, f"{ratio:.2f}x"
        )
    ]


def training_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| corpus, vocab | tool | time (median) | bpe_core / tool (median of rounds) | peak RSS (tree) "
        "| peak vs bpe_core | held-out chars/token | merges |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        for tool in rounds.runs:
            peak = rounds.median(tool, "peak_rss")
            cpt = statistics.median(r["heldout_chars"] / r["heldout_tokens"] for r in rounds.runs[tool])
            ratio = "" if tool == "bpe_core" else fmt_ratio(rounds.ratio("bpe_core", tool))
            ours = rounds.median("bpe_core", "peak_rss")
            mem = "" if tool == "bpe_core" or ours is None else f"{ours / peak:.2f}x"
            lines.append(
                f"| {rounds.label} | {tool} | {rounds.median(tool, 'seconds'):.2f} s | {ratio} "
                f"| {peak / MB:.0f} MB | {mem} | {cpt:.3f} | {int(rounds.median(tool, 'merges'))} |"
            )
    return "\n".join(lines)


def big_table(results: list[dict]) -> str:
    lines = [
        "| size | wall time | wall s/MB | CPU s/MB (all processes) | peak RSS (tree) | unique pre-tokens |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['size_mb']} MB | {r['seconds']:.1f} s | {r['seconds'] / r['size_mb']:.3f} "
            f"| {r['cpu_seconds'] / r['size_mb']:.3f} | {r['peak_rss'] / MB:.0f} MB | {r['unique_pretokens']:,} |"
        )
    return "\n".join(lines)


def training_targets(train: list[Rounds]) -> list[str]:
    """The training targets against HF, per corpus and vocabulary, as PASS/FAIL lines."""
    out = []
    for rounds in filter(lambda r: r.has("bpe_core", "hf"), train):
        ratio = rounds.ratio("bpe_core", "hf")
        limit = 1.0 if int(rounds.label.rsplit(" ", 1)[1]) <= 8192 else 1.5
        extra = f"; vs rustbpe {fmt_ratio(rounds.ratio('bpe_core', 'rustbpe'))}" if rounds.has("rustbpe") else ""
        out.append(verdict(f"training time {rounds.label} <= {limit}x HF", ratio <= limit, f"{ratio:.2f}x{extra}"))
        mem = rounds.median("bpe_core", "peak_rss") / rounds.median("hf", "peak_rss")
        out.append(verdict(f"peak memory {rounds.label} <= 2x HF", mem <= 2, f"{mem:.2f}x"))
        ours = rounds.median("bpe_core", "heldout_chars") / rounds.median("bpe_core", "heldout_tokens")
        theirs = rounds.median("hf", "heldout_chars") / rounds.median("hf", "heldout_tokens")
        delta = ours / theirs - 1
        out.append(verdict(f"held-out chars/token {rounds.label} within 1% of HF", abs(delta) <= 0.01, f"{delta:+.2%}"))
    return out


def big_targets(big: list[dict]) -> list[str]:
    """The larger-than-memory targets: bounded peak memory, CPU time linear in size."""
    if not big:
        return []
    peak = max(r["peak_rss"] for r in big)
    per_mb = [r["cpu_seconds"] / r["size_mb"] for r in big]
    detail = ", ".join(
        f"{r['size_mb']} MB: {r['cpu_seconds'] / r['size_mb']:.3f} CPU s/MB, "
        f"{r['seconds'] / r['size_mb']:.3f} wall s/MB"
        for r in big
    )
    return [
        verdict("train_files peak memory < 1.5 GB", peak < 1.5 * 2**30, f"{peak / MB:.0f} MB"),
        verdict(
            "train_files time linear in size (CPU s/MB within 1.25x across sizes; wall time follows the load)",
            max(per_mb) / min(per_mb) <= 1.25,
            detail,
        ),
    ]
