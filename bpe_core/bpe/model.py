"""The BPE stage of a tokenizer: its checked vocabulary and ranked merges, the rule it merges a piece
by, and what follows from them (which tokens encode to themselves, which merge made a token, the
model of the first k merges).

``BpeModel`` is to a ``Tokenizer`` what Hugging Face's ``models.BPE`` is to its ``Tokenizer``: the
tokenizer adds pre-tokenization, special tokens, engines and files around it. Three rules exist:
``"bpe"`` (BPE with the merge list), ``"tiktoken"`` (ids are tiktoken's ranks: a piece that is a
token is taken whole, then merges and late merges apply by rank; see ``ranks``) and ``"picky"``
(Picky BPE: training events, merges and removals, replayed in order; see ``picky_replay``; there are
no ranked merges then, only events). This module knows nothing of text, regexes or special tokens
beyond their ids.
"""

from __future__ import annotations

import functools
import gc
import threading
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bpe_core.bpe.fast import PieceEncoder, TiktokenPieceEncoder, self_encoding_ids
from bpe_core.bpe.picky_replay import MERGE, Event, PickyPieceEncoder, PickyReplay
from bpe_core.bpe.rank_pieces import RankPieceEncoder, WholeTokens
from bpe_core.bpe.ranks import RankStructure, tiktoken_rule_parts
from bpe_core.bpe.vocabulary import index_tokens, rank_merges
from bpe_core.display.marks import token_display
from bpe_core.errors import BpeError


class _GcPause:
    """``gc_paused``'s state: how many builds are running, and whether the collector ran before the first."""

    lock = threading.Lock()
    depth = 0
    was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a model is built: a 200k vocabulary makes a million
    tuples (pairs, ranks), each one counting towards a collection that walks every live object, and
    none of them forms a cycle. Nested and concurrent builds share one pause; the collector comes back
    as it was when the last one ends."""
    with _GcPause.lock:
        if _GcPause.depth == 0:
            _GcPause.was_enabled = gc.isenabled()
            gc.disable()
        _GcPause.depth += 1
    try:
        yield
    finally:
        with _GcPause.lock:
            _GcPause.depth -= 1
            if _GcPause.depth == 0 and _GcPause.was_enabled:
                gc.enable()


@dataclass(frozen=True)
class ModelTables:
    """What a model holds, as columns of ids: written by ``BpeModel.tables`` from a model built and
    checked the usual way, and given to a deferred model (``BpeModel.deferred``) without proving any of
    it again. Only from a cache the caller trusts (``bpe_core.pretrained.model_cache``: keyed by the
    SHA-256 of a pinned file, its own content hash-checked)."""

    rule: str  # "bpe" or "tiktoken" (see the module's docstring)
    token_to_id: dict[bytes, int]  # the ordinary tokens, in id order
    merges: tuple[array, array, array]  # left id, right id, id made: one entry per merge, in rank order
    late_merges: tuple[array, array, array]  # the same for the late merges (tiktoken's rule)
    whole_tokens: array  # the ids of the whole-word tokens (tiktoken's rule)
    self_encoding: array  # the ids proved to encode to themselves (every id under tiktoken's rule)
    whole_pieces: array  # those whose bytes are whole UTF-8 text (``BpeModel.whole_pieces``)


class _ProvedWholePieces(Mapping[str, tuple[int]]):
    """``model.whole_pieces()`` for a model whose self-encoding proof waits for its first use, so that no
    piece is taken whole unproved. Until pieces have been looked up as many times as a quarter of the
    vocabulary (the proof costs a pass over it), ``get`` finds none: the piece is merged instead, which
    gives the same ids (a token encodes to itself exactly when merging its bytes gives it), and a
    short first text does not pay for the whole proof. Then ``BpeModel.self_encoding`` proves it."""

    def __init__(self, model: BpeModel) -> None:
        self._model = model
        self._lookups_before_proof = len(model.token_to_id) // 4

    def get(self, piece: str, default: tuple[int] | None = None) -> tuple[int] | None:  # type: ignore[override]
        if self._lookups_before_proof and "self_encoding" not in vars(self._model):
            self._lookups_before_proof -= 1
            return default
        return self._model.whole_pieces().get(piece, default)

    def __getitem__(self, piece: str) -> tuple[int]:
        return self._model.whole_pieces()[piece]

    def __iter__(self) -> Iterator[str]:
        return iter(self._model.whole_pieces())

    def __len__(self) -> int:
        return len(self._model.whole_pieces())


def _columns(pairs: Sequence[tuple[bytes, bytes]], token_to_id: Mapping[bytes, int]) -> tuple[array, array, array]:
    return (
        array("q", [token_to_id[left] for left, _ in pairs]),
        array("q", [token_to_id[right] for _, right in pairs]),
        array("q", [token_to_id[left + right] for left, right in pairs]),
    )


class BpeModel:
    """A checked vocabulary (id -> bytes, special tokens' ids included), ranked merges and a rule.

    ``self_encoding`` is the set of ids proved to encode to themselves when the caller knows it (a
    model derived from one that proved it), else None to prove it here on first use (the attribute
    ``self_encoding``; until then no piece is looked up whole). ``events`` are Picky BPE's
    (``rule="picky"`` only, with no merges): the tokens present after them must be the vocabulary's.

    >>> vocab = {b: bytes([b]) for b in range(256)} | {256: b"ab"}
    >>> model = BpeModel(vocab, [(b"a", b"b")], special_ids=set())
    >>> model.piece_encoder.encode(b"abab"), model.merge_rank_of(256)
    ((256, 256), 0)
    """

    # A deferred model's tables, once it has them (see ``_tables``).
    _table_columns: ModelTables | None = None
    _tables_source: Callable[[dict[bytes, int]], ModelTables] | None = None
    _whole_lookup: Mapping[str, tuple[int]] | None = None
    _tables_lock: threading.Lock

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        *,
        special_ids: Collection[int],
        rule: str = "bpe",
        structure: RankStructure | None = None,
        self_encoding: frozenset[int] | None = None,
        events: Sequence[Event] | None = None,
    ) -> None:
        if (events is None) != (rule != "picky"):
            raise BpeError("events are Picky BPE's: give them with rule='picky' (and only then)")
        if events is not None and len(merges):
            raise BpeError("with rule='picky' the merges are in the events: pass merges=[]")
        token_to_id = index_tokens(vocab, set(special_ids))
        pair_rank, merge_list = rank_merges(merges, token_to_id)
        structure, late = tiktoken_rule_parts(rule, token_to_id, merge_list, structure)
        self.vocab = vocab
        self.token_to_id = token_to_id
        self.merges = merge_list
        self.merge_count = len(merge_list)
        self.pair_rank = pair_rank
        self.rule = rule
        self.structure = structure
        self.byte_ids = [token_to_id[bytes([b])] for b in range(256)]
        self.events: list[Event] = []
        self._rank_by_id: dict[int, int] | None = None
        self._whole_pieces: dict[str, tuple[int]] | None = None
        self.piece_encoder: PieceEncoder | PickyPieceEncoder
        if events is not None:
            self._bpe_self_encoding: frozenset[int] | None = None
            self._replay_events(events, self_encoding)
            return
        if late:
            self.piece_encoder = TiktokenPieceEncoder(pair_rank, late, self.byte_ids)
        else:
            self.piece_encoder = PieceEncoder(pair_rank, self.byte_ids)
        if self_encoding is None and rule == "tiktoken":
            self_encoding = frozenset(token_to_id.values())  # tiktoken looks every piece up whole first
        self._bpe_self_encoding = self_encoding if rule == "bpe" else None
        if self_encoding is None:  # the BPE rule's proof waits for its first use (``self_encoding``)
            self._whole_lookup = _ProvedWholePieces(self)
        else:
            self.self_encoding = self_encoding

    def _replay_events(self, events: Sequence[Event], self_encoding: frozenset[int] | None) -> None:
        """The Picky rule's encoder: ``events`` checked (``PickyReplay``), their present tokens
        exactly the vocabulary's ordinary tokens; only tokens that replay to themselves are looked
        up whole."""
        events = list(events)
        replay = PickyReplay(events)  # checks every event
        ordinary = set(self.token_to_id)
        if replay.present != ordinary:
            extra = sorted(ordinary - replay.present)
            missing = sorted(replay.present - ordinary)
            raise BpeError(
                f"the vocab has {extra[0]!r}, which the events leave removed or never make"
                if extra
                else f"the events leave {missing[0]!r} present, and the vocab lacks it"
            )
        encoder = PickyPieceEncoder(replay, self.token_to_id)
        self.piece_encoder = encoder
        self.events = [(kind, token, tuple(parts)) for kind, token, parts in events]
        self.merges = [(parts[0], parts[1]) for kind, _, parts in self.events if kind == MERGE]
        self.merge_count = len(self.merges)
        if self_encoding is None:
            self_encoding = frozenset(self.token_to_id[token] for token in encoder.self_encoding())
        self.self_encoding = self_encoding

    @classmethod
    def deferred(
        cls, vocab: dict[int, bytes], token_to_id: dict[bytes, int], tables: Callable[[dict[bytes, int]], ModelTables]
    ) -> BpeModel:
        """The model of tiktoken-style ranks ``token_to_id`` (the ordinary tokens; ``vocab`` adds the
        special tokens'), ready to encode at once: tiktoken's rule runs on the ranks themselves
        (``rank_pieces``), which needs no merges. What does need them (``merges``, ``pair_rank``,
        ``structure``, ``merge_count``, ``tables()``, the merge table of ``piece_encoder``) comes from
        ``tables(token_to_id)``, called once on first use, under a lock (threads asking together wait
        for the one call), and kept. Only for ranks checked already (``pretrained.model_cache``); the
        caller has checked the vocab (``check_vocab``, the special tokens) and ``tables`` proves the
        merges (or reads the tables proved when they were written) before returning them."""
        missing = [b for b in range(256) if bytes([b]) not in token_to_id]
        if missing or b"" in token_to_id:
            raise BpeError(
                f"the ranks lack the single byte {bytes(missing[:1])!r} or hold an empty token: "
                "byte-level ranks hold each of the 256 bytes, and no empty token"
            )
        model = cls.__new__(cls)
        model.vocab = vocab
        model.token_to_id = token_to_id
        model.rule = "tiktoken"
        model.byte_ids = [token_to_id[bytes([b])] for b in range(256)]
        model._tables_source = tables
        model._tables_lock = threading.Lock()
        model.piece_encoder = RankPieceEncoder(token_to_id, model.byte_ids, model._rule_parts)
        model.self_encoding = frozenset(token_to_id.values())  # tiktoken looks every piece up whole first
        model._bpe_self_encoding = None
        model._rank_by_id = None
        model._whole_pieces = None
        model._whole_lookup = WholeTokens(token_to_id)
        model.events = []
        return model

    @property
    def _tables(self) -> ModelTables:
        """A deferred model's tables, fetched on first use (once)."""
        tables = self._table_columns
        if tables is None:
            source = self._tables_source
            if source is None:
                raise RuntimeError("a model built by __init__ has no tables to read")  # a bug, never input
            with self._tables_lock:
                tables = self._table_columns
                if tables is None:
                    tables = self._table_columns = source(self.token_to_id)
        return tables

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_tables_lock", None)  # a deferred model's source is picklable (its caller's duty)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_tables_source" in state:
            self._tables_lock = threading.Lock()

    def _rule_parts(self) -> tuple[dict[tuple[int, int], tuple[int, int]], dict[tuple[int, int], int]]:
        """(pair ranks, late merges by ids) of a deferred model, from its tables."""
        late_lefts, late_rights, late_made = self._tables.late_merges
        return self.pair_rank, dict(zip(zip(late_lefts, late_rights, strict=True), late_made, strict=True))

    @functools.cached_property
    def self_encoding(self) -> frozenset[int]:
        """The ids proved to encode to themselves (set at construction when known; under the BPE rule
        otherwise proved on first use: the first piece looked up whole, tiktoken's engine, the tables)."""
        return self.plain_bpe_self_encoding()

    @functools.cached_property
    def merge_count(self) -> int:
        """The number of merges (set by ``__init__``; a deferred model's from its tables on first use)."""
        return len(self._tables.merges[0])

    @functools.cached_property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in rank order, as (left bytes, right bytes) (set by ``__init__``; a deferred model's
        read from its tables on first use)."""
        lefts, rights, _ = self._tables.merges
        return list(zip(map(self.vocab.__getitem__, lefts), map(self.vocab.__getitem__, rights), strict=True))

    @functools.cached_property
    def pair_rank(self) -> dict[tuple[int, int], tuple[int, int]]:
        """(left id, right id) -> (rank, merged id) (as ``merges``)."""
        lefts, rights, made = self._tables.merges
        return dict(zip(zip(lefts, rights, strict=True), zip(range(len(made)), made, strict=True), strict=True))

    @functools.cached_property
    def structure(self) -> RankStructure | None:
        """What tiktoken's ranks hold (``rule == "tiktoken"``), else None (as ``merges``)."""
        late_lefts, late_rights, _ = self._tables.late_merges
        return RankStructure(
            merges=self.merges,
            late_merges=list(
                zip(map(self.vocab.__getitem__, late_lefts), map(self.vocab.__getitem__, late_rights), strict=True)
            ),
            whole_tokens=list(map(self.vocab.__getitem__, self._tables.whole_tokens)),
        )

    def tables(self) -> ModelTables:
        """This model as ``ModelTables`` (what ``model_cache`` writes; a deferred model's own). ``BpeError``
        for the Picky rule: its events are no columns of ranked merges (a Picky BPE tokenizer is never a
        cached built-in)."""
        if self.rule not in ("bpe", "tiktoken"):
            raise BpeError(f"model tables hold ranked merges: a {self.rule!r} model has none")
        if self._tables_source is not None:
            return self._tables
        whole = self.whole_pieces()
        late = self.structure.late_merges if self.structure else []
        return ModelTables(
            rule=self.rule,
            token_to_id=dict(self.token_to_id),
            merges=_columns(self.merges, self.token_to_id),
            late_merges=_columns(late, self.token_to_id),
            whole_tokens=array("q", self.whole_word_ids),
            self_encoding=array("q", sorted(self.self_encoding)),
            whole_pieces=array("q", sorted(token_id for (token_id,) in whole.values())),
        )

    def whole_pieces(self) -> dict[str, tuple[int]]:
        """Piece text -> (id,) for the tokens that encode to themselves and are whole UTF-8 text."""
        if self._whole_pieces is not None:
            return self._whole_pieces
        whole: dict[str, tuple[int]] = {}
        for token_id in self.self_encoding:
            try:
                whole[self.vocab[token_id].decode("utf-8")] = (token_id,)
            except UnicodeDecodeError:  # a partial character is never a piece
                pass
        self._whole_pieces = whole  # computed once (the tables ask again): the proved set never changes
        return whole

    def whole_piece_lookup(self) -> Mapping[str, tuple[int]]:
        """``whole_pieces()``, or for a deferred model the same as a lookup (no pass over the vocab)."""
        return self._whole_lookup if self._whole_lookup is not None else self.whole_pieces()

    def merge_rank_of(self, token_id: int) -> int | None:
        """The rank of the merge that made ``token_id``; None for single bytes, special tokens and ids
        no merge made."""
        if self._rank_by_id is None:
            self._rank_by_id = {new_id: rank for rank, new_id in self.pair_rank.values()}
        return self._rank_by_id.get(token_id)

    @property
    def late_merges(self) -> list[tuple[bytes, bytes]]:
        """The pairs tiktoken joins that are no BPE merge, in rank order (``rule == "tiktoken"`` only)."""
        return list(self.structure.late_merges) if self.structure else []

    @property
    def whole_word_ids(self) -> list[int]:
        """The ids no two parts ever join, produced only as a whole pre-token (``rule == "tiktoken"`` only)."""
        return [self.token_to_id[token] for token in self.structure.whole_tokens] if self.structure else []

    def plain_bpe_self_encoding(self) -> frozenset[int]:
        """The tokens that encode to themselves under plain BPE with every merge: what ``truncated``
        keeps. Proved once per model (for tiktoken's rule it is not the looked-up set), so that trying
        many k in the merge forest costs the proof only once."""
        if self._bpe_self_encoding is None:
            self._bpe_self_encoding = frozenset(self_encoding_ids(self.pair_rank, self.byte_ids))
        return self._bpe_self_encoding

    def first_merges(self, num_merges: int) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], frozenset[int]]:
        """(vocab, merges, ids that encode to themselves) of the first ``num_merges`` merges, under plain
        BPE: a token's own encoding uses no merge ranked after it, so dropping later merges keeps it;
        tiktoken's rule does not carry over (late merges and whole-word tokens are no merges)."""
        num_merges = min(num_merges, len(self.merges))
        dropped = {self.token_to_id[left + right] for left, right in self.merges[num_merges:]}
        vocab = {i: b for i, b in self.vocab.items() if i not in dropped}
        return vocab, self.merges[:num_merges], self.plain_bpe_self_encoding() - dropped

    def listing(self, special_tokens: Mapping[str, int]) -> str:
        """A readable listing in minbpe's style: one line per token (special tokens too, shown as tokens are),
        merges as ``[left][right] -> [token]``."""
        lines = []
        made_by = {
            self.token_to_id[left + right]: (left, right)
            for left, right in self.merges
            if left + right in self.token_to_id
        }  # Picky BPE: the last merge of each present token
        special_ids = {i: t for t, i in special_tokens.items()}
        for token_id in sorted(self.vocab):
            token = self.vocab[token_id]
            if token_id in special_ids:
                lines.append(f"{token_id}\t<special> {token_display(special_ids[token_id].encode())}")  # one line each
            elif token_id in made_by:
                left, right = made_by[token_id]
                lines.append(f"{token_id}\t[{token_display(left)}][{token_display(right)}] -> [{token_display(token)}]")
            else:
                lines.append(f"{token_id}\t[{token_display(token)}]")
        return "\n".join(lines) + "\n"
