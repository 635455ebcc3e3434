"""Smoke test of the benchmark in bench/ on tiny data: corpora, child runs for every tool, tables and
the targets summary, the render scenario, and the command line. No timing is asserted (timings are
the benchmark's job)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


@pytest.fixture(scope="module")
def bench():
    """The bench modules (``bench`` is a folder of the checkout; tests/conftest.py puts the root on
    sys.path)."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("tiktoken")
    from bench import corpora, encoding_bench, render_bench, timing, training_bench

    return corpora, timing, training_bench, encoding_bench, render_bench


def test_quick_mode_core_functions_on_tiny_data(bench, tmp_path):
    corpora, timing, training_bench, encoding_bench, _ = bench
    corpus = corpora.prepare_stdlib(tmp_path, limit_bytes=30_000, name="tiny")
    assert corpus.train_bytes >= 30_000 and corpus.documents > 0
    assert json.loads(corpus.train_path.read_text(encoding="utf-8"))
    tools = timing.available_tools(training_bench.TRAIN_TOOLS, log=lambda *a: None)
    # rustbpe is a benchmark-only dependency (bench/requirements.txt); the others are test dependencies.
    assert tools[:2] == ["bpe_core", "hf"] and set(tools) <= {"bpe_core", "hf", "rustbpe"}
    rounds = training_bench.train_rounds(corpus, 300, tools, repeats=1, log=lambda *a: None)
    for tool in tools:
        run = rounds.runs[tool][0]
        assert run["merges"] == 300 - 256
        assert run["heldout_tokens"] > 0 and run["peak_rss"] > 0
    assert rounds.ratio("bpe_core", "hf") > 0

    text = tmp_path / "multi.txt"
    text.write_text(corpora.multilingual_text(3_000) + corpora.random_multilingual_text(1_000), encoding="utf-8")
    tools = timing.available_tools(encoding_bench.ENCODE_TOOLS)
    encoded = encoding_bench.encode_rounds("multilingual", text, tools, 1, log=lambda *a: None)
    assert encoded.same_ids()  # bpe_core and tiktoken agree on every id

    batch = encoding_bench.batch_rounds(corpus.train_path, 1, log=lambda *a: None)
    assert {"bpe_core x1", "tiktoken x1"} <= set(batch.runs)
    assert batch.same_ids()
    assert "ids identical across all: yes" in encoding_bench.batch_table(batch)

    summary = training_bench.training_targets([rounds]) + encoding_bench.encoding_targets([encoded])
    assert any("training time" in line for line in summary) and any("encode_ordinary" in line for line in summary)
    assert "| tiny vocab 300 | hf |" in training_bench.training_table([rounds])
    assert "| multilingual | bpe_core |" in encoding_bench.encoding_table([encoded])


def test_big_file_generator_is_deterministic_and_sized(bench, tmp_path):
    corpora = bench[0]
    sources = ["def alpha(beta):\n    return gamma + delta\n" * 20, "class Thing:\n    value = 'text'\n" * 10]
    a = corpora.generate_big_file(tmp_path / "a.txt", 20_000, sources)
    b = corpora.generate_big_file(tmp_path / "b.txt", 20_000, sources)
    assert a.read_bytes() == b.read_bytes()
    assert 19_000 <= a.stat().st_size <= 20_000
    assert a.read_bytes().endswith(b"\n")


def test_render_scenario_times_token_details_for_three_tokenizers(bench):
    render_bench = bench[4]
    runs = render_bench.render_rounds(1, log=lambda *_: None)
    assert {r["text"] for r in runs} == {"multilingual", "code"}
    assert all(r["tokenizers"] >= 2 and r["tokens"] > 2_000 and r["tiktoken_seconds"] > 0 for r in runs)
    assert render_bench.render_report(runs).count("median") == 2


#: Streamlit pages the browser benchmarks serve with ``streamlit run`` (never imported by a benchmark):
#: the bare page first_view_bench sets the workbench's first view against.
SERVED_PAGES = {"bare_app.py"}
#: What of streamlit a benchmark may import: the messages of its wire protocol, which the sessions
#: benchmark's emulated visitors speak to a server as a browser does (a client's half, not the app).
PROTOCOL = "streamlit.proto"


def test_the_benchmark_never_imports_the_app():
    """bench/ measures the library: it imports neither the app's pages nor streamlit (a page it serves
    to a browser, and streamlit's protocol messages, aside), and nothing imports such a page."""
    for path in sorted(BENCH.glob("*.py")):
        if path.name in SERVED_PAGES:
            assert "streamlit" in path.read_text(encoding="utf-8")  # still a page: else drop it from the set
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                if name == PROTOCOL or name.startswith(PROTOCOL + "."):
                    continue
                assert name.split(".")[0] not in {"pages", "streamlit", "app"}, f"{path.name} imports {name}"
                assert name.rsplit(".", 1)[-1] + ".py" not in SERVED_PAGES, f"{path.name} imports {name}"


def test_command_line_help_runs_from_anywhere(tmp_path):
    result = subprocess.run(
        [sys.executable, str(BENCH / "benchmark.py"), "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    for flag in ("--quick", "--big", "--skip-render", "--skip-batch", "--json"):
        assert flag in result.stdout
