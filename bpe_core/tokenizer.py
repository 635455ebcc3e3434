"""The byte-level BPE ``Tokenizer``: checked parts; encoding, decoding and per-token detail.

Encoding follows GPT-2's original encoder: split off special tokens, pre-tokenize with the regex,
turn each piece into its bytes and repeatedly apply the merge with the lowest rank among the
adjacent pairs (all its occurrences, left to right, without overlap) until none applies. The
algorithm is in ``bpe``, the caches that make it fast in ``encoder``, batches over worker processes
in ``batch``, the checks of the parts in ``vocabulary`` and of ids from callers in ``token_ids``,
and the rest of ``tiktoken.Encoding``'s surface in ``tiktoken_compat``; this class ties them together.

This module does not train (see ``training``) and reads or writes only bpe_core's own JSON file
(through ``bpe_json``); other tools' formats are in ``formats``. It knows about no UI.
"""

from __future__ import annotations

from bpe_core.errors import BpeError

# long on purpose: the public class, whose many short methods each delegate to a module of one job.

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from types import MappingProxyType
from operator import itemgetter
from typing import Any

from bpe_core.encoding import batch

from bpe_core.formats import bpe_json

from bpe_core.encoding import tiktoken_engine as tiktoken_bridge

from bpe_core.bpe import token_ids
from bpe_core.bpe.fast import PieceEncoder, TiktokenPieceEncoder, self_encoding_ids
from bpe_core.encoding.encoder import NativePieces, TextEncoder
from bpe_core.bpe.ranks import RankStructure, rank_structure, tiktoken_rule_parts
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name, replace_surrogates, safe_cut_regex, stream_pieces
from bpe_core.pretokenization.stages import Pipeline, StagedPreTokenizer, build_pretokenizer
from bpe_core.pretokenization.special_tokens import (
    SpecialTokens,
    allowed_and_disallowed,
    check_disallowed,
    special_token_regex,
    split_on_special_tokens,
)
from bpe_core.encoding.tiktoken_surface import TiktokenSurface, check_num_threads
from bpe_core.bpe.tokens import MergeRecord, TokenInfo, piece_token_infos, token_display
from bpe_core.bpe.vocabulary import check_vocab, index_tokens, rank_merges, resolve_special_tokens


class Tokenizer(TiktokenSurface):
    """A byte-level BPE tokenizer: a vocabulary of byte strings, ranked merges, special tokens and a
    pre-tokenization pattern.

    Any id layout works: ids need not put the single bytes at 0..255 (GPT-2 does not). A piece whose
    text is a token that encodes to itself (see ``bpe.self_encoding_ids``, proved at construction)
    is looked up whole instead of merged. It is also a drop-in for ``tiktoken.Encoding``: the methods
    with tiktoken's names take tiktoken's arguments (the rest of that surface is ``TiktokenSurface``).
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
    ) -> None:
        self._build(vocab, merges, special_tokens, pattern, name, merge_counts, training, self_encoding=None, rule=rule)

    def _build(
        self, vocab, merges, special_tokens, pattern, name, merge_counts, training, *, self_encoding,
        rule="bpe", structure=None,
    ) -> None:
        """The constructor's work; ``self_encoding`` is the proved set when already known (the
        tokenizer this one was derived from proved it), else None to prove it here. ``rule`` is
        ``"tiktoken"`` for ranks holding late merges or whole-word tokens (see ``ranks``; ``structure``
        when already recovered)."""
        full_vocab = check_vocab(vocab)
        specials = resolve_special_tokens(special_tokens, full_vocab)
        token_to_id = index_tokens(full_vocab, set(specials.values()))
        pair_rank, merge_list = rank_merges(merges, token_to_id)
        structure, late = tiktoken_rule_parts(rule, token_to_id, merge_list, structure)
        if merge_counts is not None and len(merge_counts) != len(merge_list):
            raise BpeError(f"merge_counts has {len(merge_counts)} entries for {len(merge_list)} merges")
        self.name = name
        self.training: dict[str, object] = dict(training) if training else {}
        self._vocab = full_vocab
        self._merges = merge_list
        self._merge_counts = list(merge_counts) if merge_counts is not None else [None] * len(merge_list)
        self._special_tokens = specials
        self._special_ids = frozenset(specials.values())
        self._max_token_id = max(full_vocab)
        self._special_bytes_to_id = {t.encode("utf-8"): i for t, i in specials.items()}
        self._special_regex = special_token_regex(specials)
        self._token_to_id = token_to_id
        self._pair_rank = pair_rank
        self._rank_by_id: dict[int, int] | None = None
        self._pattern_argument = pattern
        self._pretokenizer = build_pretokenizer(pattern)
        self._rule = rule
        self._structure = structure
        byte_ids = [token_to_id[bytes([b])] for b in range(256)]
        self._piece_encoder = TiktokenPieceEncoder(pair_rank, late, byte_ids) if late else PieceEncoder(pair_rank, byte_ids)
        if self_encoding is None and rule == "tiktoken":
            self_encoding = frozenset(token_to_id.values())  # tiktoken looks every piece up whole first
        elif self_encoding is None:
            self_encoding = frozenset(self_encoding_ids(pair_rank, byte_ids))
        self._self_encoding = self_encoding
        self._bpe_self_encoding: frozenset[int] | None = self_encoding if rule == "bpe" else None
        self._text_encoder = TextEncoder(self._pretokenizer, self._piece_encoder, self._whole_pieces())
        # tiktoken's compiled engine, checked and built only when text enough to pay for it comes.
        self._native = tiktoken_bridge.NativeEngine(tiktoken_bridge.BUILD_CHARS_PER_TOKEN * len(token_to_id))

    def _whole_pieces(self) -> dict[str, tuple[int]]:
        """Piece text -> (id,) for the tokens that encode to themselves and are whole UTF-8 text."""
        whole: dict[str, tuple[int]] = {}
        for token_id in self._self_encoding:
            try:
                whole[self._vocab[token_id].decode("utf-8")] = (token_id,)
            except UnicodeDecodeError:  # a partial character is never a piece
                pass
        return whole

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        *,
        special_tokens: Mapping[str, int] | Sequence[str] = (),
        pattern: str | None = "gpt2",
        name: str = "tokenizer",
        structure: RankStructure | None = None,
    ) -> Tokenizer:
        """A tokenizer from tiktoken-style ranks (token bytes -> rank, the rank doubling as the id). The
        merges are recovered (``ranks.rank_structure``) and the tokenizer follows ``rule="tiktoken"``:
        every piece that is a token whole, then the merges and late merges by rank. For ranks that are
        a merge list (GPT-2, cl100k, o200k) that is BPE with the merges; Llama 3 and Qwen 3.5 also
        hold late merges and whole-word tokens, which only this rule produces as tiktoken does.
        ``structure`` is ``rank_structure(ranks)`` when the caller has it already (a cache)."""
        vocab = {rank: token for token, rank in ranks.items()}
        if len(vocab) != len(ranks):
            raise BpeError("two tokens share a rank: ranks must be distinct")
        if structure is None:
            structure = rank_structure(ranks)
        elif not isinstance(structure, RankStructure):
            raise TypeError(f"structure must be ranks.rank_structure(ranks) or None, not {type(structure).__name__}")
        tokenizer = cls.__new__(cls)
        # Ranks are tiktoken's: its rule (which needs no proof that tokens encode to themselves).
        tokenizer._build(
            vocab, structure.merges, special_tokens, pattern, name, None, None,
            self_encoding=None, rule="tiktoken", structure=structure,
        )
        return tokenizer

    # ----------------------------------------------------------------------------------------------
    # properties

    @property
    def vocab(self) -> Mapping[int, bytes]:
        """Every id -> its bytes, special tokens included (as their UTF-8 bytes): a read-only view."""
        return MappingProxyType(self._vocab)

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
    def max_token_value(self) -> int:
        """The largest id, special tokens included (tiktoken's name)."""
        return self._max_token_id

    def __repr__(self) -> str:
        pattern = self.pattern_name or ("None" if self.pattern is None else "custom")
        return (
            f"<Tokenizer {self.name!r}: vocab_size={self.vocab_size}, merges={len(self._merges)}, "
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
        if self._rank_by_id is None:
            self._rank_by_id = {new_id: rank for rank, new_id in self._pair_rank.values()}
        if type(token_id) is not int:
            token_id = token_ids.checked_id(token_id)
        if token_id not in self._vocab:
            raise self._unknown_id(token_id)
        return self._rank_by_id.get(token_id)

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
        return len(self._self_encoding) == len(self._token_to_id)

    @property
    def _late_merges(self) -> list[tuple[bytes, bytes]]:
        """The pairs tiktoken joins that are no BPE merge (a part needs a merge ranked after the token),
        in rank order; empty unless ``rule == "tiktoken"``."""
        return list(self._structure.late_merges) if self._structure else []

    @property
    def whole_word_tokens(self) -> list[int]:
        """The ids of the tokens no two parts ever join: produced only when a whole pre-token equals
        them (tiktoken's rule); empty unless ``rule == "tiktoken"``."""
        if not self._structure:
            return []
        return [self._token_to_id[token] for token in self._structure.whole_tokens]

    def _applied_merge_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order (see ``bpe.PieceEncoder``)."""
        return self._piece_encoder.applied_ranks(piece)

    # ----------------------------------------------------------------------------------------------
    # encoding engines

    @property
    def engine(self) -> str:
        """The engine ``engine="auto"`` encodes with: ``"tiktoken"`` (tiktoken's compiled engine splits
        and merges), ``"tiktoken-bpe"`` (bpe_core splits, as for custom patterns and Pipelines;
        tiktoken's engine merges each piece) or ``"python"`` (bpe_core's own encoder, where tiktoken
        cannot provably give the same ids). Until the tokenizer has been given
        ``tiktoken_bridge.BUILD_CHARS_PER_TOKEN`` characters per token of its vocabulary, bpe_core's own
        encoder runs: for less text it costs less than building tiktoken's engine (``build_engine``)."""
        whole, pieces = self._native.obstacles(self._engine_facts)
        return "python" if pieces else "tiktoken-bpe" if whole else "tiktoken"

    @property
    def _engine_obstacle(self) -> str | None:
        """Why ``engine="tiktoken"`` is refused for this tokenizer, or None when it is not."""
        return self._native.obstacles(self._engine_facts)[0]

    def build_engine(self) -> str:
        """Build the engine ``"auto"`` uses now rather than once enough text has come (a server that
        keeps a tokenizer, a benchmark); return its name (see ``engine``)."""
        engine = self.engine
        if engine != "python":
            self._native.require(engine, self._engine_facts)
        return engine

    def _engine_facts(self) -> tiktoken_bridge.EngineFacts:
        """What checking and building tiktoken's engine needs (computed only then: a pass over the vocab)."""
        obstacle = tiktoken_bridge.pattern_obstacle(self._pretokenizer)
        return tiktoken_bridge.EngineFacts(
            name=self.name,
            pattern=None if obstacle else self._pretokenizer.full_source,
            pattern_obstacle=obstacle,
            ranks=self._token_to_id,
            merged_ids=(
                [merged for _rank, merged in self._pair_rank.values()]
                if self._rule == "bpe"  # under tiktoken's rule the ids are the ranks already
                else sorted(tiktoken_bridge.multi_byte_ids(self._token_to_id))
            ),
            not_self_encoding=sorted(set(self._token_to_id.values()).difference(self._self_encoding)),
        )

    def _ordinary_encoder(self, engine: str | None, size: int) -> Callable[[str], list[int]]:
        """The function encoding ordinary text in one call of ``size`` characters with ``engine``
        (None: ``tiktoken_bridge.check_engine``'s default); it raises UnicodeEncodeError on lone surrogates."""
        engine = tiktoken_bridge.check_engine(engine)
        native = self._native
        if engine == "auto":
            engine = native.auto(size, self._engine_facts)
        elif engine != "python":
            native.require(engine, self._engine_facts)
        if engine == "tiktoken":
            return native.encode_text
        return (self._native_text_encoder() if engine == "tiktoken-bpe" else self._text_encoder).encode

    def _native_text_encoder(self) -> TextEncoder:
        """bpe_core's splitting and caches with tiktoken's BPE of each new piece (built engine only)."""
        native = self._native
        if native.piece_text_encoder is None:
            native.piece_text_encoder = TextEncoder(
                self._pretokenizer, NativePieces(native.encode_piece), self._text_encoder.whole_pieces
            )
        return native.piece_text_encoder

    def _piece_function(self, size: int) -> Callable[[str], tuple[int, ...]]:
        """The ids of one pre-token (lone surrogates replaced), by the engine that merges pieces for a
        call of ``size`` characters: tiktoken's BPE once built (unless the default engine is "python")."""
        encoder = self._text_encoder
        if tiktoken_bridge.check_engine(None) != "python" and self._native.auto(size, self._engine_facts) != "python":
            encoder = self._native_text_encoder()
        return partial(_encode_one_piece, encoder)

    # ----------------------------------------------------------------------------------------------
    # encoding

    def encode_ordinary(self, text: str, *, engine: str | None = None, num_threads: int = 8) -> list[int]:
        """Encode ``text`` with no special-token handling: special token strings are plain text.
        ``engine`` picks the encoder (see ``engine`` and ``tiktoken_bridge.ENGINES``); the ids never
        depend on it. ``num_threads``: how many threads may share out a long text on tiktoken's
        engine (at most one per CPU; 1 keeps it on this thread; see ``_encode_text``)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        check_num_threads(num_threads)
        return self._encode_text(self._ordinary_encoder(engine, len(text)), text, num_threads)

    def _encode_text(self, encode: Callable[[str], list[int]], text: str, num_threads: float) -> list[int]:
        """``encode(text)`` with lone surrogates replaced as tiktoken does; a long text on tiktoken's
        whole-text engine is cut at safe cuts and encoded by up to ``num_threads`` threads, one per CPU
        at most (``batch.encode_in_threads``: the engine releases the GIL), with the same ids."""
        if encode is self._native.encode_text and len(text) >= batch.THREADED_TEXT_MIN_CHARS:
            ids = batch.encode_in_threads(
                text, encode_ordinary=partial(_surrogate_safe, encode),
                cut_regex=safe_cut_regex(self._pretokenizer.source), threads=batch.thread_count(num_threads),
            )
            if ids is not None:
                return ids
        return _surrogate_safe(encode, text)

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        return self._piece_function(0)(piece)

    def _allowed_and_disallowed(
        self, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[set[str], set[str]]:
        return allowed_and_disallowed(
            allowed_special, disallowed_special, specials=self._special_tokens, owner=self.name
        )

    def _allowed_regex(self, allowed: set[str]):
        return self._special_regex if allowed == set(self._special_tokens) else special_token_regex(allowed)

    def _segments(self, text: str, allowed: set[str]) -> Iterator[tuple[str, bool]]:
        return split_on_special_tokens(text, self._allowed_regex(allowed))

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
        engine: str | None = None,
        num_threads: int = 8,
    ) -> list[int]:
        """Encode ``text`` with tiktoken's special-token semantics.

        Special tokens in ``allowed_special`` become their single id; text matching a token in
        ``disallowed_special`` (by default every special token not allowed) raises ValueError; any
        other special token text is encoded as ordinary text. Special tokens are found here (the
        longest first) whatever the ``engine``, which encodes the text between them. ``num_threads``
        is as in ``encode_ordinary``.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        check_num_threads(num_threads)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        check_disallowed(text, disallowed)
        encode = self._ordinary_encoder(engine, len(text))
        if not allowed:
            return self._encode_text(encode, text, num_threads)
        out: list[int] = []
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                out.append(self._special_tokens[segment])
            else:
                out.extend(self._encode_text(encode, segment, num_threads))
        return out

    def encode_ordinary_batch(
        self, text: Iterable[str], *, num_threads: int = 8, workers: int | None = None, engine: str | None = None
    ) -> list[list[int]]:
        """``encode_ordinary`` of each text in ``text`` (tiktoken's name for the list), in worker
        processes for large batches.

        ``workers`` is how many worker processes encode (None: automatic, one per CPU once the batch
        holds ``batch.BATCH_PARALLEL_MIN_CHARS`` characters, else this process; 1: this process).
        Texts are cut at safe cuts into tasks of about ``batch.BATCH_TASK_CHARS`` characters, so one
        long text is spread over the workers too. The ids never depend on ``workers``. ``num_threads``
        (tiktoken's) is how many threads encode when tiktoken's engine does (at most one per CPU; it
        releases the GIL); bpe_core's Python encoder gains nothing from threads and ignores it.
        ``engine`` is as in ``encode_ordinary``.
        """
        check_num_threads(num_threads)
        return self._encode_batch(text, set(), set(), workers, engine=engine, num_threads=num_threads)

    def encode_batch(
        self,
        text: Iterable[str],
        *,
        num_threads: int = 8,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
        workers: int | None = None,
        engine: str | None = None,
    ) -> list[list[int]]:
        """``encode`` of each text in ``text``, with the same keywords, and ``num_threads``,
        ``workers`` and ``engine`` as in ``encode_ordinary_batch``."""
        check_num_threads(num_threads)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        return self._encode_batch(text, allowed, disallowed, workers, engine=engine, num_threads=num_threads)

    def _encode_batch(
        self, texts: Iterable[str], allowed: set[str], disallowed: set[str], workers: int | None, *,
        engine: str | None, num_threads: float | None,
    ) -> list[list[int]]:
        parts, layouts = batch.plan(
            texts,
            special_regex=self._allowed_regex(allowed) if allowed else None,
            special_ids=self._special_tokens,
            cut_regex=safe_cut_regex(self._pretokenizer.source),
            check=lambda text: check_disallowed(text, disallowed),
        )
        engine = tiktoken_bridge.check_engine(engine)
        encode = self._ordinary_encoder(engine, sum(map(len, parts)))
        part_ids = batch.encode_parts(
            parts, encode_ordinary=partial(_surrogate_safe, encode), workers=workers, rebuild=_engine_encoder_of,
            state=(self._parts(), engine),
            threads=batch.thread_count(num_threads) if encode is self._native.encode_text else 1,
        )
        return batch.assemble(layouts, part_ids)

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
    ) -> Iterator[int]:
        """Encode the concatenation of ``texts`` lazily, yielding ids; equal to ``encode("".join(texts))``.

        It never joins its input. With a preset pattern only the unfinished tail is kept between
        chunks (the last few pre-tokens, and room for the start of a special token); a custom pattern
        streams under ``custom_patterns``' cut rule (a piece is settled once ``CUSTOM_MARGIN``
        characters follow it); a ``Pipeline`` keeps the text since the last special token.
        """
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        guard = max((len(t) for t in self._special_tokens), default=0)
        check = (lambda buffer: check_disallowed(buffer, disallowed)) if disallowed else None
        special_regex = self._allowed_regex(allowed)
        specials = self._special_tokens
        encode_piece = self._piece_function(0)
        splitter = self._pretokenizer
        if isinstance(splitter, StagedPreTokenizer):  # it may look anywhere: whole segments
            splitter, encode_piece = PreTokenizer.build(None), self.encode_ordinary
        for piece, is_special in stream_pieces(texts, splitter, special_regex, guard=guard, check=check):
            if is_special:
                yield specials[piece]
            else:
                yield from encode_piece(piece)

    def encode_with_details(
        self,
        text: str,
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
    ) -> list[TokenInfo]:
        """Encode ``text`` and describe every token: id, bytes, character span, partial-character flag."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = replace_surrogates(text)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        check_disallowed(text, disallowed)
        encode_piece = self._piece_function(len(text))  # bpe_core splits (spans); pieces may merge natively
        out: list[TokenInfo] = []
        position = 0
        for segment, is_special in self._segments(text, allowed):
            if is_special:
                token_id = self._special_tokens[segment]
                out.append(TokenInfo(token_id, self._vocab[token_id], position, position + len(segment), False, True))
            elif isinstance(self._pretokenizer, StagedPreTokenizer):  # spans through normalization
                out.extend(self._pretokenizer.token_infos(segment, encode_piece, self._vocab, offset=position))
            else:
                for start, end in self._pretokenizer.spans(segment):
                    piece = segment[start:end]
                    out.extend(piece_token_infos(piece, encode_piece(piece), self._vocab, offset=position + start))
            position += len(segment)
        return out

    def _encode_with_last_piece(
        self, text: str, *, allowed_special: SpecialTokens, disallowed_special: SpecialTokens
    ) -> tuple[list[int], int]:
        """``encode``'s ids and how many of them the last pre-token made (0 when the text is empty or
        ends with a special token): ``TiktokenSurface.encode_with_unstable``'s starting point."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        allowed, _ = self._allowed_and_disallowed(allowed_special, disallowed_special)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = replace_surrogates(text)
        last_segment, last_is_special = "", True
        for last_segment, last_is_special in self._segments(text, allowed):
            pass
        pieces = [] if last_is_special else self._pretokenizer.pieces(last_segment)
        return ids, len(self._encode_piece(pieces[-1])) if pieces else 0

    def _ordinary_token_ids(self) -> Mapping[bytes, int]:
        """Token bytes -> id, special tokens left out (for ``TiktokenSurface``)."""
        return self._token_to_id

    def _bpe_bytes(self, data: bytes) -> tuple[int, ...]:
        """BPE on ``data`` as one piece, with no pre-tokenization (for ``TiktokenSurface``)."""
        return self._piece_encoder.encode(data)

    # ----------------------------------------------------------------------------------------------
    # decoding

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """The bytes of the ids ``tokens`` concatenated. The first bad id raises, named with its
        position: a TypeError for one that is not an integer (a float, a bool), a KeyError for an
        unknown one, both also ValueErrors (see ``token_ids``)."""
        return b"".join(self._bytes_of_ids(tokens))

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode the ids ``tokens`` to text. Invalid UTF-8 (a token sequence that splits a character)
        becomes U+FFFD with the default ``errors="replace"``; pass ``errors="strict"`` to raise instead.
        Bad ids raise as in ``decode_bytes``."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each id; bad ids raise as in ``decode_bytes``."""
        return list(self._bytes_of_ids(tokens))

    def _bytes_of_ids(self, tokens: Iterable[int]) -> Sequence[bytes]:
        ids = token_ids.id_list(tokens)
        if len(ids) > 1 and token_ids.plain_ids(ids):
            try:
                # One C call looks every id up: with the type check, as fast as decoding was without it.
                return itemgetter(*ids)(self._vocab)
            except KeyError:
                pass  # an unknown id: found and named below
        return list(map(self._vocab.__getitem__, self._checked_ids(ids)))

    def _checked_ids(self, ids: Iterable[object]) -> list[int]:
        """``ids`` as plain ints, all known; the first bad one raises (see ``token_ids``)."""
        return token_ids.checked_ids(ids, self._vocab, unknown=self._unknown_id)

    # ----------------------------------------------------------------------------------------------
    # derived views

    def truncated(self, num_merges: int) -> Tokenizer:
        """The tokenizer made of the first ``num_merges`` merges (BPE's merges form prefixes)."""
        if not isinstance(num_merges, int) or num_merges < 0:
            raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")
        num_merges = min(num_merges, len(self._merges))
        keep = {self._token_to_id[left + right] for left, right in self._merges[num_merges:]}
        vocab = {i: b for i, b in self._vocab.items() if i not in keep}
        parts = self._parts()
        parts.update(
            vocab=vocab,
            merges=self._merges[:num_merges],
            name=f"{self.name}[:{num_merges}]",
            merge_counts=self._merge_counts[:num_merges],
            training=None,
            # A token's own encoding uses no merge ranked after it: dropping later merges keeps it.
            # tiktoken's rule does not carry over (late merges and whole-word tokens are no merges).
            self_encoding=self._plain_bpe_self_encoding() - keep,
            rule="bpe",
            structure=None,
        )
        return Tokenizer._rebuilt(parts)

    def _plain_bpe_self_encoding(self) -> frozenset[int]:
        """The tokens that encode to themselves under plain BPE with every merge: what ``truncated``
        keeps. Proved once per tokenizer (for tiktoken's rule it is not the looked-up set), so that
        trying many k in the merge forest costs the proof only once."""
        if self._bpe_self_encoding is None:
            byte_ids = [self._token_to_id[bytes([b])] for b in range(256)]
            self._bpe_self_encoding = frozenset(self_encoding_ids(self._pair_rank, byte_ids))
        return self._bpe_self_encoding

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
    # bpe_core's JSON file, and tiktoken

    def _parts(self) -> dict[str, Any]:
        """What rebuilds this tokenizer without proving anything again (see ``_rebuilt``)."""
        return {
            "self_encoding": self._self_encoding,
            "vocab": self._vocab,
            "merges": self._merges,
            "special_tokens": self._special_tokens,
            "pattern": self._pattern_argument,
            "name": self.name,
            "merge_counts": self._merge_counts,
            "training": self.training,
            "rule": self._rule,
            "structure": self._structure,
        }

    def to_json(self) -> str:
        """bpe_core's JSON file as text (lossless, with merge records and training metadata)."""
        return bpe_json.dumps(
            name=self.name,
            pattern=self.pattern,
            pattern_name=self.pattern_name,
            special_tokens=self.special_tokens,
            vocab=self._vocab,
            merges=[(r.left, r.right, r.id, r.count) for r in self.merge_records],
            training=self.training,
            rule=self._rule,
        )

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> Tokenizer:
        """Parse ``to_json``'s text; a corrupt one is a ValueError naming ``source`` and the place."""
        parts = bpe_json.loads(text, source=source)
        try:
            return cls(**parts)
        except (ValueError, TypeError) as exc:
            raise BpeError(f"{source} is not a valid bpe_core tokenizer: {exc}") from None

    def save(self, path, *, overwrite: bool = True) -> None:
        """Write bpe_core's JSON file, atomically. With ``overwrite=False`` an existing file is left
        alone and ``FileExistsError`` raised (exclusive even against another writer at that moment)."""
        if not isinstance(overwrite, bool):
            raise TypeError(f"overwrite must be True or False, not {type(overwrite).__name__}")
        try:
            bpe_json.write_atomic(path, self.to_json(), overwrite=overwrite)
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

    def to_tiktoken(self, *, name: str | None = None):
        """A ``tiktoken.Encoding`` with the same ids on every input (fast bulk encoding); ValueError
        when tiktoken cannot express this tokenizer (see ``tiktoken_bridge``)."""
        facts = self._engine_facts()
        return tiktoken_bridge.to_encoding(
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


def _engine_encoder_of(state: tuple[dict[str, Any], str]):
    """A worker's ``encode_ordinary`` with the engine its batch asked for (see ``batch``)."""
    parts, engine = state
    return partial(Tokenizer._rebuilt(parts).encode_ordinary, engine=engine)


def _surrogate_safe(encode: Callable[[str], list[int]], text: str) -> list[int]:
    """``encode(text)``, with lone surrogates replaced by U+FFFD first when there are any (as tiktoken)."""
    try:
        return encode(text)
    except UnicodeEncodeError:
        return encode(replace_surrogates(text))


def _encode_one_piece(encoder: TextEncoder, piece: str) -> tuple[int, ...]:
    try:
        return encoder.encode_piece(piece)
    except UnicodeEncodeError:
        return encoder.encode_piece(replace_surrogates(piece))
