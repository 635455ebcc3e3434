"""SuperBPE's peak memory and time against plain BPE's, on the same corpus file and vocabulary.

Each training runs in a fresh interpreter (``timing.run_child``: the peak resident size of the whole
process tree, counting workers included, sampled every 10 ms): ``bpe_core.train_files`` (GPT-2's
pattern, counted by worker processes) and ``train_superbpe_files`` (the "paper" recipe, transition 0.9:
both stages, their counting in this process), vocab 32,768, min_frequency 2, default settings
otherwise. ``slope`` fits peak = a * size ** k through the smallest and the largest size measured and
extrapolates each to 10 GB. What it does not measure: the quality of the tokenizers (``variants_bench``).
"""

from __future__ import annotations

import math
import time

from bench.timing import MB, Rounds, run_child

VOCAB_SIZE = 32_768
#: The size the slope is extrapolated to, in MB.
TARGET_MB = 10_000


def child_superbpe_memory(spec: dict) -> dict:
    """One training (``spec["kind"]``: "bpe" or "superbpe") on ``spec["path"]``; wall and CPU seconds."""
    import resource

    import bpe_core
    from bpe_core.training.superbpe import train_superbpe_files

    def cpu() -> float:
        own, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime

    started, cpu_before = time.perf_counter(), cpu()
    if spec["kind"] == "bpe":
        tok = bpe_core.train_files(spec["path"], spec["vocab_size"])
    else:
        tok = train_superbpe_files(spec["path"], spec["vocab_size"])
    corpus = tok.training["corpus"]
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": cpu() - cpu_before,
        "merges": len(tok.merges),
        "unique": corpus["unique_pretokens"],
        "bytes": corpus["bytes"],
    }


CHILD_TASKS = {"superbpe_memory": child_superbpe_memory}


def memory_rounds(corpora: list[tuple[str, str, float]], repeats: int, log=print) -> list[Rounds]:
    """``repeats`` rounds of BPE and SuperBPE on each (label, path, size in MB), alternating which goes first."""
    results = []
    for label, path, size in corpora:
        rounds = Rounds(label)
        rounds.size_mb = size  # type: ignore[attr-defined]
        for number in range(repeats):
            for kind in ("bpe", "superbpe") if number % 2 == 0 else ("superbpe", "bpe"):
                spec = {"task": "superbpe_memory", "kind": kind, "path": path, "vocab_size": VOCAB_SIZE}
                result = rounds.add(kind, run_child(spec, timeout=6 * 3600))
                log(
                    f"  {label} round {number + 1} {kind:8s} {result['seconds']:8.1f} s  "
                    f"CPU {result['cpu_seconds']:8.1f} s  peak {result['peak_rss'] / MB:7.0f} MB  "
                    f"unique {result['unique']:,}"
                )
        results.append(rounds)
    return results


def slope(results: list[Rounds], kind: str) -> tuple[float, float] | None:
    """The exponent k of peak = a * size ** k between the smallest and largest size, and the peak it gives
    at ``TARGET_MB`` (bytes); None with fewer than two sizes."""
    if len(results) < 2:
        return None
    low, high = results[0], results[-1]
    low_peak, high_peak = low.median(kind, "peak_rss"), high.median(kind, "peak_rss")
    k = math.log(high_peak / low_peak) / math.log(high.size_mb / low.size_mb)  # type: ignore[attr-defined]
    return k, high_peak * (TARGET_MB / high.size_mb) ** k  # type: ignore[attr-defined]


def memory_table(results: list[Rounds]) -> str:
    lines = [
        "| corpus | BPE peak RSS | SuperBPE peak RSS | SuperBPE / BPE peak (median of rounds) | BPE time | "
        "SuperBPE time | SuperBPE / BPE time | distinct pre-tokens (BPE, stage 2) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rounds in results:
        lines.append(
            f"| {rounds.label} | {rounds.median('bpe', 'peak_rss') / MB:.0f} MB | "
            f"{rounds.median('superbpe', 'peak_rss') / MB:.0f} MB | "
            f"**{rounds.ratio('superbpe', 'bpe', 'peak_rss'):.2f}x** | {rounds.median('bpe', 'seconds'):.1f} s | "
            f"{rounds.median('superbpe', 'seconds'):.1f} s | {rounds.ratio('superbpe', 'bpe'):.2f}x | "
            f"{rounds.median('bpe', 'unique'):,.0f}, {rounds.median('superbpe', 'unique'):,.0f} |"
        )
    for kind, name in (("bpe", "BPE"), ("superbpe", "SuperBPE")):
        fitted = slope(results, kind)
        if fitted is not None:
            lines.append(
                f"\n{name}: peak grows as size^{fitted[0]:.2f} between the smallest and largest corpus; "
                f"at {TARGET_MB / 1000:.0f} GB that gives about {fitted[1] / MB / 1024:.1f} GB."
            )
    return "\n".join(lines)
