"""The process a training job runs in (``training_jobs``): ``python -m pages._ui.training_worker
<job.json>``. It trains with ``bpe_core.train_files`` on the files the job names, writes the tokenizer
(bpe_core JSON) where the job says, and reports on stdout, one JSON object a line: progress
(``{"phase", "done", "total"}``, at most about ten a second, and the last one of each phase), then
``{"ok": true}`` or ``{"error": message}`` for input bpe_core refuses.

It runs at a lower priority than the server (``os.nice``), so that pages stay quick for everyone while
someone trains. It imports no Streamlit, and draws nothing.
"""

from __future__ import annotations

import json
import os
import sys
import time

#: Seconds between two progress lines (the last report of a phase is always written).
REPORT_SECONDS = 0.1
#: How much lower than the server the training runs (added to its niceness).
NICENESS = 10


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")  # plain: a pipe, not Markdown
    sys.stdout.flush()


class _Reporter:
    """``progress(phase, done, total)`` written at most every REPORT_SECONDS, and always at a phase's
    first and last report; ``flush`` writes the last one held back (training may stop short of its total)."""

    def __init__(self) -> None:
        self.last_sent = float("-inf")
        self.phase: str | None = None
        self.held: dict | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        report = {"phase": phase, "done": done, "total": total}
        if phase != self.phase or done >= total or now - self.last_sent >= REPORT_SECONDS:
            self.phase, self.last_sent, self.held = phase, now, None
            _say(report)
        else:
            self.held = report

    def flush(self) -> None:
        if self.held is not None:
            _say(self.held)
            self.held = None


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    if hasattr(os, "nice"):
        try:
            os.nice(NICENESS)
        except OSError:
            pass  # not allowed here: train at the same priority
    import bpe_core
    from bpe_core.safe_io import write_atomic

    reporter = _Reporter()
    try:
        tokenizer = bpe_core.train_files(job["paths"], job["vocab_size"], progress=reporter, **job["options"])
        reporter.flush()
        write_atomic(job["out"], tokenizer.to_json().encode("utf-8"))
    except (ValueError, TypeError, OSError) as exc:  # bpe_core's BpeError is a ValueError
        _say({"error": str(exc)})
        return 1
    _say({"ok": True})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
