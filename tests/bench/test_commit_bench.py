"""bench/commit_bench.py: two checkouts timed against each other (here the same one twice), with the
merges of the two compared."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_same_checkout_twice_gives_the_same_merges(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(["the cat sat on the mat. " * 20, "def f(x):\n    return x + 12345\n" * 10]))
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "commit_bench.py"),
            str(ROOT),
            str(ROOT),
            "--rounds",
            "1",
            "--vocab",
            "300",
            "--corpus",
            str(corpus),
            "--data",
            str(tmp_path / "data"),
            "--scenarios",
            "bpe,superbpe stage 2,picky",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [row.split(" | ")[0] for row in rows] == ["| bpe", "| superbpe stage 2", "| picky"]
    assert all(row.endswith("| yes |") for row in rows)
