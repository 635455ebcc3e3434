"""Smoke test of the variants benchmark (bench/variants_bench.py) on tiny synthetic sources: the held-out
files are the sources after the training ones, split into code and documentation, every training and
the measurement run in child processes, and the report has its tables. No timing is asserted."""

from pathlib import Path

import pytest


def test_variants_bench_on_tiny_sources(tmp_path, monkeypatch):
    variants_bench = pytest.importorskip("bench.variants_bench")
    sources = []
    for number in range(40):
        code = f"def handler_{number}(request, response):\n    return response.send(request.body, {number})\n" * 20
        sources.append((Path(f"pkg/m{number}.py"), code.encode()))
        prose = f"Of the people, by the people, for the people: note {number}. The way of the world.\n" * 20
        sources.append((Path(f"docs/n{number}.md"), prose.encode()))
    monkeypatch.setattr(variants_bench, "real_sources", lambda: sources)
    results = variants_bench.run(tmp_path, 0.05, 420, 0.8, 0.9, 0.01, log=lambda *_: None)
    heldout = {kind: (tmp_path / f"real-0.05MB-heldout-{kind}.txt").read_text() for kind in ("code", "docs")}
    training = (tmp_path / "real-0.05MB.txt").read_text()
    assert heldout["code"] and "def handler" in heldout["code"] and "people" in heldout["docs"]
    assert not any(line in training for line in set(heldout["code"].splitlines()) if "handler_" in line)
    assert set(results["trainings"]) == {"BPE", "SuperBPE stage 1", "SuperBPE stage 2", "Picky T=0.9"}
    assert results["trainings"]["SuperBPE stage 1"]["merges"] == results["transition_merges"] == 80
    report = variants_bench.report(results)
    assert "| SuperBPE t=0.8 | all |" in report and "Stage 2 / stage 1: wall time" in report
    assert "| SuperBPE stage 2 |" in report and "encode pieces" in report
