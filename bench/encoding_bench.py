"""Encoding throughput: ``Tokenizer.encode_ordinary`` (one thread) and ``encode_ordinary_batch``
(worker processes) of bpe_core against tiktoken with the same merges, checking both give the same ids.

``encode_rounds`` encodes one text file per child with GPT-2's (or cl100k's) merges: a cold call on
a fresh tokenizer, then the same text again (warm). ``batch_rounds`` runs one cold batch call over
the stdlib documents with one and with all CPUs (bpe_core's worker processes, tiktoken's threads).

What it does not measure: building the tokenizers (``bpe_core.gpt2()`` / ``gpt2_encoding()`` are
constructed before the clock starts), decoding, special-token handling, or encoding with a trained
tokenizer (see ``render_bench`` for that).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from bench.timing import MB, Rounds, alternated, ids_digest, run_child, verdict

ENCODE_TOOLS = ("bpe_core", "tiktoken")


# ------------------------------------------------------------------------------------------------
# in the child process


def _encoder(tool: str, vocabulary: str):
    """The ``encode_ordinary`` of ``tool`` with ``vocabulary`` ("gpt2" or "cl100k") merges."""
    import bpe_core

    if tool == "tiktoken":
        return (bpe_core.gpt2_encoding() if vocabulary == "gpt2" else bpe_core.cl100k_encoding()).encode_ordinary
    if tool == "bpe_core":
        return (bpe_core.gpt2() if vocabulary == "gpt2" else bpe_core.cl100k()).encode_ordinary
    raise ValueError(f"unknown encoding tool {tool!r}")


def child_encode(spec: dict) -> dict:
    """Encode a text with GPT-2's merges, single thread: a cold call (fresh tokenizer), then warm."""
    text = Path(spec["text"]).read_text(encoding="utf-8")
    encode = _encoder(spec["tool"], spec.get("vocabulary", "gpt2"))
    started = time.perf_counter()
    ids = encode(text)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = encode(text)
    warm = time.perf_counter() - started
    assert again == ids
    return {
        "cold_seconds": cold,
        "warm_seconds": warm,
        "bytes": len(text.encode("utf-8")),
        "tokens": len(ids),
        "ids_sha256": ids_digest(ids),
    }


def child_encode_batch(spec: dict) -> dict:
    """One cold call of batch encoding over a list of documents, with ``workers`` processes
    (bpe_core) or threads (tiktoken)."""
    import bpe_core

    documents = json.loads(Path(spec["documents"]).read_text(encoding="utf-8"))
    workers = spec["workers"]
    if spec["tool"] == "tiktoken":
        encoder = bpe_core.gpt2_encoding()
        encoder.encode_ordinary("warm up")  # tiktoken builds its regex lazily, per thread
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, num_threads=workers)
    else:
        encoder = bpe_core.gpt2()
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, workers=workers)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "bytes": sum(len(d.encode("utf-8")) for d in documents), "ids_sha256": ids_digest(ids)}


CHILD_TASKS = {"encode": child_encode, "encode_batch": child_encode_batch}


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


def _throughput_ratios(rounds: Rounds) -> tuple[float, float]:
    """bpe_core / tiktoken throughput, cold and warm: the time ratios inverted, per round."""
    cold = 1 / rounds.ratio("bpe_core", "tiktoken", "cold_seconds")
    warm = 1 / rounds.ratio("bpe_core", "tiktoken", "warm_seconds")
    return cold, warm


def encoding_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| text | tool | cold MB/s | warm MB/s | bpe_core / tiktoken throughput, cold | warm | same ids |",
        "|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        for tool in rounds.runs:
            cold = statistics.median(r["bytes"] / r["cold_seconds"] for r in rounds.runs[tool]) / MB
            warm = statistics.median(r["bytes"] / r["warm_seconds"] for r in rounds.runs[tool]) / MB
            extra = " | | "
            if tool == "bpe_core" and rounds.has("tiktoken"):
                cold_ratio, warm_ratio = _throughput_ratios(rounds)
                extra = f"{cold_ratio:.2f}x | {warm_ratio:.2f}x | {'yes' if rounds.same_ids() else 'NO'}"
            lines.append(f"| {rounds.label} | {tool} | {cold:.2f} | {warm:.2f} | {extra} |")
    return "\n".join(lines)


def encoding_targets(encode: list[Rounds]) -> list[str]:
    """Issue 3's encoding target (cold throughput at least half of tiktoken's, same ids) per text."""
    out = []
    for rounds in filter(lambda r: r.has("bpe_core", "tiktoken"), encode):
        cold, warm = _throughput_ratios(rounds)
        same = rounds.same_ids()
        out.append(
            verdict(
                f"encode_ordinary throughput on {rounds.label} >= 0.5x tiktoken, same ids",
                cold >= 0.5 and same,
                f"cold {cold:.2f}x, warm {warm:.2f}x, ids {'identical' if same else 'DIFFER'}",
            )
        )
    return out
