"""Picky BPE as a policy of the merge engine (``engine``): after each merge, remove the parents used
almost only inside it.

The engine merges (its heap, its tie rules, its word update); this policy counts the tokens present
towards the vocabulary size (``size``), stops when a token would be restored more than
``max_restores`` times (``choose``: ``STOP_CYCLE``), and after each merge of (x, y) into z, joining m
occurrences, checks x then y (once when x == y): a parent that is not a single byte, with frequency f
once the merge took its occurrences, has IoS = m / (f + m); above the threshold it is removed
(``remove``): every occurrence in the words is split into its parts (its first merge's parents, an
absent one split further), the pairs of the words it was in are recounted, and the pairs the engine
refused because they would make it are offered again. A later merge that makes the same bytes
restores it with the same id (the engine's ``merge``). Every event is recorded (``PickyEvent``). The
rules and their sources are in ``picky``; this module does not count pre-tokens nor build the tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import add

from bpe_core.bpe.picky_replay import MERGE, REMOVE
from bpe_core.training.engine import MergeRun, Policy, Step

STOP_CYCLE = "a token was restored too often: removals and restores are cycling"


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


class PickyPolicy(Policy):
    """Picky BPE's state beside the engine's: the tokens present (by id), each merged token's first
    parents, each symbol's frequency and the words holding it, the restores, the events, and the
    tokens in all after each step (``tokens_after``)."""

    splits_tokens = True

    def __init__(
        self, words: list[str], freqs: list[int], token_bytes: dict[int, bytes], threshold: float, max_restores: int
    ) -> None:
        self.threshold, self.max_restores = threshold, max_restores
        self.present = set(token_bytes)
        self.parents: dict[int, tuple[int, int]] = {}
        self.freq: dict[str, int] = {}
        self.holders: dict[str, set[int]] = {}
        for index, word in enumerate(words):
            for symbol in set(word):
                self.freq[symbol] = self.freq.get(symbol, 0) + word.count(symbol) * freqs[index]
                self.holders.setdefault(symbol, set()).add(index)
        self.restores: dict[int, int] = {}
        self.events: list[PickyEvent] = []
        self.tokens_after: list[int] = []

    def size(self, run: MergeRun) -> int:
        return len(self.present)

    def choose(self, run: MergeRun) -> tuple[str, int] | str:
        best = run.heaps[0].pop()
        if best is None:
            return run.stop_reason()
        pair, token_bytes = best[0], run.tokens.token_bytes
        restored = run.tokens.ids.get(token_bytes[ord(pair[0])] + token_bytes[ord(pair[1])])
        if restored is not None and self.restores.get(restored, 0) >= self.max_restores:
            return STOP_CYCLE
        return best

    def after_merge(self, run: MergeRun, step: Step) -> None:
        merge, merged = step.merge, step.joined
        new_id, left, right = merge.id, merge.left, merge.right
        if new_id in self.parents:  # made before: a restore
            self.restores[new_id] = self.restores.get(new_id, 0) + 1
        else:
            self.parents[new_id] = (left, right)
        self.present.add(new_id)
        a, b, new = chr(left), chr(right), chr(new_id)
        self.holders[new] = set(step.holders)
        self.freq[new] = merged
        token_bytes = run.tokens.token_bytes
        at = len(self.events)
        self.events.append(None)  # type: ignore[arg-type]  # its place, before any removal the checks make
        ios: tuple[float | None, float | None]
        if left == right:
            self.freq[a] -= 2 * merged
            ios = (self.check(run, a, merged), None)
        else:
            self.freq[a] -= merged
            ios_left = self.check(run, a, merged)
            self.freq[b] -= merged
            ios = (ios_left, self.check(run, b, merged))
        parts = (token_bytes[left], token_bytes[right])
        self.events[at] = PickyEvent(at, MERGE, token_bytes[new_id], parts, merge.count, merged, ios)
        self.tokens_after.append(run.total_tokens)

    def check(self, run: MergeRun, symbol: str, merged: int) -> float | None:
        """The IoS of parent ``symbol`` (None for a single byte); removes it when above the threshold."""
        if ord(symbol) < 256:
            return None
        ios = merged / (self.freq[symbol] + merged)
        if ios > self.threshold:
            self.remove(run, symbol, ios, merged)
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

    def remove(self, run: MergeRun, symbol: str, ios: float, merged: int) -> None:
        """Split every occurrence of ``symbol`` into its parts, recounting the pairs of the words it is in."""
        token_id = ord(symbol)
        self.present.discard(token_id)
        tokens = run.tokens
        token = tokens.token_bytes[token_id]
        tokens.existing.discard(token)
        parts = self.walk(token_id)
        replacement = "".join(map(chr, parts))
        remaining = self.freq[symbol]
        self.freq[symbol] = 0
        for part in replacement:
            self.freq[part] = self.freq.get(part, 0) + remaining
        run.total_tokens += remaining * (len(parts) - 1)
        change = self._split(run, symbol, replacement)
        pair_counts = run.counts[0]
        risen = []
        for pair, delta in change.items():
            if symbol in pair:
                pair_counts.pop(pair, None)
            elif delta:
                pair_counts[pair] = pair_counts.get(pair, 0) + delta
                if delta > 0:
                    risen.append(pair)
        # The pairs refused because they would make this token may be merged again.
        unblocked = [pair for pair in tokens.refused if tokens.made(pair) == token]
        tokens.refused.difference_update(unblocked)
        run.heaps[0].push_frequent(risen + unblocked)
        self.events.append(
            PickyEvent(
                len(self.events), REMOVE, token, tuple(tokens.token_bytes[p] for p in parts), remaining, merged, (ios,)
            )
        )

    def _split(self, run: MergeRun, symbol: str, replacement: str) -> dict[str, int]:
        """Replace ``symbol`` in the words holding it; return each pair's change of count."""
        words, freqs, where, holders = run.words, run.freqs, run.where, self.holders
        change: dict[str, int] = {}
        for index in holders.pop(symbol, ()):
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
        return change
