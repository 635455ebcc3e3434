"""The byte-level BPE ``Tokenizer``: its checked parts, what it reports about its tokens, the
tokenizers derived from it, and bpe_core's own file and tiktoken's ``Encoding`` in and out.

Encoding follows GPT-2's original encoder: split off special tokens, pre-tokenize with the regex,
turn each piece into its bytes and repeatedly apply the merge with the lowest rank among the
adjacent pairs (all its occurrences, left to right, without overlap) until none applies; a Picky BPE
tokenizer (``rule="picky"``) replays its training events instead (``bpe.picky_replay``). The parts
are checked and the BPE stage held by ``bpe.model.BpeModel``; the encoding and decoding methods are
``encoding.codec.Codec``'s and the rest of ``tiktoken.Encoding``'s surface
``encoding.tiktoken_surface.TiktokenSurface``'s (both mixins of this class).

This module does not train (see ``bpe_core.training``) and reads or writes only bpe_core's own JSON
file (through ``formats.bpe_json``); other tools' formats are in ``bpe_core.formats``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from bpe_core.bpe import token_ids
from bpe_core.bpe.fast import PieceEncoder
from bpe_core.bpe.model import BpeModel, gc_paused
from bpe_core.bpe.picky_replay import Event, PickyPieceEncoder
from bpe_core.bpe.ranks import RankStructure, rank_structure
from bpe_core.bpe.tokens import MergeRecord
from bpe_core.bpe.vocabulary import check_vocab, resolve_special_tokens
from bpe_core.encoding import tiktoken_engine
from bpe_core.encoding.codec import Codec
from bpe_core.encoding.encoder import TextEncoder
from bpe_core.encoding.engines import Engines
from bpe_core.encoding.tiktoken_surface import TiktokenSurface
from bpe_core.errors import BpeError
from bpe_core.formats import bpe_json
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name
from bpe_core.pretokenization.special_tokens import special_token_regex
from bpe_core.pretokenization.stages import Pipeline, StagedPreTokenizer, build_pretokenizer
from bpe_core.safe_io import write_atomic

if TYPE_CHECKING:
    import tiktoken

    from bpe_core.display.view import TokenView

#: Why tiktoken's engine (and its file) cannot encode a Picky BPE tokenizer.
_PICKY_ENGINE = (
    "a Picky BPE tokenizer encodes by replaying its merge and removal events, and tiktoken's engine only merges by rank"
)


class Tokenizer(Codec, TiktokenSurface):
    """A byte-level BPE tokenizer: a vocabulary of byte strings, ranked merges, special tokens and a
    pre-tokenization pattern.

    Any id layout works: ids need not put the single bytes at 0..255 (GPT-2 does not). A piece whose
    text is a token that encodes to itself (see ``bpe.self_encoding_ids``, proved on first use)
    is looked up whole instead of merged. It is also a drop-in for ``tiktoken.Encoding``: the methods
    with tiktoken's names take tiktoken's arguments (the rest of that surface is ``TiktokenSurface``).

    ``rule="picky"`` is a Picky BPE tokenizer (``training.picky``): ``merges`` is empty and ``events``
    holds its merges and removals in training order (``bpe.picky_replay.Event``), which encoding
    replays; the vocab holds the tokens present after them. It has no ranked merges, so the views of
    them (``merge_records``, ``merge_rank_of``, ``truncated``) and tiktoken's engine are refused.
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        *,
        special_tokens: Mapping[str, int] | Sequence[str] = (),
        pattern: str | Pipeline | None = "gpt2",
        name: str = "tokenizer",
        merge_counts: Sequence[int | None] | None = None,
        training: Mapping[str, object] | None = None,
        rule: str = "bpe",
        events: Sequence[Event] | None = None,
    ) -> None:
        self._build(
            vocab,
            merges,
            special_tokens,
            pattern,
            name,
            merge_counts,
            training,
            self_encoding=None,
            rule=rule,
            events=events,
        )

    def _build(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Mapping[str, int] | Sequence[str],
        pattern: str | Pipeline | None,
        name: str,
        merge_counts: Sequence[int | None] | None,
        training: Mapping[str, object] | None,
        *,
        self_encoding: frozenset[int] | None,
        rule: str = "bpe",
        structure: RankStructure | None = None,
        events: Sequence[Event] | None = None,
    ) -> None:
        """The constructor's work; ``self_encoding`` is the proved set when already known (the
        tokenizer this one was derived from proved it), else None to prove it here. ``rule`` is
        ``"tiktoken"`` for ranks holding late merges or whole-word tokens (see ``BpeModel``;
        ``structure`` when already recovered)."""
        with gc_paused():
            full_vocab = check_vocab(vocab)
            specials = resolve_special_tokens(special_tokens, full_vocab)
            model = BpeModel(
                full_vocab,
                merges,
                special_ids=specials.values(),
                rule=rule,
                structure=structure,
                self_encoding=self_encoding,
                events=events,
            )
            if merge_counts is not None and rule == "picky":
                raise BpeError("a Picky BPE tokenizer has no merge_counts (its counts are in training['picky_events'])")
            if merge_counts is not None and len(merge_counts) != len(model.merges):
                raise BpeError(f"merge_counts has {len(merge_counts)} entries for {len(model.merges)} merges")
            self._assemble(model, specials, pattern, name, merge_counts, training)

    def _assemble(
        self,
        model: BpeModel,
        specials: dict[str, int],
        pattern: str | Pipeline | None,
        name: str,
        merge_counts: Sequence[int | None] | None,
        training: Mapping[str, object] | None,
    ) -> None:
        """The tokenizer around a built ``model`` (its vocab holds the special tokens ``specials``)."""
        full_vocab = model.vocab
        self.name = name
        self.training: dict[str, object] = dict(training) if training else {}
        self._model = model
        self._vocab = full_vocab
        self._token_to_id = model.token_to_id
        self._counts = list(merge_counts) if merge_counts is not None else None  # None: unknown (_merge_counts)
        self._special_tokens = specials
        self._special_ids = frozenset(specials.values())
        self._max_token_id = max(full_vocab)
        self._special_bytes_to_id = {t.encode("utf-8"): i for t, i in specials.items()}
        self._special_regex = special_token_regex(specials)
        self._pattern_argument = pattern
        self._pretokenizer = build_pretokenizer(pattern)
        # TextEncoder only calls the piece encoder's ``encode``, which Picky BPE's replaying one has too.
        pieces = cast("PieceEncoder", model.piece_encoder)
        self._text_encoder = TextEncoder(self._pretokenizer, pieces, model.whole_piece_lookup())
        self._engines = Engines(
            self._text_encoder,
            self._engine_facts,
            vocabulary_size=len(model.token_to_id),
            rule_obstacle=_PICKY_ENGINE if model.rule == "picky" else None,
        )

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int] | Iterable[tuple[bytes, int]],
        *,
        special_tokens: Mapping[str, int] | Sequence[str] = (),
        pattern: str | Pipeline | None = "gpt2",
        name: str = "tokenizer",
        structure: RankStructure | None = None,
    ) -> Tokenizer:
        """A tokenizer from tiktoken-style ranks (token bytes -> rank, the rank doubling as the id). The
        merges are recovered (``ranks.rank_structure``) and the tokenizer follows ``rule="tiktoken"``:
        every piece that is a token whole, then the merges and late merges by rank. For ranks that are
        a merge list (GPT-2, cl100k, o200k) that is BPE with the merges; Llama 3 and Qwen 3.5 also
        hold late merges and whole-word tokens, which only this rule produces as tiktoken does.
        ``structure`` is ``rank_structure(ranks)`` when the caller has it already (a cache). ``ranks``
        is a mapping or a sequence of (token bytes, rank) pairs.

        >>> Tokenizer.from_ranks([(bytes([b]), b) for b in range(256)] + [(b"ab", 256)]).encode("abc")
        [256, 99]
        """
        if not isinstance(ranks, Mapping):
            pairs = list(ranks)
            ranks = dict(pairs)
            if len(ranks) != len(pairs):
                raise BpeError("a token appears twice in the ranks: each token has one rank")
        vocab = dict(zip(ranks.values(), ranks.keys(), strict=True))
        if len(vocab) != len(ranks):
            raise BpeError("two tokens share a rank: ranks must be distinct")
        if structure is None:
            structure = rank_structure(ranks)
        elif not isinstance(structure, RankStructure):
            raise TypeError(f"structure must be ranks.rank_structure(ranks) or None, not {type(structure).__name__}")
        tokenizer = cls.__new__(cls)
        # Ranks are tiktoken's: its rule (which needs no proof that tokens encode to themselves).
        tokenizer._build(
            vocab,
            structure.merges,
            special_tokens,
            pattern,
            name,
            None,
            None,
            self_encoding=None,
            rule="tiktoken",
            structure=structure,
        )
        return tokenizer

    @property
    def _merge_counts(self) -> list[int | None]:
        """Each merge's training count (None where unknown), listed once the merges are known."""
        self._counts = self._counts if self._counts is not None else [None] * self._model.merge_count
        return self._counts

    # ----------------------------------------------------------------------------------------------
    # properties

    @property
    def vocab(self) -> Mapping[int, bytes]:
        """Every id -> its bytes, special tokens included (as their UTF-8 bytes): a read-only view."""
        return MappingProxyType(self._vocab)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in rank order, as (left bytes, right bytes); for a Picky BPE tokenizer its merge
        events in order (a restored token's pair comes again; some results are removed by the end)."""
        return list(self._model.merges)

    @property
    def rule(self) -> str:
        """How a piece is encoded: ``"bpe"`` (the merges by rank), ``"tiktoken"`` (ids are tiktoken's
        ranks, see ``from_ranks``) or ``"picky"`` (Picky BPE's events replayed, see ``picky_events``)."""
        return self._model.rule

    @property
    def picky_events(self) -> list[Event]:
        """A Picky BPE tokenizer's merges and removals in training order, as ``(kind, token, parts)``
        (``bpe.picky_replay.Event``); empty for the other rules."""
        return list(self._model.events)

    def _refuse_for_picky(self, what: str) -> None:
        if self._model.rule == "picky":
            raise self._no_ranks(what)

    def _no_ranks(self, what: str) -> BpeError:
        return BpeError(
            f"{self.name!r} is a Picky BPE tokenizer: it has events, not ranked merges, so it has no {what}"
        )

    @property
    def merge_records(self) -> list[MergeRecord]:
        """Every merge with its rank, the ids involved and its training count (if known)."""
        self._refuse_for_picky("merge records (see picky_events)")
        t2i = self._token_to_id
        return [
            MergeRecord(rank, t2i[left], t2i[right], t2i[left + right], self._merge_counts[rank])
            for rank, (left, right) in enumerate(self._model.merges)
        ]

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_tokens)

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    @property
    def pattern(self) -> str | Pipeline | None:
        """The pre-tokenization regex source (None: no pre-splitting), or the ``Pipeline`` it was built with."""
        return self._pretokenizer.source

    @property
    def pattern_name(self) -> str | None:
        """``'gpt2'``, ``'cl100k'`` or ``'o200k'`` for presets, else None."""
        return preset_name(self._pretokenizer.source)

    @property
    def pretokenizer(self) -> PreTokenizer | StagedPreTokenizer:
        return self._pretokenizer

    @property
    def vocab_size(self) -> int:
        """The number of ids, special tokens included."""
        return len(self._vocab)

    @property
    def max_token_value(self) -> int:
        """The largest id, special tokens included (tiktoken's name)."""
        return self._max_token_id

    def __repr__(self) -> str:
        pattern = self.pattern_name or ("None" if self.pattern is None else "custom")
        return (
            f"<Tokenizer {self.name!r}: vocab_size={self.vocab_size}, merges={self._model.merge_count}, "
            f"special_tokens={len(self._special_tokens)}, pattern={pattern}>"
        )

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one id (a special token's UTF-8 bytes for its id). An id that is not an
        integer is a ``TypeError``; an unknown one a ``KeyError`` and a ``BpeError`` (see ``token_ids``)."""
        if type(token) is not int:
            token = token_ids.checked_id(token)
        try:
            return self._vocab[token]
        except KeyError:
            raise self._unknown_id(token) from None

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a token given whole as bytes or str (UTF-8 encoded), special tokens included;
        ``token_ids.UnknownTokenError`` (a ``BpeError`` and a ``KeyError``) if there is no such token."""
        if isinstance(text_or_bytes, str):
            encoded = text_or_bytes.encode("utf-8")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            encoded = bytes(text_or_bytes)
        else:
            raise TypeError(f"a token is given as str or bytes, not {type(text_or_bytes).__name__}: {text_or_bytes!r}")
        if encoded in self._token_to_id:
            return self._token_to_id[encoded]
        if encoded in self._special_bytes_to_id:
            return self._special_bytes_to_id[encoded]
        raise token_ids.UnknownTokenError(f"{text_or_bytes!r} is not a token of {self.name!r}")

    def merge_rank_of(self, token_id: int) -> int | None:
        """The rank of the merge that made ``token_id`` (None for single bytes and special tokens);
        an unknown id raises as in ``decode_single_token_bytes``."""
        if type(token_id) is not int:
            token_id = token_ids.checked_id(token_id)
        if token_id not in self._vocab:
            raise self._unknown_id(token_id)
        self._refuse_for_picky("merge ranks")
        return self._model.merge_rank_of(token_id)

    def is_special_token(self, token: int) -> bool:
        """Whether ``token`` is a special token's id (False for any other integer, even unknown)."""
        if type(token) is not int:
            token = token_ids.checked_id(token)
        return token in self._special_ids

    def _unknown_id(self, token_id: object) -> token_ids.UnknownTokenError:
        return token_ids.UnknownTokenError(
            token_ids.unknown_id_message(token_id, owner=self.name, max_id=self.max_token_value, count=self.vocab_size)
        )

    @property
    def tokens_encode_to_themselves(self) -> bool:
        """Whether every ordinary token's bytes encode to that one token (true of trained tokenizers,
        GPT-2 and cl100k; required by tiktoken, which emits a piece that is a token whole)."""
        return len(self._model.self_encoding) == len(self._token_to_id)

    @property
    def _late_merges(self) -> list[tuple[bytes, bytes]]:
        """The pairs tiktoken joins that are no BPE merge (a part needs a merge ranked after the token),
        in rank order; empty unless ``rule == "tiktoken"``."""
        return self._model.late_merges

    @property
    def whole_word_tokens(self) -> list[int]:
        """The ids of the tokens no two parts ever join: produced only when a whole pre-token equals
        them (tiktoken's rule); empty unless ``rule == "tiktoken"``."""
        return self._model.whole_word_ids

    def _applied_merge_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order (see ``bpe.PieceEncoder``)."""
        encoder = self._model.piece_encoder
        if isinstance(encoder, PickyPieceEncoder):
            raise self._no_ranks("merge ranks")
        return encoder.applied_ranks(piece)

    # ----------------------------------------------------------------------------------------------
    # encoding engines

    def _engine_facts(self) -> tiktoken_engine.EngineFacts:
        """What checking and building tiktoken's engine needs (computed only then: a pass over the vocab)."""
        return tiktoken_engine.engine_facts(self.name, self._pretokenizer, self._model)

    # ----------------------------------------------------------------------------------------------
    # derived views

    def truncated(self, num_merges: int) -> Tokenizer:
        """The tokenizer made of the first ``num_merges`` merges (BPE's merges form prefixes). Refused
        for Picky BPE: a prefix of its events is not what training a smaller vocabulary gives."""
        self._refuse_for_picky("prefix of merges to truncate to")
        if not isinstance(num_merges, int) or num_merges < 0:
            raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")
        vocab, merges, self_encoding = self._model.first_merges(num_merges)
        parts = self._parts()
        parts.update(
            vocab=vocab,
            merges=merges,
            name=f"{self.name}[:{len(merges)}]",
            merge_counts=self._merge_counts[: len(merges)],
            training=None,
            self_encoding=self_encoding,
            rule="bpe",
            structure=None,
        )
        return Tokenizer._rebuilt(parts)

    def vocab_dump(self) -> str:
        """A readable listing in minbpe's style: one line per token, merges as ``[left][right] -> [token]``."""
        return self._model.listing(self._special_tokens)

    def show(self, text: str, **options: Any) -> TokenView:
        """``text`` as this tokenizer cuts it: the workbench's token strip in Jupyter and VS Code, text
        in a terminal (``bpe_core.display.view.show``, whose keyword-only options it takes)."""
        from bpe_core.display.view import show  # on first use: import bpe_core stays light

        return show(self, text, **options)

    # ----------------------------------------------------------------------------------------------
    # bpe_core's JSON file, and tiktoken

    def _parts(self) -> dict[str, Any]:
        """What rebuilds this tokenizer without proving anything again (see ``_rebuilt``)."""
        return {
            "self_encoding": self._model.self_encoding,
            "vocab": self._vocab,
            "merges": self._model.merges,
            "special_tokens": self._special_tokens,
            "pattern": self._pattern_argument,
            "name": self.name,
            "merge_counts": self._merge_counts,
            "training": self.training,
            "rule": self._model.rule,
            "structure": self._model.structure,
            "events": self._model.events if self._model.rule == "picky" else None,
        }

    def to_json(self) -> str:
        """bpe_core's JSON file as text (lossless, with merge records and training metadata)."""
        return bpe_json.dumps(
            name=self.name,
            pattern=self.pattern,
            pattern_name=self.pattern_name,
            special_tokens=self.special_tokens,
            vocab=self._vocab,
            merges=[]
            if self._model.rule == "picky"
            else [(r.left, r.right, r.id, r.count) for r in self.merge_records],
            training=self.training,
            rule=self._model.rule,
            events=self._model.events,
        )

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> Tokenizer:
        """Parse ``to_json``'s text; a corrupt one is a ValueError naming ``source`` and the place."""
        parts = bpe_json.loads(text, source=source)
        try:
            return cls(**parts)
        except (ValueError, TypeError) as exc:
            raise BpeError(f"{source} is not a valid bpe_core tokenizer: {exc}") from None

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
        """Write bpe_core's JSON file, atomically. With ``overwrite=False`` an existing file is left
        alone and ``FileExistsError`` raised (exclusive even against another writer at that moment)."""
        if not isinstance(overwrite, bool):
            raise TypeError(f"overwrite must be True or False, not {type(overwrite).__name__}")
        try:
            write_atomic(path, self.to_json(), overwrite=overwrite)
        except FileExistsError:
            raise FileExistsError(
                f"{os.fspath(path)!r} exists: pass overwrite=True to replace it, or choose another path"
            ) from None

    @classmethod
    def from_tiktoken(cls, encoding: Any, *, name: str | None = None) -> Tokenizer:
        """The same tokenizer as a ``tiktoken.Encoding`` (merges recovered from its ranks)."""
        try:
            ranks = encoding._mergeable_ranks
            specials = encoding._special_tokens
            pattern = encoding._pat_str
        except AttributeError:
            raise TypeError(f"expected a tiktoken.Encoding, got {type(encoding).__name__}") from None
        return cls.from_ranks(
            ranks, special_tokens=dict(specials), pattern=preset_name(pattern) or pattern, name=name or encoding.name
        )

    def to_tiktoken(self, *, name: str | None = None) -> tiktoken.Encoding:
        """A ``tiktoken.Encoding`` with the same ids on every input (fast bulk encoding); ValueError
        when tiktoken cannot express this tokenizer (see ``tiktoken_engine``)."""
        if self._model.rule == "picky":
            raise BpeError(f"cannot make a tiktoken.Encoding of {self.name!r}: {_PICKY_ENGINE}")
        facts = self._engine_facts()
        return tiktoken_engine.to_encoding(
            name=name or self.name,
            pattern=self._pretokenizer.full_source,
            ranks=facts.ranks,
            special_tokens=self.special_tokens,
            merged_ids=facts.merged_ids,
            not_self_encoding=facts.not_self_encoding,
        )

    @classmethod
    def _rebuilt(cls, parts: dict[str, Any]) -> Tokenizer:
        tokenizer = cls.__new__(cls)
        parts = dict(parts)
        self_encoding = parts.pop("self_encoding")
        tokenizer._build(**parts, self_encoding=self_encoding)
        return tokenizer
