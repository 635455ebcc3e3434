"""What the ``python -m bpe_core`` subcommands share: how ``--pattern`` is read, the progress bar on
stderr, and outputs checked before any work and written atomically.

Nothing here parses arguments or runs a command (``cli.main``, ``cli.corpus`` and ``cli.parity`` do).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TextIO

from bpe_core.errors import BpeError
from bpe_core.progress import PhaseClock

#: What ``--pattern`` says for no pre-tokenization (the library's ``pattern=None``).
NO_PATTERN = "none"


def pattern_option(value: str | None, *, default: str) -> str | None:
    """``--pattern`` as the library takes it, the same in every command: ``default`` when not given,
    None (no pre-tokenization) for ``none``, else the preset name or regex as given. An empty one
    (``--pattern ""``) is a ValueError saying what to give: an empty regex is a mistake, not a default.

    >>> [pattern_option(value, default="gpt2") for value in (None, "none", "o200k")]
    ['gpt2', None, 'o200k']
    """
    if value is None:
        return default
    if not value:
        raise BpeError(f"--pattern is empty: give a preset (gpt2, cl100k, o200k), {NO_PATTERN} for no "
                         f"pre-tokenization, or a regex; or leave --pattern out for the default ({default})")
    return None if value == NO_PATTERN else value


def byte_size(count: int) -> str:
    """A number of bytes for people.

    >>> byte_size(950), byte_size(12_345), byte_size(200_000_000)
    ('950 B', '12.3 kB', '200.0 MB')
    """
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= size:
            return f"{count / size:,.1f} {unit}"
    return f"{count} B"


class ProgressBar:
    """A text progress bar with an ETA on stderr (silent when stderr is not a terminal, unless forced)."""

    def __init__(
        self, stream: TextIO | None = None, *, force: bool = False, width: int = 30, count_unit: str = ""
    ) -> None:
        """``count_unit="bytes"`` shows the counting phase's progress in megabytes read as well."""
        self.stream = stream or sys.stderr
        self.count_unit = count_unit
        self.enabled = force or self.stream.isatty()
        self.width = width
        self.clock = PhaseClock()
        self.last_draw = 0.0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        previous_phase = self.clock.phase
        progress = self.clock(phase, done, total)
        now = time.perf_counter()
        if phase != previous_phase:
            if previous_phase is not None:
                self.stream.write("\n")
        elif now - self.last_draw < 0.1 and done < total:
            return
        self.last_draw = now
        filled = int(self.width * progress.fraction)
        label = "counting" if phase == "count" else "merging "
        eta = progress.eta if progress.eta is not None else float("nan")
        eta_text = f"ETA {eta:5.1f}s" if progress.fraction > 0 and done < total else f"{progress.elapsed:5.1f}s"
        amount = ""
        if phase == "count" and self.count_unit == "bytes":
            amount = f" {byte_size(done)} of {byte_size(total)}"
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{label} [{bar}] {progress.fraction * 100:5.1f}%{amount} {eta_text}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.clock.phase is not None:
            self.stream.write("\n")


def check_output(path: str, *, folder: bool = False) -> Path:
    """Check an output path before any work is done; ValueError saying what to do when the folder it
    goes into does not exist, when a file output names a folder, or a folder output names a file.

    >>> check_output("tokenizer.json").name
    'tokenizer.json'
    """
    if not str(path).strip():
        raise BpeError("the output path is empty: give a file name with -o")
    target = Path(path)
    parent = target.parent
    if not parent.is_dir():
        raise BpeError(
            f"cannot write {path}: the folder {str(parent)!r} does not exist; create it or choose another -o"
        )
    if folder and target.exists() and not target.is_dir():
        raise BpeError(f"cannot write {path}: it is a file, and -o here names a folder (count writes its shards "
                         "and export --format gpt2 its files into one); choose another -o")
    if not folder and target.is_dir():
        raise BpeError(f"cannot write {path}: it is a folder; give a file name with -o, e.g. {path}/tokenizer.json")
    return target


def write_output(path: str, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed over it); on failure the
    temporary file is removed and the reason is a ValueError."""
    target = check_output(path)
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(temporary, "w", encoding=encoding) as handle:
            handle.write(text)
        os.replace(temporary, target)
    except OSError as exc:
        raise BpeError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        # Gone after the rename; still there after any failure (disk full, interrupted...).
        try:
            os.unlink(temporary)
        except OSError:
            pass
