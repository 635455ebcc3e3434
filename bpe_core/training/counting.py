"""Pre-token counts of a corpus: the map-reduce step of training.

The text is cut into parts that pre-tokenize independently (at special tokens, and at a preset's safe
cuts, see ``pretokenize.safe_cut_regex``); parts are batched into tasks, tasks are counted here or in
worker processes (``parallel``), and the counts are added in task order, so the result (order of first
appearance included, which the ``"first"`` tie rule relies on) is the same however the work was split.
A custom pattern has no safe cut known ahead of its scan: each document streams through it in this
process (``custom_patterns``: bounded memory, linear time, one time budget for the whole call).
Counts from separate chunks add up, so counting can also be split over machines. Files are read
through ``datasets``; merging is the merge engine's (``engine``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain

import regex

from bpe_core.corpora.documents import BAD_ROW_EXAMPLES, DocumentReader, expand_inputs
from bpe_core.parallel import available_cpus, batches, check_workers, ordered_map
from bpe_core.pretokenization.custom_patterns import RegexBudget
from bpe_core.pretokenization.pretokenizer import PreTokenizer, safe_cut_regex, stream_pieces
from bpe_core.pretokenization.special_tokens import special_token_regex, split_on_special_tokens

#: With ``workers=None``, inputs of at least this many characters are counted by worker processes
#: (when there is more than one CPU); smaller ones in this process, where starting workers would cost
#: more than it saves.
PARALLEL_MIN_CHARS = 4 << 20
#: Counting tasks hold about this many characters.
TASK_CHARS = 1 << 19
#: At most this many workers are started automatically.
MAX_AUTO_WORKERS = 8


@dataclass
class CorpusStats:
    """What the trainer saw: documents, characters and bytes (special tokens excluded), pre-tokens,
    and the bad rows of structured files skipped (``datasets.BadRows``: the total and a few examples)."""

    documents: int = 0
    characters: int = 0
    bytes: int = 0
    pretokens: int = 0
    special_tokens_cut: int = 0
    bad_rows: int = 0
    bad_row_examples: list[dict] = field(default_factory=list)

    def add(self, other: CorpusStats) -> None:
        self.documents += other.documents
        self.characters += other.characters
        self.bytes += other.bytes
        self.pretokens += other.pretokens
        self.special_tokens_cut += other.special_tokens_cut
        self.bad_rows += other.bad_rows
        room = BAD_ROW_EXAMPLES - len(self.bad_row_examples)
        self.bad_row_examples.extend(other.bad_row_examples[: max(room, 0)])

    def record(self, *, total_bytes: int, unique_pretokens: int) -> dict[str, int]:
        """The ``Tokenizer.training["corpus"]`` record: these counts, with the bytes the merges started
        from (``total_bytes``, the stats' own ``bytes`` or the start's) and the distinct pre-tokens.

        >>> CorpusStats(documents=2, characters=9, pretokens=4).record(total_bytes=9, unique_pretokens=3)["pretokens"]
        4
        """
        return {
            "documents": self.documents,
            "characters": self.characters,
            "bytes": total_bytes,
            "pretokens": self.pretokens,
            "unique_pretokens": unique_pretokens,
            "special_tokens_cut": self.special_tokens_cut,
            "bad_rows": self.bad_rows,
        }


@dataclass
class WordCounts:
    """Pre-token counts of a corpus (mergeable: ``a.update(b)`` adds b's counts to a)."""

    counts: Counter = field(default_factory=Counter)
    stats: CorpusStats = field(default_factory=CorpusStats)

    def update(self, other: WordCounts) -> None:
        self.counts.update(other.counts)
        self.stats.add(other.stats)


def count_words(
    texts: Iterable[str],
    *,
    pretokenizer: PreTokenizer,
    special_tokens: Sequence[str] = (),
    workers: int | None = None,
    regex_budget: RegexBudget | None = None,
) -> WordCounts:
    """Count the pre-tokens of ``texts``; special tokens are cut out first and never counted.

    ``workers`` is the number of processes that count (None: automatic, i.e. one per CPU once the
    input passes ``PARALLEL_MIN_CHARS``; 1: this process only). The result does not depend on it.
    A custom pattern is counted in this process on ``regex_budget`` (None: ``pretokenizer.budget()``,
    one budget for all of ``texts``).
    """

    def documents() -> Iterator[tuple[str]]:
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"training texts must be str, got {type(text).__name__}")
            yield (text,)

    return _count_documents(documents(), pretokenizer, special_tokens, check_workers(workers), regex_budget)


def _count_documents(
    documents: Iterable[Iterable[str]],
    pretokenizer: PreTokenizer,
    special_tokens: Sequence[str],
    workers: int | None,
    regex_budget: RegexBudget | None = None,
) -> WordCounts:
    """Count documents, each given as consecutive blocks of text, cut into independent parts and
    counted in tasks (see the module docstring; without safe cuts, parts end only at special tokens
    and at the end of a document), or streamed through a custom pattern."""
    if pretokenizer.source is not None and not pretokenizer.is_preset:
        budget = regex_budget if regex_budget is not None else pretokenizer.budget()
        result = WordCounts()
        for blocks in documents:
            count_stream(blocks, pretokenizer=pretokenizer, special_tokens=special_tokens, budget=budget, into=result)
        return result
    result = WordCounts()
    stats = result.stats
    cut_regex = safe_cut_regex(pretokenizer.source)
    special_regex = special_token_regex(special_tokens)
    guard = max((len(t) for t in special_tokens), default=0)

    def parts() -> Iterator[str]:
        for blocks in documents:
            stats.documents += 1
            yield from independent_parts(blocks, cut_regex, special_regex, guard, TASK_CHARS, stats)

    count_tasks(batches(parts(), TASK_CHARS), pretokenizer, workers, result)
    return result


def independent_parts(
    blocks: Iterable[str],
    cut_regex: regex.Pattern[str] | None,
    special_regex: re.Pattern[str] | None,
    guard: int,
    size: int,
    stats: CorpusStats,
) -> Iterator[str]:
    """The ordinary text of the concatenation of ``blocks``, as parts that each pre-tokenize on their
    own exactly as within the whole: split at special tokens (counted in ``stats``, never yielded)
    and, past ``size`` characters, at safe cuts (``cut_regex``; None: parts end only at special
    tokens and at the end). Only an unfinished tail of the text is held in memory.

    ``guard`` is the length of the longest special token: a cut is only made ``guard`` characters
    before the end of what has been read, so a special token is always seen whole, and a cut that
    falls inside one moves to its end.
    """
    buffer = ""
    start = 0  # buffer[:start] has been yielded
    searched = 0  # no safe cut between start + size and here

    def emit(text: str) -> Iterator[str]:
        for segment, is_special in split_on_special_tokens(text, special_regex):
            if is_special:
                stats.special_tokens_cut += 1
            else:
                stats.characters += len(segment)
                yield segment

    for block in blocks:
        if start:
            buffer = buffer[start:] + block
            searched = max(0, searched - start)
            start = 0
        else:
            buffer += block
        if cut_regex is None:
            continue
        while len(buffer) - start > size + guard:
            limit = len(buffer) - guard
            found = cut_regex.search(buffer, max(start + size, searched), limit)
            if found is None:
                searched = limit
                break
            cut = found.start()
            if special_regex is not None:
                for special in special_regex.finditer(buffer, start):
                    if special.end() <= cut:
                        continue
                    if special.start() < cut:
                        cut = special.end()
                    break
            yield from emit(buffer[start:cut])
            start = searched = cut
    if len(buffer) > start:
        yield from emit(buffer[start:] if start else buffer)


def count_texts(pretokenizer: PreTokenizer, texts: list[str]) -> tuple[Counter, int]:
    """Count the pieces of each text (the map step): a Counter in order of first appearance."""
    counts: Counter = Counter()
    pretokens = 0
    segment_pattern = pretokenizer.segment_pattern()
    if segment_pattern is None:
        for text in texts:
            pieces = pretokenizer.pieces(text)
            pretokens += len(pieces)
            counts.update(pieces)
        return counts, pretokens
    ascii_findall, findall = pretokenizer.piece_finders()
    if ascii_findall is None:  # never: segments imply an ASCII finder; the full one is exact on ASCII too
        ascii_findall = findall
    if _mostly_ascii(texts):
        # Nearly all ASCII (code): the fast ASCII pattern over whole stretches beats de-duplicating
        # segments, and the few non-ASCII stretches go to the full pattern.
        for text in texts:
            for stretch, is_ascii in ascii_stretches(text):
                pieces = ascii_findall(stretch) if is_ascii else findall(stretch)
                pretokens += len(pieces)
                counts.update(pieces)
        return counts, pretokens
    # Count segments (in C), then pre-tokenize each distinct segment once. Walking the distinct
    # segments in order of first appearance meets the pieces in order of first appearance too, so one
    # Counter.update over all their pieces (in C) sets the order and counts each segment once; the
    # segments met more than once then add the rest.
    segments: Counter = Counter()
    for text in texts:
        segments.update(segment_pattern.findall(text))
    pieces = _pieces_of_segments(segments, ascii_findall, findall)
    counts.update(pieces)
    pretokens = len(pieces)
    for segment, more in segments.items():
        if more > 1:
            more -= 1
            found = ascii_findall(segment) if segment.isascii() else findall(segment)
            pretokens += len(found) * more
            for piece in found:
                counts[piece] += more
    return counts, pretokens


#: ASCII white space as GPT-2's pattern sees it (``\s`` on ASCII text, ``[\t-\r ]``).
_ASCII_SPACE = frozenset("\t\n\x0b\x0c\r ")
#: Tasks whose UTF-8 is at most this much longer than their characters count as mostly ASCII.
MOSTLY_ASCII_EXTRA_BYTES = 0.05
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# A safe cut after an ASCII non-space: GPT-2's pieces never cross it (see pretokenize._SAFE_CUTS).
_ASCII_SAFE_CUT = re.compile(r"(?<=[\x00-\x08\x0e-\x1f!-\x7f])(?=[\t-\r ])")


def _mostly_ascii(texts: list[str]) -> bool:
    chars = sum(map(len, texts))
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in texts) <= chars * (1 + MOSTLY_ASCII_EXTRA_BYTES)


def ascii_stretches(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` cut at GPT-2's safe cuts into stretches that are all ASCII (True) and stretches around
    its non-ASCII characters (False), in order; each stretch pre-tokenizes on its own as in place.

    >>> list(ascii_stretches("def f(): return 'caf\u00e9' + x"))
    [('def f(): return', True), (" 'caf\u00e9'", False), (' + x', True)]
    """
    if text.isascii():  # known in O(1): no scan for a non-ASCII character
        if text:
            yield text, True
        return
    start = 0
    for island in _NON_ASCII.finditer(text):
        if island.start() < start:
            continue  # inside the stretch already taken
        # back to the start of the space run before the island, if it follows a non-space
        cut = max(text.rfind(space, start, island.start()) for space in _ASCII_SPACE)
        while cut > start and text[cut - 1] in _ASCII_SPACE:
            cut -= 1
        cut = max(cut, start)
        after = _ASCII_SAFE_CUT.search(text, island.end())
        end = after.start() if after else len(text)
        if cut > start:
            yield text[start:cut], True
        yield text[cut:end], False
        start = end
    if start < len(text):
        yield text[start:], True


def _pieces_of_segments(
    segments: Iterable[str], ascii_findall: Callable[[str], list[str]], findall: Callable[[str], list[str]]
) -> list[str]:
    """The pieces of each segment, in order, as one list. Runs of ASCII segments that each start
    with a space and end with a non-space are joined and split in one call: every join is then a
    non-space followed by a space, a safe cut, so the pieces are the same, with far fewer calls.

    >>> from bpe_core.pretokenization.pretokenizer import PreTokenizer
    >>> finders = PreTokenizer.build("gpt2").piece_finders()
    >>> _pieces_of_segments(["x", " a.b", " it's", "  ", " \u00e9t\u00e9"], *finders)
    ['x', ' a', '.', 'b', ' it', "'s", '  ', ' \u00e9t\u00e9']
    """
    pieces: list[str] = []
    extend = pieces.extend
    run: list[str] = []
    for segment in segments:
        if segment[0] in _ASCII_SPACE and segment[-1] not in _ASCII_SPACE and segment.isascii():
            run.append(segment)
            continue
        if run:
            extend(ascii_findall("".join(run)))
            run = []
        extend(ascii_findall(segment) if segment.isascii() else findall(segment))
    if run:
        extend(ascii_findall("".join(run)))
    return pieces


def _add_counts(result: WordCounts, counted: tuple[Counter, int]) -> None:
    counts, pretokens = counted
    result.counts.update(counts)  # the reduce step; new keys keep their order of first appearance
    result.stats.pretokens += pretokens


def count_tasks(
    tasks: Iterator[list[str]], pretokenizer: PreTokenizer, workers: int | None, result: WordCounts
) -> None:
    share = workers is None  # automatic: one counting process per CPU, this one among them
    if workers is None:
        workers = min(available_cpus(), MAX_AUTO_WORKERS) - 1
        threshold = PARALLEL_MIN_CHARS
    else:
        threshold = 0
    if workers >= (1 if share else 2):
        # Hold tasks back until the input is known to be large enough to be worth the workers.
        held: list[list[str]] = []
        chars = 0
        for task in tasks:
            held.append(task)
            chars += sum(map(len, task))
            if chars >= threshold:
                break
        else:
            tasks = iter(held)
            held = []
            workers = 0
        if workers:
            _count_in_workers(chain(held, tasks), pretokenizer, workers, result, share=share)
            return
    for task in tasks:
        _add_counts(result, count_texts(pretokenizer, task))


def _count_in_workers(
    tasks: Iterator[list[str]], pretokenizer: PreTokenizer, count: int, result: WordCounts, *, share: bool = False
) -> None:
    """Count ``tasks`` in ``count`` worker processes (see ``parallel.ordered_map``; ``share``: this
    process counts beside them), adding the counts in task order: the result is the same as counting here."""
    for counted in ordered_map(
        count_texts,
        tasks,
        workers=count,
        setup=PreTokenizer.build,
        setup_argument=pretokenizer.source,
        context=pretokenizer,
        share=share,
    ):
        _add_counts(result, counted)


def count_stream(
    chunks: Iterable[str],
    *,
    pretokenizer: PreTokenizer,
    special_tokens: Sequence[str] = (),
    budget: RegexBudget | None = None,
    into: WordCounts | None = None,
) -> WordCounts:
    """Count the pre-tokens of one document given as consecutive chunks, as ``count_words`` would on
    the joined text, without joining it (a custom pattern on ``budget``, see ``stream_pieces``), added
    to ``into`` (default: new counts): a corpus's documents add up without a copy of their counts."""
    result = into if into is not None else WordCounts()
    stats = result.stats
    stats.documents += 1
    special_regex = special_token_regex(special_tokens)
    guard = max((len(t) for t in special_tokens), default=0)

    def measured() -> Iterator[str]:
        for chunk in chunks:
            stats.characters += len(chunk)
            yield chunk

    def ordinary_pieces() -> Iterator[str]:
        for piece, is_special in stream_pieces(measured(), pretokenizer, special_regex, guard=guard, budget=budget):
            if is_special:
                stats.special_tokens_cut += 1
                stats.characters -= len(piece)
            else:
                stats.pretokens += 1
                yield piece

    result.counts.update(ordinary_pieces())
    return result


def count_files(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    pretokenizer: PreTokenizer,
    special_tokens: Sequence[str] = (),
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    regex_budget: RegexBudget | None = None,
    text_field: str = "text",
    on_bad_row: str = "skip",
    block_bytes: int | None = None,
) -> WordCounts:
    """Count the pre-tokens of corpus files, folders and glob patterns (``datasets.expand_inputs``):
    text files (one document each, streamed block by block), JSONL, JSON arrays and Parquet (one
    document per row, the ``text_field`` string), gzip or zstd compressed; see ``datasets``. Bad rows
    are skipped and reported in ``stats.bad_rows`` / ``stats.bad_row_examples`` (``on_bad_row="skip"``)
    or stop the count with a ValueError naming the file and row (``"stop"``).
    ``progress("count", bytes read, total bytes)`` follows the reading (compressed bytes for
    compressed files; ``block_bytes``: the read size, None for ``corpus.FILE_BLOCK_BYTES``).

    With a preset pattern the text is cut at safe cuts into tasks (in worker processes for
    ``workers`` other than 1); a custom pattern or none has no known safe cut, so each document is one
    stream counted in this process (a custom pattern on ``regex_budget``, as in ``count_words``)."""
    report = (lambda done, total: progress("count", done, total)) if progress else None
    reader = DocumentReader(
        expand_inputs(paths), text_field=text_field, on_bad_row=on_bad_row, progress=report, block_bytes=block_bytes
    )
    if pretokenizer.source is not None:
        result = _count_documents(reader.documents(), pretokenizer, special_tokens, workers, regex_budget)
    else:
        result = WordCounts()
        for document in reader.documents():
            count_stream(document, pretokenizer=pretokenizer, special_tokens=special_tokens, into=result)
    result.stats.bad_rows += reader.bad_rows.count
    result.stats.bad_row_examples.extend(reader.bad_rows.examples)
    return result
