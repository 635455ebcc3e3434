"""Progress of a long call: which phase, how far, how long so far, and an estimate of what is left.

Training reports ``progress(phase, done, total)`` (see ``training``); ``PhaseClock`` turns those
calls into ``Progress`` records with elapsed time and an ETA, for any display (the CLI's text bar,
the app's progress bar). Nothing here draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


def eta_seconds(done: int, total: int, elapsed: float) -> float | None:
    """The time left if the rest goes at the pace so far; None before any step or without a total.

    >>> eta_seconds(25, 100, 5.0)
    15.0
    """
    if done <= 0 or total <= 0:
        return None
    return elapsed * max(total - done, 0) / done


@dataclass(frozen=True)
class Progress:
    phase: str
    done: int
    total: int
    elapsed: float  # seconds since this phase started
    eta: float | None  # seconds left in this phase, if known
    at: float = 0.0  # the clock's reading for this report

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    @property
    def finished(self) -> bool:
        return bool(self.total) and self.done >= self.total


class PhaseClock:
    """Times each phase from its first report: ``clock(phase, done, total) -> Progress``."""

    def __init__(self, now: Callable[[], float] = time.perf_counter) -> None:
        self._now = now
        self.phase: str | None = None
        self._started = 0.0

    def __call__(self, phase: str, done: int, total: int) -> Progress:
        now = self._now()
        if phase != self.phase:
            self.phase = phase
            self._started = now
        elapsed = now - self._started
        return Progress(phase, done, total, elapsed, eta_seconds(done, total, elapsed), now)


def byte_size(count: int) -> str:
    """A number of bytes for people.

    >>> byte_size(950), byte_size(12_345), byte_size(200_000_000)
    ('950 B', '12.3 kB', '200.0 MB')
    """
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= size:
            return f"{count / size:,.1f} {unit}"
    return f"{count} B"
