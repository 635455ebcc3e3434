"""Smoke test of the costs benchmark's SuperBPE part (bench/superbpe_memory.py, used by
bench/costs_bench.py) on tiny data: both trainings run in child processes, the table and the slope to
10 GB come out, and the slope is the exponent of the two sizes' peaks. No timing or memory figure is
asserted (they are the benchmark's job)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def memory():
    from bench import superbpe_memory

    return superbpe_memory


def test_bpe_and_superbpe_run_in_children_and_the_report_comes_out(memory, tmp_path):
    lines = [f"def handler_{i % 40}(request, response):  # the number {i}\n" for i in range(1500)]
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small.write_text("".join(lines[:500]), encoding="utf-8")
    large.write_text("".join(lines), encoding="utf-8")
    logged: list[str] = []
    results = memory.memory_rounds(
        [("small", str(small), 0.03), ("large", str(large), 0.09)], repeats=1, log=logged.append
    )
    assert [rounds.label for rounds in results] == ["small", "large"]
    for rounds in results:
        assert rounds.has("bpe", "superbpe") and rounds.median("bpe", "peak_rss") > 0
        assert rounds.median("superbpe", "unique") > 0 and rounds.median("bpe", "merges") > 0
    assert len(logged) == 4
    table = memory.memory_table(results)
    assert table.count("\n| ") == 2 and "SuperBPE: peak grows as size^" in table and "at 10 GB" in table


def test_the_slope_is_the_exponent_between_the_smallest_and_largest_size(memory):
    from bench.timing import Rounds

    def rounds(size_mb: float, peak: float) -> Rounds:
        made = Rounds(f"{size_mb} MB")
        made.size_mb = size_mb  # type: ignore[attr-defined]
        made.add("bpe", {"peak_rss": peak})
        return made

    k, at_target = memory.slope([rounds(10, 100.0), rounds(1000, 1000.0)], "bpe")
    assert k == pytest.approx(0.5)
    assert at_target == pytest.approx(1000.0 * 10**0.5)
    assert memory.slope([rounds(10, 100.0)], "bpe") is None
