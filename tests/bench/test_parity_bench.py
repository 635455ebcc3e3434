"""Smoke test of the benchmark's parity scenario (bench/parity_bench.py) at a tiny vocabulary: every
trainer's child task, the table and the target lines, and the child run through benchmark.py. No
timing is asserted."""

import pytest


def test_parity_children_table_and_targets():
    parity_bench = pytest.importorskip("bench.parity_bench")
    from bench.timing import Rounds

    rounds = Rounds("built-in parallel text, vocab 300")
    for label in parity_bench.TRAINERS:
        result = parity_bench.child_parity({"trainer": label, "vocab_size": 300})
        assert result["merges"] == 300 - 256 and result["languages"] >= 8
        assert result["max_premium"] >= 1.0 and result["eng_tokens"] > 0
        rounds.add(label, {**result, "seconds": 1.0})
    table = parity_bench.parity_table(rounds)
    assert all(f"| {label} |" in table for label in parity_bench.TRAINERS)
    targets = parity_bench.parity_targets(rounds)
    assert len(targets) == 3 and all(line.startswith(("- PASS: ", "- FAIL: ")) for line in targets)


def test_parity_child_runs_through_the_benchmark_entry_point():
    pytest.importorskip("bench.parity_bench")
    from bench.timing import run_child

    result = run_child({"task": "parity", "trainer": "parity, o200k", "vocab_size": 280})
    assert result["merges"] == 280 - 256 and result["peak_rss"] > 0


def test_huggingface_scenario_children_and_table():
    parity_bench = pytest.importorskip("bench.parity_bench")
    if not parity_bench.has_parity_bpe_trainer():
        pytest.skip("the installed tokenizers has no ParityBpeTrainer (0.23 has)")
    from bench.timing import Rounds

    found = {}
    for setting in parity_bench.HUGGINGFACE_SETTINGS:
        rounds = found[setting] = Rounds(setting)
        for side in ("bpe_core", "huggingface"):
            result = parity_bench.child_parity_huggingface({"side": side, "setting": setting, "vocab_size": 400})
            assert result["merges"] == 400 - 256
            rounds.add(side, {**result, "seconds": 1.0, "cpu_seconds": 1.0})
        # the same merges on both sides: the scenario compares like with like
        assert rounds.runs["bpe_core"][0]["merges_sha256"] == rounds.runs["huggingface"][0]["merges_sha256"]
    table = parity_bench.huggingface_table(found)
    assert all(f"| {setting} |" in table for setting in parity_bench.HUGGINGFACE_SETTINGS)
    assert table.count("| yes |") == len(parity_bench.HUGGINGFACE_SETTINGS)
