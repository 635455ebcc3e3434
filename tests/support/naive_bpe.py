"""A deliberately simple reference trainer and encoder, written from the seeds' description.

Only the plain merge step is shared with bpe_core (``bpe.merge``, checked on its own against
``str.replace``): pre-tokenization uses the `regex` module directly and pair counts are recomputed
from scratch at every step, exactly as seed 000 does by hand.
"""

from __future__ import annotations

import regex

# The one shared step: bpe_core.bpe.reference.merge, itself checked against str.replace in
# tests/bpe/test_piece_encoding.py.
from bpe_core.bpe.reference import merge as replace_pair

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""


def pretokenize(text: str, pattern: str | None) -> list[str]:
    if pattern is None:
        return [text] if text else []
    return [m.group() for m in regex.finditer(f"(?:{pattern})|[\\s\\S]", text) if m.group()]


def naive_train(documents, num_merges, *, pattern=GPT2, tie_break="first", min_frequency=1, specials=()):
    """Return the merges as (left bytes, right bytes), the seeds' way."""
    word_freqs: dict[tuple[bytes, ...], int] = {}
    for doc in documents:
        parts = [doc]
        if specials:  # left to right, longest first at each position, as tiktoken matches them
            alternatives = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
            parts = regex.split(alternatives, doc)
        for part in parts:
            for word in pretokenize(part, pattern):
                key = tuple(bytes([b]) for b in word.encode("utf-8"))
                word_freqs[key] = word_freqs.get(key, 0) + 1
    existing = {bytes([b]) for b in range(256)} | {s.encode() for s in specials}
    excluded = set()
    merges = []
    while len(merges) < num_merges:
        counts: dict[tuple[bytes, bytes], int] = {}
        for symbols, freq in word_freqs.items():
            for i in range(len(symbols) - 1):
                pair = (symbols[i], symbols[i + 1])
                if pair not in excluded:
                    counts[pair] = counts.get(pair, 0) + freq
        if not counts:
            break
        best_count = max(counts.values())
        if best_count < min_frequency:
            break
        tied = [p for p, c in counts.items() if c == best_count]
        best = max(tied) if tie_break == "lexicographic" else tied[0]
        if best[0] + best[1] in existing:
            excluded.add(best)
            continue
        existing.add(best[0] + best[1])
        merges.append(best)
        new_freqs = {}
        for symbols, freq in word_freqs.items():
            new_freqs[tuple(replace_pair(symbols, best, best[0] + best[1]))] = freq
        word_freqs = new_freqs
    return merges


def naive_encode_word(word: bytes, merges: list[tuple[bytes, bytes]]) -> list[bytes]:
    """The priority-ordered encoding of one pre-token (lowest-ranked pair first)."""
    priority = {pair: rank for rank, pair in enumerate(merges)}
    symbols = [bytes([b]) for b in word]
    while True:
        best, best_rank = None, None
        for pair in zip(symbols, symbols[1:], strict=False):
            rank = priority.get(pair)
            if rank is not None and (best_rank is None or rank < best_rank):
                best, best_rank = pair, rank
        if best is None:
            return symbols
        symbols = replace_pair(symbols, best, best[0] + best[1])


def naive_learn_merges(words, freqs, token_bytes, next_id, num_merges, min_frequency, tie_break):
    """The merge loop recounted from scratch at every step, on words as lists of ids.

    Returns ([(left, right, new id, count, symbols after)], stop reason, merged words); the stop
    reasons are bpe_core's strings. ``token_bytes`` is extended with the new tokens."""
    words = [list(w) for w in words]
    existing = set(token_bytes.values())
    excluded = set()
    merges = []
    reason = "reached vocab_size"
    while len(merges) < num_merges:
        counts = {}  # insertion order = order of first occurrence
        for word, freq in zip(words, freqs, strict=True):
            for pair in zip(word, word[1:], strict=False):
                if pair not in excluded:
                    counts[pair] = counts.get(pair, 0) + freq
        if not counts:
            reason = "no pair left to merge"
            break
        best_count = max(counts.values())
        if best_count < min_frequency:
            reason = "best pair count below min_frequency"
            break
        tied = [p for p, c in counts.items() if c == best_count]
        if tie_break == "lexicographic":
            best = max(tied, key=lambda p: (token_bytes[p[0]], token_bytes[p[1]]))
        else:
            best = tied[0]
        made = token_bytes[best[0]] + token_bytes[best[1]]
        if made in existing:
            excluded.add(best)
            continue
        existing.add(made)
        token_bytes[next_id] = made
        words = [replace_pair(word, best, next_id) for word in words]
        total = sum(len(w) * f for w, f in zip(words, freqs, strict=True))
        merges.append((best[0], best[1], next_id, best_count, total))
        next_id += 1
    return merges, reason, words


def naive_tiktoken_encode_word(word: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """tiktoken's rule on one pre-token, the readable way: a piece that is a token stays whole; else
    the adjacent pair whose bytes are the lowest-ranked token is joined (leftmost among equals), again
    and again, until no adjacent pair is a token."""
    if word in ranks:
        return [word]
    symbols = [bytes([b]) for b in word]
    while True:
        found = [
            (ranks[a + b], i) for i, (a, b) in enumerate(zip(symbols, symbols[1:], strict=False)) if a + b in ranks
        ]
        if not found:
            return symbols
        _, i = min(found)
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]


def naive_continue(pieces, start_of, num_merges, *, existing, refuse=None, min_frequency=1):
    """The textbook loop continued from an existing tokenizer: each distinct piece (bytes -> count)
    starts as ``start_of(piece)`` (its tokens under the base), pair counts are recomputed from scratch
    at every step, the most frequent pair is merged, ties going to the greatest (left bytes, right
    bytes); a pair whose bytes are a token already (``existing``, the base's tokens) or that ``refuse``
    turns down is skipped for good. Returns the new merges as (left bytes, right bytes)."""
    words: dict = {}
    for piece, count in pieces.items():
        key = tuple(start_of(piece))
        words[key] = words.get(key, 0) + count
    existing = set(existing)
    skipped, merges = set(), []
    while len(merges) < num_merges:
        counts: dict = {}
        for word, freq in words.items():
            for pair in zip(word, word[1:], strict=False):
                if pair not in skipped:
                    counts[pair] = counts.get(pair, 0) + freq
        best = None
        for pair, count in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True):
            if count < max(min_frequency, 1):
                break
            if pair[0] + pair[1] in existing or (refuse is not None and refuse(pair[0] + pair[1])):
                skipped.add(pair)
                continue
            best = pair
            break
        if best is None:
            return merges
        existing.add(best[0] + best[1])
        merges.append(best)
        words = {tuple(replace_pair(list(word), best, best[0] + best[1])): freq for word, freq in words.items()}
    return merges
