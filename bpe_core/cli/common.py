"""What the ``python -m bpe_core`` subcommands share: how ``--pattern`` is read, how ``--text-field`` and
``--bad-rows`` become the library's reading keywords (``reading_options``), the progress bar on
stderr, inputs read through ``safe_io`` (regular files, size limits, strict UTF-8, standard input
too), outputs checked before any work and written atomically, and ``say``: a line that quotes a file or
the user, printed escaped for the terminal (``display.marks.terminal_safe``).

Nothing here parses arguments or runs a command (``cli.main``, ``cli.corpus`` and ``cli.parity`` do).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bpe_core.display.marks import terminal_safe
from bpe_core.errors import BpeError
from bpe_core.progress import PhaseClock, byte_size
from bpe_core.safe_io import TEXT_LIMIT, decode_utf8, read_limited, read_stream_limited, writable_target, write_atomic

if TYPE_CHECKING:
    from bpe_core.training.trainer import ReadingOptions

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
        raise BpeError(
            f"--pattern is empty: give a preset (gpt2, cl100k, o200k), {NO_PATTERN} for no "
            f"pre-tokenization, or a regex; or leave --pattern out for the default ({default})"
        )
    return None if value == NO_PATTERN else value


def reading_options(args: argparse.Namespace) -> ReadingOptions:
    """``--text-field`` and ``--bad-rows`` as the keywords that say how corpus files are read, for every
    command that reads a corpus."""
    return {"text_field": args.text_field, "on_bad_row": args.bad_rows}


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


def check_output(path: str, *, folder: bool = False, files: tuple[str, ...] = ()) -> Path:
    """Check an output path before any work is done; ValueError saying what to do when the folder it
    goes into does not exist, when a file output names a folder, a folder output names a file, or the
    output (or, in a folder output, one of ``files``) is a FIFO, device or other non-regular file
    (``safe_io.writable_target``: outputs are regular files, never written through a symbolic link).

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
        raise BpeError(
            f"cannot write {path}: it is a file, and -o here names a folder (count writes its shards "
            "and export --format gpt2 its files into one); choose another -o"
        )
    if not folder and target.is_dir():
        raise BpeError(f"cannot write {path}: it is a folder; give a file name with -o, e.g. {path}/tokenizer.json")
    for name in files if folder else ("",):
        writable_target(target / name if name else target)
    return target


def write_output(path: str, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8 with ``safe_io.write_atomic`` (whole or not at all, nothing
    left behind, only regular files replaced); the reason of a failure is a ValueError."""
    check_output(path)
    write_atomic(path, text)


def read_input_text(path: str | None) -> str:
    """The text to encode or measure: the file ``path`` (a regular file), or standard input when
    ``path`` is None; at most ``safe_io.TEXT_LIMIT`` bytes, decoded as strict UTF-8 (invalid bytes are
    an error naming the offset, as in files, never replaced); a leading byte-order mark is dropped."""
    what = "a text to encode or measure"
    if path is None:
        data = read_stream_limited(sys.stdin.buffer, limit=TEXT_LIMIT, source="standard input", what=what)
        return decode_utf8(data, source="standard input").removeprefix("\ufeff")
    return decode_utf8(read_limited(path, limit=TEXT_LIMIT, what=what), source=path).removeprefix("\ufeff")


def say(line: str, *, file: TextIO | None = None) -> None:
    """Print one line whose parts may come from a file or the user, through ``display.marks.terminal_safe``:
    they can neither drive the terminal nor start a line of their own (output with several lines says each)."""
    print(terminal_safe(line), file=file)
