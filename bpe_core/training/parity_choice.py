"""Which language each merge of parity-aware training serves, under Hugging Face's or the paper's
conventions, with a development text or with target compression rates.

A language's standing is a number, larger meaning worse compressed: with a development text, its
token count under the merges so far; with target rates (``ratio``), minus its compression rate over
its own training text (tokens at the start / tokens now) divided by its target, computed as Hugging
Face's ``ParityBpeTrainer`` computes it, so the language furthest below its target is the worst.
Ties go to the language given first.

- ``"base"``: the worst language not exhausted.
- ``"window"``: the worst language not exhausted that was picked at most ``alpha / n`` of the last
  ``window`` picks (n languages; the comparison is ``count / window <= alpha / n``, as both
  reference implementations write it); when none qualifies, the one checked last, i.e. the best
  compressed (Hugging Face's).

Conventions (docs/fairness.md, "Hugging Face and the paper"):

- ``"huggingface"`` (ParityBpeTrainer of ``tokenizers`` 0.23): a language with no pair at
  ``min_frequency`` left is exhausted and skipped; every pick of the window variant counts in the
  window, also one that finds its language exhausted. When every language not exhausted is over the
  limit and some are exhausted, ParityBpeTrainer's scan falls through to language 0: if that one is
  exhausted, and under the limit or the only one exhausted, it is picked (a pick that makes no
  merge); otherwise ParityBpeTrainer never returns, and here the best compressed language not
  exhausted is served instead (``stalled`` counts these picks).
- ``"paper"`` (the paper's code, github.com/cimeister/parity-aware-bpe): training stops at the first
  exhausted language; in the hybrid the window limit is ``alpha / (n + 1)`` (it counts the global
  statistics as a language); target rates are divided by the first language's (only their ratios
  matter; this changes rounding only). When no language qualifies the paper's code fails; here the
  best compressed language is served, as Hugging Face's does.

This module does not count pairs or make merges (``parity_policy``, ``engine``), nor check settings (``parity``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Literal

Convention = Literal["huggingface", "paper"]
CONVENTIONS: tuple[str, ...] = ("huggingface", "paper")


def ratio_standing(before: Sequence[int], now: Sequence[int], ratio: Sequence[float]) -> list[float]:
    """Each language's standing in target-rate mode: minus (before / now) / ratio (float division in
    that order, as ParityBpeTrainer computes it), so the largest is the furthest below its target.

    >>> ratio_standing([100, 100], [50, 80], [1.0, 1.0])
    [-2.0, -1.25]
    """
    return [-((first / current) / target) for first, current, target in zip(before, now, ratio, strict=True)]


class Chooser:
    """Picks the language each merge serves; ``exhausted`` marks the languages with no pair left at
    ``min_frequency`` (set by the caller), ``stops`` says whether the first one ends training."""

    def __init__(
        self, n: int, variant: str, window: int, alpha: float, *, convention: str = "huggingface", hybrid: bool = False
    ) -> None:
        self.n, self.variant, self.window = n, variant, window
        self.stops = convention == "paper"
        self.limit = alpha / (n + 1 if self.stops and hybrid else n)
        self.exhausted = [False] * n
        self.recent: deque[int] = deque()
        self.picked = [0] * n  # times picked in ``recent``
        self.stalled = 0  # picks at which ParityBpeTrainer would never return

    def pick(self, standing: Sequence[float]) -> int | None:
        """The language to serve (possibly one found exhausted: the caller skips it); None when every
        language is exhausted."""
        exhausted = self.exhausted
        live = [i for i in range(self.n) if not exhausted[i]]
        if not live:
            return None
        if self.variant == "base":
            return max(live, key=lambda i: (standing[i], -i))
        order = sorted(live, key=lambda i: (-standing[i], i))
        picked, window, limit = self.picked, self.window, self.limit
        chosen = next((i for i in order if picked[i] / window <= limit), None)
        if chosen is None:
            chosen = order[-1]
            if exhausted[0] and (picked[0] / window <= limit or len(order) == self.n - 1):
                chosen = 0  # ParityBpeTrainer's scan, out of languages, falls on language 0
            elif len(order) < self.n:
                self.stalled += 1
        self._record(chosen)
        return chosen

    def _record(self, language: int) -> None:
        self.recent.append(language)
        self.picked[language] += 1
        if len(self.recent) > self.window:
            self.picked[self.recent.popleft()] -= 1
