"""The merge loop of every way of training, written once: a run's state, ``best()`` and ``merge()``,
and the loop with its progress reports and cancellation.

A run (``MergeRun``) starts from a ``Start`` (``start``): the words (each distinct pre-token or piece
as an id string), their counts, every id's bytes and the first new id; from bytes
(``Start.from_counts``) or from an existing tokenizer's merges (``Start.from_tokenizer``). It keeps
the pair counts (one, or one per language when the start gives ``shares``), the index of the words
holding each pair, one lazy heap per count and the tokens so far (``pairs``), and the merges made.

- ``best()`` takes the best pair off a heap: the largest count, then the tie rule's smallest key
  (``tie_rules``, one key per rule). A pair whose bytes already are a token, or that ``refuse`` (a
  predicate on the bytes it would make) turns down, is skipped for good.
- ``merge()`` makes the pair's token (a new id, or the id its bytes had before: Picky BPE's
  restores) and merges it in every word that holds it, updating the counts, the index and the heaps.
- ``run()`` repeats until the policy's size reaches a target, calling ``progress("merge", done,
  total)`` at the start, every 1% and at the end; ``cancel()``, checked before each merge, stops it
  early with ``STOP_CANCELLED`` and the state consistent (``run`` again goes on). The cyclic garbage
  collector is paused meanwhile: the loop makes millions of lists and no cycles, and each collection
  would walk all of them (bench/PERFORMANCE.md, "Figures behind choices in the code").

With ``tracked_pairs`` (the default policy, a rule other than ``first``: SuperBPE's stage 2, on its own
corpus or extending a tokenizer, ``superbpe``) a run keeps only the pairs at least as frequent as the
``tracked_pairs``-th most frequent (``pairs.count_top_pairs``), and when none of them is left counts the
words again with a lower threshold: every pair at least that frequent is kept, counts only fall, and
the keys depend on the symbols alone, so each choice is the one tracking every pair makes
(``test_engine.py``, ``test_tracking_only_the_most_frequent_pairs_gives_the_same_merges``).

What a way of training does differently is its ``Policy``: which pair it takes (``choose``: parity-
aware training picks a language first, ``parity_policy``), what follows a merge (``after_merge``:
Picky BPE's removals, ``picky_policy``), what it counts towards the target (``size``: merges, or
Picky's tokens present), and whether it takes tokens apart (``splits_tokens``). Standard BPE is the
default policy (``learn_merges``); SuperBPE's stage 2 is the default policy with a ``refuse`` and a
start from a tokenizer (``superbpe``). The readable version of the loop is ``_educational``. This
module does not count pre-tokens (``counting``) nor build tokenizers (``trainer`` and the variants).
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat
from operator import add, mul
from types import MethodType
from typing import NamedTuple

from bpe_core.errors import BpeError
from bpe_core.training.pairs import PairHeap, Tokens, count_pairs, count_top_pairs, holder_array
from bpe_core.training.start import Start
from bpe_core.training.tie_rules import HUGGINGFACE_PARITY, TIE_BREAKS, PairKeys
from bpe_core.training.word_update import merge_pair_first_seen, merge_pair_in_words, merge_pair_weighted

__all__ = [
    "MAX_VOCAB_SIZE",
    "TRACKED_PER_MERGE",
    "LearnedMerge",
    "MergeRun",
    "Policy",
    "ProgressCallback",
    "Start",
    "Step",
    "learn_merges",
    "paused_collector",
]

#: ``progress(phase, done, total)``: phase is "count" (done/total in documents or bytes) or "merge".
ProgressCallback = Callable[[str, int, int], None]

#: A run from a tokenizer's merges on long pieces (SuperBPE's stage 2) tracks
#: the pairs at least as frequent as this many per merge to learn (``MergeRun``'s ``tracked_pairs``),
#: not every pair seen ``min_frequency`` times: most of those pairs are rare and never chosen.
TRACKED_PER_MERGE = 4

#: A merge updates this many of its words at a time (``MergeRun._merge_plain``): never all old texts at once.
HOLDERS_AT_ONCE = 1 << 16

#: The largest vocabulary the loop can build: every id must fit in one character.
MAX_VOCAB_SIZE = 0x110000

# Stop reasons recorded in the training metadata.
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIRS = "no pair left to merge"
STOP_MIN_FREQUENCY = "best pair count below min_frequency"
STOP_CANCELLED = "cancelled"


#: A step's ``changed`` with one count (the words changed are listed only with several).
_NO_CHANGES: tuple[tuple[int, int], ...] = ()
#: Builds a NamedTuple in C from a tuple of its fields, without the Python frame of its ``__new__``.
_new_tuple = tuple.__new__


class LearnedMerge(NamedTuple):
    """One merge: ``left`` and ``right`` joined into ``id`` (ids of the run), the pair's ``count`` when
    chosen, and the tokens of the corpus after it (``tokens_after``)."""

    left: int
    right: int
    id: int
    count: int  # type: ignore[assignment]  # a field, in place of tuple.count
    tokens_after: int


class Step(NamedTuple):
    """One merge as ``Policy.after_merge`` sees it: the merge, the words it was looked for in (some may
    have lost the pair), the occurrences it joined (weighted by frequency) and, with several counts,
    the words changed as (index, symbols removed)."""

    merge: LearnedMerge
    holders: list[int]
    joined: int
    changed: Sequence[tuple[int, int]]


@contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic garbage collector paused inside, and left after as it was found."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class Policy:
    """What a way of training does differently from standard BPE; these defaults are standard BPE."""

    #: Whether merges are followed by taking tokens apart (Picky BPE): pair counts may then rise again,
    #: so a new pair below the threshold stays indexed, and the index's lists may hold a word twice or
    #: out of order, so a pair's words are sorted before a merge.
    splits_tokens = False

    def size(self, run: MergeRun) -> int:
        """What ``run`` counts towards its target: the merges made."""
        return len(run.merges)

    def choose(self, run: MergeRun) -> tuple[str, int] | str:
        """The pair to merge next and the count to record for it, or why the run stops."""
        best = run.best()
        return run.stop_reason() if best is None else best

    def after_merge(self, run: MergeRun, step: Step) -> None:
        """What follows each merge (nothing)."""


class MergeRun:
    """One training run: its words, pair counts, index, heaps, tokens and merges (module docstring;
    ``tracked_pairs`` there too: None tracks every pair reaching ``min_frequency``).

    >>> run = MergeRun(Start.from_counts({"abab": 1, "ab": 2}), min_frequency=1)
    >>> run.run(3), [(m.left, m.right, m.id, m.count) for m in run.merges]
    ('no pair left to merge', [(97, 98, 256, 4), (256, 256, 257, 1)])
    """

    def __init__(
        self,
        start: Start,
        *,
        tie_break: str = "lexicographic",
        min_frequency: int = 2,
        refuse: Callable[[bytes], bool] | None = None,
        policy: Policy | None = None,
        tracked_pairs: int | None = None,
    ) -> None:
        if tie_break not in TIE_BREAKS and tie_break != HUGGINGFACE_PARITY:
            raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
        self.words, self.freqs, self.next_id = start.words, start.freqs, start.next_id
        self.policy = policy if policy is not None else Policy()
        self._splits = self.policy.splits_tokens
        self.counts: list[dict[str, int]] = [{}]
        self.word_counts: list[tuple[int, ...]] | None = None  # with several counts: those each word adds to
        threshold = max(min_frequency, 1)  # a pair below it is never chosen
        # With one count that only falls, a pair below the threshold is never chosen: it is not kept.
        self._rare_dropped = start.shares is None and not self._splits
        # Tracking only the most frequent pairs needs the default policy (it alone recounts when they run
        # out) and keys that depend on the symbols alone (the first rule's move with the words).
        self._floor, self._tracked = threshold, None
        if self._rare_dropped and policy is None and tie_break != "first" and tracked_pairs is not None:
            self._tracked = tracked_pairs
        if self._rare_dropped:
            self.weights: list = self.freqs
            threshold, counts, self.where = count_top_pairs(self.words, self.freqs, threshold, self._tracked)
            self.counts = [counts]
        elif start.shares is None:
            rows = zip(range(len(self.words)), repeat(self.counts[0]), self.freqs)
            self.where = count_pairs(self.words, rows)
        else:
            self.counts = [{} for _ in range(start.counts)]
            self._shares: list[list[tuple[int, int]]] = start.shares
            self._dropped: set[int] = set()
            self._set_weights(self._dropped)
            no_count: dict[str, int] = {}  # words that add to no count are indexed too: merges change them
            rows_of = ((i, counts, w) for i, row in enumerate(self.weights) for counts, w in (row or ((no_count, 0),)))
            self.where = count_pairs(self.words, rows_of)
        self.tokens = Tokens(start.token_bytes, refuse)
        self.keys = PairKeys(tie_break, self.words, self.where, start.token_bytes)
        self.heaps = [PairHeap(counts, threshold, self.keys, self.tokens) for counts in self.counts]
        self._drop_below = threshold if self._rare_dropped else 0  # counts below it are dropped as they fall
        # One count that only falls, no first-seen keys: ``_merge_plain`` serves (no branch on the rest).
        # The choice is kept unbound: a bound method held by the run would tie it into a reference cycle,
        # which the paused collector would leave in memory after the run is dropped.
        plain = self._rare_dropped and self.keys.seen is None
        self._merge_function = MergeRun._merge_plain if plain else MergeRun._merge
        self.total_tokens = sum(map(mul, map(len, self.words), self.freqs))
        self.merges: list[LearnedMerge] = []

    def _set_weights(self, dropped: set[int]) -> None:
        counts = self.counts
        rows = [[(c, w) for c, w in row if c not in dropped] for row in self._shares]
        self.weights = [tuple((counts[c], w) for c, w in row) for row in rows]
        self.word_counts = [tuple(c for c, _ in row) for row in rows]

    def drop_count(self, index: int) -> None:
        """Stop keeping count ``index`` (several counts only): no word adds to it any more, and its
        counts and heap are emptied (the hybrid's global counts, once its global merges are done)."""
        self._dropped.add(index)
        self._set_weights(self._dropped)
        self.counts[index].clear()
        self.heaps[index].clear()

    def _recount(self) -> bool:
        """With only the most frequent pairs tracked (``tracked_pairs``) and none of them left: count the
        pairs of the words as they are now, tracking the most frequent again down to a lower threshold;
        False when the threshold was ``min_frequency`` already (no pair can be chosen)."""
        threshold = self._drop_below
        if self._tracked is None or threshold <= self._floor:
            return False
        self.counts = self.where = None  # type: ignore[assignment]  # freed before counting again
        threshold, counts, self.where = count_top_pairs(
            self.words, self.freqs, self._floor, self._tracked, refused=self.tokens.refused, below=threshold
        )
        self.counts = [counts]
        self.heaps = [PairHeap(counts, threshold, self.keys, self.tokens)]
        self._drop_below = threshold
        return True

    def best(self, count: int = 0) -> tuple[str, int] | None:
        """The best pair of count ``count`` and that count, taken off its heap; None when no pair
        reaches ``min_frequency`` (refused pairs skipped, for good)."""
        return self.heaps[count].pop()

    def stop_reason(self) -> str:
        """Why training stops when the heaps have no pair: a pair with a positive count and not
        refused is below ``min_frequency``; else no pair is left at all."""
        refused = self.tokens.refused
        if self._rare_dropped:  # the pairs left are not counted: look for one in the words
            for word, freq in zip(self.words, self.freqs, strict=True):
                if freq > 0 and any(pair not in refused for pair in map(add, word, word[1:])):
                    return STOP_MIN_FREQUENCY
            return STOP_NO_PAIRS
        # A heap never left a pair out below the threshold, and now empty, has no positive count left.
        live = [counts for counts, heap in zip(self.counts, self.heaps, strict=True) if heap.below or heap.heap]
        if any(count > 0 and pair not in refused for counts in live for pair, count in counts.items()):
            return STOP_MIN_FREQUENCY
        return STOP_NO_PAIRS

    def merge(self, pair: str, count: int) -> Step:
        """Merge ``pair`` into its token in every word that holds it, updating the counts, the index
        and the heaps; record the merge with ``count``."""
        return Step(*self._merge_function(self, pair, count))

    def _merge_plain(self, pair: str, count: int) -> tuple[LearnedMerge, list[int], int, Sequence[tuple[int, int]]]:
        """``_merge`` with one count that only falls and no first-seen keys (standard BPE and SuperBPE's
        stage 2 under every rule but ``first``): no token is made again (its bytes would be a token present,
        refused), and a new pair below the threshold is never chosen, so neither counted nor indexed."""
        tokens, where, pair_counts = self.tokens, self.where, self.counts[0]
        token_bytes = tokens.token_bytes
        made = token_bytes[ord(pair[0])] + token_bytes[ord(pair[1])]
        new_id = self.next_id
        self.next_id = new_id + 1
        tokens.add(made, new_id)
        self.keys.add(new_id, made)
        holders = where.pop(pair)
        words, freqs, drop_below, new = self.words, self.freqs, self._drop_below, chr(new_id)
        if len(holders) <= HOLDERS_AT_ONCE:
            if isinstance(holders, array):  # read as a list: an array makes each index an int again at every read
                holders = holders.tolist()
            joined, created = merge_pair_in_words(pair, new, holders, words, freqs, pair_counts, where, drop_below)
        else:  # in parts, in order: the same updates, the old words and the indices' ints a part at a time
            joined, created = 0, []
            for start in range(0, len(holders), HOLDERS_AT_ONCE):
                part = holders[start : start + HOLDERS_AT_ONCE]
                part = part.tolist() if isinstance(part, array) else part
                more, first_made = merge_pair_in_words(pair, new, part, words, freqs, pair_counts, where, drop_below)
                joined += more
                created += first_made
        pair_counts.pop(pair, None)  # dropped already if it fell below the threshold
        for fresh in self.heaps[0].push_frequent(created):
            del where[fresh], pair_counts[fresh]
        if self._tracked is not None:
            self._index_as_arrays(created)
        self.total_tokens -= joined
        merge = _new_tuple(LearnedMerge, (ord(pair[0]), ord(pair[1]), new_id, count, self.total_tokens))
        self.merges.append(merge)
        return merge, holders, joined, _NO_CHANGES

    def _index_as_arrays(self, created: list[str]) -> None:
        """The new pairs kept index their words in arrays, as ``count_top_pairs``'s (few pairs tracked,
        of many words: a list of millions of indices keeps an int object alive for each)."""
        where, size = self.where, len(self.words)
        for fresh in filter(where.__contains__, created):
            where[fresh] = holder_array(where[fresh], size)  # type: ignore[assignment]

    def _merge(self, pair: str, count: int) -> tuple[LearnedMerge, list[int], int, Sequence[tuple[int, int]]]:
        """``merge``, its step as a plain tuple (the loop builds a ``Step`` only for a policy that reads it)."""
        tokens, keys, where = self.tokens, self.keys, self.where
        token_bytes = tokens.token_bytes
        made = token_bytes[ord(pair[0])] + token_bytes[ord(pair[1])]
        # A token made before and taken apart since (Picky BPE) gets its id back; only then can
        # pairs holding it have been counted before.
        new_id = tokens.ids.get(made)
        restored = new_id is not None
        if new_id is None:
            new_id = self.next_id
            self.next_id += 1
        tokens.add(made, new_id)
        keys.add(new_id, made)
        holders = where.pop(pair)
        if self._splits:
            holders = sorted(set(holders))
        elif isinstance(holders, array):  # read as a list: an array makes each index an int again at every read
            holders = holders.tolist()
        if self.word_counts is None:
            joined, left_out = self._merge_one_count(pair, chr(new_id), holders, restored)
            changed: Sequence[tuple[int, int]] = _NO_CHANGES  # only with several counts
        else:
            joined, changed, left_out = self._merge_several_counts(pair, chr(new_id), holders, self.word_counts)
        seen = keys.seen
        if seen is not None:
            seen.forget(pair)
        if not self._splits:  # counts only fall: a pair left out now is never chosen
            for fresh in left_out:
                del where[fresh]
            if self._rare_dropped:
                pair_counts = self.counts[0]
                for fresh in left_out:
                    del pair_counts[fresh]
            if seen is not None:
                keys.forget(left_out)
        self.total_tokens -= joined
        merge = _new_tuple(LearnedMerge, (ord(pair[0]), ord(pair[1]), new_id, count, self.total_tokens))
        self.merges.append(merge)
        return merge, holders, joined, changed

    def _merge_one_count(self, pair: str, new: str, holders: list[int], restored: bool) -> tuple[int, list[str]]:
        """The word update with one count: the occurrences joined, and the new pairs left out of the heap."""
        words, where, pair_counts, seen = self.words, self.where, self.counts[0], self.keys.seen
        if seen is None and not restored:
            joined, created = merge_pair_in_words(
                pair, new, holders, words, self.freqs, pair_counts, where, self._drop_below
            )
        elif seen is not None and not restored:
            joined, created = merge_pair_first_seen(pair, new, holders, words, self.freqs, pair_counts, where, seen)
        else:
            joined, _, created = merge_pair_weighted(pair, new, holders, words, where, seen, self.freqs, pair_counts)
        pair_counts.pop(pair, None)  # dropped already if it fell below the threshold
        if restored:  # its pairs may be indexed from before, so not "created": push them all
            created = [p for i in holders for p in map(add, words[i], words[i][1:]) if new in p]
        return joined, self.heaps[0].push_frequent(created)

    def _merge_several_counts(
        self, pair: str, new: str, holders: list[int], word_counts: list[tuple[int, ...]]
    ) -> tuple[int, list[tuple[int, int]], list[str]]:
        """The word update with several counts (``word_counts``: those each word adds to): the
        occurrences joined, the words changed, and the new pairs left out of every heap."""
        words, where, seen = self.words, self.where, self.keys.seen
        _, changed, created = merge_pair_weighted(pair, new, holders, words, where, seen, self.weights)
        freqs = self.freqs
        joined = sum(removed * freqs[index] for index, removed in changed)
        for counts in self.counts:
            counts.pop(pair, None)
        touched: set[int] = set()
        for index, _ in changed:
            touched.update(word_counts[index])
        # A new pair frequent enough in no count is never chosen, so never looked up.
        unwanted = set(created)
        for each in touched:
            unwanted.intersection_update(self.heaps[each].push_frequent(created))
        return joined, changed, list(unwanted)

    def run(
        self, target: int, *, progress: ProgressCallback | None = None, cancel: Callable[[], bool] | None = None
    ) -> str:
        """Merge until the policy's size reaches ``target`` (standard BPE: ``target`` merges); return
        why the run stopped (module docstring)."""
        policy, kind = self.policy, type(self.policy)
        size = policy.size
        counts_merges = kind.size is Policy.size  # standard BPE's hooks are run inline, without a call
        choose = None if kind.choose is Policy.choose else policy.choose
        after_merge = None if kind.after_merge is Policy.after_merge else policy.after_merge
        merges, pop, merge = self.merges, self.heaps[0].pop, MethodType(self._merge_function, self)
        start = size(self)
        total = max(target - start, 0)
        report_every = max(1, total // 100)
        if progress:
            progress("merge", 0, total)
        with paused_collector():
            while (len(merges) if counts_merges else size(self)) < target:
                if cancel is not None and cancel():
                    return STOP_CANCELLED
                chosen: tuple[str, int] | str | None = pop() if choose is None else choose(self)
                if chosen is None:
                    if self._recount():  # only with the most frequent pairs tracked
                        pop = self.heaps[0].pop
                        continue
                    return self.stop_reason()
                if isinstance(chosen, str):
                    return chosen
                pair, count = chosen
                step = merge(pair, count)
                if after_merge is not None:
                    after_merge(self, _new_tuple(Step, step))
                if progress:
                    done = size(self) - start
                    if len(merges) % report_every == 0 or done >= total:
                        progress("merge", min(done, total), total)
        return STOP_VOCAB_SIZE


def learn_merges(
    words: list[str],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: str,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """Standard BPE: up to ``num_merges`` merges on ``words`` (each written one character per id,
    ``chr(id)``; see ``pairs.id_string``), replacing each word with its merged form. ``token_bytes``
    maps every existing id to its bytes and is extended with the new tokens. Returns the merges made
    and why training stopped.

    >>> from bpe_core.training.pairs import id_string
    >>> words = [id_string(b"abab"), id_string(b"ab")]
    >>> merges, why = learn_merges(words, [1, 2], token_bytes={i: bytes([i]) for i in range(256)},
    ...                            next_id=256, num_merges=1, min_frequency=1, tie_break="lexicographic")
    >>> [(m.left, m.right, m.id, m.count) for m in merges], [list(map(ord, w)) for w in words]
    ([(97, 98, 256, 4)], [[256, 256], [256]])
    """
    with paused_collector():  # counting the pairs makes millions of lists too
        run = MergeRun(Start(words, freqs, token_bytes, next_id), tie_break=tie_break, min_frequency=min_frequency)
        stop = run.run(num_merges, progress=progress)
    return run.merges, stop
