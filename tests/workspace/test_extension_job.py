"""Extending outside the caller's process (bpe_core/workspace/extension_job.py): the job gives
bpe_core.extend's tokenizer, record included, from a built-in's name or from a Tokenizer; a refused
setting ends with bpe_core's message, not a traceback; Cancel stops the worker and leaves no files; an
empty corpus is refused at once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import bpe_core  # noqa: E402
from bpe_core.corpora.samples import parallel_text  # noqa: E402
from bpe_core.workspace.extension_job import ExtensionJob  # noqa: E402

HINDI = parallel_text(split="train", languages=["hin"])["hin"]


def test_a_job_gives_bpe_core_extends_tokenizer():
    job = ExtensionJob("gpt2", HINDI, 60, scripts=["Devanagari"], name="gpt2-hindi")
    state = job.wait(timeout=300)
    assert state.ended and state.error is None
    extended = job.tokenizer()
    expected = bpe_core.extend(bpe_core.load("gpt2"), HINDI, add=60, scripts=["Devanagari"], name="gpt2-hindi")
    assert dict(extended.vocab) == dict(expected.vocab) and extended.merges == expected.merges
    assert extended.name == "gpt2-hindi" and extended.training["extension"]["added"] == 60
    assert extended.training["corpus"]["characters"] == expected.training["corpus"]["characters"]
    assert not os.path.exists(job.folder)  # its files go with it


def test_a_tokenizer_of_the_session_is_extended_too():
    base = bpe_core.train(HINDI[:40], 300, min_frequency=2, name="small")
    job = ExtensionJob(base, HINDI[40:], 20, min_frequency=1)
    state = job.wait(timeout=300)
    assert state.ended and state.error is None
    extended = job.tokenizer()
    assert extended.merges == bpe_core.extend(base, HINDI[40:], add=20, min_frequency=1).merges
    assert all(extended.vocab[i] == token for i, token in base.vocab.items())


def test_a_refused_setting_ends_with_bpe_cores_message():
    job = ExtensionJob("gpt2", HINDI, 10, scripts=["Devangari"])
    state = job.wait(timeout=300)
    assert state.ended and state.error and "Devangari" in state.error and "Traceback" not in state.error


def test_cancel_stops_the_worker_and_leaves_no_files():
    job = ExtensionJob("gpt2", ["some words and more words " * 200_000], 5_000)
    job.cancel()
    assert job.process.wait(timeout=60) is not None
    assert not os.path.exists(job.folder)
    state = job.wait(timeout=60)
    assert state.ended and state.error  # it did not succeed


def test_an_empty_corpus_is_refused_at_once():
    with pytest.raises(ValueError, match="the corpus is empty"):
        ExtensionJob("gpt2", [], 10)
