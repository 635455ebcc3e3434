"""What a tokenizer encodes and decodes with: a ``Codec`` holds its BPE model (``bpe.model.BpeModel``),
its pre-tokenizer, its special tokens and its engines (``engines.Engines``), and does the work of every
encoding and decoding method of ``Tokenizer``: its tiktoken surface
(``tiktoken_surface.TiktokenEncoding``) is a thin layer over it.

Encoding checks tiktoken's special-token rules, cuts the special tokens out and hands ordinary text to
the engine ``Engines`` picks; batches go through ``batch``, streams through ``streaming``, per-token
detail through ``details``, BPE-dropout through ``dropout``. Decoding looks ids up with the checks of
``bpe.token_ids``. This module reads or writes no file, trains nothing, and knows nothing of a
tokenizer's training record or merge counts (the ``Tokenizer``'s).

>>> from bpe_core.bpe.model import BpeModel
>>> model = BpeModel({**{b: bytes([b]) for b in range(256)}, 256: b"ab"}, [(b"a", b"b")], special_ids=())
>>> codec = Codec(model, {}, "gpt2", name="tiny")
>>> codec.encode("abc", allowed_special=frozenset(), disallowed_special="all"), codec.decode_bytes([256, 99])
([256, 99], b'abc')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from bpe_core.bpe import token_ids
from bpe_core.bpe.fast import PieceEncoder
from bpe_core.bpe.model import BpeModel, gc_paused
from bpe_core.bpe.picky_replay import Event
from bpe_core.bpe.ranks import RankStructure, rank_structure, vocab_of_ranks
from bpe_core.bpe.tokens import MergeRecord, TokenInfo
from bpe_core.bpe.vocabulary import check_vocab, resolve_special_tokens
from bpe_core.encoding import tiktoken_engine
from bpe_core.encoding.details import last_piece, token_details
from bpe_core.encoding.encoder import TextEncoder
from bpe_core.encoding.engines import Engines, encode_text, surrogate_safe
from bpe_core.encoding.streaming import encode_stream
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates, safe_cut_regex
from bpe_core.pretokenization.special_tokens import SpecialTokens, SpecialTokenTable, allowed_and_disallowed
from bpe_core.pretokenization.stages import Pipeline, build_pretokenizer

if TYPE_CHECKING:
    import tiktoken

#: Why tiktoken's engine (and its file) cannot encode a Picky BPE tokenizer.
PICKY_ENGINE = (
    "a Picky BPE tokenizer encodes by replaying its merge and removal events, and tiktoken's engine only merges by rank"
)


class Codec:
    """A tokenizer's model, pre-tokenizer, special tokens and engines, and the encoding and decoding
    done with them (see the module docstring). ``name`` names the tokenizer in messages; ``pattern`` is
    the pre-tokenization as given (a preset's name, a regex, a ``Pipeline`` or None)."""

    def __init__(
        self, model: BpeModel, special_tokens: dict[str, int], pattern: str | Pipeline | None, *, name: str
    ) -> None:
        self.name = name
        self.model = model
        self.vocab = model.vocab  # every id, the special tokens' UTF-8 bytes included
        self.token_to_id = model.token_to_id  # the ordinary tokens only
        self.max_token_id = max(self.vocab)
        self.special_tokens = special_tokens
        self.special_ids = frozenset(special_tokens.values())
        self.special_bytes_to_id = {token.encode("utf-8"): i for token, i in special_tokens.items()}
        self.specials = SpecialTokenTable(special_tokens)
        self.pattern = pattern
        self.pretokenizer = build_pretokenizer(pattern)
        # TextEncoder only calls the piece encoder's ``encode``, which Picky BPE's replaying one has too.
        pieces = cast("PieceEncoder", model.piece_encoder)
        self.text_encoder = TextEncoder(self.pretokenizer, pieces, model.whole_piece_lookup())
        self.engines = Engines(
            self.text_encoder,
            self.engine_facts,
            vocabulary_size=len(model.token_to_id),
            rule_obstacle=PICKY_ENGINE if model.rule == "picky" else None,
        )
        self._sorted_tokens: list[tuple[bytes, int]] | None = None

    @classmethod
    def build(
        cls,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Mapping[str, int] | Sequence[str],
        pattern: str | Pipeline | None,
        *,
        name: str,
        rule: str = "bpe",
        structure: RankStructure | None = None,
        self_encoding: frozenset[int] | None = None,
        events: Sequence[Event] | None = None,
    ) -> Codec:
        """The vocabulary, merges and special tokens checked and the model built (see ``BpeModel`` for
        ``rule``, ``structure``, ``self_encoding``, ``events``); BpeError naming what is wrong."""
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
            return cls(model, specials, pattern, name=name)

    def parts(self) -> dict[str, Any]:
        """What ``build`` takes to make this codec again without proving anything again (``rebuilt``)."""
        model = self.model
        return {
            "vocab": self.vocab,
            "merges": model.merges,
            "special_tokens": self.special_tokens,
            "pattern": self.pattern,
            "name": self.name,
            "rule": model.rule,
            "structure": model.structure,
            "self_encoding": model.self_encoding,
            "events": model.events if model.rule == "picky" else None,
        }

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int] | Iterable[tuple[bytes, int]],
        special_tokens: Mapping[str, int] | Sequence[str],
        pattern: str | Pipeline | None,
        *,
        name: str,
        structure: RankStructure | None,
    ) -> Codec:
        """The codec of tiktoken-style ranks, on tiktoken's rule (see ``Tokenizer.from_ranks``)."""
        ranks, vocab = vocab_of_ranks(ranks)
        if structure is None:
            structure = rank_structure(ranks)
        elif not isinstance(structure, RankStructure):
            raise TypeError(f"structure must be ranks.rank_structure(ranks) or None, not {type(structure).__name__}")
        return cls.build(
            vocab, structure.merges, special_tokens, pattern, name=name, rule="tiktoken", structure=structure
        )

    def first_merges(self, num_merges: int, *, name: str) -> Codec:
        """The codec of the first ``num_merges`` merges under BPE's rule (their prefix of the vocab)."""
        vocab, merges, self_encoding = self.model.first_merges(num_merges)
        parts = self.parts()
        parts.update(vocab=vocab, merges=merges, name=name, rule="bpe", structure=None, self_encoding=self_encoding)
        return Codec.rebuilt(parts)

    @classmethod
    def rebuilt(cls, parts: Mapping[str, Any]) -> Codec:
        parts = dict(parts)
        return cls.build(parts.pop("vocab"), parts.pop("merges"), parts.pop("special_tokens"), **parts)

    def engine_facts(self) -> tiktoken_engine.EngineFacts:
        """What checking and building tiktoken's engine needs (computed only then: a pass over the vocab)."""
        return tiktoken_engine.engine_facts(self.name, self.pretokenizer, self.model)

    def ranked_model(self, what: str) -> BpeModel:
        """The model, when it has ranked merges; for Picky BPE a BpeError saying it has no ``what``."""
        if self.model.rule == "picky":
            raise BpeError(
                f"{self.name!r} is a Picky BPE tokenizer: it has events, not ranked merges, so it has no {what}"
            )
        return self.model

    def merge_records(self, counts: Sequence[int | None]) -> list[MergeRecord]:
        """Every merge with its rank, the ids involved and its count in ``counts``."""
        merges, t2i = self.ranked_model("merge records (see picky_events)").merges, self.token_to_id
        return [
            MergeRecord(rank, t2i[left], t2i[right], t2i[left + right], counts[rank])
            for rank, (left, right) in enumerate(merges)
        ]

    def applied_merge_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order (see ``bpe.PieceEncoder``)."""
        return cast("PieceEncoder", self.ranked_model("merge ranks").piece_encoder).applied_ranks(piece)

    def to_tiktoken(self, name: str) -> tiktoken.Encoding:
        """A ``tiktoken.Encoding`` with the same ids on every input (see ``tiktoken_engine``)."""
        if self.model.rule == "picky":
            raise BpeError(f"cannot make a tiktoken.Encoding of {self.name!r}: {PICKY_ENGINE}")
        facts = self.engine_facts()
        return tiktoken_engine.to_encoding(
            name=name,
            pattern=self.pretokenizer.full_source,
            ranks=facts.ranks,
            special_tokens=dict(self.special_tokens),
            merged_ids=facts.merged_ids,
            not_self_encoding=facts.not_self_encoding,
        )

    # ----------------------------------------------------------------------------------------------
    # encoding

    def encode_ordinary(self, text: str, *, engine: str | None = None, num_threads: float = 8) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        check_num_threads(num_threads)
        return self._encode_text(self.engines.ordinary(engine, len(text)), text, num_threads)

    def _encode_text(self, encode: Callable[[str], list[int]], text: str, num_threads: float) -> list[int]:
        """``encode(text)``, shared out over threads when long and on tiktoken's whole-text engine."""
        return encode_text(
            encode,
            text,
            pretokenizer=self.pretokenizer,
            num_threads=num_threads,
            whole_text=self.engines.is_whole_text(encode),
        )

    def allowed_and_disallowed(
        self, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[set[str], set[str]]:
        """tiktoken's ``allowed_special``/``disallowed_special`` as two sets of this codec's special tokens."""
        return allowed_and_disallowed(
            allowed_special, disallowed_special, specials=self.special_tokens, owner=self.name
        )

    def _allowed_regex(self, allowed: set[str]) -> re.Pattern[str] | None:
        return self.specials.regex_for(allowed)

    def _segments(self, text: str, allowed: set[str]) -> Iterator[tuple[str, bool]]:
        return self.specials.segments(text, allowed)

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialTokens,
        disallowed_special: SpecialTokens,
        engine: str | None = None,
        num_threads: float = 8,
    ) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        check_num_threads(num_threads)
        allowed, disallowed = self.allowed_and_disallowed(allowed_special, disallowed_special)
        self.specials.disallowed_check(disallowed)(text)
        encode = self.engines.ordinary(engine, len(text))
        if not allowed:
            return self._encode_text(encode, text, num_threads)
        out: list[int] = []
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                out.append(self.special_tokens[segment])
            else:
                out.extend(self._encode_text(encode, segment, num_threads))
        return out

    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        allowed_special: SpecialTokens,
        disallowed_special: SpecialTokens,
        workers: int | None,
        engine: str | None,
        num_threads: float,
    ) -> list[list[int]]:
        from bpe_core.encoding import batch  # worker processes and threads: imported when a batch comes

        check_num_threads(num_threads)
        allowed, disallowed = self.allowed_and_disallowed(allowed_special, disallowed_special)
        parts, layouts = batch.plan(
            texts,
            special_regex=self._allowed_regex(allowed) if allowed else None,
            special_ids=self.special_tokens,
            cut_regex=safe_cut_regex(self.pretokenizer.source),
            check=self.specials.disallowed_check(disallowed),
        )
        engine = tiktoken_engine.check_engine(engine)
        encode = self.engines.ordinary(engine, sum(map(len, parts)))
        part_ids = batch.encode_parts(
            parts,
            encode_ordinary=partial(surrogate_safe, encode),
            workers=workers,
            rebuild=_engine_encoder_of,
            state=(self.parts(), engine),
            threads=batch.thread_count(num_threads) if self.engines.is_whole_text(encode) else 1,
        )
        return batch.assemble(layouts, part_ids)

    def encode_iterable(
        self, texts: Iterable[str], *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> Iterator[int]:
        allowed, disallowed = self.allowed_and_disallowed(allowed_special, disallowed_special)
        return encode_stream(
            texts,
            pretokenizer=self.pretokenizer,
            special_regex=self._allowed_regex(allowed),
            special_tokens=self.special_tokens,
            disallowed=disallowed,
            encode_piece=self.engines.piece_function(0),
            encode_ordinary=self.encode_ordinary,
        )

    def encode_with_details(
        self, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> list[TokenInfo]:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        text = replace_surrogates(text)
        allowed, disallowed = self.allowed_and_disallowed(allowed_special, disallowed_special)
        self.specials.disallowed_check(disallowed)(text)
        return token_details(
            self._segments(text, allowed),
            pretokenizer=self.pretokenizer,
            special_tokens=self.special_tokens,
            vocab=self.vocab,
            encode_piece=self.engines.piece_function(len(text)),  # bpe_core splits: spans
        )

    def encode_with_last_piece(
        self, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[list[int], int]:
        """``encode``'s ids and how many of them the last pre-token made (0 when the text is empty or
        ends with a special token): where ``tiktoken_surface.unstable_split`` starts."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        allowed, _ = self.allowed_and_disallowed(allowed_special, disallowed_special)
        piece = last_piece(self._segments(replace_surrogates(text), allowed), self.pretokenizer)
        return ids, len(self.engines.piece_function(0)(piece)) if piece is not None else 0

    def bpe_bytes(self, data: bytes) -> tuple[int, ...]:
        """BPE on ``data`` as one piece, with no pre-tokenization."""
        return self.model.piece_encoder.encode(data)

    def token_id(self, text_or_bytes: str | bytes) -> int:
        """The id of a token given whole as bytes or str (UTF-8 encoded), special tokens included;
        ``token_ids.UnknownTokenError`` if there is no such token."""
        if isinstance(text_or_bytes, str):
            encoded = text_or_bytes.encode("utf-8")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            encoded = bytes(text_or_bytes)
        else:
            raise TypeError(f"a token is given as str or bytes, not {type(text_or_bytes).__name__}: {text_or_bytes!r}")
        found = self.token_to_id.get(encoded, self.special_bytes_to_id.get(encoded))
        if found is None:
            raise token_ids.UnknownTokenError(f"{text_or_bytes!r} is not a token of {self.name!r}")
        return found

    def sorted_tokens(self) -> list[tuple[bytes, int]]:
        """(bytes, id) of every ordinary token, sorted by bytes; computed once."""
        if self._sorted_tokens is None:
            self._sorted_tokens = sorted(self.token_to_id.items())
        return self._sorted_tokens

    # ----------------------------------------------------------------------------------------------
    # decoding

    def token_bytes(self, token: int) -> bytes:
        """The bytes of one id; bad ids raise as ``token_ids`` says."""
        if type(token) is not int:
            token = token_ids.checked_id(token)
        try:
            return self.vocab[token]
        except KeyError:
            raise self.unknown_id(token) from None

    def bytes_of_ids(self, tokens: Iterable[int]) -> Sequence[bytes]:
        """The bytes of each id; the first bad one raises, named with its position (``token_ids``)."""
        ids = token_ids.id_list(tokens)
        if len(ids) > 1 and token_ids.plain_ids(ids):
            try:
                # One C call looks every id up: with the type check, as fast as decoding was without it.
                return itemgetter(*ids)(self.vocab)
            except KeyError:
                pass  # an unknown id: found and named below
        checked = token_ids.checked_ids(ids, self.vocab, unknown=self.unknown_id)
        return list(map(self.vocab.__getitem__, checked))

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        return b"".join(self.bytes_of_ids(tokens))

    def unknown_id(self, token_id: object) -> token_ids.UnknownTokenError:
        """The error naming an id this codec does not have."""
        return token_ids.UnknownTokenError(
            token_ids.unknown_id_message(token_id, owner=self.name, max_id=self.max_token_id, count=len(self.vocab))
        )


def check_num_threads(num_threads: object) -> None:
    """tiktoken's ``num_threads`` (None or a count above 0). How many threads bpe_core uses follows
    from it (at most one per CPU); ``workers=`` sets worker processes."""
    if num_threads is None:
        return
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, float)):
        raise TypeError(f"num_threads must be a number above 0, not {num_threads!r}")
    if num_threads <= 0:
        raise BpeError(f"num_threads must be greater than 0, got {num_threads!r}")


def _engine_encoder_of(state: tuple[dict[str, Any], str]) -> Callable[[str], list[int]]:
    """A worker's ``encode_ordinary`` with the engine its batch asked for (see ``batch``): the codec
    rebuilt from its parts."""
    parts, engine = state
    return partial(Codec.rebuilt(parts).encode_ordinary, engine=engine)
