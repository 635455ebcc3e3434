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

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

#: The allowance of any operation, and what each million characters of input adds to it.
BASE_SECONDS = 5.0
SECONDS_PER_MB = 2.0
#: A custom pattern's piece is settled once this many characters follow it (see the module docstring).
CUSTOM_MARGIN = 1 << 16


class RegexBudget:
    """The time account of one pattern over one operation.

    >>> budget = RegexBudget("\\\\w+", base_seconds=1.0, seconds_per_mb=2.0)
    >>> budget.grant(500_000)
    >>> round(budget.remaining(), 3)
    2.0
    """

    def __init__(self, pattern: str, *, base_seconds: float = BASE_SECONDS, seconds_per_mb: float = SECONDS_PER_MB):
        for name, value in (("base_seconds", base_seconds), ("seconds_per_mb", seconds_per_mb)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, got {value!r}")
        self.pattern = pattern
        self.base_seconds = float(base_seconds)
        self.seconds_per_mb = float(seconds_per_mb)
        self.characters = 0
        self.spent = 0.0

    @property
    def allowed(self) -> float:
        return self.base_seconds + self.seconds_per_mb * self.characters / 1e6

    def grant(self, characters: int) -> None:
        """Add the allowance of ``characters`` more characters of input (not of rescans)."""
        self.characters += characters

    def remaining(self) -> float:
        return max(0.0, self.allowed - self.spent)

    def error(self) -> ValueError:
        """The error for a pattern that used up its budget: which pattern, how much, what to do."""
        return ValueError(
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
    chunks: Iterable[str], compiled, special_regex, *, guard: int, check, budget: RegexBudget
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
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"expected str chunks, got {type(chunk).__name__}")
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


def _settle(buffer: str, done: int, segment: int, compiled, special_regex, guard: int, budget: RegexBudget, *,
            final: bool) -> tuple[list[tuple[str, bool]], int, int]:
    """The pieces of ``buffer`` from ``done`` on that are settled (all of them when ``final``), and
    the new ``done`` and ``segment``: special tokens ending ``guard`` characters before the end close
    their segment, whose pieces are all settled; in the open segment, those ``CUSTOM_MARGIN``
    characters before that."""
    ready: list[tuple[str, bool]] = []
    limit = len(buffer) - guard
    while True:
        special = special_regex.search(buffer, done) if special_regex is not None else None
        closed = special is not None and special.end() <= limit
        end = special.start() if closed else len(buffer)
        until = end if closed or final else limit - CUSTOM_MARGIN
        text = buffer if segment == 0 else buffer[segment:end]  # the segment's start is the text's
        offset = 0 if segment == 0 else segment
        with budget.running() as timeout:
            for match in compiled.finditer(text, done - offset, end - offset, timeout=timeout):
                start, stop = match.start() + offset, match.end() + offset
                if stop > until:
                    break
                if stop > start:
                    ready.append((buffer[start:stop], False))
                    done = stop
        if not closed:
            return ready, done, segment
        ready.append((special.group(), True))
        done = segment = special.end()
