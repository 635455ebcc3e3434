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

from collections.abc import Collection, Mapping, Sequence

from bpe_core.bpe.fast import PieceEncoder, TiktokenPieceEncoder, self_encoding_ids
from bpe_core.bpe.picky_replay import MERGE, Event, PickyPieceEncoder, PickyReplay
from bpe_core.bpe.ranks import RankStructure, tiktoken_rule_parts
from bpe_core.bpe.tokens import token_display
from bpe_core.bpe.vocabulary import index_tokens, rank_merges
from bpe_core.errors import BpeError


class BpeModel:
    """A checked vocabulary (id -> bytes, special tokens' ids included), ranked merges and a rule.

    ``self_encoding`` is the set of ids proved to encode to themselves when the caller knows it (a
    model derived from one that proved it), else None to prove it here. ``events`` are Picky BPE's
    (``rule="picky"`` only, with no merges): the tokens present after them must be the vocabulary's.

    >>> vocab = {b: bytes([b]) for b in range(256)} | {256: b"ab"}
    >>> model = BpeModel(vocab, [(b"a", b"b")], special_ids=set())
    >>> model.piece_encoder.encode(b"abab"), model.merge_rank_of(256)
    ((256, 256), 0)
    """

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
        self.pair_rank = pair_rank
        self.rule = rule
        self.structure = structure
        self.byte_ids = [token_to_id[bytes([b])] for b in range(256)]
        self.events: list[Event] = []
        self._rank_by_id: dict[int, int] | None = None
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
        elif self_encoding is None:
            self_encoding = frozenset(self_encoding_ids(pair_rank, self.byte_ids))
        self.self_encoding = self_encoding
        self._bpe_self_encoding = self_encoding if rule == "bpe" else None

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
                if extra else f"the events leave {missing[0]!r} present, and the vocab lacks it"
            )
        encoder = PickyPieceEncoder(replay, self.token_to_id)
        self.piece_encoder = encoder
        self.events = [(kind, token, tuple(parts)) for kind, token, parts in events]
        self.merges = [(parts[0], parts[1]) for kind, _, parts in self.events if kind == MERGE]
        if self_encoding is None:
            self_encoding = frozenset(self.token_to_id[token] for token in encoder.self_encoding())
        self.self_encoding = self_encoding

    def whole_pieces(self) -> dict[str, tuple[int]]:
        """Piece text -> (id,) for the tokens that encode to themselves and are whole UTF-8 text."""
        whole: dict[str, tuple[int]] = {}
        for token_id in self.self_encoding:
            try:
                whole[self.vocab[token_id].decode("utf-8")] = (token_id,)
            except UnicodeDecodeError:  # a partial character is never a piece
                pass
        return whole

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
        made_by = {self.token_to_id[left + right]: (left, right) for left, right in self.merges
                   if left + right in self.token_to_id}  # Picky BPE: the last merge of each present token
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
