"""Encoding throughput: ``Tokenizer.encode_ordinary`` (one call; bpe_core's default engine shares a
long text out to one thread per CPU, tiktoken's runs on one) and ``encode_ordinary_batch`` (threads)
of bpe_core against tiktoken with the same merges, checking all give the same ids. Ratios are given
in wall time (what a caller waits; the target) and in CPU time (less sensitive to other jobs on the
machine, and what the threads cost).

``encode_rounds`` encodes one text file per child with GPT-2's (or cl100k's) merges: a cold call on
a fresh tokenizer, then the same text again (warm), with each engine in its own child: ``bpe_core``
is the default (``engine="auto"``: tiktoken's compiled engine where it provably gives the same ids),
``bpe_core-python`` bpe_core's own Python encoder (``engine="python"``). ``batch_rounds`` runs one
cold batch call over the stdlib documents with one and with all CPUs (threads for both tools).
``engine_build_rounds`` times building tiktoken's engine for a 50k, 100k and 200k vocabulary.

What it does not measure in the encoding rounds: building the tokenizers (``bpe_core.load("gpt2")`` /
``gpt2_encoding()`` are constructed before the clock starts, and so is bpe_core's engine, which
``build_engine`` builds as tiktoken's ``Encoding()`` builds its own; its time is recorded beside,
and the table gives the first call with it too), decoding, special-token handling, or encoding with a
trained tokenizer (see ``render_bench`` for that).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from functools import partial
from pathlib import Path

from bench.timing import MB, Rounds, alternated, ids_digest, run_child, verdict
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

ENCODE_TOOLS = ("bpe_core", "bpe_core-python", "tiktoken")
#: The ``engine=`` each bpe_core tool encodes with.
ENGINE_OF = {"bpe_core": "auto", "bpe_core-python": "python"}
#: The vocabularies whose engine build is timed: (name, approximate size).
BUILD_VOCABULARIES = (("gpt2", "50k"), ("cl100k", "100k"), ("o200k", "200k"))


# ------------------------------------------------------------------------------------------------
# in the child process


def _encoder(tool: str, vocabulary: str):
    """The ``encode_ordinary`` of ``tool`` with ``vocabulary`` ("gpt2" or "cl100k") merges, and the
    seconds spent building bpe_core's engine (0 for tiktoken and the Python engine)."""
    import bpe_core

    if tool == "tiktoken":
        return (gpt2_encoding() if vocabulary == "gpt2" else cl100k_encoding()).encode_ordinary, 0.0
    if tool not in ENGINE_OF:
        raise ValueError(f"unknown encoding tool {tool!r}")
    tokenizer = bpe_core.load("gpt2") if vocabulary == "gpt2" else bpe_core.load("cl100k")
    started = time.process_time()
    if ENGINE_OF[tool] == "auto":
        tokenizer.build_engine()  # what tiktoken's Encoding() did before its clock
    return partial(tokenizer.encode_ordinary, engine=ENGINE_OF[tool]), time.process_time() - started


def _timed(function, *args):
    """``function(*args)``, its wall-clock seconds and its CPU seconds (this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def child_encode(spec: dict) -> dict:
    """Encode a text in one call: a cold call (fresh tokenizer), then warm."""
    text = Path(spec["text"]).read_text(encoding="utf-8")
    encode, build = _encoder(spec["tool"], spec.get("vocabulary", "gpt2"))
    ids, cold, cold_cpu = _timed(encode, text)
    again, warm, warm_cpu = _timed(encode, text)
    assert again == ids
    return {
        "cold_seconds": cold,
        "warm_seconds": warm,
        "cold_cpu_seconds": cold_cpu,
        "warm_cpu_seconds": warm_cpu,
        "build_cpu_seconds": build,
        "bytes": len(text.encode("utf-8")),
        "tokens": len(ids),
        "ids_sha256": ids_digest(ids),
    }


def child_encode_batch(spec: dict) -> dict:
    """One cold call of batch encoding over a list of documents with ``workers`` threads (both tools
    encode with tiktoken's engine, which releases the GIL)."""
    import bpe_core

    documents = json.loads(Path(spec["documents"]).read_text(encoding="utf-8"))
    workers = spec["workers"]
    if spec["tool"] == "tiktoken":
        encoder = gpt2_encoding()
        encoder.encode_ordinary("warm up")  # tiktoken builds its regex lazily, per thread
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, num_threads=workers)
    else:
        encoder = bpe_core.load("gpt2")
        encoder.build_engine()
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, num_threads=workers, engine="auto")
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "bytes": sum(len(d.encode("utf-8")) for d in documents), "ids_sha256": ids_digest(ids)}


def child_engine_build(spec: dict) -> dict:
    """CPU seconds to build bpe_core's engine for a freshly loaded tokenizer (the proof that it gives the
    same ids, then tiktoken's ``Encoding``), and tiktoken's ``Encoding()`` alone on the same ranks."""
    import tiktoken

    import bpe_core

    tokenizer = bpe_core.load(spec["vocabulary"])
    engine, _, build = _timed(tokenizer.build_engine)
    ranks = tokenizer.to_tiktoken()._mergeable_ranks
    _, _, alone = _timed(
        partial(tiktoken.Encoding, name="x", pat_str=tokenizer.pattern, mergeable_ranks=ranks, special_tokens={})
    )
    return {"seconds": build, "encoding_seconds": alone, "tokens": len(ranks), "engine": engine}


CHILD_TASKS = {"encode": child_encode, "encode_batch": child_encode_batch, "engine_build": child_engine_build}


# ------------------------------------------------------------------------------------------------
# in the parent: scenarios and their report


def encode_rounds(
    label: str, text_path: Path, tools: list[str], repeats: int, log=print, vocabulary: str = "gpt2"
) -> Rounds:
    """``repeats`` rounds of encoding ``text_path`` with every tool, the order reversed every other round."""
    rounds = Rounds(label)
    for number in range(repeats):
        for tool in alternated(tools, number):
            spec = {"task": "encode", "tool": tool, "text": str(text_path), "vocabulary": vocabulary}
            result = rounds.add(tool, run_child(spec))
            log(
                f"  round {number + 1} {tool:9s} cold {result['bytes'] / result['cold_seconds'] / MB:6.2f} MB/s"
                f"  warm {result['bytes'] / result['warm_seconds'] / MB:6.2f} MB/s"
            )
    return rounds


def engine_build_rounds(repeats: int, log=print) -> Rounds:
    """``build_engine`` for GPT-2, cl100k and (when installed) o200k, each in a fresh process."""
    from bpe_core.pretrained import catalogue

    rounds = Rounds("engine build")
    for number in range(repeats):
        for vocabulary, size in BUILD_VOCABULARIES:
            if not catalogue.is_installed(vocabulary):
                continue
            result = rounds.add(f"{vocabulary} ({size})", run_child({"task": "engine_build", "vocabulary": vocabulary}))
            log(
                f"  round {number + 1} {vocabulary:7s} build_engine {result['seconds'] * 1000:6.0f} ms"
                f"  (tiktoken.Encoding() alone {result['encoding_seconds'] * 1000:4.0f} ms)"
            )
    return rounds


def engine_build_table(rounds: Rounds) -> str:
    lines = [
        "| vocabulary | tokens | build_engine (median) | of which tiktoken.Encoding() alone |",
        "|---|---|---|---|",
    ]
    for key, runs in rounds.runs.items():
        build = statistics.median(r["seconds"] for r in runs) * 1000
        alone = statistics.median(r["encoding_seconds"] for r in runs) * 1000
        lines.append(f"| {key} | {runs[0]['tokens']:,} | {build:.0f} ms | {alone:.0f} ms |")
    return "\n".join(lines)


def batch_rounds(documents_path: Path, repeats: int, log=print) -> Rounds:
    """encode_ordinary_batch on the stdlib documents, cold, one and all CPUs, against tiktoken's
    batch encoding with one and as many threads."""
    cpus = os.cpu_count() or 1
    variants = [(tool, n) for tool in ENCODE_TOOLS for n in sorted({1, cpus})]
    rounds = Rounds(f"stdlib documents, {cpus} CPUs")
    for number in range(repeats):
        for tool, workers in alternated(variants, number):
            spec = {"task": "encode_batch", "tool": tool, "workers": workers, "documents": str(documents_path)}
            key = f"{tool} x{workers}"
            result = rounds.add(key, run_child(spec))
            log(f"  round {number + 1} {key:12s} {result['bytes'] / result['seconds'] / MB:6.2f} MB/s")
    return rounds


def batch_table(rounds: Rounds) -> str:
    lines = [
        f"Batch encoding, {rounds.label}, cold (fresh process); ids identical across all: "
        f"{'yes' if rounds.same_ids() else 'NO'}",
        "",
        "| tool | MB/s (median) | vs tiktoken, same parallelism | speed-up over one process/thread |",
        "|---|---|---|---|",
    ]
    for key in rounds.runs:
        tool, workers = key.split(" ")
        mbs = statistics.median(r["bytes"] / r["seconds"] for r in rounds.runs[key]) / MB
        versus = ""
        if tool == "bpe_core" and f"tiktoken {workers}" in rounds.runs:
            versus = f"{1 / rounds.ratio(key, f'tiktoken {workers}'):.2f}x"
        speedup = ""
        if workers != "x1" and f"{tool} x1" in rounds.runs:
            speedup = f"{1 / rounds.ratio(key, f'{tool} x1'):.2f}x"
        lines.append(f"| {key} | {mbs:.2f} | {versus} | {speedup} |")
    return "\n".join(lines)


# The ratios compare CPU seconds of the encoding call (single-threaded work): on a shared machine the
# wall-clock time of one call moves by half and more with the other processes' load, its CPU time far less.
def _throughput_ratios(rounds: Rounds, tool: str = "bpe_core", *, clock: str = "cpu") -> tuple[float, float]:
    """``tool`` / tiktoken throughput, cold and warm, per round: the time ratios inverted, in CPU
    time (``clock="cpu"``) or wall time (``"wall"``)."""
    suffix = "_cpu_seconds" if clock == "cpu" else "_seconds"
    cold = 1 / rounds.ratio(tool, "tiktoken", "cold" + suffix)
    warm = 1 / rounds.ratio(tool, "tiktoken", "warm" + suffix)
    return cold, warm


def _with_build_ratio(rounds: Rounds) -> float:
    """bpe_core / tiktoken throughput of a first call that also builds bpe_core's engine (CPU time)."""
    pairs = zip(rounds.runs["bpe_core"], rounds.runs["tiktoken"], strict=True)
    return 1 / statistics.median(
        (a["cold_cpu_seconds"] + a["build_cpu_seconds"]) / b["cold_cpu_seconds"] for a, b in pairs
    )


def encoding_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| text | tool | cold MB/s | warm MB/s | tool / tiktoken throughput (wall time), cold | warm "
        "| (CPU time), cold | warm | cold with the engine build (CPU) | same ids |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        for tool in rounds.runs:
            cold = statistics.median(r["bytes"] / r["cold_seconds"] for r in rounds.runs[tool]) / MB
            warm = statistics.median(r["bytes"] / r["warm_seconds"] for r in rounds.runs[tool]) / MB
            extra = " | | | | | "
            if tool in ENGINE_OF and rounds.has("tiktoken"):
                cold_wall, warm_wall = _throughput_ratios(rounds, tool, clock="wall")
                cold_ratio, warm_ratio = _throughput_ratios(rounds, tool)
                built = f"{_with_build_ratio(rounds):.2f}x" if tool == "bpe_core" else ""
                extra = (
                    f"{cold_wall:.2f}x | {warm_wall:.2f}x | {cold_ratio:.2f}x | {warm_ratio:.2f}x | {built} | "
                    f"{'yes' if rounds.same_ids() else 'NO'}"
                )
            lines.append(f"| {rounds.label} | {tool} | {cold:.2f} | {warm:.2f} | {extra} |")
    return "\n".join(lines)


#: The encoding target is 1.0x: the default engine is tiktoken's own, so the ratio is 1.0 but for the
#: machine's noise between two processes, which this much is allowed for.
NOISE = 0.05


def encoding_targets(encode: list[Rounds]) -> list[str]:
    """The encoding target per text: the default engine's first call at least 1.0x tiktoken's
    throughput in wall time (within ``NOISE``), the same ids; the CPU-time ratio and the Python
    engine's beside it."""
    out = []
    for rounds in filter(lambda r: r.has("bpe_core", "tiktoken"), encode):
        cold, warm = _throughput_ratios(rounds, clock="wall")
        cold_cpu, warm_cpu = _throughput_ratios(rounds)
        same = rounds.same_ids()
        python = ""
        if rounds.has("bpe_core-python"):
            python = f"; the Python engine: cold {_throughput_ratios(rounds, 'bpe_core-python', clock='wall')[0]:.2f}x"
        out.append(
            verdict(
                f"encode_ordinary (default engine) on {rounds.label} >= 1.0x tiktoken on a first call, same ids",
                cold >= 1.0 - NOISE and same,
                f"wall time cold {cold:.2f}x, warm {warm:.2f}x; CPU time cold {cold_cpu:.2f}x (with its one-time "
                f"engine build {_with_build_ratio(rounds):.2f}x), warm {warm_cpu:.2f}x; "
                f"ids {'identical' if same else 'DIFFER'}{python}",
            )
        )
    return out
