"""The Lab's training out of the server's process: ``bpe_core.workspace.worker``'s variants kind, started as the
Lab page starts it (``pages/_lab/training.start_job``). The tokenizers it gives equal
``train_variants`` run here on the same corpus and variants (merges, ids, records), each variant read
back from bpe_core JSON behaves as the one trained here (encodings, the comparison, Picky BPE's
removals, SuperBPE's superwords); it reports each variant's progress and when each is done; input
bpe_core refuses ends with its message, a killed worker with a clear one, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bpe_core import Tokenizer  # noqa: E402
from bpe_core.analysis.picky_removals import picky_removals  # noqa: E402
from bpe_core.analysis.variants import builtin_heldout, compare_variants, parse_variants, superword_ids, train_variants  # noqa: E402
from pages._lab.choices import builtin_corpus, uploaded_corpus  # noqa: E402
from pages._lab.training import start_job  # noqa: E402

VARIANTS = parse_variants("bpe,superbpe:0.8,superbpe:1500,picky:0.9,parity")


def untimed(value):
    """bpe_core JSON without the training's times (two trainings never take the same time)."""
    if isinstance(value, dict):
        return {key: untimed(item) for key, item in value.items() if "seconds" not in key}
    return [untimed(item) for item in value] if isinstance(value, list) else value


@pytest.fixture(scope="module")
def corpus():
    return builtin_corpus()


@pytest.fixture(scope="module")
def in_process(corpus):
    return train_variants(corpus.texts, 2000, VARIANTS)


@pytest.fixture(scope="module")
def from_the_worker(corpus):
    running = start_job(corpus, 2000, VARIANTS)
    state = running.job.wait(timeout=600)
    trained = {note["variant"]: Tokenizer.from_json(running.job.read(note["file"])) for note in state.notes}
    running.job.close()
    return running, state, trained


def test_the_worker_trains_what_train_variants_trains(in_process, from_the_worker):
    running, state, trained = from_the_worker
    assert state.ended and state.error is None
    assert list(trained) == list(in_process) == running.labels
    for label, tokenizer in in_process.items():
        got = trained[label]
        assert got.merges == tokenizer.merges and got.vocab == tokenizer.vocab, label
        assert got.rule == tokenizer.rule and got.pattern == tokenizer.pattern, label
        assert untimed(json.loads(got.to_json())) == untimed(json.loads(tokenizer.to_json())), label  # all but times
    assert not os.path.exists(running.job.folder)  # closed: its files are gone


def test_it_reports_each_variant_then_says_it_is_done(from_the_worker):
    running, state, _ = from_the_worker
    assert [note["variant"] for note in state.notes] == running.labels
    assert all(note["seconds"] >= 0 and note["file"].endswith(".json") for note in state.notes)
    last = state.progress
    assert last is not None and last["variant"] == running.labels[-1]
    assert (last["done"], last["total"]) == (state.latest[1], state.latest[2])


def test_every_variant_reads_back_and_behaves_the_same(in_process):
    samples = builtin_heldout()
    back = {label: Tokenizer.from_json(tokenizer.to_json()) for label, tokenizer in in_process.items()}
    for label, tokenizer in in_process.items():
        again = back[label]
        assert type(again) is type(tokenizer) and again.training == tokenizer.training, label
        for sample in samples:
            ids = tokenizer.encode(sample.text)
            assert again.encode(sample.text) == ids and again.decode(ids) == tokenizer.decode(ids), (label, sample.id)
    picky = in_process["Picky T=0.9"]
    assert picky_removals(back["Picky T=0.9"]) == picky_removals(picky) and picky_removals(picky)
    superbpe = in_process["SuperBPE t=0.8"]
    assert superword_ids(back["SuperBPE t=0.8"]) == superword_ids(superbpe) and superword_ids(superbpe)
    want, got = compare_variants(in_process), compare_variants(back)
    assert got.to_csv() == want.to_csv() and got.superwords == want.superwords and got.removed == want.removed


def test_a_refused_input_ends_with_bpe_cores_message(corpus):
    running = start_job(corpus, 100, parse_variants("bpe,picky:0.9"))
    state = running.job.wait(timeout=120)
    running.job.close()
    assert state.ended and state.error and "vocab_size=100 is too small" in state.error
    assert "Traceback" not in state.error and not state.notes


def test_a_killed_worker_is_said_so(corpus):
    lines = "\n".join(f"line {i}: the quick brown fox {i * 7919 % 1000} jumps over the lazy dog" for i in range(20000))
    files = uploaded_corpus([("fox.txt", "x", [lines])])
    running = start_job(files, 20_000, parse_variants("bpe,picky:0.9"))
    os.killpg(running.job.process.pid, signal.SIGKILL)
    state = running.job.wait(timeout=60)
    running.job.close()
    assert state.ended and state.error == "the training process was stopped (signal 9) before it finished"
