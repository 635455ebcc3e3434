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


def test_worker_count_is_the_smallest_of_the_three(monkeypatch):
    monkeypatch.setattr(parallel, "available_cpus", lambda: 4)
    assert parallel.worker_count(40, 1) == 1
    assert parallel.worker_count(40, 100) == 4
    assert parallel.worker_count(2, 100) == 2
    assert parallel.worker_count(3, 0) == 0


def test_ordered_map_rejects_a_bad_worker_count():
    with pytest.raises(ValueError, match="positive integer"):
        list(parallel.ordered_map(operator.add, [1, 2], workers=0))
