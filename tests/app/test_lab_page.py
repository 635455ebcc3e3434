"""The Lab page, driven with streamlit.testing.v1.AppTest: the default run end to end (every variant
trained under one status box, in a process of its own, the tables equal to ``compare_variants`` called
here on the same variants, the CSV and LaTeX downloads, superwords marked, Picky BPE's removals), the
Rényi order measured again without training again, uploaded files, keeping a variant, bad inputs
shown as errors with their reason (never an exception), and a running training: Cancel leaves the
previous run as it was, leaving the page and coming back follows it to its end, a worker that dies
is said so."""

from __future__ import annotations

import csv
import io
import math
import os
import signal

import pytest
from apptest_support import drawn_html, opened, run, texts
from markup_audit import shown_text
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.analysis.variants import ROW_FIELDS, compare_variants, parse_variants, train_variants
from bpe_core.corpora.samples import parallel_text
from bpe_core.workspace.library_folder import LibraryFolder
from pages._ui import state

LAB = "pages/lab.py"
DEFAULT = "bpe,superbpe:0.8,picky:0.9,parity"


@pytest.fixture
def lab(workspace_dir):
    return opened(LAB, timeout=240)


def train(at: AppTest) -> AppTest:
    at.button(key="lab.go").click()
    return run(at)


def frame_with(at: AppTest, column: str):
    for element in at.dataframe:
        if column in element.value.columns:
            return element.value
    raise AssertionError(f"no table with a {column!r} column")


def errors(at: AppTest) -> list[str]:
    return [shown_text(e.value) for e in at.error]


@pytest.fixture(scope="module")
def expected():
    tokenizers = train_variants(parallel_text(split="train"), 2000, parse_variants(DEFAULT))
    return tokenizers, compare_variants(tokenizers)


def test_the_default_run_trains_every_variant_and_compares_them(lab, expected):
    assert lab.button(key="lab.go").label == "Train 4 variants" and not lab.dataframe  # nothing before Train
    train(lab)
    assert not lab.error
    run_kept = lab.session_state[state.LAB_RUN]
    tokenizers, comparison = expected
    assert list(run_kept.tokenizers) == list(tokenizers) == ["BPE", "SuperBPE t=0.8", "Picky T=0.9", "parity-aware BPE"]
    for label, tokenizer in tokenizers.items():  # the page trains what train_variants trains
        assert run_kept.tokenizers[label].vocab == tokenizer.vocab
    summary = frame_with(lab, "saved vs BPE %")
    used = frame_with(lab, "Rényi efficiency")  # the summary's measures in three tables, the same rows
    assert len(summary) == len(used) == 4 * 4  # four variants x natural, code, data, all
    rows = zip(summary.to_dict("records"), used.to_dict("records"), comparison.summary, strict=True)
    for row, other, want in rows:
        assert row["variant"] == other["variant"] == want["variant"]
        assert math.isclose(row["tokens/byte"], want["tokens_per_byte"])
        assert math.isclose(other["Rényi efficiency"], want["renyi_efficiency"])
    per_text = frame_with(lab, "kind")
    assert {"English", "Python"} <= set(per_text["text"]) and len(per_text) == 62
    status = [line for line in texts(lab.markdown) if line.startswith("✓")]
    assert len(status) == 4 and all("merges in" in line for line in status)


def test_the_downloads_are_the_comparison_as_csv_and_latex(lab, expected, monkeypatch):
    offered: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, data, mimetype, kind, filename=None):  # every file a download button offers
        offered[filename] = data if isinstance(data, bytes) else data.encode("utf-8")
        return original(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    train(lab)
    assert [b.proto.label for b in lab.get("download_button")] == [
        "⬇ Every text (CSV)",
        "⬇ Summary (CSV)",
        "⬇ Summary (LaTeX)",
    ]
    _, comparison = expected
    rows = list(csv.DictReader(io.StringIO(offered["lab.csv"].decode("utf-8"))))
    assert list(rows[0]) == list(ROW_FIELDS) and len(rows) == 4 * 62
    assert offered["lab.csv"].decode("utf-8") == comparison.to_csv()
    assert offered["lab-summary.csv"].decode("utf-8") == comparison.to_csv(summary=True)
    latex = offered["lab.tex"].decode("utf-8")
    assert latex == comparison.to_latex() and latex.startswith("\\begin{tabular}") and "SuperBPE t=0.8" in latex


def test_superwords_are_marked_and_listed_and_removals_explained(lab):
    train(lab)
    superwords = frame_with(lab, "superword")
    assert len(superwords) and (superwords["held-out count"] > 0).all()
    assert all("␣" in text.strip("␣") for text in superwords["superword"])
    removals = frame_with(lab, "IoS")
    assert len(removals) and (removals["IoS"] > 0.9).all() and (removals["merge step"] >= 0).all()
    html = "\n".join(drawn_html(lab))
    assert "a superword: one token across a space" in html and 'class="t c' in html and ' sw"' in html
    shown = texts(lab.markdown)
    assert any(line.startswith("**SuperBPE t=0.8**:") and "of them superwords" in line for line in shown)


def test_the_renyi_order_measures_again_without_training_again(lab):
    train(lab)
    uid = lab.session_state[state.LAB_RUN].uid
    before = frame_with(lab, "Rényi efficiency")["Rényi efficiency"].tolist()
    lab.number_input(key="lab.alpha").set_value(1.0)
    run(lab)
    after = frame_with(lab, "Rényi efficiency")["Rényi efficiency"].tolist()
    assert lab.session_state[state.LAB_RUN].uid == uid and after != before
    tokenizers = lab.session_state[state.LAB_RUN].tokenizers
    want = compare_variants(tokenizers, lab.session_state[state.LAB_RUN].corpus.samples, alpha=1.0)
    assert all(math.isclose(a, w["renyi_efficiency"]) for a, w in zip(after, want.summary, strict=True))


@pytest.mark.parametrize(
    ("widget", "value", "message"),
    [
        ("lab.transitions", "abc", "'abc' is not a transition point"),
        ("lab.transitions", "1.5", "a transition share must be above 0 and at most 1"),
        ("lab.transitions", "5000", "does not fit"),
    ],
)
def test_a_bad_transition_is_an_error_before_training(lab, widget, value, message):
    lab.text_input(key=widget).set_value(value)
    run(lab)
    assert any(message in error for error in errors(lab))
    assert lab.button(key="lab.go").disabled


def test_too_few_variants_is_an_error(lab):
    for key in ("lab.superbpe", "lab.picky", "lab.parity"):
        lab.checkbox(key=key).uncheck()
    run(lab)
    assert any("give 2 to 6 different variants" in error for error in errors(lab))
    assert lab.button(key="lab.go").disabled


def test_a_vocabulary_size_says_its_range_where_it_is_typed(lab):
    vocab = lab.number_input(key="lab.vocab_size")
    assert (vocab.min, vocab.max) == (257, 1_114_112)  # the field refuses 100 (and 0, -5, 300,000,000)
    assert "From 257" in vocab.help
    assert any(
        c.startswith("Trains up to 2,000 ids (1,744 merges). Accepted: 257 to 1,114,112") for c in texts(lab.caption)
    )
    assert state.LAB_RUN not in lab.session_state and not lab.dataframe


def test_uploaded_files_are_trained_on_with_a_tenth_held_out(lab):
    lab.radio(key="lab.corpus").set_value("files")
    run(lab)
    assert lab.button(key="lab.go").disabled  # no file yet
    assert any("parity-aware BPE needs parallel text" in error for error in errors(lab))
    lab.checkbox(key="lab.parity").uncheck()
    lines = "\n".join(f"line {i}: the quick brown fox jumps over the lazy dog {i % 7}" for i in range(200))
    lab.file_uploader(key="lab.uploads").set_value(("fox.txt", lines.encode(), "text/plain"))
    lab.number_input(key="lab.vocab_size").set_value(400)
    run(lab)
    train(lab)
    assert not lab.error
    held = frame_with(lab, "kind")
    assert "fox.txt (held out)" in set(held["text"]) and "English" in set(held["text"])
    summary = frame_with(lab, "saved vs BPE %")
    assert "your held-out text" in set(summary["texts"])


def test_a_kept_variant_joins_the_session_and_saves_to_the_library(lab, workspace_dir):
    train(lab)
    lab.selectbox(key="lab.keep.pick").set_value("Picky T=0.9")
    run(lab)
    assert lab.text_input(key="lab.keep.name").value == "lab-picky-t0.9-2000"
    lab.button(key="lab.keep.session").click()
    run(lab)
    assert "lab-picky-t0.9-2000" in lab.session_state[state.SESSION_TOKENIZERS]
    lab.text_input(key="lab.keep.name").set_value("my picky")
    lab.button(key="lab.keep.save").click()
    run(lab)
    saved = LibraryFolder(str(workspace_dir)).entries()
    assert [entry.name for entry in saved] == ["my picky"]
    assert bpe_core.load(str(saved[0].path)).rule == "picky"
    assert any("Saved" in shown_text(s.value) for s in lab.success)


def start_interrupted(at: AppTest, interrupted):
    """Click Train; the run stops while the job runs; the job, still running."""
    interrupted.armed = True
    train(at)
    running = at.session_state[state.LAB_JOB]
    assert at.button(key="lab.cancel").label == "Cancel training"
    assert lines_of(at, "○") or lines_of(at, "▶")  # the variants' lines, drawn before the stop
    return running


def lines_of(at: AppTest, mark: str) -> list[str]:
    return [line for line in texts(at.markdown) if line.startswith(mark)]


def test_cancel_stops_the_training_and_leaves_the_previous_run(lab, interrupted):
    interrupted.armed = False  # the first training runs to its end
    train(lab)
    before = lab.session_state[state.LAB_RUN]
    lab.number_input(key="lab.vocab_size").set_value(2500)
    run(lab)
    running = start_interrupted(lab, interrupted)
    assert lab.session_state[state.LAB_JOB] is running and lab.button(key="lab.go").disabled  # one at a time
    lab.button(key="lab.cancel").click()
    run(lab)
    assert running.job.process.wait(timeout=30) is not None and not os.path.exists(running.job.folder)
    assert state.LAB_JOB not in lab.session_state and not lab.error
    assert any(
        "Training cancelled: nothing of it was kept, and the previous run below is as it was." == shown_text(i.value)
        for i in lab.info
    )
    kept = lab.session_state[state.LAB_RUN]
    assert kept is before and kept.vocab_size == 2000 and frame_with(lab, "saved vs BPE %") is not None
    assert not lab.button(key="lab.go").disabled


def test_leaving_the_page_and_coming_back_follows_the_training_to_its_end(lab, interrupted, expected):
    running = start_interrupted(lab, interrupted)
    lab.switch_page("pages/tokenize_text.py")
    run(lab)
    assert lab.session_state[state.LAB_JOB] is running  # it went on meanwhile
    lab.switch_page(LAB)
    run(lab)
    assert state.LAB_JOB not in lab.session_state and not lab.error
    tokenizers, _ = expected
    kept = lab.session_state[state.LAB_RUN]
    assert list(kept.tokenizers) == list(tokenizers)
    assert all(kept.tokenizers[label].vocab == tokenizer.vocab for label, tokenizer in tokenizers.items())
    assert len(lines_of(lab, "✓")) == 4 and not os.path.exists(running.job.folder)


def test_a_worker_that_dies_is_said_so_and_changes_nothing(lab, interrupted):
    running = start_interrupted(lab, interrupted)
    os.killpg(running.job.process.pid, signal.SIGKILL)
    running.job.wait(timeout=30)
    run(lab)
    assert errors(lab) == ["Training failed: the training process was stopped (signal 9) before it finished"]
    assert state.LAB_JOB not in lab.session_state and state.LAB_RUN not in lab.session_state
    assert not os.path.exists(running.job.folder)
