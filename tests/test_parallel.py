"""parallel.ordered_map starts no more workers than there are tasks or CPUs, whatever is asked for,
and the results stay the same and in order."""

import operator

import pytest

from bpe_core import parallel

# Workers import the function by name, so it must live in an importable module: operator.add(context, task).


@pytest.fixture()
def started(monkeypatch):
    """Count the worker processes ordered_map starts."""
    count = []

    class CountedWorker(parallel.Worker):
        def __init__(self):
            count.append(1)
            super().__init__()

    monkeypatch.setattr(parallel, "Worker", CountedWorker)
    return count


@pytest.mark.parametrize(
    "tasks, cpus, requested, expected", [(1, 8, 40, 1), (3, 2, 40, 2), (5, 8, 3, 3), (0, 8, 40, 0)]
)
def test_workers_are_capped_by_tasks_and_cpus(started, monkeypatch, tasks, cpus, requested, expected):
    monkeypatch.setattr(parallel, "available_cpus", lambda: cpus)
    work = iter(range(100, 100 + tasks))
    results = list(parallel.ordered_map(operator.add, work, workers=requested, setup=int, setup_argument=1, context=1))
    assert results == [101 + t for t in range(tasks)]
    assert len(started) == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_sharing_the_work_keeps_results_in_order(workers):
    # This process computes tasks beside the workers (share=True) while none of theirs is waiting: whichever
    # process computed a task, the results come back in task order.
    results = list(
        parallel.ordered_map(
            operator.add, range(200), workers=workers, setup=int, setup_argument=1, context=1, share=True
        )
    )
    assert results == [1 + t for t in range(200)]


def test_worker_count_is_the_smallest_of_the_three(monkeypatch):
    monkeypatch.setattr(parallel, "available_cpus", lambda: 4)
    assert parallel.worker_count(40, 1) == 1
    assert parallel.worker_count(40, 100) == 4
    assert parallel.worker_count(2, 100) == 2
    assert parallel.worker_count(3, 0) == 0


def test_ordered_map_rejects_a_bad_worker_count():
    with pytest.raises(ValueError, match="positive integer"):
        list(parallel.ordered_map(operator.add, [1, 2], workers=0))


SLOW_TASKS = """
import time


def slow(context, task):
    time.sleep(0.5)
    return task
"""
RUN_SLOW_TASKS = (
    "from bpe_core import parallel; import slow_tasks; print('started', flush=True); "
    "[None for _ in parallel.ordered_map(slow_tasks.slow, range(1000), workers=2)]"
)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGKILL"), reason="kill -9 is POSIX")
def test_workers_end_quietly_when_their_parent_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "slow_tasks.py").write_text(SLOW_TASKS, encoding="utf-8")
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, str(tmp_path)]))
    parent = subprocess.Popen(
        [sys.executable, "-c", RUN_SLOW_TASKS], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert parent.stdout.readline() == b"started\n"
    # Wait until the workers hold tasks (they answer within a second), then kill the parent outright.
    import time

    time.sleep(2.0)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    # The workers inherited stderr: it ends when the last of them has exited (the timeout only guards a hang).
    stderr = subprocess.run(["cat"], stdin=parent.stderr, capture_output=True, timeout=60).stdout.decode()
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


CHILD_TASKS = """
import os
import time


def pid_after_reports(report, steps):
    for step in range(steps):
        if report is not None:
            report("step", step)
    return os.getpid()


def fails(report, message):
    raise LookupError(message)


def reports_until_stopped(report, _):
    while True:
        report("tick")
        time.sleep(0.01)
"""


@pytest.fixture
def child_tasks(tmp_path, monkeypatch):
    """A module of ``call_in_child`` functions, importable here and by the worker (PYTHONPATH)."""
    import os
    import sys

    (tmp_path / "child_tasks.py").write_text(CHILD_TASKS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    import child_tasks

    yield child_tasks
    sys.modules.pop("child_tasks", None)


def test_call_in_child_computes_in_another_process_and_relays_progress_in_order(child_tasks):
    import os

    reports = []
    pid = parallel.call_in_child(child_tasks.pid_after_reports, 5, progress=lambda *r: reports.append(r))
    assert pid != os.getpid()
    assert reports == [("step", step) for step in range(5)]
    assert parallel.call_in_child(child_tasks.pid_after_reports, 2) != os.getpid()  # no progress: none sent


def test_call_in_child_raises_the_functions_error_here(child_tasks):
    with pytest.raises(LookupError, match="no such corpus"):
        parallel.call_in_child(child_tasks.fails, "no such corpus")


def test_an_error_raised_by_progress_stops_the_child(child_tasks, monkeypatch):
    workers = []
    start = parallel.Worker.__init__

    def recorded(self):
        start(self)
        workers.append(self)

    monkeypatch.setattr(parallel.Worker, "__init__", recorded)

    class Cancelled(Exception):
        pass

    def cancel(*_):
        raise Cancelled

    with pytest.raises(Cancelled):  # the child never ends by itself: the call returns only if it is stopped
        parallel.call_in_child(child_tasks.reports_until_stopped, None, progress=cancel)
    assert workers and workers[0].process.poll() is not None  # killed, not left reporting


def test_without_a_worker_call_in_child_computes_here(child_tasks, monkeypatch):
    import os

    def no_process(self):
        raise OSError("no processes here")

    monkeypatch.setattr(parallel.Worker, "__init__", no_process)
    reports = []
    assert (
        parallel.call_in_child(child_tasks.pid_after_reports, 3, progress=lambda *r: reports.append(r)) == os.getpid()
    )
    assert reports == [("step", 0), ("step", 1), ("step", 2)]
