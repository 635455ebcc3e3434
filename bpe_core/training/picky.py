"""Picky BPE training (Chizhov, Arnett, Korotkova, Yamshchikov, EMNLP 2024): BPE that removes
intermediate tokens once they are used almost only inside a merge.

After each merge of (x, y) into z, joining m occurrences, each parent that is not a single byte is
checked, x first then y (once when x == y): its *Intersection over Self* is IoS = m / (f + m), where
f is its frequency once the merge took its occurrences (and after x's removal, if x was removed and
y is among x's parts). If IoS > ``threshold`` the parent is *removed*: every occurrence left in the
word table is split into its parts (its first merge's parents, an absent one split further), which
gain its frequency; the vocabulary loses one token. A later merge that makes the same bytes
*restores* it, with the same id. Training stops when the tokens present reach ``vocab_size``.

Where this follows the authors' code rather than the paper: the caption of the paper's Figure 2
removes a token once IoS >= T; both implementations (``pchizhov/picky_bpe`` and ``pickybpe-bauwenst``) test IoS > T,
as here, so T = 1 never removes and equals ``bpe_core.train``. The paper defines IoS as the pair's
frequency over the token's; for x == y the merge takes 2m occurrences, and the authors' formula,
kept here, is m / (f_before - m). As everywhere in bpe_core, a pair whose bytes are a token present
now is not merged (``merge_loop``); the authors' code merges it into that token and counts it.

Every event is recorded in order (``PickyEvent``; in ``Tokenizer.training["picky_events"]``). Encoding
replays the events (``bpe.picky_replay``). The pair-count bookkeeping of a merge is
``merge_loop.merge_pair_in_words``; a removal recounts the words it touches. This module does not
count pre-tokens (``counting``) nor encode text; the readable algorithm is the naive trainer in
``tests/training/test_picky.py``.
"""

from __future__ import annotations

import gc
import heapq
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import add

from bpe_core.bpe.picky_replay import MERGE, REMOVE, Event
from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import preset_name, replace_surrogates
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts, count_words
from bpe_core.training.merge_core import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, count_pairs
from bpe_core.training.merge_loop import ProgressCallback, merge_pair_in_words
from bpe_core.training.tie_rules import TieBreak, symbol_key
from bpe_core.training.trainer import TrainingSettings

__all__ = ["PickyEvent", "PickyTraining", "picky_training", "train_picky"]

PICKY_TIE_BREAKS = ("lexicographic", "huggingface", "rustbpe")
STOP_CYCLE = "a token was restored too often: removals and restores are cycling"
#: A token restored more often stops training (STOP_CYCLE): any cycle of the word table restores some token.
MAX_RESTORES = 64
EVENT_FIELDS = ["step", "kind", "token", "parts", "count", "merged", "ios"]


@dataclass(frozen=True)
class PickyEvent:
    """One training event. A merge (a restore if ``token`` was removed before) joined ``parts`` (left,
    right) into ``token``: ``count`` is the pair's count when chosen, ``merged`` the occurrences
    joined, ``ios`` the IoS of its left and right parent (None: a single byte, or the right of (x, x)).
    A removal split ``token`` into ``parts``: ``count`` is its frequency then (given to the parts),
    ``merged`` the triggering merge's, ``ios`` (its IoS,)."""

    step: int
    kind: str
    token: bytes
    parts: tuple[bytes, ...]
    count: int
    merged: int
    ios: tuple[float | None, ...]


class _PickyLoop:
    """The merge loop's state: words one character per creation id (as in ``merge_loop``), pair counts
    with the words holding each pair (lists that may hold words that lost it), a lazy max-heap of
    (-count, tie key, pair), each token's frequency and the words holding it."""

    def __init__(
        self,
        words: list[str],
        freqs: list[int],
        token_bytes: dict[int, bytes],
        next_id: int,
        threshold: float,
        min_frequency: int,
        tie_break: TieBreak,
    ) -> None:
        self.words, self.freqs, self.threshold = words, freqs, threshold
        self.floor = max(min_frequency, 1)  # pairs counted below it are never merged
        self.token_bytes: dict[int, bytes] = dict(token_bytes)  # every token ever made, by creation id
        self.id_of = {token: token_id for token_id, token in token_bytes.items()}
        self.present = set(token_bytes)
        self.parents: dict[int, tuple[int, int]] = {}  # a merged token's first parents
        self.next_id, self.tie_break = next_id, tie_break
        self.pair_counts: dict[str, int] = {}
        self.where = count_pairs(words, [(index, self.pair_counts, freq) for index, freq in enumerate(freqs)])
        self.total_tokens = sum(len(word) * freq for word, freq in zip(words, freqs, strict=True))
        self.freq: dict[str, int] = {}
        self.holders: dict[str, set[int]] = {}
        for index, word in enumerate(words):
            for symbol in set(word):
                self.freq[symbol] = self.freq.get(symbol, 0) + word.count(symbol) * freqs[index]
                self.holders.setdefault(symbol, set()).add(index)
        self.keys = {chr(i): symbol_key(tie_break, i, token) for i, token in token_bytes.items()}
        self.heap = [(-c, self.key(p), p) for p, c in self.pair_counts.items() if c >= self.floor]
        heapq.heapify(self.heap)
        self.blocked: dict[bytes, list[str]] = {}  # bytes of a present token -> pairs that would make it
        self.restores: dict[int, int] = {}
        self.events: list[PickyEvent] = []
        self.tokens_after: list[int] = []

    def key(self, pair: str) -> str:
        return self.keys[pair[0]] + self.keys[pair[1]]

    def push(self, pair: str) -> None:
        count = self.pair_counts.get(pair, 0)
        if count >= self.floor:
            heapq.heappush(self.heap, (-count, self.key(pair), pair))

    def pop_best(self) -> tuple[str, int] | None:
        """The best pair whose bytes are no present token, with its count. An entry's count is never
        below its pair's live one (a pair whose count rises is pushed again), so the first entry whose
        count is live is the best pair."""
        heap, counts = self.heap, self.pair_counts
        while heap:
            stored, _, pair = heapq.heappop(heap)
            live = counts.get(pair, 0)
            if live != -stored:
                self.push(pair)
                continue
            made = self.token_bytes[ord(pair[0])] + self.token_bytes[ord(pair[1])]
            if self.id_of.get(made, -1) in self.present:
                self.blocked.setdefault(made, []).append(pair)  # pushed again if that token is removed
                continue
            return pair, live
        return None

    def stop_reason(self) -> str:
        blocked = {pair for pairs in self.blocked.values() for pair in pairs}
        left = any(count > 0 and pair not in blocked for pair, count in self.pair_counts.items())
        return STOP_MIN_FREQUENCY if left else STOP_NO_PAIRS

    def merge(self, pair: str, count: int) -> bool:
        """Merge ``pair`` (``count`` when chosen) and check its parents; False (and nothing done) when
        it would restore a token ``MAX_RESTORES`` times."""
        a, b = pair[0], pair[1]
        left, right = ord(a), ord(b)
        made = self.token_bytes[left] + self.token_bytes[right]
        new_id = self.id_of.get(made)
        if new_id is None:
            new_id = self.next_id
            self.next_id += 1
            self.token_bytes[new_id], self.id_of[made], self.parents[new_id] = made, new_id, (left, right)
            self.keys[chr(new_id)] = symbol_key(self.tie_break, new_id, made)
        elif self.restores.get(new_id, 0) >= MAX_RESTORES:
            return False
        else:
            self.restores[new_id] = self.restores.get(new_id, 0) + 1
        self.present.add(new_id)
        new = chr(new_id)
        holders = sorted(set(self.where.pop(pair)))
        merged, created = merge_pair_in_words(pair, new, holders, self.words, self.freqs, self.pair_counts, self.where)
        self.pair_counts.pop(pair, None)
        if new_id in self.restores:  # its old pairs may be listed in `where` already, so not "created"
            created = [p for i in holders for p in map(add, self.words[i], self.words[i][1:]) if new in p]
        for fresh in created:
            self.push(fresh)
        self.holders[new] = set(holders)
        self.freq[new] = merged
        self.total_tokens -= merged
        at = len(self.events)
        parts = (self.token_bytes[left], self.token_bytes[right])
        self.events.append(PickyEvent(at, MERGE, made, parts, count, merged, ()))  # its IoS come below
        ios: tuple[float | None, float | None]
        if left == right:
            self.freq[a] -= 2 * merged
            ios = (self.check(a, merged), None)
        else:
            self.freq[a] -= merged
            ios_left = self.check(a, merged)
            self.freq[b] -= merged
            ios = (ios_left, self.check(b, merged))
        self.events[at] = PickyEvent(at, MERGE, made, parts, count, merged, ios)
        self.tokens_after.append(self.total_tokens)
        return True

    def check(self, symbol: str, merged: int) -> float | None:
        """The IoS of parent ``symbol`` (None for a single byte); removes it when above the threshold."""
        if ord(symbol) < 256:
            return None
        ios = merged / (self.freq[symbol] + merged)
        if ios > self.threshold:
            self.remove(symbol, ios, merged)
        return ios

    def walk(self, token_id: int) -> list[int]:
        """``token_id`` if present, else its first parents' walks: the parts a removal splits into."""
        parts, stack = [], [token_id]
        while stack:
            top = stack.pop()
            if top < 256 or top in self.present:
                parts.append(top)
            else:
                left, right = self.parents[top]
                stack += (right, left)
        return parts

    def remove(self, symbol: str, ios: float, merged: int) -> None:
        """Split every occurrence of ``symbol`` into its parts, recounting the pairs of the words it is in."""
        token_id = ord(symbol)
        self.present.discard(token_id)
        parts = self.walk(token_id)
        replacement = "".join(map(chr, parts))
        remaining = self.freq[symbol]
        self.freq[symbol] = 0
        for part in replacement:
            self.freq[part] = self.freq.get(part, 0) + remaining
        self.total_tokens += remaining * (len(parts) - 1)
        words, freqs, where, holders = self.words, self.freqs, self.where, self.holders
        change: dict[str, int] = {}
        for index in self.holders.pop(symbol, ()):
            word = words[index]
            if symbol not in word:
                continue
            freq = freqs[index]
            for pair in map(add, word, word[1:]):
                change[pair] = change.get(pair, 0) - freq
            word = words[index] = word.replace(symbol, replacement)
            for pair in map(add, word, word[1:]):
                change[pair] = change.get(pair, 0) + freq
                listed = where.get(pair)
                if listed is None:
                    where[pair] = [index]
                elif listed[-1] != index:
                    listed.append(index)
            for part in replacement:
                holders.setdefault(part, set()).add(index)
        for pair, delta in change.items():
            if symbol in pair:
                self.pair_counts.pop(pair, None)
            elif delta:
                self.pair_counts[pair] = self.pair_counts.get(pair, 0) + delta
                if delta > 0:
                    self.push(pair)
        for pair in self.blocked.pop(self.token_bytes[token_id], ()):
            self.push(pair)
        token_bytes = self.token_bytes
        self.events.append(
            PickyEvent(
                len(self.events),
                REMOVE,
                token_bytes[token_id],
                tuple(token_bytes[p] for p in parts),
                remaining,
                merged,
                (ios,),
            )
        )

    def run(self, vocab_size: int, progress: ProgressCallback | None) -> str:
        start = len(self.present)
        total = max(vocab_size - start, 0)
        report_every = max(1, total // 100)
        if progress:
            progress("merge", 0, total)
        while len(self.present) < vocab_size:
            best = self.pop_best()
            if best is None:
                return self.stop_reason()
            if not self.merge(*best):
                return STOP_CYCLE
            if progress and len(self.tokens_after) % report_every == 0:
                progress("merge", min(len(self.present) - start, total), total)
        if progress:
            progress("merge", total, total)
        return STOP_VOCAB_SIZE


@dataclass(frozen=True)
class PickyTraining:
    """What Picky BPE training made: the tokens present at the end (``vocab``: the 256 bytes, the
    special tokens, then the merged tokens in the order first made, ids without gaps), every event,
    and the ``training`` metadata (see ``_metadata``)."""

    vocab: dict[int, bytes]
    special_tokens: dict[str, int]
    events: tuple[PickyEvent, ...]
    training: dict
    pattern: str | None
    name: str

    @property
    def removals(self) -> int:
        return sum(event.kind == REMOVE for event in self.events)

    def replay_events(self) -> list[Event]:
        """The events as ``bpe.picky_replay`` takes them (what encoding needs)."""
        return [(event.kind, event.token, event.parts) for event in self.events]

    def tokenizer(self) -> Tokenizer:
        """The ``Tokenizer``. With no removal, replaying the events is BPE with the merges in order, so
        this is ``bpe_core.train``'s tokenizer (``rule="bpe"``); with removals it follows
        ``rule="picky"``: it encodes by replaying the events (see ``bpe.picky_replay``)."""
        if self.removals:
            return Tokenizer(
                self.vocab,
                [],
                special_tokens=self.special_tokens,
                pattern=self.pattern,
                name=self.name,
                training=self.training,
                rule="picky",
                events=self.replay_events(),
            )
        merges = [event for event in self.events if event.kind == MERGE]
        return Tokenizer(
            self.vocab,
            [(event.parts[0], event.parts[1]) for event in merges],
            special_tokens=self.special_tokens,
            pattern=self.pattern,
            name=self.name,
            merge_counts=[event.count for event in merges],
            training=self.training,
        )


def _check_threshold(threshold: object) -> float:
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        raise TypeError(f"threshold must be a number, not {type(threshold).__name__}")
    if math.isnan(threshold) or threshold <= 0:
        raise BpeError(f"threshold must be above 0 (an IoS is at most 1: 1 or more never removes), got {threshold!r}")
    return float(threshold)


def _byte_words(counts: Mapping[str, int]) -> tuple[list[str], list[int], int]:
    """Unique pre-tokens as one character per byte (ids 0..255 are the bytes), their counts, total bytes."""
    words, freqs, total_bytes = [], [], 0
    for word, freq in counts.items():
        try:
            encoded = word.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: U+FFFD, as encoding treats them
            encoded = replace_surrogates(word).encode("utf-8")
        words.append(encoded.decode("latin-1"))
        freqs.append(freq)
        total_bytes += len(encoded) * freq
    return words, freqs, total_bytes


def _metadata(loop: _PickyLoop, final_id: dict[int, int]) -> tuple[dict, list]:
    """``training["picky"]`` (counts, field names, the removed tokens) and ``training["picky_events"]``
    (one row per event, tokens by id: removed tokens numbered after the vocab). Two keys, so that the
    rows nest no deeper than ``bpe_json`` keeps."""
    ids = dict(final_id)
    removed = []
    for token_id in sorted(set(loop.token_bytes) - set(final_id)):
        token = ids[token_id] = len(ids)
        try:
            removed.append({"id": token, "text": loop.token_bytes[token_id].decode("utf-8")})
        except UnicodeDecodeError:
            removed.append({"id": token, "hex": loop.token_bytes[token_id].hex()})
    by_bytes = {loop.token_bytes[token_id]: ids[token_id] for token_id in ids}
    rows = [
        [e.step, e.kind, by_bytes[e.token], [by_bytes[p] for p in e.parts], e.count, e.merged, list(e.ios)]
        for e in loop.events
    ]
    summary = {
        "threshold": loop.threshold,
        "removals": sum(e.kind == REMOVE for e in loop.events),
        "restores": sum(loop.restores.values()),
        "event_fields": EVENT_FIELDS,
        "removed_tokens": removed,
    }
    return summary, rows


def picky_training(
    word_counts: WordCounts,
    settings: TrainingSettings,
    *,
    threshold: float = 0.9,
    progress: ProgressCallback | None = None,
    started: float | None = None,
) -> PickyTraining:
    """Picky BPE on pre-token counts (``count_words``'s), with ``settings`` checked already."""
    started = time.perf_counter() if started is None else started
    threshold = _check_threshold(threshold)
    if settings.tie_break not in PICKY_TIE_BREAKS:
        raise BpeError(
            f"train_picky breaks ties by {PICKY_TIE_BREAKS}, not {settings.tie_break!r}: the 'first' rule's "
            "first occurrences move earlier when a removal splits tokens"
        )
    specials = settings.special_tokens
    words, freqs, total_bytes = _byte_words(word_counts.counts)
    token_bytes = {i: bytes([i]) for i in range(256)}
    token_bytes.update((256 + n, token.encode("utf-8")) for n, token in enumerate(specials))
    loop = _PickyLoop(
        words, freqs, token_bytes, 256 + len(specials), threshold, settings.min_frequency, settings.tie_break
    )
    collecting = gc.isenabled()
    gc.disable()  # as in merge_loop: many small objects, no cycles
    try:
        stop_reason = loop.run(settings.vocab_size, progress)
    finally:
        if collecting:
            gc.enable()
    final_id = {token_id: n for n, token_id in enumerate(sorted(loop.present))}
    summary, rows = _metadata(loop, final_id)
    pretokenizer = settings.pretokenizer()
    stats = word_counts.stats
    training = {
        "settings": {
            "algorithm": "picky",
            "threshold": threshold,
            "vocab_size": settings.vocab_size,
            "min_frequency": settings.min_frequency,
            "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
            "special_tokens": list(specials),
            "tie_break": settings.tie_break,
        },
        "corpus": {
            "documents": stats.documents,
            "characters": stats.characters,
            "bytes": total_bytes,
            "pretokens": stats.pretokens,
            "unique_pretokens": len(words),
            "special_tokens_cut": stats.special_tokens_cut,
            "bad_rows": stats.bad_rows,
        },
        "stop_reason": stop_reason,
        "merges_learned": len(loop.tokens_after),
        "tokens_after_merge": loop.tokens_after,
        "picky": summary,
        "picky_events": rows,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return PickyTraining(
        vocab={final_id[token_id]: loop.token_bytes[token_id] for token_id in sorted(loop.present)},
        special_tokens={token: 256 + n for n, token in enumerate(specials)},
        events=tuple(loop.events),
        training=training,
        pattern=settings.pattern,
        name=settings.name,
    )


def train_picky(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    threshold: float = 0.9,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "picky",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level Picky BPE tokenizer: ``bpe_core.train``'s counting and keywords, then the
    Picky merge loop (see the module docstring); ``vocab_size`` counts the tokens present at the end.
    ``threshold`` > 0: an IoS above it removes a token (1 or more never does: then this is
    ``bpe_core.train``). ``tie_break`` is ``"lexicographic"``, ``"huggingface"`` or ``"rustbpe"``.
    With removals the tokenizer follows ``rule="picky"`` (it encodes by replaying ``picky_events``),
    without it is plain BPE. The events, with counts and IoS, are in ``training["picky_events"]``.

    >>> train_picky(["ab ab ab ab", "abc abc"], 259, threshold=1.0, min_frequency=1).merges
    [(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]
    """
    started = time.perf_counter()
    settings = TrainingSettings(vocab_size, min_frequency, pattern, special_tokens, tie_break, name)
    _check_threshold(threshold)
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    documents: Iterable[str] = [texts] if isinstance(texts, str) else texts
    if progress:
        progress("count", 0, 0)
    word_counts = count_words(
        documents,
        pretokenizer=settings.pretokenizer(),
        special_tokens=settings.special_tokens,
        workers=check_workers(workers),
    )
    if progress:
        progress("count", word_counts.stats.documents, word_counts.stats.documents)
    result = picky_training(word_counts, settings, threshold=threshold, progress=progress, started=started)
    return result.tokenizer()
