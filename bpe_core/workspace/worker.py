"""The process a training job runs in (``jobs``): ``python -m bpe_core.workspace.worker
<job.json>``. The job's ``kind`` says what it does:

- ``train`` (the default): ``bpe_core.train_files`` on the files the job names; the tokenizer is
  written (bpe_core JSON) where the job says (``out``).
- ``variants``: ``bpe_core.analysis.variants.train_variants`` on the job's ``texts`` (source ->
  documents) at ``vocab_size``, one variant (``[kind, value]``) after the other, each tokenizer written
  as bpe_core JSON in the folder ``out`` (``variant-<index>.json``; every variant's tokenizer, Picky
  BPE's and SuperBPE's records included, reads back the same with ``Tokenizer.from_json``).

- ``extend``: ``bpe_core.extend`` of the job's ``base`` (a built-in name or a tokenizer file) on the
  files the job names, ``add`` new tokens at most; the extended tokenizer is written (bpe_core JSON)
  where the job says (``out``).

It reports on stdout, one JSON object a line: progress (``{"phase", "done", "total"}``, with
``"variant"`` (its label) in a variants job; at most about ten a second, and the last one of each
phase), in a variants job ``{"variant", "seconds", "file"}`` as each variant is done, then
``{"ok": true}`` or ``{"error": message}`` for input bpe_core refuses.

It runs at a lower priority than the server (``os.nice``), so that pages stay quick for everyone while
someone trains. It holds its folder's ``WORKER_LOCK`` while it lives (so that no sweep of stale job
folders takes a folder it works in), and when the process that started it is gone (killed, or its pipe
closed), nobody can read what it makes: it removes its folder and stops at once. It imports no
Streamlit, and draws nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time

from bpe_core.file_lock import try_hold

#: Seconds between two progress lines (the last report of a phase is always written).
REPORT_SECONDS = 0.1
#: How much lower than the server the training runs (added to its niceness).
NICENESS = 10
#: The lock file the worker holds in its job's folder while it runs.
WORKER_LOCK = "worker.lock"
#: Seconds between two looks at whether the process that started the worker is still there.
PARENT_CHECK_SECONDS = 0.5
#: The worker's exit status when it stops because the process that started it is gone.
ORPHANED = 3


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")  # plain: a pipe, not Markdown
    sys.stdout.flush()


class _Reporter:
    """``progress(phase, done, total)`` written at most every REPORT_SECONDS, and always at a phase's
    first and last report; ``flush`` writes the last one held back (training may stop short of its total).
    ``fields`` are added to every report (a variant's label)."""

    def __init__(self, **fields: object) -> None:
        self.fields = fields
        self.last_sent = float("-inf")
        self.phase: str | None = None
        self.held: dict | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        report = {**self.fields, "phase": phase, "done": done, "total": total}
        if phase != self.phase or done >= total or now - self.last_sent >= REPORT_SECONDS:
            self.phase, self.last_sent, self.held = phase, now, None
            _say(report)
        else:
            self.held = report

    def flush(self) -> None:
        if self.held is not None:
            _say(self.held)
            self.held = None


def _train(job: dict) -> None:
    import bpe_core
    from bpe_core.safe_io import write_atomic

    reporter = _Reporter()
    tokenizer = bpe_core.train_files(job["paths"], job["vocab_size"], progress=reporter, **job["options"])
    reporter.flush()
    write_atomic(job["out"], tokenizer.to_json().encode("utf-8"))


def _variants(job: dict) -> None:
    from bpe_core.analysis.variants import VariantSpec, train_variants
    from bpe_core.safe_io import write_atomic

    variants = [VariantSpec(str(kind), value) for kind, value in job["variants"]]
    for index, variant in enumerate(variants):  # one at a time: each is said done as it is
        reporter = _Reporter(variant=variant.label)
        begun = time.perf_counter()
        trained = train_variants(
            job["texts"],
            job["vocab_size"],
            [variant],
            **job.get("options", {}),
            progress=lambda _label, *step, report=reporter: report(*step),
        )
        seconds = time.perf_counter() - begun
        reporter.flush()
        name = f"variant-{index}.json"
        write_atomic(os.path.join(job["out"], name), trained[variant.label].to_json().encode("utf-8"))
        _say({"variant": variant.label, "seconds": seconds, "file": name})


def _extend(job: dict) -> None:
    import bpe_core
    from bpe_core.safe_io import write_atomic

    reporter = _Reporter()
    base = bpe_core.load(job["base"])
    extended = bpe_core.extend(base, files=job["paths"], add=job["add"], progress=reporter, **job["options"])
    reporter.flush()
    write_atomic(job["out"], extended.to_json().encode("utf-8"))


KINDS = {"train": _train, "variants": _variants, "extend": _extend}


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    folder = os.path.dirname(os.path.abspath(argv[0]))
    held = try_hold(os.path.join(folder, WORKER_LOCK))  # noqa: F841 (held until the process ends)
    _stop_when_orphaned(folder, os.getppid())
    if hasattr(os, "nice"):
        try:
            os.nice(NICENESS)
        except OSError:
            pass  # not allowed here: train at the same priority
    kind = job.get("kind", "train")
    try:
        if kind not in KINDS:
            _say({"error": f"unknown kind of training job: {kind!r}"})
            return 2
        try:
            KINDS[kind](job)
        except (ValueError, TypeError, OSError) as exc:  # bpe_core's BpeError is a ValueError
            if isinstance(exc, BrokenPipeError):
                raise
            _say({"error": str(exc)})
            return 1
        _say({"ok": True})
    except BrokenPipeError:  # the process that started it closed its end: nobody reads this job any more
        _give_up(folder)
    return 0


def _stop_when_orphaned(folder: str, parent: int) -> None:
    """Watch (in a thread) for the process that started the worker to go; then ``_give_up``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        _give_up(folder)

    threading.Thread(target=watch, name="bpe-worker-parent", daemon=True).start()


def _give_up(folder: str) -> None:
    """The job's starter is gone: remove its folder and stop now (counting workers end with it)."""
    shutil.rmtree(folder, ignore_errors=True)
    os._exit(ORPHANED)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
