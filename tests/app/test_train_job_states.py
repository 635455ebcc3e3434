"""The Train page's Train button, Cancel button and what it shows follow its job through every state
(pages/_ui/training_jobs.py), driven with AppTest: idle, running (the page's run stopped while the job
goes on, as a click elsewhere stops it in a browser), cancelled (Cancel clicked once, or twice),
failed, done, and each way from one to another. Compare's "Train to see the difference" and the Lab
follow the same flow (the Lab: tests/app/test_lab_page.py)."""

from __future__ import annotations

import os

import pytest
from apptest_support import opened, run, texts
from long_corpus import VOCAB, long_documents
from markup_audit import shown_text
from streamlit.testing.v1 import AppTest

from bpe_core.workspace import jobs
from pages._ui import state

TRAIN = "pages/train.py"
SMALL = ("the cat sat on the mat. the dog sat on the log. cats and dogs sat together.\n" * 30).encode()
LONG = long_documents(20_000)[0].encode()


@pytest.fixture
def page(workspace_dir):
    return opened(TRAIN, timeout=240)


class TrainsTooSmall(jobs.TrainingJob):
    """A job whose training the trainer refuses in its own process (vocabulary 100, which the page's
    field never lets through): a job that fails once it runs."""

    def __init__(self, documents, vocab_size, **options):
        super().__init__(documents, 100, **options)


def corpus(at: AppTest, data: bytes, vocab_size: int, name: str = "") -> AppTest:
    at.file_uploader(key="train.uploads").set_value(("corpus.txt", data, "text/plain"))
    at.number_input(key="train.vocab_size").set_value(vocab_size)
    at.number_input(key="train.min_frequency").set_value(1)
    at.text_input(key="train.name").set_value(name)
    return run(at)


def buttons(at: AppTest) -> dict[str, bool]:
    """The page's job buttons: key -> enabled."""
    return {b.key: not b.disabled for b in at.button if b.key in ("train.go", "train.cancel")}


def results(at: AppTest) -> list[str]:
    return [header for header in texts(at.header) if header.startswith("4 · Result")]


def start_running(at: AppTest, interrupted):
    """Click Train; the page's run stops while the job runs on (its worker still starting: the page
    looks at it every tenth of a second): the running state."""
    interrupted.armed = True
    at.button(key="train.go").click()
    run(at)
    assert state.TRAIN_JOB in at.session_state, ended_text(at)
    return at.session_state[state.TRAIN_JOB]


def ended_text(at: AppTest) -> list[str]:
    """What the page says of how its last job ended."""
    said = [shown_text(e.value) for e in [*at.info, *at.error, *at.success]]
    return [text for text in said if text.startswith(("Training", "Trained"))]


def test_idle_then_running_then_cancelled(page, interrupted):
    assert buttons(page) == {"train.go": False}  # idle, no corpus: Train disabled, no Cancel
    corpus(page, LONG, VOCAB)
    assert buttons(page) == {"train.go": True} and not results(page) and not ended_text(page)
    running = start_running(page, interrupted)
    assert buttons(page) == {"train.go": False, "train.cancel": True} and not results(page)
    assert running.job.process.poll() is None
    page.button(key="train.cancel").click()
    run(page)
    assert buttons(page) == {"train.go": True}  # at once, in the run that read the click
    assert ended_text(page) == ["Training cancelled: nothing was kept."] and not results(page)
    assert running.job.process.wait(timeout=30) is not None and not os.path.exists(running.job.folder)
    assert state.TRAIN_JOB not in page.session_state
    run(page)  # any later run: still cancelled, still Train
    assert buttons(page) == {"train.go": True} and ended_text(page) == ["Training cancelled: nothing was kept."]


def test_cancel_clicked_twice_leaves_train_and_no_cancel(page, interrupted):
    corpus(page, LONG, VOCAB)
    start_running(page, interrupted)
    cancel = page.button(key="train.cancel")
    cancel.click()
    run(page)
    page.session_state["train.cancel"] = True  # the second click, come after the first one's run
    run(page)
    assert buttons(page) == {"train.go": True}
    assert ended_text(page) == ["Training cancelled: nothing was kept."] and not page.exception


def test_running_then_failed_then_running_then_done(page, interrupted, monkeypatch):
    corpus(page, SMALL, 300, name="too-small")
    with monkeypatch.context() as patched:
        patched.setattr(jobs, "TrainingJob", TrainsTooSmall)  # refused by the trainer in its process: a failure
        page.button(key="train.go").click()
        run(page)
    assert buttons(page) == {"train.go": True} and not results(page)
    (error,) = texts(page.error)
    assert error.startswith("Training failed: ") and "vocab_size=100 is too small" in error
    corpus(page, SMALL, 300, name="my-bpe")
    assert texts(page.error) == [error]  # how the last job ended, until the next one starts
    start_running(page, interrupted)
    assert buttons(page) == {"train.go": False, "train.cancel": True} and not page.error  # failure forgotten
    run(page)  # the page follows the job again, to its end
    assert buttons(page) == {"train.go": True}  # no Cancel left from the running state
    assert results(page) == ["4 · Result: my-bpe"] and any(
        t.startswith("Trained **my-bpe** in") for t in ended_text(page)
    )


def test_done_then_running_then_cancelled_keeps_the_earlier_result_and_says_so(page, interrupted):
    corpus(page, SMALL, 300, name="first")
    page.button(key="train.go").click()
    run(page)
    assert buttons(page) == {"train.go": True} and results(page) == ["4 · Result: first"]
    corpus(page, LONG, VOCAB, name="second")
    start_running(page, interrupted)
    assert buttons(page) == {"train.go": False, "train.cancel": True}
    page.button(key="train.cancel").click()
    run(page)
    assert buttons(page) == {"train.go": True}
    said = "Training cancelled: nothing was kept. The result below is still **first**, trained before."
    assert ended_text(page) == [said]
    assert results(page) == ["4 · Result: first"]


def test_done_then_failed_keeps_the_earlier_result_and_says_so(page, monkeypatch):
    corpus(page, SMALL, 300, name="first")
    page.button(key="train.go").click()
    run(page)
    corpus(page, SMALL, 300, name="second")
    monkeypatch.setattr(jobs, "TrainingJob", TrainsTooSmall)  # refused by the trainer in its process
    page.button(key="train.go").click()
    run(page)
    (error,) = [shown_text(e.value) for e in page.error]
    assert "vocab_size=100 is too small" in error
    assert error.endswith("must be at least 256. The result below is still **first**, trained before.")
    assert buttons(page) == {"train.go": True} and results(page) == ["4 · Result: first"]


def test_a_new_session_of_the_page_is_idle_while_an_old_one_trains(page, interrupted, workspace_dir):
    """A reload is a new session: Train, no Cancel, no result (the old session's job is the old one's)."""
    corpus(page, LONG, VOCAB)
    running = start_running(page, interrupted)
    fresh = opened(TRAIN, timeout=240)
    corpus(fresh, SMALL, 300)
    assert buttons(fresh) == {"train.go": True} and not results(fresh) and not ended_text(fresh)
    running.job.cancel()


def test_compares_train_to_see_the_difference_follows_the_same_states(workspace_dir, interrupted):
    page = opened("pages/compare.py", timeout=240)
    page.multiselect(key="cmp.train.samples").set_value(["eng", "hin"])
    page.number_input(key="cmp.train.vocab").set_value(400)
    run(page)
    go = {"cmp.train.go", "cmp.train.cancel"}

    def compare_buttons() -> dict[str, bool]:
        return {b.key: not b.disabled for b in page.button if b.key in go}

    assert compare_buttons() == {"cmp.train.go": True}
    interrupted.armed = True
    page.button(key="cmp.train.go").click()
    run(page)
    assert compare_buttons() == {"cmp.train.go": False, "cmp.train.cancel": True}
    page.button(key="cmp.train.cancel").click()
    run(page)
    assert compare_buttons() == {"cmp.train.go": True} and state.CMP_TRAIN_JOB not in page.session_state
    assert "Training cancelled: nothing was kept." in texts(page.info)
    page.button(key="cmp.train.go").click()
    run(page)
    assert compare_buttons() == {"cmp.train.go": True}
    assert any(s.startswith("Trained **mix-eng-hin-") for s in texts(page.success))
    assert "Training cancelled: nothing was kept." not in texts(page.info)
