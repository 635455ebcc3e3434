"""Training outside the server's process (bpe_core/workspace/jobs.py): a job gives bpe_core.train's
tokenizer and reports progress as it goes; a refused corpus ends with bpe_core's message, not a
traceback; Cancel stops the worker and leaves no files; an empty corpus is refused at once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import bpe_core  # noqa: E402
from bpe_core.workspace.jobs import TrainingJob  # noqa: E402

DOCUMENTS = ["the cat sat on the mat. the dog sat on the log.\n" * 30, "café naïve 你好 " * 20]


def test_a_job_gives_bpe_core_trains_tokenizer_and_its_progress():
    job = TrainingJob(DOCUMENTS, 300, min_frequency=2, pattern="gpt2", name="job")
    state = job.wait(timeout=120)
    assert state.ended and state.error is None
    trained = job.tokenizer()
    assert state.latest == ("merge", len(trained.merges), 300 - 256)  # the last report, even when held back
    expected = bpe_core.train(DOCUMENTS, 300, min_frequency=2, pattern="gpt2")
    assert trained.merges == expected.merges and trained.training["corpus"] == expected.training["corpus"]
    assert not os.path.exists(job.folder)  # its files go with it


def test_a_refused_corpus_ends_with_bpe_cores_message():
    job = TrainingJob(DOCUMENTS, 100, pattern="gpt2")
    state = job.wait(timeout=120)
    assert state.ended and state.error and "vocab_size=100 is too small" in state.error
    assert "Traceback" not in state.error


def test_cancel_stops_the_worker_and_leaves_no_files():
    job = TrainingJob(["some words and more words " * 200_000], 5_000, pattern="gpt2")
    job.cancel()
    assert job.process.wait(timeout=30) is not None
    assert not os.path.exists(job.folder)
    state = job.wait(timeout=30)
    assert state.ended and state.error  # it did not succeed


def test_an_empty_corpus_is_refused_at_once():
    with pytest.raises(ValueError, match="the corpus is empty"):
        TrainingJob([], 300)


def test_a_worker_that_writes_much_on_stderr_still_ends(monkeypatch):
    """Python's verbose mode makes the worker write hundreds of kilobytes on stderr (every import): more
    than a pipe holds, so stderr must not be a pipe nobody reads while the job runs."""
    monkeypatch.setenv("PYTHONVERBOSE", "2")  # -vv: every path it looks at too
    job = TrainingJob(DOCUMENTS, 300, min_frequency=2, pattern="gpt2", name="job")
    try:
        state = job.wait(timeout=120)
        assert state.ended and state.error is None
        assert job.tokenizer().merges == bpe_core.train(DOCUMENTS, 300, min_frequency=2, pattern="gpt2").merges
    finally:
        job.close()
