"""The byte-level BPE ``Tokenizer``: a ``Codec`` (its model, pre-tokenizer, special tokens and engines;
``encoding.codec``) under tiktoken's whole ``Encoding`` surface (``encoding.tiktoken_surface``, a thin
layer over the codec), with bpe_core's own views of its tokens and merges, its training record, the
tokenizers derived from it, and bpe_core's own file and tiktoken's ``Encoding`` in and out.

Encoding follows GPT-2's original encoder: split off special tokens, pre-tokenize with the regex,
turn each piece into its bytes and repeatedly apply the merge with the lowest rank among the
adjacent pairs (all its occurrences, left to right, without overlap) until none applies; a Picky BPE
tokenizer (``rule="picky"``) replays its training events instead (``bpe.picky_replay``). The parts are
checked and the BPE stage held by ``bpe.model.BpeModel``; the codec encodes and decodes.

This module does not train (see ``bpe_core.training``) and reads or writes only bpe_core's own JSON
file (through ``formats.bpe_json``); other tools' formats are in ``bpe_core.formats``.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from bpe_core.bpe import token_ids
from bpe_core.bpe.picky_replay import Event
from bpe_core.bpe.ranks import RankStructure
from bpe_core.bpe.tokens import MergeRecord
from bpe_core.encoding.codec import Codec
from bpe_core.encoding.tiktoken_surface import TiktokenEncoding
from bpe_core.errors import BpeError
from bpe_core.formats import bpe_json
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name
from bpe_core.pretokenization.stages import Pipeline, StagedPreTokenizer
from bpe_core.safe_io import write_atomic

if TYPE_CHECKING:
    import tiktoken

    from bpe_core.bpe.model import BpeModel
    from bpe_core.display.view import TokenView
    from bpe_core.encoding.encoder import TextEncoder
    from bpe_core.encoding.engines import Engines


class Tokenizer(TiktokenEncoding):
    """A byte-level BPE tokenizer: a vocabulary of byte strings, ranked merges, special tokens and a
    pre-tokenization pattern.

    Any id layout works: ids need not put the single bytes at 0..255 (GPT-2 does not). A piece whose
    text is a token that encodes to itself (see ``bpe.self_encoding_ids``, proved on first use)
    is looked up whole instead of merged. It is also a drop-in for ``tiktoken.Encoding``: every name
    of tiktoken's takes tiktoken's arguments and gives its results (``TiktokenEncoding``, over the
    tokenizer's ``codec``).

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
        codec = Codec.build(vocab, merges, special_tokens, pattern, name=name, rule=rule, events=events)
        self._adopt(codec, merge_counts, training)

    def _adopt(
        self, codec: Codec, merge_counts: Sequence[int | None] | None, training: Mapping[str, object] | None
    ) -> None:
        if merge_counts is not None and codec.model.rule == "picky":
            raise BpeError("a Picky BPE tokenizer has no merge_counts (its counts are in training['picky_events'])")
        if merge_counts is not None and len(merge_counts) != codec.model.merge_count:
            raise BpeError(f"merge_counts has {len(merge_counts)} entries for {codec.model.merge_count} merges")
        super().__init__(codec)
        self.training: dict[str, object] = dict(training) if training else {}
        self._counts = list(merge_counts) if merge_counts is not None else None  # None: unknown (_merge_counts)

    @classmethod
    def _around(
        cls,
        codec: Codec,
        merge_counts: Sequence[int | None] | None = None,
        training: Mapping[str, object] | None = None,
    ) -> Tokenizer:
        tokenizer = cls.__new__(cls)
        tokenizer._adopt(codec, merge_counts, training)
        return tokenizer

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
        return cls._around(Codec.from_ranks(ranks, special_tokens, pattern, name=name, structure=structure))

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> Tokenizer:
        """Parse ``to_json``'s text; a corrupt one is a ValueError naming ``source`` and the place."""
        parts = bpe_json.loads(text, source=source)
        try:
            return cls(**parts)
        except (ValueError, TypeError) as exc:
            raise BpeError(f"{source} is not a valid bpe_core tokenizer: {exc}") from None

    @classmethod
    def from_tiktoken(cls, encoding: Any, *, name: str | None = None) -> Tokenizer:
        """The same tokenizer as a ``tiktoken.Encoding`` (merges recovered from its ranks)."""
        try:
            ranks, specials, pattern = encoding._mergeable_ranks, encoding._special_tokens, encoding._pat_str
        except AttributeError:
            raise TypeError(f"expected a tiktoken.Encoding, got {type(encoding).__name__}") from None
        pattern = preset_name(pattern) or pattern
        return cls.from_ranks(ranks, special_tokens=dict(specials), pattern=pattern, name=name or encoding.name)

    # ----------------------------------------------------------------------------------------------
    # what it holds

    @property
    def vocab(self) -> Mapping[int, bytes]:
        """Every id -> its bytes, special tokens included (as their UTF-8 bytes): a read-only view."""
        return MappingProxyType(self._codec.vocab)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in rank order, as (left bytes, right bytes); for a Picky BPE tokenizer its merge
        events in order (a restored token's pair comes again; some results are removed by the end)."""
        return list(self._codec.model.merges)

    @property
    def rule(self) -> str:
        """How a piece is encoded: ``"bpe"`` (the merges by rank), ``"tiktoken"`` (ids are tiktoken's
        ranks, see ``from_ranks``) or ``"picky"`` (Picky BPE's events replayed, see ``picky_events``)."""
        return self._codec.model.rule

    @property
    def picky_events(self) -> list[Event]:
        """A Picky BPE tokenizer's merges and removals in training order, as ``(kind, token, parts)``
        (``bpe.picky_replay.Event``); empty for the other rules."""
        return list(self._codec.model.events)

    @property
    def pattern(self) -> str | Pipeline | None:
        """The pre-tokenization regex source (None: no pre-splitting), or the ``Pipeline`` it was built with."""
        return self._codec.pretokenizer.source

    @property
    def pattern_name(self) -> str | None:
        """``'gpt2'``, ``'cl100k'`` or ``'o200k'`` for presets, else None."""
        return preset_name(self._codec.pretokenizer.source)

    @property
    def pretokenizer(self) -> PreTokenizer | StagedPreTokenizer:
        return self._codec.pretokenizer

    @property
    def vocab_size(self) -> int:
        """The number of ids, special tokens included."""
        return len(self._codec.vocab)

    def __repr__(self) -> str:
        pattern = self.pattern_name or ("None" if self.pattern is None else "custom")
        return (
            f"<Tokenizer {self.name!r}: vocab_size={self.vocab_size}, merges={self._codec.model.merge_count}, "
            f"special_tokens={len(self._codec.special_tokens)}, pattern={pattern}>"
        )

    # ----------------------------------------------------------------------------------------------
    # its tokens and merges

    @property
    def merge_records(self) -> list[MergeRecord]:
        """Every merge with its rank, the ids involved and its training count (if known)."""
        return self._codec.merge_records(self._merge_counts)

    def merge_rank_of(self, token_id: int) -> int | None:
        """The rank of the merge that made ``token_id`` (None for single bytes and special tokens);
        an unknown id raises as in ``decode_single_token_bytes``."""
        if type(token_id) is not int:
            token_id = token_ids.checked_id(token_id)
        self._codec.token_bytes(token_id)  # an unknown id raises
        return self._codec.ranked_model("merge ranks").merge_rank_of(token_id)

    @property
    def tokens_encode_to_themselves(self) -> bool:
        """Whether every ordinary token's bytes encode to that one token (true of trained tokenizers,
        GPT-2 and cl100k; required by tiktoken, which emits a piece that is a token whole)."""
        return len(self._codec.model.self_encoding) == len(self._codec.token_to_id)

    @property
    def whole_word_tokens(self) -> list[int]:
        """The ids of the tokens no two parts ever join: produced only when a whole pre-token equals
        them (tiktoken's rule); empty unless ``rule == "tiktoken"``."""
        return self._codec.model.whole_word_ids

    def truncated(self, num_merges: int) -> Tokenizer:
        """The tokenizer made of the first ``num_merges`` merges (BPE's merges form prefixes). Refused
        for Picky BPE: a prefix of its events is not what training a smaller vocabulary gives."""
        self._codec.ranked_model("prefix of merges to truncate to")
        if not isinstance(num_merges, int) or num_merges < 0:
            raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")
        kept = min(num_merges, self._codec.model.merge_count)
        codec = self._codec.first_merges(kept, name=f"{self.name}[:{kept}]")
        return Tokenizer._around(codec, self._merge_counts[:kept])

    def vocab_dump(self) -> str:
        """A readable listing in minbpe's style: one line per token, merges as ``[left][right] -> [token]``."""
        return self._codec.model.listing(self._codec.special_tokens)

    def show(self, text: str, **options: Any) -> TokenView:
        """``text`` as this tokenizer cuts it: the workbench's token strip in Jupyter and VS Code, text
        in a terminal (``bpe_core.display.view.show``, whose keyword-only options it takes)."""
        from bpe_core.display.view import show  # on first use: import bpe_core stays light

        return show(self, text, **options)

    # ----------------------------------------------------------------------------------------------
    # bpe_core's JSON file, and tiktoken

    def to_json(self) -> str:
        """bpe_core's JSON file as text (lossless, with merge records and training metadata)."""
        picky = self._codec.model.rule == "picky"
        return bpe_json.dumps(
            name=self.name,
            pattern=self.pattern,
            pattern_name=self.pattern_name,
            special_tokens=self.special_tokens,
            vocab=self._codec.vocab,
            merges=[] if picky else [(r.left, r.right, r.id, r.count) for r in self.merge_records],
            training=self.training,
            rule=self._codec.model.rule,
            events=self._codec.model.events,
        )

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

    def to_tiktoken(self, *, name: str | None = None) -> tiktoken.Encoding:
        """A ``tiktoken.Encoding`` with the same ids on every input (fast bulk encoding); ValueError
        when tiktoken cannot express this tokenizer (see ``tiktoken_engine``)."""
        return self._codec.to_tiktoken(name or self.name)

    def __copy__(self) -> Tokenizer:
        """A shallow copy whose codec is a shallow copy too (model, engines and caches shared), so
        that renaming the copy (``name``, which the codec keeps for its messages) leaves this one's."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._codec = copy.copy(self._codec)
        return twin

    # ----------------------------------------------------------------------------------------------
    # internals: rebuilding in another process, and the parts under the names callers read

    def _parts(self) -> dict[str, Any]:
        """What rebuilds this tokenizer without proving anything again (see ``_rebuilt``)."""
        return {**self._codec.parts(), "merge_counts": self._merge_counts, "training": self.training}

    @classmethod
    def _rebuilt(cls, parts: dict[str, Any]) -> Tokenizer:
        parts = dict(parts)
        merge_counts, training = parts.pop("merge_counts"), parts.pop("training")
        return cls._around(Codec.rebuilt(parts), merge_counts, training)

    @property
    def _merge_counts(self) -> list[int | None]:
        """Each merge's training count (None where unknown), listed once the merges are known."""
        self._counts = self._counts if self._counts is not None else [None] * self._codec.model.merge_count
        return self._counts

    def _applied_merge_ranks(self, piece: bytes) -> list[int]:
        return self._codec.applied_merge_ranks(piece)

    @property
    def _late_merges(self) -> list[tuple[bytes, bytes]]:
        """The pairs tiktoken joins that are no BPE merge (a part needs a merge ranked after the token),
        in rank order; empty unless ``rule == "tiktoken"``."""
        return self._codec.model.late_merges

    # The codec's parts under the names tests and the app read.

    @property
    def _model(self) -> BpeModel:
        return self._codec.model

    @property
    def _engines(self) -> Engines:
        return self._codec.engines

    @property
    def _engine_obstacle(self) -> str | None:
        """Why ``engine="tiktoken"`` is refused for this tokenizer, or None when it is not."""
        return self._codec.engines.obstacle

    @property
    def _text_encoder(self) -> TextEncoder:
        return self._codec.text_encoder

    @property
    def _token_to_id(self) -> Mapping[bytes, int]:
        return self._codec.token_to_id

    @property
    def _pattern_argument(self) -> str | Pipeline | None:
        return self._codec.pattern
