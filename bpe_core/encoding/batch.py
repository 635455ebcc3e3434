"""Encoding many texts at once, in worker processes when the batch is large.

Each text is cut into parts at special tokens and at safe cuts (see ``pretokenize.safe_cut_regex``),
parts are grouped into tasks of about ``BATCH_TASK_CHARS`` characters, and tasks are encoded by
``parallel.ordered_map``, or by threads when the encoder is compiled code that releases the GIL
(tiktoken's engine, as tiktoken's own batches do); the ids never depend on how many workers or threads
ran. One long text on tiktoken's engine is shared out to threads the same way (``encode_in_threads``).
This module only plans and reassembles the work; the encoding itself is ``Tokenizer.encode_ordinary``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, Any

from bpe_core.parallel import available_cpus, batches, check_workers, ordered_map
from bpe_core.pretokenization.pretokenizer import cut_at_safe_cuts
from bpe_core.pretokenization.special_tokens import split_on_special_tokens

if TYPE_CHECKING:
    import regex

#: With ``workers=None``, batches of at least this many characters are encoded by worker processes
#: (when there is more than one CPU): below it, starting workers costs more than they save.
BATCH_PARALLEL_MIN_CHARS = 32 << 20
#: Batch encoding tasks hold about this many characters.
BATCH_TASK_CHARS = 1 << 20
#: One text of at least this many characters, encoded by tiktoken's engine with a preset pattern, is
#: cut at safe cuts and encoded by threads (one per CPU): below it, the work is too small to share.
THREADED_TEXT_MIN_CHARS = 1 << 18
#: Parts per thread when one text is shared out, so that a slow part does not leave a thread idle.
PARTS_PER_THREAD = 4


def thread_count(num_threads: float | None) -> int:
    """How many threads encode for tiktoken's ``num_threads`` (None: one per CPU): at most one per CPU.

    >>> thread_count(1)
    1
    """
    cpus = available_cpus()
    return max(1, min(int(num_threads) if num_threads else cpus, cpus))


def encode_in_threads(
    text: str, *, encode_ordinary: Callable[[str], list[int]], cut_regex: regex.Pattern[str] | None, threads: int
) -> list[int] | None:
    """The ids of one long ``text``, cut at safe cuts (``cut_regex``, see ``safe_cut_regex``) into
    about ``PARTS_PER_THREAD`` parts per thread and encoded by ``threads`` threads, for an
    ``encode_ordinary`` that releases the GIL (tiktoken's engine); equal to ``encode_ordinary(text)``.
    None when that would not help: one thread, a text under ``THREADED_TEXT_MIN_CHARS``, or no safe cut.

    >>> encode_in_threads("short", encode_ordinary=list, cut_regex=None, threads=2) is None
    True
    """
    if threads < 2 or cut_regex is None or len(text) < THREADED_TEXT_MIN_CHARS:
        return None
    size = max(1, THREADED_TEXT_MIN_CHARS // PARTS_PER_THREAD, len(text) // (threads * PARTS_PER_THREAD))
    parts = cut_at_safe_cuts(text, cut_regex, size)
    if len(parts) < 2:
        return None
    with ThreadPoolExecutor(min(threads, len(parts))) as pool:
        return list(chain.from_iterable(pool.map(encode_ordinary, parts)))


def encode_task(encode_ordinary: Callable[[str], list[int]], texts: list[str]) -> list[list[int]]:
    """The work of one task: ``encode_ordinary`` of each text (run here or in a worker)."""
    return list(map(encode_ordinary, texts))


def plan(
    texts: Iterable[str],
    *,
    special_regex: re.Pattern[str] | None,
    special_ids: Mapping[str, int],
    cut_regex: regex.Pattern[str] | None,
    check: Callable[[str], None],
) -> tuple[list[str], list[list[int]]]:
    """The ordinary-text parts of all texts, and each text's layout: a list whose items are a
    special token's id, or ``~i`` for ``parts[i]``. ``check`` is called on each text first (it
    raises for disallowed special tokens)."""
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of str, not one str: use encode() for a single text")
    parts: list[str] = []
    layouts: list[list[int]] = []
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be str, got {type(text).__name__}")
        check(text)
        layout: list[int] = []
        for segment, is_special in split_on_special_tokens(text, special_regex):
            if is_special:
                layout.append(special_ids[segment])
                continue
            for part in cut_at_safe_cuts(segment, cut_regex, BATCH_TASK_CHARS):
                layout.append(~len(parts))
                parts.append(part)
        layouts.append(layout)
    return parts, layouts


def encode_parts(
    parts: list[str],
    *,
    encode_ordinary: Callable[[str], list[int]],
    workers: int | None,
    rebuild: Callable[[Any], Callable[[str], list[int]]],
    state: Any,
    threads: int = 1,
) -> list[list[int]]:
    """The ids of each part, in order. Workers (if any) get ``rebuild(state)`` once, which must
    return their ``encode_ordinary``; ``rebuild`` must be a module-level function. ``threads`` above 1
    (only for an ``encode_ordinary`` that releases the GIL) encodes the tasks in that many threads of
    this process, unless ``workers`` asks for worker processes."""
    workers = check_workers(workers)
    tasks = list(batches(parts, BATCH_TASK_CHARS))
    if threads > 1 and len(tasks) > 1 and (workers is None or workers == 1):
        with ThreadPoolExecutor(min(threads, len(tasks))) as pool:
            return list(chain.from_iterable(pool.map(partial(encode_task, encode_ordinary), tasks)))
    if workers is None:
        workers = available_cpus() if sum(map(len, parts)) >= BATCH_PARALLEL_MIN_CHARS else 1
    workers = min(workers, len(tasks))
    if workers > 1:
        done: Iterator[list[list[int]]] = ordered_map(
            encode_task, tasks, workers=workers, setup=rebuild, setup_argument=state, context=encode_ordinary
        )
    else:
        done = (encode_task(encode_ordinary, task) for task in tasks)
    return list(chain.from_iterable(done))


def assemble(layouts: list[list[int]], part_ids: list[list[int]]) -> list[list[int]]:
    """Each text's ids from its layout (see ``plan``)."""
    return [
        list(chain.from_iterable(part_ids[~item] if item < 0 else (item,) for item in layout)) for layout in layouts
    ]
