"""Extending a tokenizer outside the caller's Python process (``bpe_core.extend`` in ``worker``'s process,
kind ``extend``), with progress and cancel, as ``jobs.TrainingJob`` trains: the workbench's Extend page
runs one, so that the server's other sessions keep the CPU time they need. This module starts the job
and reads its result; ``jobs`` does the running, reading and stopping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from bpe_core.safe_io import write_atomic
from bpe_core.tokenizer import Tokenizer
from bpe_core.workspace.documents import write_documents
from bpe_core.workspace.jobs import WorkerJob


class ExtensionJob(WorkerJob):
    """``bpe_core.extend(base, documents, add=add, **options)`` in a worker process: the same tokenizer,
    its record included. ``base`` is a built-in's name (loaded there) or a ``Tokenizer`` (written to the
    job's folder as bpe_core JSON); ``options`` are ``extend``'s keywords and must be JSON values.
    ``ValueError`` at once for an empty corpus."""

    out: str  # where the worker writes the extended tokenizer

    def __init__(
        self,
        base: Tokenizer | str,
        documents: Sequence[str],
        add: int,
        *,
        keep_alive: Callable[[], bool] | None = None,
        **options: object,
    ) -> None:
        def prepare(folder: str) -> dict[str, object]:
            paths = write_documents(folder, list(documents))
            if not paths:
                raise ValueError("the corpus is empty: add files or choose a language's text")
            spec = base
            if isinstance(base, Tokenizer):
                spec = os.path.join(folder, "base.json")
                write_atomic(spec, base.to_json().encode("utf-8"))
            self.out = os.path.join(folder, "extended.json")
            return {"base": spec, "paths": paths, "add": int(add), "options": options, "out": self.out}

        super().__init__("extend", prepare, keep_alive=keep_alive)

    def tokenizer(self) -> Tokenizer:
        """The extended tokenizer (once the job ended without an error); its files are removed after."""
        try:
            return Tokenizer.from_json(self.read(os.path.basename(self.out)), source="the extended tokenizer")
        finally:
            self.close()
