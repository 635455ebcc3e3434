"""Smoke test of bench/benchmark.py's quick-mode pieces on tiny data: corpora, child runs for every
tool, tables and the targets summary. No timing is asserted (timings are the benchmark's job)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    pytest.importorskip("tokenizers")
    pytest.importorskip("tiktoken")
    spec = importlib.util.spec_from_file_location("bench_benchmark", ROOT / "bench" / "benchmark.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_benchmark"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_quick_mode_core_functions_on_tiny_data(bench, tmp_path):
    corpus = bench.prepare_stdlib(tmp_path, limit_bytes=30_000, name="tiny")
    assert corpus.train_bytes >= 30_000 and corpus.documents > 0
    assert json.loads(corpus.train_path.read_text(encoding="utf-8"))
    tools = bench.available_tools(bench.TRAIN_TOOLS)
    # rustbpe is a benchmark-only dependency (bench/requirements.txt); the others are test dependencies.
    assert tools[:2] == ["bpe_core", "hf"] and set(tools) <= {"bpe_core", "hf", "rustbpe"}
    rounds = bench.train_rounds(corpus, 300, tools, repeats=1, log=lambda *a: None)
    for tool in tools:
        run = rounds.runs[tool][0]
        assert run["merges"] == 300 - 256
        assert run["heldout_tokens"] > 0 and run["peak_rss"] > 0
    assert rounds.ratio("bpe_core", "hf") > 0

    text = tmp_path / "multi.txt"
    text.write_text(bench.multilingual_text(3_000) + bench.random_multilingual_text(1_000), encoding="utf-8")
    encoded = bench.encode_rounds("multilingual", text, bench.available_tools(bench.ENCODE_TOOLS), 1,
                                  log=lambda *a: None)
    hashes = {run["ids_sha256"] for runs in encoded.runs.values() for run in runs}
    assert len(hashes) == 1  # bpe_core and tiktoken agree on every id

    batch = bench.batch_rounds(corpus.train_path, 1, log=lambda *a: None)
    assert {"bpe_core x1", "tiktoken x1"} <= set(batch.runs)
    assert len({run["ids_sha256"] for runs in batch.runs.values() for run in runs}) == 1
    assert "ids identical across all: yes" in bench.batch_table(batch)

    summary = bench.targets_summary([rounds], [encoded], [])
    assert "training time" in summary and "encode_ordinary" in summary
    assert "| tiny vocab 300 | hf |" in bench.training_table([rounds])
    assert "| multilingual | bpe_core |" in bench.encoding_table([encoded])


def test_big_file_generator_is_deterministic_and_sized(bench, tmp_path):
    sources = ["def alpha(beta):\n    return gamma + delta\n" * 20, "class Thing:\n    value = 'text'\n" * 10]
    a = bench.generate_big_file(tmp_path / "a.txt", 20_000, sources)
    b = bench.generate_big_file(tmp_path / "b.txt", 20_000, sources)
    assert a.read_bytes() == b.read_bytes()
    assert 19_000 <= a.stat().st_size <= 20_000
    assert a.read_bytes().endswith(b"\n")


def test_render_scenario_produces_escaped_html_for_three_tokenizers(bench):
    runs = bench.render_rounds(1, log=lambda *_: None)
    assert {r["text"] for r in runs} == {"multilingual", "code"}
    assert all(r["tokenizers"] >= 2 and r["html_bytes"] > 20_000 for r in runs)
