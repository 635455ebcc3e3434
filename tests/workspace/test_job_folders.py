"""A training job's folder (bpe_core/workspace/jobs.py, worker.py) lives exactly as long as its job,
however it ends: done and never read, failed, cancelled, the worker killed with SIGKILL, the server
that started it killed, its page gone (``keep_alive``). Stale folders are swept, but never one a live
process holds: another server's on the same machine, or a worker still running. Each test here
failed before the rule."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from long_corpus import VOCAB, long_documents

import bpe_core
from bpe_core import file_lock
from bpe_core.workspace import jobs, worker
from bpe_core.workspace.jobs import TrainingJob, sweep_stale_folders

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["the cat sat on the mat. the dog sat on the log.\n" * 30, "café naïve 你好 " * 20]
LONG = long_documents()


def until(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def running(job: TrainingJob) -> TrainingJob:
    assert until(lambda: job.state().latest is not None), "the worker never reported"
    return job


def test_a_finished_jobs_folder_goes_though_nobody_reads_it():
    job = TrainingJob(DOCUMENTS, 300, min_frequency=2, pattern="gpt2")
    state = job.wait(timeout=120)
    assert state.ended and state.error is None and not os.path.exists(job.folder)
    assert job.tokenizer().merges == bpe_core.train(DOCUMENTS, 300, min_frequency=2, pattern="gpt2").merges


def test_a_failed_jobs_folder_goes():
    job = TrainingJob(DOCUMENTS, 100, pattern="gpt2")
    state = job.wait(timeout=120)
    assert state.error and "too small" in state.error and not os.path.exists(job.folder)


def test_a_killed_workers_folder_goes():
    job = running(TrainingJob(LONG, VOCAB, pattern="gpt2"))
    os.killpg(job.process.pid, signal.SIGKILL)
    state = job.wait(timeout=60)
    assert state.error == "the training process was stopped (signal 9) before it finished"
    assert not os.path.exists(job.folder)


def test_a_cancelled_jobs_folder_goes_and_it_says_it_did_not_finish():
    job = running(TrainingJob(LONG, VOCAB, pattern="gpt2"))
    job.cancel()
    assert job.wait(timeout=60).error and not os.path.exists(job.folder)


def test_a_job_whose_page_is_gone_stops_promptly():
    alive = [True]
    job = running(TrainingJob(LONG, VOCAB, pattern="gpt2", keep_alive=lambda: alive[0]))
    time.sleep(jobs.ABANDONED_SECONDS + 1)
    assert job.process.poll() is None  # followed: it goes on
    alive[0] = False
    state = job.wait(timeout=120)  # the training itself would last minutes
    assert state.error == "stopped: the page that started it was closed"  # stopped, not finished
    assert job.process.poll() is not None and not os.path.exists(job.folder)


def test_a_worker_whose_server_was_killed_removes_its_folder_and_stops(tmp_path):
    """A server (here a Python process) starts a job, says where, then dies by SIGKILL: the worker
    notices within about a second, removes the folder and ends."""
    script = (
        "import sys, time\n"
        "from bpe_core.workspace.jobs import TrainingJob\n"
        "from long_corpus import VOCAB, long_documents\n"
        "job = TrainingJob(long_documents(), VOCAB, pattern='gpt2')\n"
        "while job.state().latest is None: time.sleep(0.05)\n"
        "print(job.folder, job.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "support")])}
    server = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        folder, pid = server.stdout.readline().split()
        assert os.path.isdir(folder)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        assert until(lambda: not os.path.exists(folder), timeout=30), "the orphaned worker left its folder"
        assert until(lambda: not _alive(int(pid)), timeout=30), "the orphaned worker kept running"
    finally:
        server.kill()
        server.wait()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by init) counts as ended
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ------------------------------------------------------------------------------------------------
# sweeping stale folders


def _folder(base: Path, name: str, *, locks: tuple[str, ...] = (jobs.OWNER_LOCK, worker.WORKER_LOCK), age=3600):
    made = base / f"{jobs.FOLDER_PREFIX}{name}"
    made.mkdir()
    (made / "job.json").write_text("{}", encoding="utf-8")
    for lock in locks:
        (made / lock).touch()
    os.utime(made, (time.time() - age, time.time() - age))
    return made


HOLD = (
    "import sys, time\nfrom bpe_core.file_lock import try_hold\n"
    "h = try_hold(sys.argv[1])\nprint(h is not None, flush=True)\ntime.sleep(600)\n"
)


def test_stale_folders_are_swept_but_never_one_a_live_process_holds(tmp_path):
    dead = _folder(tmp_path, "dead")  # its server and worker were killed: both locks free
    fresh = _folder(tmp_path, "fresh", age=0)  # its owner may be taking its lock this moment
    older_kind = _folder(tmp_path, "older", locks=(), age=2 * 86_400)  # an older bpe_core's, days old
    recent_kind = _folder(tmp_path, "recent", locks=(), age=3600)
    other_server = _folder(tmp_path, "other-server")  # another server on this machine owns it
    orphan_worker = _folder(tmp_path, "orphan")  # its server died, its worker still runs
    (tmp_path / f"{jobs.FOLDER_PREFIX}link").symlink_to(dead)  # never followed
    holders = [
        subprocess.Popen([sys.executable, "-c", HOLD, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for path in (other_server / jobs.OWNER_LOCK, orphan_worker / worker.WORKER_LOCK)
    ]
    try:
        assert [holder.stdout.readline().strip() for holder in holders] == ["True", "True"]
        mine = file_lock.try_hold(_folder(tmp_path, "mine") / jobs.OWNER_LOCK)  # a live job of this process
        removed = sweep_stale_folders(str(tmp_path))
        file_lock.release(mine)
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
    assert sorted(removed) == sorted([dead.name, older_kind.name])
    assert not dead.exists() and not older_kind.exists()
    for kept in (fresh, recent_kind, other_server, orphan_worker, tmp_path / f"{jobs.FOLDER_PREFIX}mine"):
        assert kept.is_dir()
    assert os.path.islink(tmp_path / f"{jobs.FOLDER_PREFIX}link")
    later = sweep_stale_folders(str(tmp_path))  # their holders are gone now
    assert sorted(later) == sorted([other_server.name, orphan_worker.name, f"{jobs.FOLDER_PREFIX}mine"])


def test_a_live_jobs_folder_is_never_swept():
    job = running(TrainingJob(LONG, VOCAB, pattern="gpt2"))
    try:
        os.utime(job.folder, (time.time() - 3600, time.time() - 3600))
        assert os.path.basename(job.folder) not in sweep_stale_folders()
        assert os.path.isdir(job.folder) and job.process.poll() is None
    finally:
        job.cancel()


def test_what_the_worker_wrote_is_read_after_its_folder_went():
    job = TrainingJob(DOCUMENTS, 280, min_frequency=2, pattern="gpt2")
    job.wait(timeout=120)
    assert not os.path.exists(job.folder)
    assert '"format"' in job.read("tokenizer.json")
    with pytest.raises(FileNotFoundError):
        job.read("nothing.json")
