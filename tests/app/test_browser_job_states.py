"""Train's and the Lab's buttons follow their training job in a real browser (Debian's Chromium driven by
Playwright, on a busy machine: every wait is for a state of the page, up to test_browser.PATIENCE_MS):
done (no Cancel left), running, Cancel pressed twice (Train back, no Cancel, the message), a worker
killed (failed: Train back, the reason), a reload in the middle of a run (the new page offers Train, no
Cancel; the old worker stops within seconds). Each ended job's folder is gone: the server runs with a
temporary folder of its own, so the test sees every ``bpe-train-*`` folder it makes. Skips without
Chromium or Playwright, as test_browser.py does."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

import pytest
from long_corpus import long_documents
from test_browser import CORPUS, PATIENCE_MS, _browser_page, _no_exception, _serving, _settle, _shot, _shows_text

from bpe_core.workspace import jobs

#: Seconds a worker of a closed page may take to stop: its job's ABANDONED_SECONDS, and room for a
#: machine so busy that the watchdog's look and the process's end are late.
ABANDONED_WITHIN = jobs.ABANDONED_SECONDS + 60


@contextlib.contextmanager
def serving_with_job_folders(workspace: Path):
    """The app served from ``workspace``, its training jobs' folders in ``workspace/tmp`` (``TMPDIR``),
    so that a test sees its own jobs' folders; the served dict gains ``"tmp"``."""
    job_folders = workspace / "tmp"
    job_folders.mkdir()
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(job_folders)  # read by the server when it starts
    try:
        with _serving(workspace) as served:
            yield {**served, "tmp": job_folders}
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app, its training jobs' folders in a temporary folder of its own."""
    with serving_with_job_folders(tmp_path_factory.mktemp("workspace")) as served:
        yield served


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpora")
    small, long = folder / "fox.txt", folder / "words.txt"
    small.write_text(CORPUS, encoding="utf-8")
    long.write_text(long_documents()[0], encoding="utf-8")
    return {"small": small, "long": long}


def workers(server) -> list[int]:
    """The training workers of this test's server (their command line names a job file in its folder)."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit():
                command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if "bpe_core.workspace.worker" in command and str(server["tmp"]) in command and state != "Z":
                    found.append(int(entry))
    return found


def job_folders(server) -> list[str]:
    return sorted(name for name in os.listdir(server["tmp"]) if name.startswith(jobs.FOLDER_PREFIX))


def until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def open_train(page, server, corpus: Path, vocab_size: int) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server['url']}/train")
    expect(page.get_by_role("heading", name="Train a tokenizer", exact=True)).to_be_visible()
    _settle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(corpus))
    expect(page.get_by_text("unique pre-tokens").first).to_be_visible()
    _settle(page)
    vocab = page.locator('[data-testid="stNumberInput"] input').first  # the vocabulary size, the page's first
    vocab.fill(str(vocab_size))
    vocab.press("Enter")
    _settle(page)


def expect_train_back(page, enabled: bool = True) -> None:
    """Train shown (enabled, or disabled for want of a corpus), and no Cancel."""
    from playwright.sync_api import expect

    train = page.get_by_role("button", name="Train", exact=True)
    expect(train).to_be_enabled() if enabled else expect(train).to_be_disabled()
    expect(page.get_by_role("button", name="Cancel training")).to_have_count(0)


def start(page, server) -> None:
    """Click Train and wait for the running state: Cancel shown, Train disabled, a worker running."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="Train", exact=True).click()
    expect(page.get_by_role("button", name="Cancel training")).to_be_visible()
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_disabled()
    assert until(lambda: workers(server), timeout=PATIENCE_MS / 1000), "no worker started"


def test_train_done_then_cancelled_twice_then_failed(server, corpora):
    with _browser_page(server, "train_states_failure") as page:
        open_train(page, server, corpora["small"], 400)
        page.get_by_role("button", name="Train", exact=True).click()
        from playwright.sync_api import expect

        expect(page.get_by_text(re.compile(r"^4 · Result: fox-\d+$"))).to_be_visible()  # done
        expect_train_back(page)
        _no_exception(page, "Train, done")

        open_train(page, server, corpora["long"], 200_000)
        start(page, server)
        page.get_by_role("button", name="Cancel training").dblclick()  # Cancel pressed twice
        _shows_text(page, "Training cancelled: nothing was kept.")
        _settle(page)
        expect_train_back(page)
        assert until(lambda: not workers(server) and not job_folders(server), timeout=60), job_folders(server)
        _no_exception(page, "Train, cancelled twice")
        _shot(page, "train_cancelled_twice")

        start(page, server)
        (worker,) = workers(server)
        os.killpg(worker, signal.SIGKILL)  # the worker killed: the training failed
        _shows_text(page, "Training failed: the training process was stopped (signal 9) before it finished")
        _settle(page)
        expect_train_back(page)
        assert until(lambda: not job_folders(server), timeout=60), job_folders(server)
        _no_exception(page, "Train, worker killed")
        _shot(page, "train_worker_killed")


def test_a_reload_in_the_middle_of_a_training_offers_train_and_stops_the_old_worker(server, corpora):
    with _browser_page(server, "train_reload_failure") as page:
        open_train(page, server, corpora["long"], 200_000)
        start(page, server)
        running = workers(server)
        page.reload()
        from playwright.sync_api import expect

        expect(page.get_by_role("heading", name="Train a tokenizer", exact=True)).to_be_visible()
        _settle(page)
        expect_train_back(page, enabled=False)  # a new session: no corpus yet, and no Cancel
        assert until(lambda: not set(running) & set(workers(server)), timeout=ABANDONED_WITHIN), "still running"
        assert until(lambda: not job_folders(server), timeout=60), job_folders(server)
        _no_exception(page, "Train, reloaded")


def test_a_reload_in_the_middle_of_a_lab_training_offers_train_and_stops_the_old_worker(server, corpora):
    from playwright.sync_api import expect

    with _browser_page(server, "lab_reload_failure") as page:
        page.goto(f"{server['url']}/lab")
        expect(page.get_by_role("heading", name="Lab: BPE variants", exact=True)).to_be_visible()
        _settle(page)
        page.get_by_text("My files", exact=True).click()
        _settle(page)
        page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(corpora["long"]))
        expect(page.get_by_text("Trained on words.txt").first).to_be_visible()
        _settle(page)
        page.get_by_text("Parity-aware BPE", exact=True).click()  # it needs parallel text
        _settle(page)
        vocab = page.get_by_label("Vocabulary size (the same for every variant: 256 bytes + merges)", exact=True)
        vocab.fill("100000")
        vocab.press("Enter")
        _settle(page)
        page.get_by_role("button", name=re.compile(r"^Train \d variants$")).click()
        expect(page.get_by_role("button", name="Cancel training")).to_be_visible()
        assert until(lambda: workers(server), timeout=PATIENCE_MS / 1000), "no worker started"
        running = workers(server)
        page.reload()
        expect(page.get_by_role("heading", name="Lab: BPE variants", exact=True)).to_be_visible()
        _settle(page)
        expect(page.get_by_role("button", name=re.compile(r"^Train \d variants$"))).to_be_enabled()
        expect(page.get_by_role("button", name="Cancel training")).to_have_count(0)
        assert until(lambda: not set(running) & set(workers(server)), timeout=ABANDONED_WITHIN), "still running"
        assert until(lambda: not job_folders(server), timeout=60), job_folders(server)
        _no_exception(page, "Lab, reloaded")
