"""A corpus as files to train on (the workbench's Train page, and Compare's *Train to see the
difference*): the documents are written to a job's folder and trained on with ``bpe_core.train_files``
in a process of its own (``jobs``), so counting reports bytes read and one large document moves a
progress bar block by block (``bpe_core.train`` on a list can only report documents).

The files hold exactly the documents, in order: a long document that UTF-8 writes and reads back
unchanged becomes one text file (streamed in blocks); runs of other documents become JSONL files of
``{"text": ...}`` (JSON keeps any string, a leading byte-order mark or a lone surrogate included). The
tokenizer is therefore ``bpe_core.train(documents, ...)``'s, statistics included (tested in
``tests/workspace/test_corpus_as_files.py``, and through the app in ``tests/app/test_compare.py``). This
module writes the files and names what was trained; running the training is ``jobs``', drawing its
progress and reading uploads the app's.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterator, Sequence
from typing import Protocol

from bpe_core.safe_io import create_new

#: A document at least this long is written as its own text file, so counting streams through it.
TEXT_FILE_CHARS = 1 << 20
#: JSONL files hold about this many characters of documents.
JSONL_FILE_CHARS = 8 << 20


def _writes_as_text(document: str) -> bool:
    """Whether a text file holding ``document`` reads back as exactly ``document``."""
    if document.startswith("\ufeff"):  # a leading byte-order mark is dropped when a text file is read
        return False
    try:
        document.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return False
    return True


def _groups(documents: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """("txt", [one long document]) or ("jsonl", [documents]) in order, covering every document once."""
    run: list[str] = []
    size = 0
    for document in documents:
        if len(document) >= TEXT_FILE_CHARS and _writes_as_text(document):
            if run:
                yield "jsonl", run
                run, size = [], 0
            yield "txt", [document]
            continue
        run.append(document)
        size += len(document)
        if size >= JSONL_FILE_CHARS:
            yield "jsonl", run
            run, size = [], 0
    if run:
        yield "jsonl", run


def write_documents(folder: str, documents: Sequence[str]) -> list[str]:
    """Write ``documents`` into ``folder`` as files ``train_files`` reads back as the same documents,
    in the same order; returns their paths in order."""
    paths = []
    for number, (kind, group) in enumerate(_groups(documents)):
        path = os.path.join(folder, f"{number:06d}.{kind}")
        if kind == "txt":  # new files only (safe_io.create_new: never one that is there, nor a link)
            with io.TextIOWrapper(create_new(path), encoding="utf-8", newline="") as handle:
                handle.write(group[0])  # plain: a file, not Markdown
        else:
            with io.TextIOWrapper(create_new(path), encoding="ascii") as handle:
                for document in group:  # ASCII escapes keep lone surrogates; one line per document
                    handle.write(json.dumps({"text": document}) + "\n")  # plain: a file
        paths.append(path)
    return paths


def name_hint(file_name: str) -> str:
    """A file's name without its folder and suffixes, in a name's characters: ``shakes.jsonl.gz`` -> ``shakes``.

    >>> name_hint("data/Shakes Peare.jsonl.gz"), name_hint(".hidden")
    ('shakes-peare', 'hidden')
    """
    stem = os.path.basename(file_name).lstrip(".").split(".")[0]
    return re.sub(r"[^\w]+", "-", stem.lower()).strip("-") or "file"


class HasVocabSize(Protocol):
    @property
    def vocab_size(self) -> int: ...


def trained_name(hint: str, tokenizer: HasVocabSize) -> str:
    """A trained tokenizer's name when the user gave none: what it is, its corpus and the vocabulary it
    reached (which a corpus that runs out of pairs keeps below the size asked for).

    >>> class Trained: vocab_size = 560
    >>> trained_name("mix-eng-hin-mya", Trained())
    'mix-eng-hin-mya-560'
    """
    return f"{hint or 'corpus'}-{tokenizer.vocab_size}"
