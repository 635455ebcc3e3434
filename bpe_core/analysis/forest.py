"""The merge forest of a tokenizer as plain indexes, built once (timed in bench/PERFORMANCE.md).

Every merged token is the root of a binary tree of earlier merges down to single bytes; together
they form the merge forest. ``MergeForest.of(tokenizer)`` indexes it by rank and by id (who made a
token, which merges use it, tree depth, length, display text), and answers, each without a pass over
the vocabulary:

- ``built_from(token_id)``: the tokens built from a token, level by level, with their depth;
- ``search(query, mode=...)``: tokens whose display text starts with, contains or matches a regex
  (user regexes run under a time limit, so a pathological one is refused, never a hang);
- ``first_k_infos(text, k)``: the text encoded with only the first ``k`` merges, equal to
  ``tokenizer.truncated(k).encode_with_details(text, disallowed_special=())`` without building the
  truncated tokenizer (BPE with the first k merges is BPE that ignores the later ones);
- ``never_produced(used_ids)``: the ranks of merges whose token is not among ``used_ids``.

It does not encode corpora (callers count usage with the tokenizer), draw, or find where a token
occurs in text (``contexts``). A Picky BPE tokenizer (``rule="picky"``) has no such forest: its
tokens are made and removed by events, and a token's parts may have been removed by the end, so
``MergeForest.of`` refuses it (its removals are ``picky_removals``').
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import regex

from bpe_core.bpe.fast import encode_heap
from bpe_core.bpe.tokens import TokenInfo, piece_token_infos
from bpe_core.display.marks import text_display, token_displays
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.pretokenization.stages import StagedPreTokenizer

if TYPE_CHECKING:
    from bpe_core.tokenizer import Tokenizer

Pairs = dict[tuple[int, int], tuple[int, int]]  # (left id, right id) -> (rank, id made)

SEARCH_MODES = ("prefix", "contains", "regex")
#: Seconds of processor time a user's regex may take over the whole vocabulary before it is refused.
SEARCH_TIMEOUT = 2.0


@dataclass(frozen=True)
class SearchResult:
    """Ids of the first ``limit`` matching tokens (in id order) and how many match in all."""

    ids: list[int]
    total: int


class _FirstMerges:
    """The pair -> (rank, new id) table restricted to ranks below ``k``, without copying it
    (``encode_heap`` only calls ``get``)."""

    __slots__ = ("k", "pairs")

    def __init__(self, pairs: Pairs, k: int) -> None:
        self.pairs, self.k = pairs, k

    def get(self, pair: tuple[int, int]) -> tuple[int, int] | None:
        found = self.pairs.get(pair)
        return found if found is not None and found[0] < self.k else None


@dataclass
class MergeForest:
    """Indexes over one tokenizer's merges. Lists are by rank; dicts by token id."""

    tokenizer: Tokenizer = field(repr=False)
    left: list[int]  # rank -> id of the left part
    right: list[int]  # rank -> id of the right part
    made: list[int]  # rank -> id of the token made
    counts: list[int | None]  # rank -> pair count when trained here (None when not recorded)
    rank_of: dict[int, int]  # id -> rank of the merge that made it
    used_in: dict[int, list[int]]  # id -> ranks of the merges that use it as a part, ascending
    depth: dict[int, int]  # id -> height of its derivation tree (bytes 0)
    vocab: Mapping[int, bytes]  # id -> bytes, special tokens included
    display: dict[int, str]  # id -> token_display of its bytes
    byte_ids: list[int]  # byte value -> id
    pairs: Pairs = field(repr=False)

    @classmethod
    def of(cls, tokenizer: Tokenizer) -> MergeForest:
        """Index ``tokenizer``'s merges (timed in bench/PERFORMANCE.md, "The Merge forest at 50k-200k vocabularies").

        >>> import bpe_core
        >>> forest = MergeForest.of(bpe_core.train(["ab ab abc"], 259, min_frequency=1))
        >>> [forest.display[i] for i in forest.made], forest.depth[forest.made[-1]]
        (['ab', '␣ab', '␣abc'], 3)
        """
        if getattr(tokenizer, "rule", "bpe") == "picky":
            raise BpeError(
                f"{tokenizer.name!r} is a Picky BPE tokenizer: its merges and removals are events "
                "(picky_events), and a token's parts may have been removed, so it has no forest of ranked merges; "
                "its removals are bpe_core.analysis.picky_removals.picky_removals(tokenizer)"
            )
        vocab = tokenizer.vocab
        pairs, counts = _merge_tables(tokenizer, vocab)
        left = [a for a, _ in pairs]  # pairs are in rank order
        right = [b for _, b in pairs]
        made = [new for _, new in pairs.values()]
        used_in: dict[int, list[int]] = defaultdict(list)
        depth: dict[int, int] = {}
        get = depth.get
        for rank, (a, b, new) in enumerate(zip(left, right, made, strict=True)):
            used_in[a].append(rank)
            if b != a:
                used_in[b].append(rank)
            depth[new] = 1 + max(get(a, 0), get(b, 0))
        return cls(
            tokenizer=tokenizer,
            left=left,
            right=right,
            made=made,
            counts=counts,
            rank_of=dict(zip(made, range(len(made)), strict=True)),
            used_in=dict(used_in),
            depth=depth,
            vocab=vocab,
            display=token_displays(vocab),
            byte_ids=_byte_ids(vocab, tokenizer),
            pairs=pairs,
        )

    def __len__(self) -> int:
        return len(self.made)

    def parts(self, token_id: int) -> tuple[int, int] | None:
        """The (left, right) ids that make ``token_id``, or None for bytes, specials and tokens no merge makes."""
        rank = self.rank_of.get(token_id)
        return None if rank is None else (self.left[rank], self.right[rank])

    def built_from(self, token_id: int, *, limit: int = 1_000) -> list[tuple[int, int, int]]:
        """The tokens built from ``token_id``, breadth first: ``(depth, rank, parent id)`` per token,
        depth 1 for the merges that use it directly, ``parent`` the token it was reached through; at
        most ``limit`` rows (each token once).

        >>> import bpe_core
        >>> forest = MergeForest.of(bpe_core.train(["ab ab abc"], 259, min_frequency=1))
        >>> [(depth, forest.display[forest.made[rank]]) for depth, rank, _ in forest.built_from(97)]
        [(1, 'ab'), (2, '␣ab'), (3, '␣abc')]
        """
        rows: list[tuple[int, int, int]] = []
        seen = {token_id}
        level, depth = [token_id], 0
        while level and len(rows) < limit:
            depth += 1
            found: list[tuple[int, int]] = []
            for parent in level:
                found.extend((rank, parent) for rank in self.used_in.get(parent, ()))
            level = []
            for rank, parent in sorted(found):
                new = self.made[rank]
                if new not in seen and len(rows) < limit:
                    seen.add(new)
                    rows.append((depth, rank, parent))
                    level.append(new)
        return rows

    def search(
        self, query: str, *, mode: str = "prefix", limit: int = 200, timeout: float = SEARCH_TIMEOUT
    ) -> SearchResult:
        r"""Tokens whose display text (``token_display``: ␣ for a space, ``\xNN`` for a stray byte)
        starts with, contains, or (``mode="regex"``) has a match of ``query``. For prefix and contains,
        spaces, tabs and newlines typed in ``query`` mean their marks. A regex that does not compile,
        or that takes more than ``timeout`` seconds over the vocabulary, is a ValueError saying what
        to change.

        >>> import bpe_core
        >>> forest = MergeForest.of(bpe_core.train(["ab ab abc"], 259, min_frequency=1))
        >>> [forest.display[i] for i in forest.search(" a").ids], forest.search("^␣a", mode="regex").total
        (['␣ab', '␣abc'], 2)
        """
        if mode not in SEARCH_MODES:
            raise BpeError(f"search mode must be one of {', '.join(SEARCH_MODES)}, not {mode!r}")
        if mode == "regex":
            found = _regex_ids(self.display, query, timeout)
        else:
            wanted = text_display(query)
            if mode == "prefix":
                found = [i for i, shown in self.display.items() if shown.startswith(wanted)]
            else:
                found = [i for i, shown in self.display.items() if wanted in shown]
        return SearchResult(found[:limit], len(found))

    def merges_matching(self, query: str, *, where: str = "any") -> list[int]:
        """Ranks of the merges whose left part, right part or result (``where``: "left", "right",
        "result" or "any") shows ``query`` (typed whitespace means its mark, as in ``search``).

        >>> import bpe_core
        >>> MergeForest.of(bpe_core.train(["ab ab abc"], 259, min_frequency=1)).merges_matching(" a", where="result")
        [1, 2]
        """
        columns = {"left": self.left, "right": self.right, "result": self.made}
        if where not in (*columns, "any"):
            raise BpeError(f"where must be one of left, right, result or any, not {where!r}")
        shown, wanted = self.display, text_display(query)
        if where != "any":
            return [rank for rank, i in enumerate(columns[where]) if wanted in shown[i]]
        return [
            rank
            for rank, (a, b, new) in enumerate(zip(self.left, self.right, self.made, strict=True))
            if wanted in shown[new] or wanted in shown[a] or wanted in shown[b]
        ]

    def never_produced(self, used_ids: Collection[int]) -> list[int]:
        """Ranks of the merges whose token is not in ``used_ids`` (e.g. the ids of an encoded text)."""
        return [rank for rank, new in enumerate(self.made) if new not in used_ids]

    def first_k_infos(self, text: str, k: int) -> list[TokenInfo]:
        """``text`` encoded with only the first ``k`` merges (special tokens' text as ordinary text):
        the same ``TokenInfo`` list as ``tokenizer.truncated(k).encode_with_details(text,
        disallowed_special=())``, for any k without building a tokenizer.

        >>> import bpe_core
        >>> forest = MergeForest.of(bpe_core.train(["ab ab abc"], 259, min_frequency=1))
        >>> [i.bytes for i in forest.first_k_infos(" abc", 1)], [i.bytes for i in forest.first_k_infos(" abc", 3)]
        ([b' ', b'ab', b'c'], [b' abc'])
        """
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise BpeError(f"k (the number of merges) must be a non-negative integer, got {k!r}")
        text = replace_surrogates(text)
        # encode_heap only calls .get, which _FirstMerges has (it is no whole Mapping).
        merges = cast(Mapping[tuple[int, int], tuple[int, int]], _FirstMerges(self.pairs, min(k, len(self.made))))
        table = self.byte_ids

        def encode_piece(piece: str) -> list[int]:
            symbols = [table[b] for b in piece.encode("utf-8")]
            return encode_heap(symbols, merges) if len(symbols) > 1 else symbols

        pretokenizer = self.tokenizer.pretokenizer
        if isinstance(pretokenizer, StagedPreTokenizer):  # spans through normalization
            return pretokenizer.token_infos(text, encode_piece, self.vocab)
        out: list[TokenInfo] = []
        for start, end in pretokenizer.spans(text):
            piece = text[start:end]
            out.extend(piece_token_infos(piece, encode_piece(piece), self.vocab, offset=start))
        return out


def _merge_tables(tokenizer: Tokenizer, vocab: Mapping[int, bytes]) -> tuple[Pairs, list[int | None]]:
    """``(left id, right id) -> (rank, new id)`` in rank order, and each merge's training count.

    A bpe_core ``Tokenizer`` holds both already (built and checked by ``vocabulary.rank_merges``), so
    they are read from it rather than rebuilt (rebuilding is slower: bench/PERFORMANCE.md, "Figures behind
    choices in the code"; ``merge_records`` makes one object per merge); anything else is indexed from its
    public parts."""
    pairs = getattr(tokenizer, "_pair_rank", None)
    counts = getattr(tokenizer, "_merge_counts", None)
    n_merges = len(tokenizer.merges) if pairs is None or counts is None else len(counts)
    if pairs is None or len(pairs) != n_merges:
        specials = set(tokenizer.special_tokens.values())
        token_to_id = {token: i for i, token in vocab.items() if i not in specials}
        pairs = {
            (token_to_id[a], token_to_id[b]): (rank, token_to_id[a + b]) for rank, (a, b) in enumerate(tokenizer.merges)
        }
    if counts is None or len(counts) != n_merges:
        counts = [record.count for record in tokenizer.merge_records]
    return pairs, list(counts)


def _byte_ids(vocab: Mapping[int, bytes], tokenizer: Tokenizer) -> list[int]:
    """Byte value -> id (any id layout: GPT-2's single bytes are not ids 0..255)."""
    specials = set(tokenizer.special_tokens.values())
    single = {token[0]: i for i, token in vocab.items() if len(token) == 1 and i not in specials}
    return [single[b] for b in range(256)]


_BATCH = 32
#: Escapes, each read as one character when judging a pattern (the braces of ``\p{L}`` are no repeat).
_ESCAPES = regex.compile(r"\\[pPNx]\{[^}]*\}|\\.", regex.DOTALL)


def needs_time_limit(query: str) -> bool:
    r"""Whether searching every token with ``query`` needs a time limit: False only for patterns with
    no group and at most one repeat (``*``, ``+`` or ``{}``, and two ``?``), which cannot backtrack
    more than about n² steps on a token of n characters (8 M steps over all of o200k's tokens). Any
    other pattern (groups, several repeats, even a ``*`` inside a class: the judgement errs on the
    safe side) runs under the time limit, which costs time per token (bench/PERFORMANCE.md, "Figures behind
    choices in the code").

    >>> needs_time_limit(r"^␣\p{Lu}[a-z]+$"), needs_time_limit("(a+)+$"), needs_time_limit(".*a.*b")
    (False, True, True)
    """
    bare = _ESCAPES.sub("e", query)
    repeats = sum(bare.count(mark) for mark in "*+{")
    return "(" in bare or repeats > 1 or bare.count("?") > 2


def _regex_ids(display: dict[int, str], query: str, timeout: float) -> list[int]:
    """Ids (in id order) of the display texts where a user's regex matches, spending at most
    ``timeout`` seconds in all: each search gets what is left of the budget. Simple patterns (see
    ``needs_time_limit``) run without one, faster (bench/PERFORMANCE.md, "Figures behind choices in the code")."""
    try:
        search = regex.compile(query).search
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise BpeError(f"{query!r} is not a valid regular expression ({exc}): fix it, or search by prefix") from None
    if not needs_time_limit(query):
        return [token_id for token_id, shown in display.items() if search(shown) is not None]
    # The budget is processor time (a loaded server must not refuse a sound regex); each search gets
    # a share of what is left, as wall time, so a batch of BATCH searches stays within it.
    deadline = time.thread_time() + timeout
    items = list(display.items())
    found: list[int] = []
    try:
        for start in range(0, len(items), _BATCH):
            share = (deadline - time.thread_time()) / _BATCH
            if share <= 0:
                raise TimeoutError
            batch = items[start : start + _BATCH]
            found.extend(i for i, shown in batch if search(shown, timeout=share) is not None)
    except TimeoutError:
        raise BpeError(
            f"the regular expression {query!r} is too slow over the vocabulary (its budget is {timeout:g} s of "
            "processor time): simplify it (nested repeats such as (a+)+ or (a|aa)+ backtrack without end), or "
            "search by prefix"
        ) from None
    return found
