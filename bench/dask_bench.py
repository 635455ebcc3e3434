#!/usr/bin/env python
"""Counting throughput on Dask against the in-process counter.

    .venv/bin/python bench/dask_bench.py                 # ~80 MB of real code and documentation
    .venv/bin/python bench/dask_bench.py --size-mb 10    # smaller, quicker
    .venv/bin/python bench/benchmark.py --dask           # the same, from the main benchmark

One file of real text (``corpora.prepare_real_file``: de-duplicated source and documentation files
found on the machine, whole files in a seeded shuffle) is counted with the GPT-2 pattern by
``counting.count_files`` with ``workers=1`` and with the automatic worker count, then by
``distributed.count_on_dask`` on local clusters of 1, 2 and 4 worker processes (one thread each).
For Dask the cluster's start and close are timed apart from the counting, which runs on a started
cluster (``scheduler=client``); the end-to-end time adds them up. CPU seconds are those of this process
and of every counting process (finished worker processes for ``count_files``; each Dask worker, read
with ``client.run``): on a shared machine, MB per CPU-second says what the work costs when wall time
says mostly how busy the machine was. Every result is checked equal to ``workers=1``'s (counts, order
of first appearance, statistics). One run: ratios are from the same run; the load average is printed.
More workers than CPUs oversubscribe the machine; the log says how many CPUs there were.

What it does not do: measure memory, or run a real multi-machine cluster (the recipe is in docs/corpora/cluster.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``bpe_core`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import corpora
from bench.timing import MB, load_average

DEFAULT_DATA = Path(__file__).resolve().parent / ".data"
DASK_WORKERS = (1, 2, 4)


def real_text_file(data: Path, size_mb: int) -> tuple[Path, str]:
    """About ``size_mb`` MB of real code and documentation in one file, and what it holds."""
    path = data / f"real-{size_mb}mb.txt"
    prepare = getattr(corpora, "prepare_real_file", None)
    if prepare is not None:
        made = prepare(path, size_mb * MB)
        kinds = ", ".join(f"{suffix} {files:,} files" for suffix, (files, _) in sorted(made["kinds"].items()))
        return path, f"{made['bytes'] / MB:.1f} MB, {made['files']:,} files ({kinds})"
    # Without the scale corpus: the standard library's sources, written once each.
    data.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(path, "wb") as out:
        for source in corpora.stdlib_sources():
            if written >= size_mb * MB:
                break
            try:
                chunk = source.read_bytes()
                chunk.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            out.write(chunk)
            written += len(chunk)
    return path, f"{written / MB:.1f} MB of standard library sources"


def _same(got, expected) -> bool:
    return list(got.counts.items()) == list(expected.counts.items()) and got.stats == expected.stats


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_in_process(path: Path, workers: int | None) -> dict:
    """``count_files`` on ``path``: wall seconds, CPU seconds (this process and its finished worker
    processes), the counts."""
    from bpe_core.pretokenization.pretokenizer import PreTokenizer
    from bpe_core.training.counting import count_files

    cpu, children, started = time.process_time(), _children_cpu(), time.perf_counter()
    counts = count_files([path], pretokenizer=PreTokenizer.build("gpt2"), workers=workers)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu + _children_cpu() - children
    return {"count": seconds, "total": seconds, "cpu": cpu, "counts": counts}


def measure_dask(path: Path, workers: int) -> dict:
    """Start a local cluster of ``workers`` processes, count on it, close it: the three wall times, and
    the CPU seconds of the count (this process and every worker, read with ``client.run``)."""
    import distributed

    from bpe_core.training.distributed import count_on_dask

    started = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster)
    client.wait_for_workers(workers)
    ready = time.perf_counter()
    here, workers_cpu = time.process_time(), sum(client.run(time.process_time).values())
    counts = count_on_dask([path], scheduler=client)
    here = time.process_time() - here  # the client, the scheduler's thread, adding the counts
    workers_cpu = sum(client.run(time.process_time).values()) - workers_cpu
    counted = time.perf_counter()
    client.close()
    cluster.close()
    closed = time.perf_counter()
    return {
        "start": ready - started,
        "count": counted - ready,
        "close": closed - counted,
        "cpu": here + workers_cpu,
        "client_cpu": here,
        "total": closed - started,
        "counts": counts,
    }


def run(path: Path, held: str, log=print, dask_workers: tuple[int, ...] = DASK_WORKERS) -> list[dict]:
    """Every measurement on the file ``path`` (``held``: what it holds), as rows of the table
    (``label``, wall seconds counting and end to end, CPU seconds, counts equal to workers=1's)."""
    size = os.path.getsize(path)
    log(f"corpus: {path} ({held}); {os.cpu_count()} CPUs; load average {load_average()}")
    reference = measure_in_process(path, 1)
    measured = [
        ("count_files, workers=1 (in-process)", reference),
        ("count_files, workers=auto", measure_in_process(path, None)),
    ]
    try:
        import distributed  # noqa: F401 - imported only to see that it is installed
    except ImportError:
        log("  dask.distributed is not installed (pip install -r requirements-distributed.txt): Dask rows skipped")
        dask_workers = ()
    for workers in dask_workers:
        over = " (more workers than CPUs)" if workers > (os.cpu_count() or 1) else ""
        measured.append((f"count_on_dask, LocalCluster {workers} worker(s){over}", measure_dask(path, workers)))
    rows = []
    for label, result in measured:
        row = {key: result[key] for key in ("count", "total", "cpu")}
        row.update(
            label=label,
            equal=_same(result["counts"], reference["counts"]),
            mb_per_s=size / MB / row["count"],
            mb_per_cpu_s=size / MB / row["cpu"],
            ratio=reference["count"] / row["count"],
        )
        rows.append(row)
        start = (
            f" (client {result['client_cpu']:.2f} s), cluster start {result['start']:.1f} s, close "
            f"{result['close']:.1f} s"
            if "start" in result
            else ""
        )
        log(
            f"  {label}: {row['count']:.2f} s ({row['mb_per_s']:.1f} MB/s), CPU {row['cpu']:.2f} s{start}, "
            f"equal: {row['equal']}"
        )
    log(f"load average at end: {load_average()}")
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| counter | counting, wall (s) | MB/s | throughput vs workers=1 | CPU (s) | MB per CPU-second "
        "| end to end (s) | counts identical |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['label']} | {row['count']:.2f} | {row['mb_per_s']:.1f} | {row['ratio']:.2f}x | {row['cpu']:.2f} | "
            f"{row['mb_per_cpu_s']:.1f} | {row['total']:.2f} | {'yes' if row['equal'] else 'NO'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=80, help="size of the real-text file (default 80)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where the corpus file is written")
    args = parser.parse_args(argv)
    rows = run(*real_text_file(args.data / "dask", args.size_mb))
    print()
    print(table(rows))
    return 0 if all(row["equal"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
