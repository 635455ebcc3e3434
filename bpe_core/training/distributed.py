"""Counting pre-tokens on a Dask cluster (``dask.distributed``), with the same result as counting here.

``count_on_dask(inputs, ...)`` plans partitions on the client, counts each on a worker and adds the
counts on the client in partition order; ``train_on_dask`` then runs the merge loop on the client.
Plain text files are split into byte ranges when a preset pattern gives safe cuts
(``pretokenize.safe_cut_regex``): a range starts and ends at the first safe cut at or after its
nominal offset that no special token spans, a rule both neighbours apply to the same bytes, so the
ranges tile the file and pre-tokenize exactly as the whole. Other files (structured or compressed
formats, custom patterns, ``pattern=None``) are one partition each, counted by ``counting.count_files``
on the worker. Adding the per-partition counts in partition order keeps the order of first appearance
(the ``"first"`` tie rule relies on it), so counts, order and statistics equal in-process counting
whatever the number of workers and partitions.

What it does not do: reach the cluster (``dask_cluster``: starting or connecting, checking
versions), or move data. Workers open the inputs themselves, so they must see them at the same
absolute paths (one machine, a shared filesystem or a mounted object store), and they and the
scheduler run the same bpe_core version (checked). Dask is optional: this module imports it only
when called, and its absence is an error naming ``pip install -r requirements-distributed.txt``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from bpe_core.corpora.documents import DocumentReader, FileFormat, expand_inputs, file_format
from bpe_core.corpora.streams import ByteStream
from bpe_core.corpora.text_files import iter_text_blocks
from bpe_core.errors import BpeError, keyword_options
from bpe_core.parallel import batches
from bpe_core.pretokenization.pretokenizer import PreTokenizer, safe_cut_regex
from bpe_core.pretokenization.special_tokens import special_token_regex, validate_special_tokens
from bpe_core.safe_io import open_regular
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import TASK_CHARS, WordCounts, count_files, count_texts, independent_parts
from bpe_core.training.dask_cluster import CONNECT_TIMEOUT, dask_client, import_distributed
from bpe_core.training.engine import ProgressCallback
from bpe_core.training.trainer import (
    READING_DEFAULTS,
    TRAINING_DEFAULTS,
    FromCountsOptions,
    ReadingOptions,
    TrainingSettings,
    merge_counts,
)

if TYPE_CHECKING:  # dask.distributed is optional: never imported at run time here
    from distributed import Client
    from typing_extensions import Unpack

#: Automatic partition sizes: about this many partitions per worker, within these bounds.
PARTITIONS_PER_WORKER = 4
MIN_PARTITION_BYTES = 4 << 20
MAX_PARTITION_BYTES = 256 << 20
#: Ranges are read in blocks of this many bytes.
BLOCK_BYTES = 1 << 20
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


@dataclass(frozen=True)
class Partition:
    """One unit of work: the bytes of ``path`` from the first cut at or after ``start`` to the first
    cut at or after ``end`` (None: to the end of the file); ``start=0`` is the file's start, which
    also counts the file as a document. ``whole``: the file is counted in one piece by ``count_files``."""

    path: str
    start: int = 0
    end: int | None = None
    whole: bool = False
    size: int = 0  # nominal bytes, for progress


@dataclass(frozen=True)
class CountSettings:
    """What every partition is counted with (sent to the workers)."""

    pattern: str | None
    special_tokens: tuple[str, ...]
    text_field: str = "text"
    on_bad_row: str = "skip"


def plan_partitions(
    paths: Sequence[str], *, pattern: str | None, partition_bytes: int, sizes: Sequence[int] | None = None
) -> list[Partition]:
    """Partitions of ``paths`` in order: byte ranges of about ``partition_bytes`` for plain text with a
    preset pattern, whole files otherwise. ``sizes``: the files' sizes when known (``DocumentReader``
    has them), else they are looked up.

    >>> import tempfile; path = tempfile.mkstemp(suffix=".txt")[1]; _ = open(path, "w").write("x " * 50)
    >>> [(p.start, p.end) for p in plan_partitions([path], pattern="gpt2", partition_bytes=40)]
    [(0, 40), (40, 80), (80, None)]
    """
    splits = safe_cut_regex(PreTokenizer.build(pattern).source) is not None
    planned: list[Partition] = []
    for path, size in zip(paths, sizes if sizes is not None else map(os.path.getsize, paths), strict=True):
        whole = not splits or file_format(path) != FileFormat("text")  # only plain text is split
        if whole or size <= partition_bytes:
            planned.append(Partition(path, whole=whole, size=size))
            continue
        starts = list(range(0, size, partition_bytes))
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else None
            planned.append(Partition(path, start, end, size=(end or size) - start))
    return planned


def _read_text(path: str, start: int, end: int | None, block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[str, int]]:
    """``(text, offset after it)`` for the bytes of ``path`` from ``start`` (moved past UTF-8
    continuation bytes to a character's start; 0: the file's start, where ``row_streams.ByteStream``
    drops a byte-order mark, as for every file ``datasets`` reads) to ``end`` (a character boundary;
    None: the end), block by block, decoded by ``corpus.iter_text_blocks`` (invalid UTF-8: its
    ValueError, naming the file offset)."""
    if start:
        with open_regular(path, what="a corpus file") as handle:  # on the worker's machine too
            handle.seek(start)
            head = handle.read(3)
        start += len(head) - len(head.lstrip(_CONTINUATION_BYTES))
    with ByteStream(path, None, start=start) as stream:
        blocks = stream.blocks(block_bytes, end=end)
        yield from iter_text_blocks(blocks, source=path, offset=stream.first_offset)


def cut_after(path: str, offset: int, *, settings: CountSettings) -> int:
    """The byte offset of the first cut at or after ``offset`` in ``path`` (the file's size when there
    is none): a safe cut of the preset pattern at least one character (and the longest special token's
    length) past the first character start at ``offset``, that no occurrence of a special token spans.
    Only the bytes from ``offset`` on decide it, so neighbouring partitions agree on it."""
    cut_regex = safe_cut_regex(PreTokenizer.build(settings.pattern).source)
    if cut_regex is None:  # a custom pattern: no safe cut (plan_partitions keeps such files whole)
        return os.path.getsize(path)
    guard = max((len(t) for t in settings.special_tokens), default=0)
    first_byte: int | None = None
    buffer, searched = "", max(1, guard)
    for text, after in _read_text(path, offset, None):
        if first_byte is None:
            first_byte = after - len(text.encode("utf-8"))
        buffer += text
        # A cut needs the character after it, and a special token spanning it must be seen whole.
        limit = len(buffer) - max(guard, 1)
        while searched <= limit:
            found = cut_regex.search(buffer, searched, limit + 1)
            if found is None:
                break
            cut = found.start()
            if not _spanned(buffer, cut, settings.special_tokens):
                return first_byte + len(buffer[:cut].encode("utf-8"))
            searched = cut + 1
        searched = max(searched, limit + 1)
    if first_byte is not None:  # else nothing was read: no cut
        for cut in range(searched, len(buffer)):  # the end of the file: the last few characters
            if cut_regex.match(buffer, cut) and not _spanned(buffer, cut, settings.special_tokens):
                return first_byte + len(buffer[:cut].encode("utf-8"))
    return os.path.getsize(path)


def _spanned(text: str, cut: int, special_tokens: Sequence[str]) -> bool:
    """Whether an occurrence of a special token in ``text`` starts before ``cut`` and ends after it."""
    return any(text.find(token, max(0, cut - len(token) + 1), cut + len(token) - 1) != -1 for token in special_tokens)


def count_partition(partition: Partition, settings: CountSettings) -> WordCounts:
    """Count one partition (on a worker): exactly the counts its part of the file adds in-process."""
    if not os.path.isfile(partition.path):
        raise FileNotFoundError(2, "no such file on this worker", partition.path)
    pretokenizer = PreTokenizer.build(settings.pattern)
    if partition.whole:
        return count_files(
            [partition.path],
            pretokenizer=pretokenizer,
            special_tokens=settings.special_tokens,
            workers=1,
            text_field=settings.text_field,
            on_bad_row=settings.on_bad_row,
        )
    start = cut_after(partition.path, partition.start, settings=settings) if partition.start else 0
    if partition.end is None:
        end = os.path.getsize(partition.path)
    else:
        end = cut_after(partition.path, partition.end, settings=settings)
    result = WordCounts()
    stats = result.stats
    stats.documents = 0 if partition.start else 1
    if start < end:
        blocks = (text for text, _ in _read_text(partition.path, start, end))
        special_regex = special_token_regex(settings.special_tokens)
        guard = max((len(t) for t in settings.special_tokens), default=0)
        parts = independent_parts(blocks, safe_cut_regex(pretokenizer.source), special_regex, guard, TASK_CHARS, stats)
        for batch in batches(parts, TASK_CHARS):
            counts, pretokens = count_texts(pretokenizer, batch)
            result.counts.update(counts)
            stats.pretokens += pretokens
    return result


def _partition_bytes(partition_bytes: int | None, total: int, workers: int) -> int:
    if partition_bytes is None:
        wanted = total // max(1, workers * PARTITIONS_PER_WORKER)
        return max(MIN_PARTITION_BYTES, min(MAX_PARTITION_BYTES, wanted))
    if not isinstance(partition_bytes, int) or isinstance(partition_bytes, bool) or partition_bytes < 1:
        raise BpeError(f"partition_bytes must be a whole number of bytes of at least 1, got {partition_bytes!r}")
    return partition_bytes


class DaskOptions(TypedDict, total=False):
    """Where and how counting runs on Dask (``count_on_dask``, ``train_on_dask``).

    Attributes:
        scheduler: None (the default) starts a local cluster of ``workers`` processes and closes it; an
            address ``"tcp://host:8786"`` connects to a running cluster, whose workers must see the same
            paths; a ``distributed.Client`` is used as is.
        workers: The local cluster's worker processes (None, the default: one per CPU).
        partition_bytes: The size of the byte ranges plain text files are split into (None, the default:
            about four per worker thread, 4 MB to 256 MB).
        timeout: Seconds to wait for the scheduler (default ``dask_cluster.CONNECT_TIMEOUT``).
    """

    scheduler: str | Client | None
    workers: int | None
    partition_bytes: int | None
    timeout: float


class DaskCountOptions(ReadingOptions, DaskOptions, total=False):
    """``count_on_dask``'s keyword options: ``ReadingOptions``, ``DaskOptions``, and these.

    Attributes:
        pattern: The pre-tokenization pattern, as ``bpe_core.train``'s (default ``"gpt2"``).
        special_tokens: As ``bpe_core.train``'s (default none).
        progress: ``progress("count", bytes counted, total bytes)``, as the partitions finish (default None).
    """

    pattern: str | None
    special_tokens: Sequence[str]
    progress: ProgressCallback | None


class DaskTrainingOptions(FromCountsOptions, ReadingOptions, DaskOptions, total=False):
    """``train_on_dask``'s keyword options: ``train_files``' (``workers`` is the Dask cluster's) and
    ``DaskOptions``."""


#: The defaults of ``DaskOptions``.
DASK_DEFAULTS: dict[str, Any] = {
    "scheduler": None,
    "workers": None,
    "partition_bytes": None,
    "timeout": CONNECT_TIMEOUT,
}
_COUNT_DEFAULTS = {name: TRAINING_DEFAULTS[name] for name in ("pattern", "special_tokens")}


@keyword_options(DaskCountOptions, {**_COUNT_DEFAULTS, **READING_DEFAULTS, **DASK_DEFAULTS, "progress": None})
def count_on_dask(
    inputs: Sequence[str | os.PathLike] | str | os.PathLike, **options: Unpack[DaskCountOptions]
) -> WordCounts:
    """The pre-token counts of ``inputs`` (files, folders and globs in every format
    ``counting.count_files`` reads, with its ``text_field`` and ``on_bad_row``), counted on Dask: equal
    to ``count_files`` in counts, order of first appearance and statistics (bad rows included).

    The keywords are ``DaskCountOptions``' (each one's meaning and default): ``pattern``,
    ``special_tokens``, ``text_field``, ``on_bad_row``, ``scheduler``, ``workers``, ``partition_bytes``,
    ``timeout`` and ``progress``, each optional.
    """
    pattern, special_tokens, partition_bytes = options["pattern"], options["special_tokens"], options["partition_bytes"]
    # Everything is checked before a cluster starts; workers resolve no path against their own folder.
    files = [os.path.abspath(path) for path in expand_inputs(inputs)]
    source, specials = PreTokenizer.build(pattern).source, validate_special_tokens(special_tokens)
    # The reader checks text_field, on_bad_row, the formats and Parquet columns, and knows the sizes.
    reader = DocumentReader(files, text_field=options["text_field"], on_bad_row=options["on_bad_row"])
    settings = CountSettings(source, specials, reader.text_field, reader.on_bad_row)
    _partition_bytes(partition_bytes, 0, 1)
    with dask_client(
        options["scheduler"], workers=options["workers"], timeout=options["timeout"], pattern=settings.pattern
    ) as client:
        size = _partition_bytes(partition_bytes, reader.total_bytes, sum(client.nthreads().values()) or 1)  # threads
        partitions = plan_partitions(files, pattern=settings.pattern, partition_bytes=size, sizes=reader.sizes)
        return _count_in_order(client, partitions, settings, options["progress"], reader.total_bytes)


def _count_in_order(
    client: Client,
    partitions: list[Partition],
    settings: CountSettings,
    progress: Callable[[str, int, int], None] | None,
    total: int,
) -> WordCounts:
    """Submit every partition; add the counts in partition order as they arrive (a later partition
    waits for the earlier ones), so only out-of-order results are held."""
    distributed = import_distributed()
    futures = [client.submit(count_partition, partition, settings, pure=False) for partition in partitions]
    index = {future.key: number for number, future in enumerate(futures)}
    result, ready, next_index, done = WordCounts(), {}, 0, 0
    if progress:
        progress("count", 0, total)
    try:
        for future in distributed.as_completed(futures):
            ready[index[future.key]] = future
            done += partitions[index[future.key]].size
            if progress:
                progress("count", done, total)
            while next_index in ready:
                finished = ready.pop(next_index)
                try:
                    result.update(finished.result())
                except Exception as exc:  # any worker failure becomes one clear message
                    raise _worker_error(exc, partitions[next_index]) from None
                finished.release()
                next_index += 1
    finally:
        client.cancel([future for future in futures if not future.done()])
    return result


def _worker_error(exc: Exception, partition: Partition) -> Exception:
    """A worker's exception as one line saying what to do."""
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
        return BpeError(
            f"a Dask worker cannot read {partition.path} ({exc.strerror or exc}): every worker must see the "
            f"inputs at the same absolute paths (a shared filesystem or object store mount)"
        )
    if isinstance(exc, (ValueError, TypeError)):
        return type(exc)(str(exc))
    return BpeError(f"counting {partition.path} failed on a Dask worker: {type(exc).__name__}: {exc}")


@keyword_options(DaskTrainingOptions, {**TRAINING_DEFAULTS, **READING_DEFAULTS, **DASK_DEFAULTS})
def train_on_dask(
    inputs: Sequence[str | os.PathLike] | str | os.PathLike, vocab_size: int, **options: Unpack[DaskTrainingOptions]
) -> Tokenizer:
    """``train_files`` with the counting on Dask (``count_on_dask``'s keywords: ``scheduler``,
    ``workers``, ``partition_bytes``, ``timeout``) and the merge loop here, with ``train``'s other
    keywords (all of them: ``DaskTrainingOptions``). The tokenizer equals ``train_files``' on the same
    inputs."""
    started = time.perf_counter()  # the recorded seconds include the counting, as train_files' do
    settings = TrainingSettings.of(vocab_size, options)  # checked before a cluster starts
    counts = count_on_dask(
        inputs,
        pattern=settings.pattern,
        special_tokens=settings.special_tokens,
        text_field=options["text_field"],
        on_bad_row=options["on_bad_row"],
        scheduler=options["scheduler"],
        workers=options["workers"],
        partition_bytes=options["partition_bytes"],
        timeout=options["timeout"],
        progress=options["progress"],
    )
    return merge_counts(counts, settings, progress=options["progress"], started=started)
