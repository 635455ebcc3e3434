"""Training byte-level BPE: count pre-tokens, then merge the most frequent pair until done.

Two steps, kept apart on purpose:

* ``count_words`` turns text into a ``Counter`` of pre-token strings. Counts from separate chunks add
  up (a map-reduce step), so counting can be split over processes or machines; insertion order is
  order of first appearance, which the ``"first"`` tie rule relies on.
* ``learn_merges`` runs the merge loop on the unique pre-tokens. Pair counts are kept incrementally
  (seed 003): an index from each pair to the words that hold it, and a lazy max-heap in which a stale
  entry is pushed back with its live count rather than dropped.

Rules (see README, "Training rules"): a pair's count is the number of adjacent positions holding it,
weighted by word frequency (``aaaa`` holds ``(a, a)`` three times); a merge replaces occurrences left
to right without overlap; ties are broken by ``tie_break``; a pair whose bytes already exist as a
token is never merged (two ids never share bytes) and training moves on to the next pair.

This module does no I/O beyond reading files in ``train_files``.
"""

from __future__ import annotations

import heapq
from itertools import chain
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from operator import add, mul
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from .pretokenize import (
    PreTokenizer,
    preset_name,
    safe_cut_regex,
    special_token_regex,
    split_on_special_tokens,
    stream_pieces,
    validate_special_tokens,
)
from .tokenizer import Tokenizer, _fix_surrogates
from .workers import available_cpus, batches, check_workers, ordered_map

TieBreak = Literal["lexicographic", "first"]
#: ``progress(phase, done, total)``: phase is "count" (done/total in documents or bytes) or "merge".
ProgressCallback = Callable[[str, int, int], None]

TIE_BREAKS = ("lexicographic", "first")

# Stop reasons recorded in the training metadata.
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIRS = "no pair left to merge"
STOP_MIN_FREQUENCY = "best pair count below min_frequency"


@dataclass
class CorpusStats:
    """What the trainer saw: documents, characters and bytes (special tokens excluded), pre-tokens."""

    documents: int = 0
    characters: int = 0
    bytes: int = 0
    pretokens: int = 0
    special_tokens_cut: int = 0

    def add(self, other: CorpusStats) -> None:
        self.documents += other.documents
        self.characters += other.characters
        self.bytes += other.bytes
        self.pretokens += other.pretokens
        self.special_tokens_cut += other.special_tokens_cut


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
) -> WordCounts:
    """Count the pre-tokens of ``texts``; special tokens are cut out first and never counted.

    ``workers`` is the number of processes that count (None: automatic, i.e. one per CPU once the
    input passes ``PARALLEL_MIN_CHARS``; 1: this process only). The result does not depend on it.
    """
    workers = check_workers(workers)
    special_regex = special_token_regex(special_tokens)
    guard = max((len(t) for t in set(special_tokens)), default=0)
    result = WordCounts()
    stats = result.stats
    cut_regex = safe_cut_regex(pretokenizer.source)

    def parts():
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"training texts must be str, got {type(text).__name__}")
            stats.documents += 1
            yield from _independent_parts((text,), cut_regex, special_regex, guard, TASK_CHARS, stats)

    _count_tasks(batches(parts(), TASK_CHARS), pretokenizer, workers, result)
    return result


# ------------------------------------------------------------------------------------------------
# Counting in this process or in worker processes: the text is cut into parts that pre-tokenize
# independently (at special tokens, and at a preset's safe cuts, see pretokenize.safe_cut_regex),
# parts are batched into tasks, tasks are counted anywhere and the counts are added in task order,
# so the result (order of first appearance included) is the same however the work was split.

#: With ``workers=None``, inputs of at least this many characters are counted by worker processes
#: (when there is more than one CPU); smaller ones in this process, where starting workers would cost
#: more than it saves.
PARALLEL_MIN_CHARS = 4 << 20
#: Counting tasks hold about this many characters.
TASK_CHARS = 1 << 19
#: At most this many workers are started automatically.
MAX_AUTO_WORKERS = 8


def _independent_parts(
    blocks: Iterable[str], cut_regex, special_regex, guard: int, size: int, stats: CorpusStats
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


def _count_texts(pretokenizer: PreTokenizer, texts: list[str]) -> tuple[Counter, int]:
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
    # Count segments (in C), then pre-tokenize each distinct segment once. Walking the distinct
    # segments in order of first appearance meets the pieces in order of first appearance too, so one
    # Counter.update over all their pieces (in C) sets the order and counts each segment once; the
    # segments met more than once then add the rest.
    segments: Counter = Counter()
    for text in texts:
        segments.update(segment_pattern.findall(text))
    ascii_findall, findall = pretokenizer.piece_finders()  # segments imply an ASCII finder
    piece_lists = [ascii_findall(segment) if segment.isascii() else findall(segment) for segment in segments]
    times = list(segments.values())
    counts.update(chain.from_iterable(piece_lists))
    for pieces, more in zip(piece_lists, times):
        if more > 1:
            more -= 1
            for piece in pieces:
                counts[piece] += more
    return counts, sum(map(mul, map(len, piece_lists), times))


def _add_counts(result: WordCounts, counted: tuple[Counter, int]) -> None:
    counts, pretokens = counted
    result.counts.update(counts)  # the reduce step; new keys keep their order of first appearance
    result.stats.pretokens += pretokens


def _count_tasks(
    tasks: Iterator[list[str]], pretokenizer: PreTokenizer, workers: int | None, result: WordCounts
) -> None:
    if workers is None:
        workers = min(available_cpus(), MAX_AUTO_WORKERS)
        threshold = PARALLEL_MIN_CHARS
    else:
        threshold = 0
    if workers > 1:
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
            workers = 1
        if workers > 1:
            _count_in_workers(chain(held, tasks), pretokenizer, workers, result)
            return
    for task in tasks:
        _add_counts(result, _count_texts(pretokenizer, task))


def _count_in_workers(
    tasks: Iterator[list[str]], pretokenizer: PreTokenizer, count: int, result: WordCounts
) -> None:
    """Count ``tasks`` in ``count`` worker processes (see ``workers.ordered_map``), adding the
    counts in task order: the result is the same as counting here."""
    source = pretokenizer.source
    for counted in ordered_map(
        tasks, partial(_count_texts, pretokenizer), lambda task: ("count", (source, task)), count
    ):
        _add_counts(result, counted)


def _utf8_words(counts: Counter) -> tuple[list[list[int]], list[int], int]:
    strings, freqs, total_bytes = _utf8_strings(counts)
    return [list(map(ord, s)) for s in strings], freqs, total_bytes


def _utf8_strings(counts: Mapping[str, int]) -> tuple[list[str], list[int], int]:
    """The unique pre-tokens as byte strings written one character per byte (``chr(byte)``, i.e.
    latin-1), which is the id string the merge loop works on since ids 0..255 are the bytes."""
    words: list[str] = []
    freqs = list(counts.values())
    total_bytes = 0
    append = words.append
    for word, freq in zip(counts, freqs):
        try:
            encoded = word.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: U+FFFD, exactly as encoding treats them
            encoded = _fix_surrogates(word).encode("utf-8")
        append(encoded.decode("latin-1"))
        total_bytes += len(encoded) * freq
    return words, freqs, total_bytes


def _tie_key(token: bytes) -> tuple[int, ...]:
    # Inverts byte order for the min-heap: the greatest bytes get the smallest key, and a prefix
    # ("a") sorts after its extensions ("ab") because 256 is larger than any inverted byte.
    return tuple(255 - b for b in token) + (256,)


@dataclass(frozen=True)
class LearnedMerge:
    left: int
    right: int
    id: int
    count: int
    tokens_after: int


# Characters stand for ids in the fast merge loop: a word is a str whose characters are chr(id).
_MAX_CHAR_ID = 0x10FFFF
_INVERT = bytes(range(255, -1, -1))
_KEY_END = "\u0100"  # greater than every inverted byte (0..255): a prefix sorts after its extensions


def _tie_key_str(token: bytes) -> str:
    # The string form of _tie_key: compares like it, but in C (one str comparison per heap compare).
    return token.translate(_INVERT).decode("latin-1") + _KEY_END


def learn_merges(
    words: list[list[int]],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """Run up to ``num_merges`` merges on ``words`` (lists of ids, modified in place).

    ``token_bytes`` maps every existing id to its bytes and is extended with new tokens. Returns the
    merges made and why training stopped.
    """
    try:
        strings = ["".join(map(chr, word)) for word in words]
        if next_id + num_merges > _MAX_CHAR_ID + 1:
            raise ValueError
    except (ValueError, OverflowError):
        return _learn_merges_lists(
            words, freqs, token_bytes=token_bytes, next_id=next_id, num_merges=num_merges,
            min_frequency=min_frequency, tie_break=tie_break, progress=progress,
        )
    result = _learn_merges_str(
        strings, freqs, token_bytes=token_bytes, next_id=next_id, num_merges=num_merges,
        min_frequency=min_frequency, tie_break=tie_break, progress=progress,
    )
    for index, string in enumerate(strings):
        words[index] = list(map(ord, string))
    return result


def _learn_merges_str(
    words: list[str],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """``learn_merges`` on words written as strings, one character per id (``chr(id)``).

    A pair is the 2-character string of its ids. Merging a pair in a word is ``str.replace`` (left to
    right without overlap: BPE's rule) and finding it a substring search, both in C. Pair counts are
    updated only around each new symbol. ``where`` maps a pair to the words that held it when it
    appeared, in increasing order; a word that lost the pair since stays listed (it is skipped when
    met: ``replace`` changes nothing). A pair counted below ``min_frequency`` when it appears can only
    lose counts afterwards, so it never enters the heap.
    """
    existing = set(token_bytes.values())
    pair_counts: dict[str, int] = {}
    where: dict[str, list[int]] = {}
    counts_get = pair_counts.get
    where_get = where.get
    total_tokens = 0
    for index, word in enumerate(words):
        freq = freqs[index]
        total_tokens += len(word) * freq
        if len(word) < 2:
            continue
        for pair in map(add, word, word[1:]):
            pair_counts[pair] = counts_get(pair, 0) + freq
            holders = where_get(pair)
            if holders is None:
                where[pair] = [index]
            elif holders[-1] != index:
                holders.append(index)

    lexicographic = tie_break == "lexicographic"
    threshold = max(min_frequency, 1)  # pairs below it are never chosen: they only lose counts
    # Tie keys per symbol: the pair key is key(left) + key(right) (prefix-free, so this compares
    # like the tuple of the two keys). The "first" rule sorts ties itself and needs no key.
    keys: dict[str, str] = {}
    if lexicographic:
        for token_id, token in token_bytes.items():
            if token_id <= _MAX_CHAR_ID:
                keys[chr(token_id)] = _tie_key_str(token)
    heap = []
    below = False  # whether a pair with a positive count was left out of the heap
    for pair, count in pair_counts.items():
        if count >= threshold:
            heap.append((-count, keys[pair[0]] + keys[pair[1]] if lexicographic else "", pair))
        else:
            below = True
    heapq.heapify(heap)
    heappush = heapq.heappush
    heappop = heapq.heappop
    excluded: set[str] = set()

    def entry(pair: str, count: int):
        return (-count, keys[pair[0]] + keys[pair[1]] if lexicographic else "", pair)

    def pop_fresh():
        """Pop the heap until an entry whose stored count is the pair's live count."""
        nonlocal below
        while heap:
            item = heappop(heap)
            pair = item[2]
            live = pair_counts.get(pair, 0)
            if live != -item[0]:
                if live >= threshold:
                    heappush(heap, entry(pair, live))
                elif live > 0:
                    below = True
                continue
            if pair in excluded:
                continue
            return pair, live
        return None

    def first_occurrence(pair: str) -> tuple[int, int]:
        for index in where[pair]:
            position = words[index].find(pair)
            if position >= 0:
                return index, position
        raise AssertionError("index out of sync")  # internal invariant, not input validation

    def pop_best():
        best = pop_fresh()
        if best is None or lexicographic:
            return best
        # "first" rule: among all pairs tied at the best count, the one met first.
        tied = [best]
        count = best[1]
        while heap and -heap[0][0] >= count:
            more = pop_fresh()
            if more is None:
                break
            if more[1] == count:
                tied.append(more)
            else:
                heappush(heap, entry(*more))
                break
        tied.sort(key=lambda item: first_occurrence(item[0]))
        for other in tied[1:]:
            heappush(heap, entry(*other))
        return tied[0]

    merges: list[LearnedMerge] = []
    stop_reason = STOP_VOCAB_SIZE
    report_every = max(1, num_merges // 100)
    if progress:
        progress("merge", 0, num_merges)
    while len(merges) < num_merges:
        best = pop_best()
        if best is None:
            # Nothing at or above the threshold is left; say whether anything is left at all.
            if below and any(c > 0 and p not in excluded for p, c in pair_counts.items()):
                stop_reason = STOP_MIN_FREQUENCY
            else:
                stop_reason = STOP_NO_PAIRS
            break
        pair, count = best
        if count < min_frequency:
            stop_reason = STOP_MIN_FREQUENCY
            break
        a, b = pair
        left, right = ord(a), ord(b)
        new_bytes = token_bytes[left] + token_bytes[right]
        if new_bytes in existing:
            excluded.add(pair)
            continue
        new_id = next_id
        next_id += 1
        token_bytes[new_id] = new_bytes
        existing.add(new_bytes)
        new = chr(new_id)
        if lexicographic:
            keys[new] = _tie_key_str(new_bytes)
        ba = b + a

        created: list[str] = []  # the pairs this merge makes (each holds `new`)
        replaced = 0
        for index in where.pop(pair):
            word = words[index]
            merged = word.replace(pair, new)
            size = len(merged)
            if size == len(word):
                continue  # the word lost this pair to an earlier merge
            freq = freqs[index]
            replaced += (len(word) - size) * freq
            words[index] = merged
            j = merged.find(new)
            while j >= 0:
                if j:
                    x = merged[j - 1]
                    if x != new:
                        pair_counts[x + a] -= freq
                        fresh = x + new
                        pair_counts[fresh] = counts_get(fresh, 0) + freq
                        holders = where_get(fresh)
                        if holders is None:
                            where[fresh] = [index]
                            created.append(fresh)
                        elif holders[-1] != index:
                            holders.append(index)
                j += 1
                if j == size:
                    break
                y = merged[j]
                if y != new:
                    pair_counts[b + y] -= freq
                    fresh = new + y
                else:
                    pair_counts[ba] -= freq
                    fresh = new + new
                pair_counts[fresh] = counts_get(fresh, 0) + freq
                holders = where_get(fresh)
                if holders is None:
                    where[fresh] = [index]
                    created.append(fresh)
                elif holders[-1] != index:
                    holders.append(index)
                j = merged.find(new, j)
        pair_counts.pop(pair, None)
        for fresh in created:
            live = pair_counts[fresh]
            if live >= threshold:
                heappush(heap, entry(fresh, live))
            else:
                below = True
                del where[fresh]  # never chosen, so never looked up
        total_tokens -= replaced
        merges.append(LearnedMerge(left, right, new_id, count, total_tokens))
        if progress and (len(merges) % report_every == 0 or len(merges) == num_merges):
            progress("merge", len(merges), num_merges)
    return merges, stop_reason


def _learn_merges_lists(
    words: list[list[int]],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """``learn_merges`` on lists of ids: the general path, used only when an id does not fit in a
    character (above U+10FFFF)."""
    existing = set(token_bytes.values())
    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    total_tokens = 0
    for index, (word, freq) in enumerate(zip(words, freqs)):
        total_tokens += len(word) * freq
        for pair in zip(word, word[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + freq
            holders = where.get(pair)
            if holders is None:
                where[pair] = {index}
            else:
                holders.add(index)

    lexicographic = tie_break == "lexicographic"
    key_cache: dict[int, tuple[int, ...]] = {}

    def key_of(token_id: int) -> tuple[int, ...]:
        key = key_cache.get(token_id)
        if key is None:
            key = key_cache[token_id] = _tie_key(token_bytes[token_id])
        return key

    def entry(pair: tuple[int, int], count: int):
        if lexicographic:
            return (-count, key_of(pair[0]), key_of(pair[1]), pair)
        return (-count, (), (), pair)

    heap = [entry(pair, count) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    excluded: set[tuple[int, int]] = set()

    def pop_fresh():
        """Pop the heap until an entry whose stored count is the pair's live count."""
        while heap:
            item = heapq.heappop(heap)
            pair = item[3]
            if pair in excluded:
                continue
            live = pair_counts.get(pair, 0)
            if live <= 0:
                continue
            if live != -item[0]:
                heapq.heappush(heap, entry(pair, live))
                continue
            return pair, live
        return None

    def first_occurrence(pair: tuple[int, int]) -> tuple[int, int]:
        index = min(where[pair])
        word = words[index]
        for position in range(len(word) - 1):
            if word[position] == pair[0] and word[position + 1] == pair[1]:
                return index, position
        raise AssertionError("index out of sync")  # internal invariant, not input validation

    def pop_best():
        best = pop_fresh()
        if best is None or lexicographic:
            return best
        # "first" rule: among all pairs tied at the best count, the one met first.
        tied = [best]
        count = best[1]
        while heap and -heap[0][0] >= count:
            more = pop_fresh()
            if more is None:
                break
            if more[1] == count:
                tied.append(more)
            else:
                heapq.heappush(heap, entry(*more))
                break
        tied.sort(key=lambda item: first_occurrence(item[0]))
        for other in tied[1:]:
            heapq.heappush(heap, entry(*other))
        return tied[0]

    merges: list[LearnedMerge] = []
    stop_reason = STOP_VOCAB_SIZE
    report_every = max(1, num_merges // 100)
    if progress:
        progress("merge", 0, num_merges)
    while len(merges) < num_merges:
        best = pop_best()
        if best is None:
            stop_reason = STOP_NO_PAIRS
            break
        pair, count = best
        if count < min_frequency:
            stop_reason = STOP_MIN_FREQUENCY
            break
        left, right = pair
        new_bytes = token_bytes[left] + token_bytes[right]
        if new_bytes in existing:
            excluded.add(pair)
            continue
        new_id = next_id
        next_id += 1
        token_bytes[new_id] = new_bytes
        existing.add(new_bytes)

        touched: dict[tuple[int, int], int] = {}
        replaced = 0
        for index in where.pop(pair):
            word = words[index]
            freq = freqs[index]
            merged: list[int] = []
            i = 0
            n = len(word)
            while i < n:
                if i < n - 1 and word[i] == left and word[i + 1] == right:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            replaced += (n - len(merged)) * freq
            old_pairs = Counter(zip(word, word[1:]))
            new_pairs = Counter(zip(merged, merged[1:]))
            for p, c in old_pairs.items():
                delta = new_pairs.get(p, 0) - c
                if delta:
                    pair_counts[p] += delta * freq
                    if p not in new_pairs and p != pair:
                        where[p].discard(index)
            for p, c in new_pairs.items():
                if p in old_pairs:
                    continue  # its change was applied in the loop above
                pair_counts[p] = pair_counts.get(p, 0) + c * freq
                holders = where.get(p)
                if holders is None:
                    where[p] = {index}
                else:
                    holders.add(index)
                if new_id in p:
                    touched[p] = 1
            words[index] = merged
        pair_counts.pop(pair, None)
        for p in touched:
            live = pair_counts.get(p, 0)
            if live > 0:
                heapq.heappush(heap, entry(p, live))
        total_tokens -= replaced
        merges.append(LearnedMerge(left, right, new_id, count, total_tokens))
        if progress and (len(merges) % report_every == 0 or len(merges) == num_merges):
            progress("merge", len(merges), num_merges)
    return merges, stop_reason


def _validate_settings(vocab_size, min_frequency, tie_break, special_tokens) -> tuple[str, ...]:
    specials = validate_special_tokens(special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an integer, not {type(vocab_size).__name__}")
    minimum = 256 + len(specials)
    if vocab_size < minimum:
        raise ValueError(
            f"vocab_size={vocab_size} is too small: it counts the 256 byte tokens and the "
            f"{len(specials)} special token(s), so it must be at least {minimum}"
        )
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
        raise ValueError(f"min_frequency must be a non-negative integer, got {min_frequency!r}")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    return specials


def train_from_counts(
    word_counts: WordCounts,
    vocab_size: int,
    *,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "trained",
    started: float | None = None,
) -> Tokenizer:
    """Train from pre-token counts already made by ``count_words`` (the reduce step's output)."""
    specials = _validate_settings(vocab_size, min_frequency, tie_break, special_tokens)
    started = time.perf_counter() if started is None else started
    pretokenizer = PreTokenizer.build(pattern)
    words, freqs, total_bytes = _utf8_strings(word_counts.counts)
    token_bytes = {i: bytes([i]) for i in range(256)}
    for offset, token in enumerate(specials):
        token_bytes[256 + offset] = token.encode("utf-8")
    first_merge_id = 256 + len(specials)
    learn = _learn_merges_str if vocab_size <= _MAX_CHAR_ID + 1 else learn_merges
    if learn is learn_merges:
        words = [list(map(ord, word)) for word in words]
    merges, stop_reason = learn(
        words,
        freqs,
        token_bytes=token_bytes,
        next_id=first_merge_id,
        num_merges=vocab_size - first_merge_id,
        min_frequency=min_frequency,
        tie_break=tie_break,
        progress=progress,
    )
    stats = word_counts.stats
    training = {
        "settings": {
            "vocab_size": vocab_size,
            "min_frequency": min_frequency,
            "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
            "special_tokens": list(specials),
            "tie_break": tie_break,
        },
        "corpus": {
            "documents": stats.documents,
            "characters": stats.characters,
            "bytes": total_bytes,
            "pretokens": stats.pretokens,
            "unique_pretokens": len(words),
            "special_tokens_cut": stats.special_tokens_cut,
        },
        "stop_reason": stop_reason,
        "merges_learned": len(merges),
        "tokens_after_merge": [m.tokens_after for m in merges],
        "seconds": round(time.perf_counter() - started, 3),
    }
    vocab = dict(token_bytes)
    return Tokenizer(
        vocab,
        [(token_bytes[m.left], token_bytes[m.right]) for m in merges],
        special_tokens={token: 256 + offset for offset, token in enumerate(specials)},
        pattern=pattern,
        name=name,
        merge_counts=[m.count for m in merges],
        training=training,
        # Each merge joined two symbols whose bytes had evolved on their own, as they do when the
        # token's bytes are encoded alone, so every token encodes to itself (tests check this).
        _tokens_self_encode=True,
    )


def train(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "trained",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer.

    ``texts`` is one document (a ``str``) or an iterable of documents. Ids 0..255 are the bytes,
    then the special tokens in order, then one id per merge; ``vocab_size`` counts all of them.
    Training stops at ``vocab_size``, when no pair is left, or when the best pair's count is below
    ``min_frequency``. ``tie_break`` is ``"lexicographic"`` (the greatest (left bytes, right bytes)
    pair wins) or ``"first"`` (the pair met first, scanning unique pre-tokens in order of first
    appearance, left to right: the seeds' naive algorithm). ``workers`` is how many processes count
    pre-tokens (None: one per CPU for inputs of several megabytes, else this process; 1: this process
    only); the tokenizer does not depend on it.
    """
    started = time.perf_counter()
    specials = _validate_settings(vocab_size, min_frequency, tie_break, special_tokens)
    workers = check_workers(workers)
    pretokenizer = PreTokenizer.build(pattern)
    if isinstance(texts, str):
        documents: Iterable[str] = [texts]
    elif isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    else:
        documents = texts
    total = len(documents) if isinstance(documents, Sequence) else 0
    if progress:
        counted = _counting_progress(documents, progress, total)
    else:
        counted = documents
    word_counts = count_words(counted, pretokenizer=pretokenizer, special_tokens=specials, workers=workers)
    return train_from_counts(
        word_counts,
        vocab_size,
        min_frequency=min_frequency,
        pattern=pattern,
        special_tokens=specials,
        tie_break=tie_break,
        progress=progress,
        name=name,
        started=started,
    )


def _counting_progress(documents: Iterable[str], progress: ProgressCallback, total: int):
    step = max(1, total // 100) if total else 1000
    done = 0
    progress("count", 0, total)
    for document in documents:
        yield document
        done += 1
        if done % step == 0:
            progress("count", done, total)
    progress("count", done, total or done)


#: Files are read in blocks of this many bytes; only the pre-token counts are kept.
FILE_BLOCK_BYTES = 1 << 20


def iter_file_text(path: str | os.PathLike, block_bytes: int = FILE_BLOCK_BYTES):
    """Yield ``(text, bytes_read_so_far)`` for a UTF-8 file, block by block, each block cut at a
    character boundary. Invalid UTF-8 is a ValueError naming the file and the byte offset."""
    path = os.fspath(path)
    offset = 0  # file offset of the first byte of `pending`
    pending = b""
    with open(path, "rb") as handle:
        while True:
            block = handle.read(block_bytes)
            data = pending + block
            if not data:
                return
            cut = len(data)
            if block:
                # Hold back an incomplete trailing UTF-8 sequence for the next block.
                back = 0
                while back < 3 and back < len(data) and (data[-1 - back] & 0xC0) == 0x80:
                    back += 1
                if back < len(data) and data[-1 - back] >= 0xC0:
                    cut = len(data) - back - 1
            chunk, pending = data[:cut], data[cut:]
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"{path} is not valid UTF-8 at byte offset {offset + exc.start} "
                    f"({chunk[exc.start:exc.start + 4]!r}); re-encode it as UTF-8 "
                    "(e.g. iconv -f latin1 -t utf-8) or remove the binary data"
                ) from None
            offset += len(chunk)
            yield text, offset
            if not block:
                return


def count_stream(
    chunks: Iterable[str],
    *,
    pretokenizer: PreTokenizer,
    special_tokens: Sequence[str] = (),
) -> WordCounts:
    """Count the pre-tokens of one document given as consecutive chunks, as ``count_words`` would on
    the joined text, without joining it."""
    result = WordCounts()
    stats = result.stats
    stats.documents = 1
    special_regex = special_token_regex(special_tokens)
    guard = max((len(t) for t in special_tokens), default=0)

    def measured():
        for chunk in chunks:
            stats.characters += len(chunk)
            yield chunk

    def ordinary_pieces():
        for piece, is_special in stream_pieces(measured(), pretokenizer, special_regex, guard=guard):
            if is_special:
                stats.special_tokens_cut += 1
                stats.characters -= len(piece)
            else:
                stats.pretokens += 1
                yield piece

    result.counts.update(ordinary_pieces())
    return result


def train_files(
    paths: Sequence[str | os.PathLike] | str | os.PathLike,
    vocab_size: int,
    *,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "trained",
    workers: int | None = None,
) -> Tokenizer:
    """Train on UTF-8 files, streamed block by block (only pre-token counts are kept in memory).

    Each file is one document. Blocks are cut at newlines, so with ``pattern=None`` a file's lines are
    pre-split there. Same keywords as ``train``. With a preset pattern, counting is split into tasks
    at safe cuts and, for ``workers`` other than 1, spread over worker processes.
    """
    started = time.perf_counter()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    specials = _validate_settings(vocab_size, min_frequency, tie_break, special_tokens)
    workers = check_workers(workers)
    pretokenizer = PreTokenizer.build(pattern)
    sizes = []
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"{os.fspath(path)} is not a readable file")
        sizes.append(os.path.getsize(path))
    total_bytes = sum(sizes)
    word_counts = WordCounts()
    done_before = 0
    if progress:
        progress("count", 0, total_bytes)

    def chunks(path, done_before):
        for text, read in iter_file_text(path, FILE_BLOCK_BYTES):
            if progress:
                progress("count", done_before + read, total_bytes)
            yield text

    cut_regex = safe_cut_regex(pretokenizer.source)
    if cut_regex is None:
        # Custom patterns and no pattern: no known safe cut, so one stream per file, in this process.
        for path, size in zip(paths, sizes):
            word_counts.update(
                count_stream(chunks(path, done_before), pretokenizer=pretokenizer, special_tokens=specials)
            )
            done_before += size
    else:
        special_regex = special_token_regex(specials)
        guard = max((len(t) for t in specials), default=0)
        stats = word_counts.stats

        def parts():
            done_before = 0
            for path, size in zip(paths, sizes):
                stats.documents += 1
                yield from _independent_parts(
                    chunks(path, done_before), cut_regex, special_regex, guard, TASK_CHARS, stats
                )
                done_before += size

        _count_tasks(batches(parts(), TASK_CHARS), pretokenizer, workers, word_counts)
    return train_from_counts(
        word_counts,
        vocab_size,
        min_frequency=min_frequency,
        pattern=pattern,
        special_tokens=specials,
        tie_break=tie_break,
        progress=progress,
        name=name,
        started=started,
    )
