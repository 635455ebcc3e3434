"""Progress records: each phase is timed from its first report; the ETA follows the pace so far."""

from bpe_core.progress import PhaseClock, eta_seconds


def test_each_phase_is_timed_from_its_first_report():
    times = iter([10.0, 12.0, 20.0, 21.0])
    clock = PhaseClock(now=lambda: next(times))
    assert clock("count", 0, 100).eta is None  # nothing done yet: no estimate
    halfway = clock("count", 50, 100)
    assert (halfway.elapsed, halfway.eta, halfway.fraction) == (2.0, 2.0, 0.5)
    first_merge = clock("merge", 10, 40)
    assert first_merge.elapsed == 0.0 and first_merge.phase == "merge"
    done = clock("merge", 40, 40)
    assert done.finished and done.eta == 0.0 and done.elapsed == 1.0


def test_no_total_means_no_estimate():
    assert eta_seconds(5, 0, 3.0) is None
    assert eta_seconds(120, 100, 3.0) == 0.0
