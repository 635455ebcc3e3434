"""The byte-level BPE ``Tokenizer``: encoding, decoding and per-token detail.

Encoding follows seed 000 and GPT-2's original encoder: split off special tokens, pre-tokenize with
the regex, turn each piece into its bytes and repeatedly apply the merge with the lowest rank among
the adjacent pairs (all its occurrences, left to right, without overlap) until none applies. Long
pieces use a heap over a linked list so runs of spaces or digits do not go quadratic. A piece that is
a token proved to encode to itself is looked up whole (the same result, without the merge loop), and
``encode_batch`` can spread large batches over worker processes (``workers``).

This module does not train (see ``training``), read or write files (see ``serialization`` and
``interop``), or know about any UI.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, islice, repeat
from operator import is_
from typing import Literal

from .pretokenize import (
    PreTokenizer,
    cut_at_safe_cuts,
    preset_name,
    safe_cut_regex,
    special_token_regex,
    split_on_special_tokens,
    stream_pieces,
)

# Pieces longer than this (in bytes) use the heap-based merge loop instead of rescanning.
_LONG_PIECE = 64
# The piece cache is cleared when it would grow past this many entries, and the segment cache keeps
# two generations of about this many (see Tokenizer._remember_segments), bounding memory.
_CACHE_LIMIT = 200_000
#: With ``workers=None``, batches of at least this many characters are encoded by worker processes
#: (when there is more than one CPU). A worker takes about half a second to start with GPT-2's merges
#: and meets every piece anew, so on 2 CPUs 11 MB broke even and 43 MB ran 1.2x-1.3x faster.
BATCH_PARALLEL_MIN_CHARS = 32 << 20
#: Batch encoding tasks hold about this many characters.
BATCH_TASK_CHARS = 1 << 20
# Pair keys for the short-piece merge loop pack two ids into one int (ids below 2**20).
_ID_BITS = 20
_NO_MERGE = 1 << 62



def self_encoding_ids(pair_rank: Mapping[tuple[int, int], tuple[int, int]], byte_ids: Iterable[int]) -> set[int]:
    """The ids of the tokens whose own bytes encode to exactly that one token, proved from the merges
    without running the merge loop on each token.

    ``pair_rank`` maps (left id, right id) to (rank, merged id), in rank order. Let ``t`` be made by
    merge ``(l, r)`` at rank ``k``. Merges apply in increasing rank, so on ``t``'s bytes the left part
    evolves exactly as ``l``'s bytes alone (and the right as ``r``'s) until a merge joins a symbol of
    the left part to one of the right part. Such a cross merge can only join one of ``l``'s *last
    symbols* ``x`` (the last byte, then each token that absorbed it, up to ``l``; ``x`` is absorbed at
    rank ``rho``, ``l`` itself at ``k``) to one of ``r``'s *first symbols* ``y`` (absorbed at
    ``sigma``, ``r`` at ``k``), and it happens exactly when the merge ``(x, y)`` has a rank ``c`` with
    ``c < rho`` (at ``c == rho`` the merge absorbing ``x`` is further left and goes first) and
    ``c <= sigma`` (at ``c == sigma`` the cross pair is the leftmost). So ``t`` encodes to itself iff
    ``l`` and ``r`` do and no such pair exists; the chains compose from the parts. Tests check this
    against the merge loop on every token of GPT-2, cl100k and random merge lists.
    """
    right_of: dict[int, dict[int, int]] = {}  # left id -> {right id: rank}
    for (left, right), (rank, _merged) in pair_rank.items():
        row = right_of.get(left)
        if row is None:
            right_of[left] = {right: rank}
        else:
            row[right] = rank
    no_chain: tuple[tuple[int, int], ...] = ()
    first_symbols = dict.fromkeys(byte_ids, no_chain)  # id -> ((symbol, rank absorbing it), ...)
    last_symbols = dict(first_symbols)
    proved = set(first_symbols)
    for (left, right), (rank, merged) in pair_rank.items():
        right_firsts = first_symbols[right] + ((right, rank),)
        left_lasts = last_symbols[left] + ((left, rank),)
        first_symbols[merged] = first_symbols[left] + ((left, rank),)
        last_symbols[merged] = last_symbols[right] + ((right, rank),)
        if left not in proved or right not in proved:
            continue
        for x, rho in left_lasts:
            row = right_of.get(x)
            if row is not None:
                for y, sigma in right_firsts:
                    cross = row.get(y)
                    if cross is not None and cross < rho and cross <= sigma:
                        break
                else:
                    continue
                break
        else:
            proved.add(merged)
    return proved


@dataclass(frozen=True)
class MergeRecord:
    """One merge: ``left`` + ``right`` became ``id`` at ``rank``; ``count`` is the pair count when it
    was chosen during training (None for tokenizers that were not trained here)."""

    rank: int
    left: int
    right: int
    id: int
    count: int | None = None


@dataclass(frozen=True)
class TokenInfo:
    """One encoded token, for visualisation.

    ``start``/``end`` are character offsets into the encoded text. A token that holds only part of a
    UTF-8 character (``partial``) reports the span of the whole character(s) it touches.
    """

    id: int
    bytes: bytes
    start: int
    end: int
    partial: bool
    special: bool


def token_display(token: bytes) -> str:
    """A readable, one-line rendering of a token's bytes: UTF-8 where possible, ``\\xNN`` elsewhere,
    with control characters escaped."""
    text = token.decode("utf-8", errors="backslashreplace")
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def _fix_surrogates(text: str) -> str:
    # Lone surrogates cannot be UTF-8 encoded; like tiktoken, replace them with U+FFFD.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Tokenizer:
    """A byte-level BPE tokenizer: a vocabulary of byte strings, ranked merges, special tokens and a
    pre-tokenization pattern.

    Any id layout works: ids need not put the single bytes at 0..255 (GPT-2 does not).

    A piece whose text is a token that encodes to itself (see ``self_encoding_ids``) is looked up
    whole instead of merged. Which tokens do is proved at construction (about 6 µs per merge), unless
    the constructor is told ``_tokens_self_encode=True``: bpe_core's own trainer (every token it makes
    was merged from parts that evolved on their own, so it encodes to itself; tests check this on
    random corpora), GPT-2 and cl100k (tests check every token).
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        *,
        special_tokens: Mapping[str, int] | Sequence[str] = (),
        pattern: str | None = "gpt2",
        name: str = "tokenizer",
        merge_counts: Sequence[int | None] | None = None,
        training: Mapping[str, object] | None = None,
        _tokens_self_encode: bool = False,
    ) -> None:
        if not isinstance(vocab, Mapping):
            raise TypeError(f"vocab must be a mapping from id to bytes, not {type(vocab).__name__}")
        full_vocab: dict[int, bytes] = {}
        for token_id, token in vocab.items():
            if not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
                raise ValueError(f"vocab ids must be non-negative integers, got {token_id!r}")
            if not isinstance(token, (bytes, bytearray)):
                raise TypeError(f"vocab[{token_id}] must be bytes, not {type(token).__name__}")
            full_vocab[token_id] = bytes(token)

        specials = self._resolve_special_tokens(special_tokens, full_vocab)
        special_ids = set(specials.values())

        token_to_id: dict[bytes, int] = {}
        for token_id in sorted(full_vocab):
            if token_id in special_ids:
                continue
            token = full_vocab[token_id]
            if not token:
                raise ValueError(f"vocab[{token_id}] is empty: every token must hold at least one byte")
            if token in token_to_id:
                raise ValueError(
                    f"ids {token_to_id[token]} and {token_id} both have the bytes {token!r}: "
                    "each token's bytes must be unique"
                )
            token_to_id[token] = token_id
        missing = [b for b in range(256) if bytes([b]) not in token_to_id]
        if missing:
            raise ValueError(
                f"the vocab lacks {len(missing)} single-byte tokens (first: {bytes([missing[0]])!r}); "
                "a byte-level BPE vocab must contain all 256 bytes"
            )

        pair_rank: dict[tuple[int, int], tuple[int, int]] = {}
        merge_list: list[tuple[bytes, bytes]] = []
        # Tokens usable by the next merge (single bytes and earlier merges' results) -> their ids.
        known = {bytes([b]): token_to_id[bytes([b])] for b in range(256)}
        known_get = known.get
        vocab_get = token_to_id.get
        for rank, merge in enumerate(merges):
            if not (isinstance(merge, (tuple, list)) and len(merge) == 2):
                raise ValueError(f"merge {rank} must be a pair (left bytes, right bytes), got {merge!r}")
            left, right = merge
            if type(left) is not bytes or type(right) is not bytes:
                left, right = bytes(left), bytes(right)
            left_id = known_get(left)
            right_id = known_get(right)
            if left_id is None or right_id is None:
                part = left if left_id is None else right
                raise ValueError(
                    f"merge {rank} ({left!r}, {right!r}) uses {part!r}, which is neither a single "
                    "byte nor the result of an earlier merge: merges must be listed in rank order"
                )
            merged = left + right
            merged_id = vocab_get(merged)
            if merged_id is None:
                raise ValueError(f"merge {rank} makes {merged!r}, which is not in the vocab")
            pair = (left_id, right_id)
            if pair in pair_rank:
                raise ValueError(f"merge {rank} ({left!r}, {right!r}) repeats merge {pair_rank[pair][0]}")
            pair_rank[pair] = (rank, merged_id)
            known[merged] = merged_id
            merge_list.append((left, right))

        if merge_counts is not None and len(merge_counts) != len(merge_list):
            raise ValueError(f"merge_counts has {len(merge_counts)} entries for {len(merge_list)} merges")

        self.name = name
        self._vocab = full_vocab
        self._merges = merge_list
        self._merge_counts = list(merge_counts) if merge_counts is not None else [None] * len(merge_list)
        self._special_tokens = specials
        self._special_bytes_to_id = {t.encode("utf-8"): i for t, i in specials.items()}
        self._token_to_id = token_to_id
        self._byte_ids = [token_to_id[bytes([b])] for b in range(256)]
        self._pair_rank = pair_rank
        self._pretokenizer = PreTokenizer.build(pattern)
        self._pattern_argument = pattern
        self._special_regex = special_token_regex(specials)
        self._cache: dict[str, tuple[int, ...]] = {}  # piece -> ids
        # segment -> ids (GPT-2's pattern), in two generations: when the young one is full it becomes
        # the old one, whose entries move back to the young one when met again. A working set of up to
        # twice _CACHE_LIMIT segments is served without thrashing.
        self._segment_cache: dict[str, tuple[int, ...]] = {}
        self._segment_old: dict[str, tuple[int, ...]] = {}
        self._segment_pattern = self._pretokenizer.segment_pattern()
        # Presets' piece finders: (for ASCII text only, or None; for any text).
        self._ascii_findall, self._findall = (
            self._pretokenizer.piece_finders() if self._pretokenizer.is_preset else (None, None)
        )
        self._byte_table = bytes(self._byte_ids) if max(self._byte_ids) < 256 else None
        # The short-piece merge loop: (left << 20 | right) -> (rank << 20 | merged id).
        if max(full_vocab, default=0) < (1 << _ID_BITS):
            self._pair_keys: dict[int, int] | None = {
                (left << _ID_BITS) | right: (rank << _ID_BITS) | merged
                for (left, right), (rank, merged) in pair_rank.items()
            }
        else:
            self._pair_keys = None
        self.training: dict[str, object] = dict(training) if training else {}
        # Pieces that are tokens encoding to themselves: str -> (id,), looked up before any merging.
        if _tokens_self_encode:
            whole_ids: Iterable[int] = token_to_id.values()
            self._all_tokens_self_encode = True
        else:
            whole_ids = self_encoding_ids(pair_rank, self._byte_ids)
            self._all_tokens_self_encode = len(whole_ids) == len(token_to_id)
        self._whole_pieces: dict[str, tuple[int]] = {}
        for token_id in whole_ids:
            try:
                self._whole_pieces[full_vocab[token_id].decode("utf-8")] = (token_id,)
            except UnicodeDecodeError:  # a partial character is never a piece
                pass

    # ----------------------------------------------------------------------------------------------
    # construction helpers

    @staticmethod
    def _resolve_special_tokens(
        special_tokens: Mapping[str, int] | Sequence[str], vocab: dict[int, bytes]
    ) -> dict[str, int]:
        if isinstance(special_tokens, str):
            raise TypeError(f"special_tokens must be a list or a mapping, not one string: [{special_tokens!r}]")
        result: dict[str, int] = {}
        if isinstance(special_tokens, Mapping):
            for token, token_id in special_tokens.items():
                if not isinstance(token, str) or not token:
                    raise ValueError(f"special tokens must be non-empty strings, got {token!r}")
                if not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
                    raise ValueError(f"special token {token!r} needs a non-negative integer id, got {token_id!r}")
                encoded = token.encode("utf-8")
                if token_id in vocab and vocab[token_id] != encoded:
                    raise ValueError(
                        f"special token {token!r} has id {token_id}, but vocab[{token_id}] is {vocab[token_id]!r}"
                    )
                if token_id in result.values():
                    raise ValueError(f"special token {token!r} reuses id {token_id}")
                vocab[token_id] = encoded
                result[token] = token_id
            return result
        by_bytes = {token: token_id for token_id, token in vocab.items()}
        next_id = max(vocab, default=-1) + 1
        for token in special_tokens:
            if not isinstance(token, str) or not token:
                raise ValueError(f"special tokens must be non-empty strings, got {token!r}")
            if token in result:
                raise ValueError(f"special token {token!r} is listed twice")
            encoded = token.encode("utf-8")
            if encoded in by_bytes and by_bytes[encoded] not in result.values():
                result[token] = by_bytes[encoded]
            else:
                result[token] = next_id
                vocab[next_id] = encoded
                next_id += 1
        return result

    # ----------------------------------------------------------------------------------------------
    # properties

    @property
    def vocab(self) -> dict[int, bytes]:
        """Every id, special tokens included (as their UTF-8 bytes)."""
        return dict(self._vocab)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in rank order, as (left bytes, right bytes)."""
        return list(self._merges)

    @property
    def merge_records(self) -> list[MergeRecord]:
        """Every merge with its rank, the ids involved and its training count (if known)."""
        t2i = self._token_to_id
        return [
            MergeRecord(rank, t2i[left], t2i[right], t2i[left + right], self._merge_counts[rank])
            for rank, (left, right) in enumerate(self._merges)
        ]

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_tokens)

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    @property
    def pattern(self) -> str | None:
        """The pre-tokenization regex source (None: no pre-splitting)."""
        return self._pretokenizer.source

    @property
    def pattern_name(self) -> str | None:
        """``'gpt2'``, ``'cl100k'`` or ``'o200k'`` for presets, else None."""
        return preset_name(self._pretokenizer.source)

    @property
    def pretokenizer(self) -> PreTokenizer:
        return self._pretokenizer

    @property
    def vocab_size(self) -> int:
        """The number of ids, special tokens included."""
        return len(self._vocab)

    @property
    def max_token_id(self) -> int:
        return max(self._vocab)

    def __repr__(self) -> str:
        pattern = self.pattern_name or ("None" if self.pattern is None else "custom")
        return (
            f"<Tokenizer {self.name!r}: vocab_size={self.vocab_size}, merges={len(self._merges)}, "
            f"special_tokens={len(self._special_tokens)}, pattern={pattern}>"
        )

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one id; ValueError for unknown ids."""
        try:
            return self._vocab[token_id]
        except (KeyError, TypeError):
            raise ValueError(self._unknown_id_message(token_id)) from None

    def token_id(self, token: bytes | str) -> int:
        """The id of a token given as bytes (or str, UTF-8 encoded); ValueError if absent."""
        encoded = token.encode("utf-8") if isinstance(token, str) else bytes(token)
        if encoded in self._token_to_id:
            return self._token_to_id[encoded]
        if encoded in self._special_bytes_to_id:
            return self._special_bytes_to_id[encoded]
        raise ValueError(f"{token!r} is not a token of {self.name!r}")

    def merge_rank_of(self, token_id: int) -> int | None:
        """The rank of the merge that made ``token_id`` (None for single bytes and special tokens)."""
        ranks = self._rank_by_id()
        return ranks.get(token_id)

    def _rank_by_id(self) -> dict[int, int]:
        cached = getattr(self, "_rank_by_id_cache", None)
        if cached is None:
            cached = {new_id: rank for rank, new_id in self._pair_rank.values()}
            self._rank_by_id_cache = cached
        return cached

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special_tokens.values()

    def _unknown_id_message(self, token_id: object) -> str:
        return (
            f"unknown token id {token_id!r}: {self.name!r} has ids 0..{self.max_token_id} "
            f"({self.vocab_size} in all); check the ids come from this tokenizer"
        )

    # ----------------------------------------------------------------------------------------------
    # BPE on one piece

    def _bpe(self, piece: bytes) -> tuple[int, ...]:
        table = self._byte_table
        if table is not None:
            ids = list(piece.translate(table))
        else:
            byte_ids = self._byte_ids
            ids = [byte_ids[b] for b in piece]
        if len(ids) < 2:
            return tuple(ids)
        if len(ids) > _LONG_PIECE:
            return tuple(self._bpe_heap(ids))
        keys = self._pair_keys
        if keys is None:
            return tuple(self._bpe_pairs(ids))
        # Repeatedly merge the leftmost occurrence of the lowest-ranked pair: the same as merging all
        # its occurrences left to right, since a merge can only create pairs of higher rank. ``ranks``
        # holds each adjacent pair's packed (rank, merged id), so min() finds the next merge in C.
        get = keys.get
        bits = _ID_BITS
        none = _NO_MERGE
        ranks = [get((a << bits) | b, none) for a, b in zip(ids, ids[1:])]
        mask = (1 << bits) - 1
        while True:
            best = min(ranks)
            if best == none:
                break
            i = ranks.index(best)
            merged = best & mask
            ids[i : i + 2] = (merged,)
            del ranks[i]
            if i < len(ranks):
                ranks[i] = get((merged << bits) | ids[i + 1], none)
            if i:
                ranks[i - 1] = get((ids[i - 1] << bits) | merged, none)
            elif not ranks:
                break
        return tuple(ids)

    def applied_merge_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order, one entry per merged
        occurrence. Merges apply in non-decreasing rank (a pair made by merge r involves a token that
        only exists after r), so ``truncated(k)`` leaves ``len(piece)`` minus the number of ranks
        below k tokens: one pass serves every vocabulary size."""
        applied: list[int] = []
        self._bpe_pairs([self._byte_ids[b] for b in piece], applied)
        return applied

    def _bpe_pairs(self, ids: list[int], applied: list[int] | None = None) -> list[int]:
        """The merge loop on (left, right) tuples: for vocabularies with ids of 2**20 and above, and
        to record the ranks applied (in ``applied``)."""
        ranks = self._pair_rank
        while len(ids) > 1:
            best = None
            for pair in zip(ids, ids[1:]):
                found = ranks.get(pair)
                if found is not None and (best is None or found[0] < best[0]):
                    best = found
                    best_pair = pair
            if best is None:
                break
            left, right = best_pair
            new_id = best[1]
            merged = []
            i = 0
            n = len(ids)
            while i < n:
                if i < n - 1 and ids[i] == left and ids[i + 1] == right:
                    merged.append(new_id)
                    if applied is not None:
                        applied.append(best[0])
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        return ids

    def _bpe_heap(self, ids: list[int]) -> list[int]:
        """Lowest rank first, leftmost among equals, in O(n log n): a heap of candidate merges over a
        doubly linked list of symbols. Stale heap entries are skipped when popped."""
        ranks = self._pair_rank
        n = len(ids)
        symbols = list(ids)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        alive = [True] * n
        heap: list[tuple[int, int, int, int, int]] = []
        for i in range(n - 1):
            found = ranks.get((symbols[i], symbols[i + 1]))
            if found is not None:
                heap.append((found[0], i, symbols[i], symbols[i + 1], found[1]))
        heapq.heapify(heap)
        while heap:
            rank, i, left, right, new_id = heapq.heappop(heap)
            if not alive[i] or symbols[i] != left:
                continue
            j = nxt[i]
            if j == -1 or symbols[j] != right:
                continue
            symbols[i] = new_id
            alive[j] = False
            k = nxt[j]
            nxt[i] = k
            if k != -1:
                prev[k] = i
                found = ranks.get((new_id, symbols[k]))
                if found is not None:
                    heapq.heappush(heap, (found[0], i, new_id, symbols[k], found[1]))
            p = prev[i]
            if p != -1:
                found = ranks.get((symbols[p], new_id))
                if found is not None:
                    heapq.heappush(heap, (found[0], p, symbols[p], new_id, found[1]))
        out = []
        i = 0
        while i != -1:
            out.append(symbols[i])
            i = nxt[i]
        return out

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        """The ids of one pre-token (cached; UnicodeEncodeError for lone surrogates)."""
        cache = self._cache
        found = cache.get(piece) or self._whole_pieces.get(piece)
        if found is None:
            found = self._bpe(piece.encode("utf-8"))
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[piece] = found
        return found

    def _encode_pieces(self, pieces: list[str]) -> list[int]:
        found = list(map(self._cache.get, pieces))
        if None in found:
            ids_of = self._piece_ids(dict.fromkeys(compress(pieces, map(is_, found, repeat(None)))))
            found = map(ids_of.get, pieces, found)
        return list(chain.from_iterable(found))

    def _encode_segments(self, segments: list[str]) -> list[int]:
        """Ids for text split into segments (see ``PreTokenizer.segment_pattern``): a lookup per
        segment; pre-tokenization and merges only for distinct segments not seen before."""
        cache = self._segment_cache
        found = list(map(cache.get, segments))
        if None in found:
            new = self._segment_ids(dict.fromkeys(compress(segments, map(is_, found, repeat(None)))))
            self._remember_segments(new)
            found = map(new.get, segments, found)
        return list(chain.from_iterable(found))

    def _remember_segments(self, new: dict[str, tuple[int, ...]]) -> None:
        cache = self._segment_cache
        if len(cache) + len(new) > _CACHE_LIMIT:
            # Two generations: the full young one becomes the old one, whose entries move back when
            # met again, so a working set of up to twice _CACHE_LIMIT segments is served. One call's
            # new segments go in whole, even past the limit (they are no bigger than its text), so a
            # text with more distinct segments than the limit is served whole when it comes back.
            self._segment_old = cache
            self._segment_cache = new
        else:
            cache.update(new)

    def _segment_ids(self, unseen: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """Ids of distinct segments missing from the young cache: from the old generation if there,
        otherwise pre-tokenized one by one (segments are context-free) through C-level ``map``."""
        new: dict[str, tuple[int, ...]] = {}
        segments = list(unseen)
        old = self._segment_old
        if old:
            reused = list(map(old.get, segments))
            if any(reused):
                new.update(compress(zip(segments, reused), reused))
                segments = list(compress(segments, map(is_, reused, repeat(None))))
        # Segments exist only for GPT-2's pattern, which always has an ASCII finder.
        ascii_flags = list(map(str.isascii, segments))
        ascii_segments = list(compress(segments, ascii_flags))
        other_segments = list(compress(segments, map(is_, ascii_flags, repeat(False))))
        groups = [
            (ascii_segments, list(map(self._ascii_findall, ascii_segments))),
            (other_segments, list(map(self._findall, other_segments))),
        ]
        for group, piece_lists in groups:
            if group:
                ids_of = self._piece_ids(dict.fromkeys(chain.from_iterable(piece_lists))).__getitem__
                new.update(zip(group, map(tuple, map(chain.from_iterable, map(partial(map, ids_of), piece_lists)))))
        return new

    def _piece_ids(self, pieces: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """Distinct pieces -> ids: from the piece cache, whole tokens, or the merge loop (cached)."""
        pieces = list(pieces)
        cache = self._cache
        ids_of = dict(zip(pieces, map(cache.get, pieces, map(self._whole_pieces.get, pieces))))
        if None in ids_of.values():
            bpe = self._bpe
            merged = {piece: bpe(piece.encode("utf-8")) for piece, ids in ids_of.items() if ids is None}
            ids_of.update(merged)
            if len(cache) + len(merged) > _CACHE_LIMIT:
                cache.clear()
            cache.update(islice(merged.items(), _CACHE_LIMIT))
        return ids_of

    # ----------------------------------------------------------------------------------------------
    # encoding

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` with no special-token handling: special token strings are plain text."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        try:
            return self._encode_ordinary(text)
        except UnicodeEncodeError:
            return self._encode_ordinary(_fix_surrogates(text))

    def _encode_ordinary(self, text: str) -> list[int]:
        if self._ascii_findall is not None and text.isascii():
            # ASCII text goes piece by piece with the standard library's `re` (see
            # pretokenize._GPT2_ASCII, _CL100K_ASCII), not through segments: a new segment costs
            # about 4 µs, which only pays off when the same text comes back. On unseen code that
            # takes the first call from about 0.45x tiktoken's speed to 0.65x, a repeat from 2x to 1x.
            return self._encode_pieces(self._ascii_findall(text))
        if self._segment_pattern is not None:
            return self._encode_segments(self._segment_pattern.findall(text))
        return self._encode_pieces(self._pretokenizer.pieces(text))

    def _allowed_and_disallowed(
        self,
        allowed_special: Literal["all"] | Collection[str],
        disallowed_special: Literal["all"] | Collection[str],
    ) -> tuple[set[str], set[str]]:
        if allowed_special == "all":
            allowed = set(self._special_tokens)
        elif isinstance(allowed_special, str):
            raise TypeError(f"allowed_special must be 'all' or a set of strings, not {allowed_special!r}")
        else:
            allowed = set(allowed_special)
        unknown = allowed - set(self._special_tokens)
        if unknown:
            raise ValueError(
                f"allowed_special names {sorted(unknown)!r}, which are not special tokens of "
                f"{self.name!r} (it has {sorted(self._special_tokens)!r})"
            )
        if disallowed_special == "all":
            disallowed = set(self._special_tokens) - allowed
        elif isinstance(disallowed_special, str):
            raise TypeError(f"disallowed_special must be 'all' or a set of strings, not {disallowed_special!r}")
        else:
            disallowed = set(disallowed_special)
        return allowed, disallowed

    def _check_disallowed(self, text: str, disallowed: set[str]) -> None:
        if not disallowed:
            return
        found = special_token_regex(disallowed).search(text)
        if found:
            token = found.group()
            raise ValueError(
                f"Encountered text corresponding to disallowed special token {token!r}.\n"
                f"If you want this text to be encoded as a special token, pass it to `allowed_special`, "
                f"e.g. `allowed_special={{{token!r}, ...}}`.\n"
                f"If you want this text to be encoded as normal text, disable the check for this token "
                f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
                "To disable this check for all special tokens, pass `disallowed_special=()`."
            )

    def _segments(self, text: str, allowed: set[str]) -> Iterator[tuple[str, bool]]:
        regex_ = self._special_regex if allowed == set(self._special_tokens) else special_token_regex(allowed)
        return split_on_special_tokens(text, regex_)

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode ``text`` with tiktoken's special-token semantics.

        Special tokens in ``allowed_special`` become their single id; text matching a token in
        ``disallowed_special`` (by default every special token not allowed) raises ValueError; any
        other special token text is encoded as ordinary text.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        self._check_disallowed(text, disallowed)
        if not allowed:
            return self.encode_ordinary(text)
        out: list[int] = []
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                out.append(self._special_tokens[segment])
            else:
                out.extend(self.encode_ordinary(segment))
        return out

    def encode_ordinary_batch(self, texts: Iterable[str], *, workers: int | None = None) -> list[list[int]]:
        """``encode_ordinary`` of each text, in worker processes for large batches.

        ``workers`` is how many worker processes encode (None: automatic, one per CPU once the
        batch holds ``BATCH_PARALLEL_MIN_CHARS`` characters, else this process; 1: this process).
        Texts are cut at safe cuts into tasks of about ``BATCH_TASK_CHARS`` characters, so one long
        text is spread over the workers too. The ids never depend on ``workers``.
        """
        return self._encode_batch(texts, set(), set(), workers)

    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        workers: int | None = None,
    ) -> list[list[int]]:
        """``encode`` of each text, with the same keywords, and ``workers`` as in
        ``encode_ordinary_batch``."""
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        return self._encode_batch(texts, allowed, disallowed, workers)

    def _encode_batch(
        self, texts: Iterable[str], allowed: set[str], disallowed: set[str], workers: int | None
    ) -> list[list[int]]:
        from .workers import available_cpus, batches, check_workers, ordered_map

        workers = check_workers(workers)
        if isinstance(texts, str):
            raise TypeError("texts must be an iterable of str, not one str: use encode() for a single text")
        # Each text becomes a list of items: a special token's id, or ~i for parts[i], a piece of its
        # ordinary text cut where pre-tokenization allows it.
        cut_regex = safe_cut_regex(self._pretokenizer.source)
        parts: list[str] = []
        layouts: list[list[int]] = []
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
            self._check_disallowed(text, disallowed)
            layout: list[int] = []
            segments = self._segments(text, allowed) if allowed else [(text, False)]
            for segment, is_special in segments:
                if is_special:
                    layout.append(self._special_tokens[segment])
                else:
                    for part in cut_at_safe_cuts(segment, cut_regex, BATCH_TASK_CHARS):
                        layout.append(~len(parts))
                        parts.append(part)
            layouts.append(layout)
        tasks = list(batches(parts, BATCH_TASK_CHARS))
        total = sum(map(len, parts))
        if workers is None:
            workers = available_cpus() if total >= BATCH_PARALLEL_MIN_CHARS else 1
        workers = min(workers, len(tasks))
        encode = partial(map, self.encode_ordinary)
        if workers > 1:
            done = ordered_map(
                tasks,
                lambda task: list(encode(task)),
                lambda task: ("encode_ordinary", task),
                workers,
                setup=("tokenizer", self._state()),
            )
        else:
            done = map(list, map(encode, tasks))
        part_ids = list(chain.from_iterable(done))
        return [
            list(chain.from_iterable(part_ids[~item] if item < 0 else (item,) for item in layout))
            for layout in layouts
        ]

    def _state(self) -> dict:
        """What a worker process needs to rebuild this tokenizer for encoding."""
        return {
            "vocab": self._vocab,
            "merges": self._merges,
            "special_tokens": self._special_tokens,
            "pattern": self._pattern_argument,
            "name": self.name,
            "_tokens_self_encode": self._all_tokens_self_encode,
        }

    @classmethod
    def _from_state(cls, state: dict) -> Tokenizer:
        return cls(**state)

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> Iterator[int]:
        """Encode the concatenation of ``texts`` lazily, yielding ids; equal to ``encode("".join(texts))``.

        It never joins its input. With a preset pattern only the unfinished tail is kept between
        chunks (the last few pre-tokens, and room for the start of a special token); a custom pattern
        may look ahead arbitrarily far, so for it the text since the last special token is kept.
        """
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        guard = max((len(t) for t in self._special_tokens), default=0)
        check = (lambda buffer: self._check_disallowed(buffer, disallowed)) if disallowed else None
        special_regex = self._special_regex if allowed == set(self._special_tokens) else special_token_regex(allowed)
        specials = self._special_tokens
        encode_piece = self._encode_piece
        for piece, is_special in stream_pieces(
            texts, self._pretokenizer, special_regex, guard=guard, check=check
        ):
            if is_special:
                yield specials[piece]
            else:
                try:
                    yield from encode_piece(piece)
                except UnicodeEncodeError:
                    yield from encode_piece(_fix_surrogates(piece))

    def encode_with_details(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[TokenInfo]:
        """Encode ``text`` and describe every token: id, bytes, character span, partial-character flag."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _fix_surrogates(text)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        self._check_disallowed(text, disallowed)
        out: list[TokenInfo] = []
        position = 0
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                token_id = self._special_tokens[segment]
                out.append(TokenInfo(token_id, self._vocab[token_id], position, position + len(segment), False, True))
            else:
                for start, end in self._pretokenizer.spans(segment):
                    self._piece_details(segment[start:end], position + start, out)
            position += len(segment)
        return out

    def _piece_details(self, piece: str, offset: int, out: list[TokenInfo]) -> None:
        # char_of_byte[k] = index (within piece) of the character holding byte k.
        char_of_byte: list[int] = []
        for index, ch in enumerate(piece):
            char_of_byte.extend([index] * len(ch.encode("utf-8")))
        char_starts = {0}
        total = 0
        for ch in piece:
            total += len(ch.encode("utf-8"))
            char_starts.add(total)
        byte_position = 0
        vocab = self._vocab
        for token_id in self._encode_piece(piece):
            token = vocab[token_id]
            end_byte = byte_position + len(token)
            partial = byte_position not in char_starts or end_byte not in char_starts
            out.append(
                TokenInfo(
                    token_id,
                    token,
                    offset + char_of_byte[byte_position],
                    offset + char_of_byte[end_byte - 1] + 1,
                    partial,
                    False,
                )
            )
            byte_position = end_byte

    # ----------------------------------------------------------------------------------------------
    # decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of ``ids`` concatenated; ValueError naming the first unknown id."""
        vocab = self._vocab
        try:
            return b"".join([vocab[i] for i in ids])
        except (KeyError, TypeError):
            for i in ids:
                if not isinstance(i, int) or isinstance(i, bool) or i not in vocab:
                    raise ValueError(self._unknown_id_message(i)) from None
            raise

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode ``ids`` to text. Invalid UTF-8 (a token sequence that splits a character) becomes
        U+FFFD with the default ``errors="replace"``; pass ``errors="strict"`` to raise instead."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        return self.token_bytes(token_id)

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        return [self.token_bytes(i) for i in ids]

    # ----------------------------------------------------------------------------------------------
    # derived views

    def truncated(self, num_merges: int) -> Tokenizer:
        """The tokenizer made of the first ``num_merges`` merges (BPE's merges form prefixes)."""
        if not isinstance(num_merges, int) or num_merges < 0:
            raise ValueError(f"num_merges must be a non-negative integer, got {num_merges!r}")
        num_merges = min(num_merges, len(self._merges))
        keep = {self._token_to_id[left + right] for left, right in self._merges[num_merges:]}
        vocab = {i: b for i, b in self._vocab.items() if i not in keep}
        return Tokenizer(
            vocab,
            self._merges[:num_merges],
            special_tokens=self._special_tokens,
            pattern=self._pattern_argument,
            name=f"{self.name}[:{num_merges}]",
            merge_counts=self._merge_counts[:num_merges],
            # A token's own encoding uses no merge ranked after it: dropping later merges keeps it.
            _tokens_self_encode=self._all_tokens_self_encode,
        )

    def vocab_dump(self) -> str:
        """A readable listing in minbpe's style: one line per token, merges as ``[left][right] -> [token]``."""
        lines = []
        made_by = {self._token_to_id[left + right]: (left, right) for left, right in self._merges}
        special_ids = {i: t for t, i in self._special_tokens.items()}
        for token_id in sorted(self._vocab):
            token = self._vocab[token_id]
            if token_id in special_ids:
                lines.append(f"{token_id}\t<special> {special_ids[token_id]}")
            elif token_id in made_by:
                left, right = made_by[token_id]
                lines.append(
                    f"{token_id}\t[{token_display(left)}][{token_display(right)}] -> [{token_display(token)}]"
                )
            else:
                lines.append(f"{token_id}\t[{token_display(token)}]")
        return "\n".join(lines) + "\n"

    # ----------------------------------------------------------------------------------------------
    # files and other tools (implemented in serialization / interop; imported lazily)

    def save(self, path) -> None:
        """Write bpe_core's JSON format (lossless, with merge records and training metadata)."""
        from .serialization import save

        save(self, path)

    @classmethod
    def load(cls, path) -> Tokenizer:
        """Read a file written by ``save``; a corrupt file is a ValueError saying what and where."""
        from .serialization import load

        return load(path)

    @classmethod
    def from_tiktoken(cls, encoding, *, name: str | None = None) -> Tokenizer:
        """The same tokenizer as a ``tiktoken.Encoding`` (merges recovered from its ranks)."""
        from .interop import from_tiktoken

        return from_tiktoken(encoding, name=name)

    def to_tiktoken(self, *, name: str | None = None):
        """A ``tiktoken.Encoding`` with the same ids on every input (fast bulk encoding)."""
        from .interop import to_tiktoken

        return to_tiktoken(self, name=name)
