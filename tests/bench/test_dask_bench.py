"""Smoke test of the Dask counting benchmark (bench/dask_bench.py, ``benchmark.py --dask``) on a small
file: every row is measured, Dask's counts are checked equal to count_files', and the table says so."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_dask_bench_measures_and_checks_every_counter(tmp_path):
    pytest.importorskip("distributed")
    sys.path.insert(0, str(ROOT))
    from bench import corpora, dask_bench

    path = tmp_path / "small.txt"
    path.write_bytes(b"".join(source.read_bytes() for source in corpora.stdlib_sources()[:40]))
    rows = dask_bench.run(path, "40 stdlib files", log=lambda *a: None, dask_workers=(2,))
    assert [row["label"].split(",")[0] for row in rows] == ["count_files", "count_files", "count_on_dask"]
    assert all(row["equal"] for row in rows) and all(row["mb_per_s"] > 0 for row in rows)
    assert rows[0]["ratio"] == 1.0
    table = dask_bench.table(rows)
    assert "LocalCluster 2 worker(s)" in table and "| NO |" not in table
