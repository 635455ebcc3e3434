"""Smoke test of the benchmark's tie-rule scenario (bench/training_bench.py) on a few merges: every
rule runs in its own process, the table and the target line are printed. No timing is asserted."""

import pytest

from bpe_core.training.tie_rules import TIE_BREAKS


def test_tie_rule_rounds_table_and_target():
    training_bench = pytest.importorskip("bench.training_bench")
    rounds = training_bench.tie_rule_rounds(1, log=lambda *a: None, merges=40)
    assert set(rounds.runs) == set(TIE_BREAKS)
    runs = {rule: results[0] for rule, results in rounds.runs.items()}
    assert all(run["merges"] == 40 and run["bytes"] > 30_000 for run in runs.values())
    assert len({run["merges_sha256"] for run in runs.values()}) == len(TIE_BREAKS)  # the rules differ here
    table = training_bench.tie_rule_table(rounds)
    assert all(f"| {rule} |" in table for rule in TIE_BREAKS) and "34 KB" in table
    [target] = training_bench.tie_rule_targets(rounds)
    assert target.startswith(("- PASS: first tie rule", "- FAIL: first tie rule")) and "x" in target
    assert training_bench.tie_rule_table(None) == "" and training_bench.tie_rule_targets(None) == []
