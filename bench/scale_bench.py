"""Training at scale: bpe_core, HF tokenizers and rustbpe on 100 MB of real code and
documentation and on generated corpora of 100 MB, 300 MB and 1 GB, all trained from files.

The real corpus is every valid UTF-8 .py, .pyi, .md, .rst and .txt file of the standard library, the
environment's site-packages, Debian's Python packages and /usr/share/doc, de-duplicated by content
hash, shuffled with a fixed seed and cut (at whole files) to the size asked for
(``corpora.prepare_real_file``; the report says how much of it is code and how much prose). The
generated corpora resample runs of real lines from all of those files and give some words
heavy-tailed suffixes, so the distinct pre-tokens keep growing with size as in real text
(``corpora.generate_resampled_file``).

Each run is one child process (``timing.run_child``) timing the whole training call from the file:
reading, pre-tokenizing, counting and merging (bpe_core: ``train_files``; HF: ``Tokenizer.train`` on
the file with the ByteLevel pre-tokenizer and alphabet, as ``training_bench``; rustbpe:
``train_from_iterator`` over the file's lines with GPT-2's pattern), with wall time, CPU time of the
process and its ended children (bpe_core's counting workers) and the peak resident size of the
process tree. The tools alternate round by round (``timing.rotated``). What it does not check: that
the merges agree (HF and rustbpe read the file line by line, so their pre-tokens differ from
bpe_core's at line ends; the tests check the tools' merges on the same pre-tokens).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from bench.corpora import generate_resampled_file, prepare_real_file, real_sources
from bench.timing import MB, Rounds, fmt_ratio, rotated, run_child, verdict

SCALE_TOOLS = ("bpe_core", "hf", "rustbpe")
#: The sizes the default run generates (MB); --scale-sizes picks others (e.g. 100,300,1000).
DEFAULT_SIZES = (100,)
REAL_MB = 100
VOCAB_SIZE = 32_768


# ------------------------------------------------------------------------------------------------
# in the child process


def _cpu_seconds() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime


def _scale_bpe_core(spec: dict) -> dict:
    import bpe_core

    marks: dict[str, float] = {}

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "merge" and "merge" not in marks:
            marks["merge"] = time.perf_counter()

    started = time.perf_counter()
    tok = bpe_core.train_files(spec["path"], spec["vocab_size"], min_frequency=spec["min_frequency"], progress=progress)
    ended = time.perf_counter()
    digest = hashlib.sha256(json.dumps(tok.merges, default=lambda b: b.hex()).encode()).hexdigest()
    return {
        "merges": len(tok.merges),
        "merges_sha256": digest,
        "unique_pretokens": tok.training["corpus"]["unique_pretokens"],
        "count_seconds": marks.get("merge", ended) - started,
        "started": started,
        "ended": ended,
    }


def _scale_hf(spec: dict) -> dict:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=spec["vocab_size"],
        min_frequency=spec["min_frequency"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    started = time.perf_counter()
    tok.train([spec["path"]], trainer=trainer)
    return {"merges": tok.get_vocab_size() - 256, "started": started, "ended": time.perf_counter()}


def _scale_rustbpe(spec: dict) -> dict:
    import rustbpe

    from bpe_core.pretokenization.pretokenizer import GPT2_PATTERN

    tok = rustbpe.Tokenizer()
    started = time.perf_counter()
    with open(spec["path"], encoding="utf-8") as lines:
        tok.train_from_iterator(lines, spec["vocab_size"], pattern=GPT2_PATTERN)
    return {"merges": tok.vocab_size - 256, "started": started, "ended": time.perf_counter()}


SCALE_TRAINERS = {"bpe_core": _scale_bpe_core, "hf": _scale_hf, "rustbpe": _scale_rustbpe}


def child_scale_train(spec: dict) -> dict:
    """One tool trained on one file: wall and CPU seconds of the training call, from the file."""
    if spec["tool"] not in SCALE_TRAINERS:
        raise ValueError(f"unknown training tool {spec['tool']!r}")
    cpu_before = _cpu_seconds()
    result = SCALE_TRAINERS[spec["tool"]](spec)
    result["cpu_seconds"] = _cpu_seconds() - cpu_before
    result["seconds"] = result.pop("ended") - result.pop("started")
    return result


CHILD_TASKS = {"scale_train": child_scale_train}


# ------------------------------------------------------------------------------------------------
# in the parent


def prepare(data_dir: Path, sizes_mb: list[int], real_mb: int = REAL_MB, log=print) -> list[tuple[str, Path, int]]:
    """The corpora as (label, file, size in MB): real code and documentation (none for ``real_mb=0``),
    then generated ones."""
    sources = real_sources()
    corpora = []
    if real_mb:
        made = prepare_real_file(data_dir / f"real-{real_mb}MB.txt", real_mb * MB, sources)
        kinds = ", ".join(
            f"{suffix} {n:,} files {size / MB:.1f} MB" for suffix, (n, size) in sorted(made["kinds"].items())
        )
        log(
            f"real corpus: {made['files']:,} files, {made['bytes'] / MB:.1f} MB ({kinds}); pool "
            f"{len(sources):,} distinct files, {sum(len(d) for _, d in sources) / MB:.0f} MB"
        )
        corpora.append((f"real code + docs {real_mb} MB", data_dir / f"real-{real_mb}MB.txt", real_mb))
    if sizes_mb:
        lines = [line for _, data in sources for line in data.decode("utf-8").splitlines(keepends=True)]
        for size in sizes_mb:
            started = time.perf_counter()
            path = generate_resampled_file(data_dir / f"resampled-{size}MB.txt", size * MB, lines)
            log(f"generated corpus {size} MB: {path} ({time.perf_counter() - started:.0f} s to make or find)")
            corpora.append((f"generated {size} MB", path, size))
    return corpora


def scale_rounds(
    corpora: list[tuple[str, Path, int]],
    tools: list[str],
    repeats: int,
    *,
    vocab_size: int = VOCAB_SIZE,
    min_frequency: int = 2,
    log=print,
) -> list[Rounds]:
    """``repeats`` rounds of every tool on every corpus, the first tool changing each round."""
    results = []
    for label, path, size in corpora:
        rounds = Rounds(label)
        rounds.size_mb = size
        log(f"\n## {label}, vocab {vocab_size}")
        for number in range(repeats):
            for tool in rotated(list(tools), number):
                spec = {
                    "task": "scale_train",
                    "tool": tool,
                    "path": str(path),
                    "vocab_size": vocab_size,
                    "min_frequency": min_frequency,
                }
                result = rounds.add(tool, run_child(spec, timeout=4 * 3600))
                extra = ""
                if tool == "bpe_core":
                    extra = (
                        f"  counting {result['count_seconds']:.1f} s  unique pre-tokens {result['unique_pretokens']:,}"
                    )
                log(
                    f"  round {number + 1} {tool:9s} {result['seconds']:8.1f} s  CPU {result['cpu_seconds']:8.1f} s  "
                    f"peak {result['peak_rss'] / MB:7.0f} MB  merges {result['merges']}{extra}"
                )
        results.append(rounds)
    return results


def scale_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| corpus | tool | wall (median) | wall s/MB | CPU s/MB | peak RSS (tree) | bpe_core / tool time "
        "| bpe_core / tool peak |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        size = rounds.size_mb
        for tool in rounds.runs:
            wall = rounds.median(tool, "seconds")
            ratio = "" if tool == "bpe_core" else fmt_ratio(rounds.ratio("bpe_core", tool))
            mem = "" if tool == "bpe_core" else fmt_ratio(rounds.ratio("bpe_core", tool, "peak_rss"))
            lines.append(
                f"| {rounds.label} | {tool} | {wall:.1f} s | {wall / size:.3f} | "
                f"{rounds.median(tool, 'cpu_seconds') / size:.3f} | {rounds.median(tool, 'peak_rss') / MB:.0f} MB "
                f"| {ratio} | {mem} |"
            )
    return "\n".join(lines)


def scale_targets(all_rounds: list[Rounds]) -> list[str]:
    """The targets: at most 0.8x HF's time on the real 100 MB, peak memory below HF's, and
    time linear in size (bpe_core's CPU s/MB within 1.25x across the generated sizes)."""
    out = []
    for rounds in all_rounds:
        if not rounds.has("bpe_core", "hf"):
            continue
        ratio = rounds.ratio("bpe_core", "hf")
        vs_rust = rounds.ratio("bpe_core", "rustbpe")
        if rounds.label.startswith("real"):
            out.append(
                verdict(
                    f"training time, {rounds.label} <= 0.8x HF",
                    ratio <= 0.8,
                    f"{ratio:.2f}x; vs rustbpe {fmt_ratio(vs_rust)}",
                )
            )
        memory = rounds.ratio("bpe_core", "hf", "peak_rss")
        out.append(verdict(f"peak memory, {rounds.label} < HF's", memory < 1, f"{memory:.2f}x"))
    generated = [r for r in all_rounds if r.label.startswith("generated") and r.has("bpe_core")]
    if len(generated) > 1:
        per_mb = [r.median("bpe_core", "cpu_seconds") / r.size_mb for r in generated]
        detail = ", ".join(
            f"{r.size_mb} MB: {r.median('bpe_core', 'cpu_seconds') / r.size_mb:.3f} CPU s/MB, "
            f"{r.median('bpe_core', 'seconds') / r.size_mb:.3f} wall s/MB"
            for r in generated
        )
        out.append(
            verdict(
                "bpe_core time linear in size (CPU s/MB within 1.25x across generated sizes)",
                max(per_mb) / min(per_mb) <= 1.25,
                detail,
            )
        )
    return out


def run(
    data_dir: Path,
    sizes_mb: list[int],
    tools: list[str],
    repeats: int,
    log=print,
    real_mb: int = REAL_MB,
    vocab_size: int = VOCAB_SIZE,
) -> list[Rounds]:
    """The whole scale scenario: prepare the corpora, train every tool on each, print the report."""
    corpora = prepare(data_dir, sizes_mb, real_mb, log)
    results = scale_rounds(corpora, tools, repeats, vocab_size=vocab_size, log=log)
    log("\n### Training at scale\n")
    log(scale_table(results))
    log("\n### Targets\n")
    log("\n".join(scale_targets(results)))
    return results
