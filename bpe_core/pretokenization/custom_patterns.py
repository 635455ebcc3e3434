"""Custom pre-tokenization patterns: their time budget, and streaming them in bounded memory.

**Budget.** The presets run in linear time; a user's regex may backtrack catastrophically
(``(a+)+$``) and run for ever. A ``RegexBudget`` allows ``base_seconds`` plus ``seconds_per_mb`` for
every million characters of input granted to it, accounted across every regex call of one operation
(all the documents of one training run, one encode call), so a pattern fails once the operation as a
whole has used its allowance, however the input is split into texts, and a large input is never
refused for its size alone. Each call may run for what is left (the `regex` module's ``timeout``).

**Streaming.** ``stream_custom`` gives the pieces of a text that arrives in chunks, holding only an
unsettled tail. A custom pattern may look ahead (and behind) as far as it likes, so no cut is safe for
every pattern; the rule used, and what it assumes:

    A piece is settled once ``CUSTOM_MARGIN`` characters of text follow its end. This gives exactly
    the pieces of ``findall`` on the whole text for every pattern whose matches are decided by at most
    ``CUSTOM_MARGIN`` characters after their end and ``CUSTOM_MARGIN`` before their start: every
    pattern without look-around whose alternatives stop at the first character they cannot take
    (``\\S+|\\s+``, ``\\w+|\\W``, ``.``, ``[^\\n]*\\n?``), and look-arounds of bounded reach
    (``[a-z]+(?= )``). A pattern that looks further (``\\w+(?=.*!)`` on lines longer than the margin)
    may split the text around the far end of a chunk differently.

The tail is scanned again only once it has doubled since the last scan, so one piece longer than the
margin (a megabyte without a space, for ``\\S+``) is held whole but scanned a bounded number of times:
time stays linear and memory is bounded by the longest piece plus the margin. ``pretokenize`` owns the
patterns; this module only runs a compiled one.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import accumulate, repeat
from typing import TYPE_CHECKING

from bpe_core.errors import BpeError

if TYPE_CHECKING:
    import regex

#: The allowance of any operation, and what each million characters of input adds to it.
BASE_SECONDS = 5.0
SECONDS_PER_MB = 2.0
#: A custom pattern's piece is settled once this many characters follow it (see the module docstring).
CUSTOM_MARGIN = 1 << 16
#: Longer chunks are scanned this many characters at a time, so that the pieces of one scan stay few.
SCAN_CHARS = 1 << 20


def allowance(characters: int, *, base_seconds: float | None = None, seconds_per_mb: float | None = None) -> float:
    """Seconds a pattern may spend on ``characters`` of input: a base plus so much per million
    characters (None: this module's ``BASE_SECONDS`` and ``SECONDS_PER_MB`` as they are now).

    >>> allowance(500_000, base_seconds=1.0, seconds_per_mb=2.0)
    2.0
    """
    base = BASE_SECONDS if base_seconds is None else base_seconds
    per_mb = SECONDS_PER_MB if seconds_per_mb is None else seconds_per_mb
    return base + per_mb * characters / 1e6


class RegexBudget:
    """The time account of one pattern over one operation.

    >>> budget = RegexBudget("\\\\w+", base_seconds=1.0, seconds_per_mb=2.0)
    >>> budget.grant(500_000)
    >>> round(budget.remaining(), 3)
    2.0
    """

    def __init__(
        self, pattern: str | None, *, base_seconds: float = BASE_SECONDS, seconds_per_mb: float = SECONDS_PER_MB
    ) -> None:
        for name, value in (("base_seconds", base_seconds), ("seconds_per_mb", seconds_per_mb)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise BpeError(f"{name} must be a number of seconds >= 0, got {value!r}")
        self.pattern = pattern
        self.base_seconds = float(base_seconds)
        self.seconds_per_mb = float(seconds_per_mb)
        self.characters = 0
        self.spent = 0.0

    @property
    def allowed(self) -> float:
        return allowance(self.characters, base_seconds=self.base_seconds, seconds_per_mb=self.seconds_per_mb)

    def grant(self, characters: int) -> None:
        """Add the allowance of ``characters`` more characters of input (not of rescans)."""
        self.characters += characters

    def remaining(self) -> float:
        return max(0.0, self.allowed - self.spent)

    def error(self) -> ValueError:
        """The error for a pattern that used up its budget: which pattern, how much, what to do."""
        return BpeError(
            f"pre-tokenization regex {self.pattern!r} ran out of time: {self.spent:.1f} s on "
            f"{self.characters:,} characters, more than the {self.base_seconds:g} s plus "
            f"{self.seconds_per_mb:g} s per million characters it is allowed (catastrophic backtracking?). "
            "Simplify it: avoid nested quantifiers such as (a+)+ and alternatives that can match the same "
            "text, prefer possessive quantifiers (a++) or atomic groups, or use a preset such as 'gpt2'."
        )

    @contextmanager
    def running(self) -> Iterator[float]:
        """Time one regex call: gives its timeout (what is left), charges what it took, and turns the
        `regex` module's ``TimeoutError`` (or an overdraft) into ``error()``."""
        if self.remaining() <= 0:
            raise self.error()
        started = time.perf_counter()
        try:
            yield self.remaining()
        except TimeoutError:
            self.spent += time.perf_counter() - started
            raise self.error() from None
        self.spent += time.perf_counter() - started
        if self.spent > self.allowed:
            raise self.error()


def stream_custom(
    chunks: Iterable[str],
    compiled: regex.Pattern[str],
    special_regex: re.Pattern[str] | None,
    *,
    guard: int,
    check: Callable[[str], None] | None,
    budget: RegexBudget,
) -> Iterator[tuple[str, bool]]:
    """``(piece, is_special)`` for the concatenation of ``chunks`` with the custom pattern
    ``compiled`` (catch-all included, so the pieces tile the text), as ``findall`` on each stretch
    between special tokens of the joined text would give them, under the rule above.

    ``guard`` is the length of the longest special token; ``check(text)`` (if given) sees every chunk
    with the ``guard`` characters before it, so it sees every special token; ``budget`` is charged for
    every scan and granted every chunk.
    """
    buffer = ""  # buffer[:done] has been given out; buffer[:segment] precedes the current segment
    done = segment = 0
    pending: list[str] = []  # chunks not yet added to buffer
    waiting = 0  # their length
    recent = ""  # the last `guard` characters read
    for chunk in _at_most(chunks, SCAN_CHARS):
        if check is not None:
            check(recent + chunk)
            recent = (recent + chunk)[-guard:] if guard else ""
        budget.grant(len(chunk))
        pending.append(chunk)
        waiting += len(chunk)
        # Scan again once the unsettled text has doubled: linear time even under one long piece.
        if waiting < max(len(buffer) - done, guard + CUSTOM_MARGIN):
            continue
        buffer += "".join(pending)
        pending, waiting = [], 0
        ready, done, segment = _settle(buffer, done, segment, compiled, special_regex, guard, budget, final=False)
        yield from ready
        keep = max(segment, done - CUSTOM_MARGIN)  # look-behind room, within the segment
        buffer, done, segment = buffer[keep:], done - keep, max(0, segment - keep)
    buffer += "".join(pending)
    yield from _settle(buffer, done, segment, compiled, special_regex, 0, budget, final=True)[0]


def _at_most(chunks: Iterable[str], size: int) -> Iterator[str]:
    """``chunks`` with those longer than ``size`` cut into pieces of ``size`` characters."""
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"expected str chunks, got {type(chunk).__name__}")
        if len(chunk) <= size:
            yield chunk
        else:
            yield from (chunk[start : start + size] for start in range(0, len(chunk), size))


def scan(compiled: regex.Pattern[str], text: str, pos: int, endpos: int, budget: RegexBudget) -> list[str]:
    """The non-empty matches of ``compiled`` in ``text[pos:endpos]`` (seen as a text that ends at
    ``endpos``), in order, on ``budget``: ``findall`` when the pattern has no group (it then gives
    whole matches, at C speed), ``finditer`` otherwise."""
    with budget.running() as timeout:
        if not compiled.groups:
            return list(filter(None, compiled.findall(text, pos, endpos, timeout=timeout)))
        matches = compiled.finditer(text, pos, endpos, timeout=timeout)
        return [match.group() for match in matches if match.end() > match.start()]


def _settle(
    buffer: str,
    done: int,
    segment: int,
    compiled: regex.Pattern[str],
    special_regex: re.Pattern[str] | None,
    guard: int,
    budget: RegexBudget,
    *,
    final: bool,
) -> tuple[list[tuple[str, bool]], int, int]:
    """The pieces of ``buffer`` from ``done`` on that are settled (all of them when ``final``), and
    the new ``done`` and ``segment``: special tokens ending ``guard`` characters before the end close
    their segment, whose pieces are all settled; in the open segment, those ``CUSTOM_MARGIN``
    characters before that."""
    ready: list[tuple[str, bool]] = []
    limit = len(buffer) - guard
    while True:
        special = special_regex.search(buffer, done) if special_regex is not None else None
        closing = special if special is not None and special.end() <= limit else None
        end = closing.start() if closing is not None else len(buffer)
        # In the open segment, a piece's margin must end before any special token that may yet
        # close the segment (one still growing at the end, or one not yet read).
        next_special = special.start() if special is not None else limit
        until = end if closing is not None or final else min(limit, next_special) - CUSTOM_MARGIN
        text = buffer if segment == 0 else buffer[segment:end]  # the segment's start is the text's
        offset = 0 if segment == 0 else segment
        pieces = scan(compiled, text, done - offset, end - offset, budget)
        # The pieces tile the scanned text (the pattern ends in a catch-all): cut them at `until`.
        ends = list(accumulate(map(len, pieces), initial=done))
        taken = max(0, bisect.bisect_right(ends, until) - 1)  # until may lie before done
        ready.extend(zip(pieces[:taken], repeat(False)))
        done = ends[taken]
        if closing is None:
            return ready, done, segment
        ready.append((closing.group(), True))
        done = segment = closing.end()
