"""Smoke test of the scale benchmark (bench/scale_bench.py, ``benchmark.py --scale``) on tiny data:
the real corpus is de-duplicated and sized, the generated corpus is deterministic and keeps making new
words, every tool trains from the file in a child process, and the report and targets come out. No
timing is asserted (timings are the benchmark's job)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    pytest.importorskip("tokenizers")
    from bench import corpora, scale_bench, timing

    return corpora, scale_bench, timing


def test_real_corpus_is_deduplicated_and_cut_at_whole_files(bench, tmp_path):
    corpora = bench[0]
    one = tmp_path / "one.py"
    one.write_text("def f():\n    return 1\n", encoding="utf-8")
    sources = [
        (one, one.read_bytes()),
        (tmp_path / "doc.md", b"# Title\n\nSome prose here.\n"),
        (tmp_path / "big.txt", b"word " * 400 + b"\n"),
    ]
    made = corpora.prepare_real_file(tmp_path / "real.txt", 60, sources)
    data = (tmp_path / "real.txt").read_bytes()
    assert made["bytes"] == len(data) >= 60
    assert made["files"] < 3  # stopped once the size was reached, at a whole file
    assert all(data.count(content) <= 1 for _, content in sources)


def test_real_sources_keep_each_content_once(bench, tmp_path, monkeypatch):
    corpora = bench[0]
    for root in ("a", "b"):
        (tmp_path / root / "pkg").mkdir(parents=True)
        (tmp_path / root / "pkg" / "same.py").write_text("x = 1\n", encoding="utf-8")  # installed twice
        (tmp_path / root / "pkg" / "blob.bin").write_bytes(b"\x00\x01")
    (tmp_path / "a" / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (tmp_path / "b" / "bad.txt").write_bytes(b"\xff\xfe not UTF-8")
    monkeypatch.setattr(corpora, "real_source_roots", lambda: [tmp_path / "a", tmp_path / "b"])
    found = corpora.real_sources()
    assert [path.relative_to(tmp_path).as_posix() for path, _ in found] == ["a/notes.md", "a/pkg/same.py"]


def test_generated_corpus_is_deterministic_and_grows_new_words(bench, tmp_path):
    corpora = bench[0]
    lines = [f"def handler_{i % 50}(request, response):\n" for i in range(400)] + ["    return value\n"] * 100
    a = corpora.generate_resampled_file(tmp_path / "a.txt", 200_000, lines)
    b = corpora.generate_resampled_file(tmp_path / "b.txt", 200_000, lines)
    text = a.read_text(encoding="utf-8")
    assert text == b.read_text(encoding="utf-8")
    assert 190_000 <= len(text.encode("utf-8")) <= 200_000 and text.endswith("\n")

    def words(source: str) -> set[str]:
        return set(source.replace("(", " ").replace(")", " ").replace(",", " ").replace(":", " ").split())

    new_words = words(text) - words("".join(lines))
    assert len(new_words) > 20 and all(
        word.split("_")[0] in {"request", "response", "return", "value"} for word in new_words
    )  # suffixed words the pool never had


def test_scale_run_trains_every_tool_from_files_and_reports(bench, tmp_path):
    corpora, scale_bench, timing = bench
    tools = timing.available_tools(scale_bench.SCALE_TOOLS, log=lambda *a: None)
    path = tmp_path / "corpus.txt"
    path.write_text(
        "def add(left, right):\n    return left + right\n" * 300 + "Some prose, in words.\n" * 200, encoding="utf-8"
    )
    rounds = scale_bench.scale_rounds(
        [("real tiny", path, 1), ("generated 1 MB", path, 1)], tools, 1, vocab_size=300, log=lambda *a: None
    )
    for tool in tools:
        run = rounds[0].runs[tool][0]
        assert run["seconds"] > 0 and run["cpu_seconds"] >= 0 and run["peak_rss"] > 0
        assert 0 < run["merges"] <= 300 - 256
    assert rounds[0].runs["bpe_core"][0]["unique_pretokens"] > 0
    table = scale_bench.scale_table(rounds)
    assert "| real tiny | hf |" in table
    targets = scale_bench.scale_targets(rounds)
    assert any("<= 0.8x HF" in line for line in targets) and any("peak memory" in line for line in targets)
    assert any("linear in size" in line for line in scale_bench.scale_targets(rounds + rounds[1:]))


def test_command_line_offers_the_scale_mode(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "benchmark.py"), "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "--scale" in result.stdout and "--scale-sizes" in result.stdout
