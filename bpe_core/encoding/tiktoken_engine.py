"""tiktoken's compiled engine for a bpe_core tokenizer: as a ``tiktoken.Encoding`` (``to_encoding``),
as the engine that encodes by default (``NativeEngine``), and why not, where it cannot give the same
ids.

tiktoken ranks a merge by the id of the token it makes, so the merges must make ids in increasing
order and every multi-byte token must come from a merge; and tiktoken takes a piece that is a token
whole, so every token must encode to itself (true of trained tokenizers, GPT-2 and cl100k; tiktoken's
rule, ``rule="tiktoken"``, needs no proof). Under those conditions tiktoken's BPE of any piece equals
bpe_core's (``ranks_obstacle``). Splitting whole texts is tiktoken's too only where its Rust regex
engine provably splits as bpe_core's pre-tokenizer does (``pattern_obstacle``): the presets, whose
Unicode classes are pinned to tiktoken's (``unicode_classes``), no pattern at all, and the known
tiktoken patterns of recent models while the `regex` module's classes agree with tiktoken's. A custom
regex, a ``Pipeline`` or normalizers are bpe_core's to split; tiktoken's engine may still merge the
pieces (engine ``"tiktoken-bpe"``). tiktoken finds special tokens with an alternation in hash order,
so where one special token starts another (``<a>`` and ``<a><b>``) it may match either while bpe_core
always takes the longest: ``to_encoding`` refuses those; the engine never sees special tokens (the
tokenizer cuts them out first). This module does not pre-tokenize or split special tokens itself; the
reverse conversion is ``Tokenizer.from_tiktoken``.
"""

from __future__ import annotations

import functools
import operator
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, islice, pairwise
from typing import TYPE_CHECKING

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.unicode_classes import NAMES, SPELLING, TIKTOKEN_VERSION, UNICODE_VERSION, disagreeing

if TYPE_CHECKING:
    import tiktoken

    from bpe_core.bpe.model import BpeModel
    from bpe_core.encoding.encoder import TextEncoder
    from bpe_core.pretokenization.stages import StagedPreTokenizer

#: The values of the ``engine=`` keyword. ``"auto"``: tiktoken's engine wherever it provably gives the
#: same ids (built once the tokenizer has been given enough text to pay for building it), else bpe_core's
#: own; ``"python"``: bpe_core's own reference encoder; ``"tiktoken"``: tiktoken's engine splits and
#: merges (ValueError where it cannot be proved to give the same ids); ``"tiktoken-bpe"``: bpe_core
#: splits, tiktoken's engine merges each piece.
ENGINES = ("auto", "python", "tiktoken", "tiktoken-bpe")
#: The environment variable that sets the default engine (``engine=None``); unset means ``"auto"``.
ENGINE_VARIABLE = "BPE_CORE_ENGINE"
#: With ``engine="auto"``, tiktoken's engine is built once a tokenizer has been asked to encode this
#: many characters per token of its vocabulary, in one call or over several: building it costs about
#: what bpe_core's Python encoder spends on that much text (figures in bench/PERFORMANCE.md, "Building
#: the encoding engine").
BUILD_CHARS_PER_TOKEN = 1
#: Known tiktoken patterns of recent models (Llama 3, Mistral's Tekken) that are not presets. They use
#: only syntax that means the same to both regex engines (alternation tried in order, greedy quantifiers,
#: ``(?i:...)`` over ASCII letters, Unicode classes, one negative look-ahead), and bpe_core's ids equal
#: the models' own tiktoken-based encoders with them (tests/pretrained/test_catalogue.py); their
#: Unicode classes agree only while the installed `regex` module's tables agree with tiktoken's
#: (checked by ``pattern_obstacle``).
TIKTOKEN_PATTERNS = frozenset(
    {
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}"
        r"| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    }
)
# What tiktoken is given for "no pattern": the whole text is one piece.
_WHOLE_TEXT = r"[\s\S]+"


def special_token_prefix(special_tokens: Iterable[str]) -> tuple[str, str] | None:
    """Two special tokens of which the first starts the second, or None.

    >>> special_token_prefix(["<a>", "<b>", "<a><b>"])
    ('<a>', '<a><b>')
    """
    ordered = sorted(special_tokens)
    # A token that starts others sorts right before them, with nothing between it and the first one.
    for short, long in pairwise(ordered):
        if long.startswith(short):
            return short, long
    return None


def ranks_obstacle(
    ranks: Mapping[bytes, int], *, merged_ids: Sequence[int], not_self_encoding: Sequence[int]
) -> str | None:
    """Why tiktoken's BPE of a piece could differ from bpe_core's with these ranks, or None when it
    cannot: ``ranks`` maps each ordinary token's bytes to its id, ``merged_ids`` are the ids the merges
    make in rank order, ``not_self_encoding`` the ids of tokens whose bytes do not encode to themselves.

    >>> ranks_obstacle({b"a": 0, b"b": 1, b"ab": 2}, merged_ids=[2], not_self_encoding=[]) is None
    True
    """
    # Written with map and sets, no Python loop per token (its time on 200k ranks: bench/PERFORMANCE.md,
    # "Figures behind choices in the code").
    if not all(map(operator.lt, merged_ids, islice(merged_ids, 1, None))):
        return "its merges do not make ids in increasing order (tiktoken uses the id as the merge priority)"
    unmade = set(multi_byte_ids(ranks)).difference(merged_ids)
    if unmade:
        token_id = min(unmade)
        token = next(token for token, i in ranks.items() if i == token_id)
        return f"token {token_id} ({token!r}) is not made by any merge"
    if not_self_encoding:
        stray = not_self_encoding[0]
        token = next(token for token, token_id in ranks.items() if token_id == stray)
        return (
            f"token {stray} ({token!r}) does not encode to itself under the merges, and tiktoken emits "
            "any piece that is a whole token as that token"
        )
    return None


def multi_byte_ids(ranks: Mapping[bytes, int]) -> list[int]:
    """The ids of the tokens longer than one byte, in ``ranks``' order.

    >>> multi_byte_ids({b"a": 0, b"ab": 5, b"b": 1})
    [5]
    """
    return list(compress(ranks.values(), map((1).__lt__, map(len, ranks))))


def pattern_obstacle(pretokenizer: PreTokenizer | StagedPreTokenizer) -> str | None:
    """Why tiktoken's regex engine may split text differently from ``pretokenizer``, or None when it
    provably splits it the same way (see the module docstring)."""
    if not isinstance(pretokenizer, PreTokenizer):
        return (
            "it pre-tokenizes in stages (a Pipeline of Split rules, or normalizers), which tiktoken's "
            "single regex cannot run"
        )
    source = pretokenizer.source
    if source is None or pretokenizer.is_preset:
        return None
    if source not in TIKTOKEN_PATTERNS:
        return (
            "its pre-tokenization pattern is a custom regex, and tiktoken's Rust regex engine "
            "(fancy-regex) is not proved to split text as the Python `regex` module does; only the presets "
            "gpt2, cl100k, o200k, no pattern, and the known patterns of Llama 3 and Mistral are"
        )
    differing = [name for name in NAMES if any(s in source for s in SPELLING[name]) and disagreeing(name)]
    if differing:
        return (
            f"its pattern's Unicode classes ({', '.join(differing)}) follow the installed `regex` module's "
            f"Unicode tables, which differ from tiktoken's (Unicode {UNICODE_VERSION}) on some code points"
        )
    return None


@functools.cache
def tiktoken_obstacle(*, splitting: bool) -> str | None:
    """Why the installed tiktoken cannot serve as the engine (not installed; for ``splitting``, its
    Unicode classes differ from the ones bpe_core pinned), or None."""
    try:
        import tiktoken
    except ImportError:
        return "tiktoken is not installed (pip install tiktoken)"
    if not splitting or getattr(tiktoken, "__version__", None) == TIKTOKEN_VERSION:
        return None
    from bpe_core.pretokenization.unicode_classes import tiktoken_unicode_version

    found = tiktoken_unicode_version()
    if found == UNICODE_VERSION:
        return None
    return (
        f"the installed tiktoken {tiktoken.__version__} follows Unicode {found}, bpe_core's pinned classes "
        f"Unicode {UNICODE_VERSION}: regenerate them (python -m bpe_core.pretokenization.unicode_classes --write)"
    )


def check_engine(engine: object) -> str:
    """The engine to use: ``engine`` checked, or for None the ``BPE_CORE_ENGINE`` environment variable
    (``"auto"`` when unset).

    >>> check_engine("python")
    'python'
    """
    if engine is None:
        engine = os.environ.get(ENGINE_VARIABLE) or "auto"
        if engine not in ENGINES:
            raise BpeError(f"the environment variable {ENGINE_VARIABLE}={engine!r} must be one of {', '.join(ENGINES)}")
        return engine
    if engine not in ENGINES:
        raise BpeError(f"engine must be one of {', '.join(repr(e) for e in ENGINES)} (or None), not {engine!r}")
    return engine


@dataclass(frozen=True)
class EngineFacts:
    """What deciding on and building tiktoken's engine for a tokenizer needs (see ``ranks_obstacle``;
    ``pattern`` is the regex tiktoken would run, None for none)."""

    name: str
    pattern: str | None
    pattern_obstacle: str | None
    ranks: dict[bytes, int]  # a dict, as tiktoken.Encoding takes it (no copy)
    merged_ids: Sequence[int]
    not_self_encoding: Sequence[int]


def engine_facts(name: str, pretokenizer: PreTokenizer | StagedPreTokenizer, model: BpeModel) -> EngineFacts:
    """The ``EngineFacts`` of the tokenizer ``name`` that splits with ``pretokenizer`` and merges with
    ``model`` (a pass over the vocabulary: computed only when a check or a build is due)."""
    obstacle = pattern_obstacle(pretokenizer)
    ranks = model.token_to_id
    return EngineFacts(
        name=name,
        pattern=None if obstacle else pretokenizer.full_source,
        pattern_obstacle=obstacle,
        ranks=ranks,
        merged_ids=(
            [merged for _rank, merged in model.pair_rank.values()]
            if model.rule == "bpe"  # under tiktoken's rule the ids are the ranks already
            else sorted(multi_byte_ids(ranks))
        ),
        not_self_encoding=sorted(set(ranks.values()).difference(model.self_encoding)),
    )


class NativeEngine:
    """tiktoken's engine for one tokenizer: whether it may be used, built once on first need.

    ``obstacles`` says why tiktoken may not split whole texts and why it may not merge pieces (None
    where it may); ``auto`` picks the engine for one call and builds tiktoken's when the tokenizer has
    been asked for ``build_chars`` characters in all; ``require`` builds it for an explicit choice or
    raises ValueError saying why not. It holds no reference to its tokenizer, which passes a function
    returning ``EngineFacts`` (called only when a check or a build is due), and it pickles unbuilt.
    """

    def __init__(self, build_chars: int) -> None:
        self.build_chars = build_chars
        self.encode_text: Callable[[str], list[int]] | None = None  # tiktoken's encode_ordinary
        self.encode_piece: Callable[[bytes], list[int]] | None = None  # tiktoken's BPE of one piece
        self.whole = False  # whether encode_text may be used (splitting provably the same)
        # bpe_core's splitting with tiktoken's BPE (set by the tokenizer)
        self.piece_text_encoder: TextEncoder | None = None
        self._obstacles: tuple[str | None, str | None] | None = None
        self._seen = 0
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type[NativeEngine], tuple[int]]:
        return (NativeEngine, (self.build_chars,))

    def obstacles(self, facts: Callable[[], EngineFacts]) -> tuple[str | None, str | None]:
        """(why not ``"tiktoken"``, why not ``"tiktoken-bpe"``), each None where it gives bpe_core's ids."""
        if self._obstacles is None:
            found = facts()
            pieces = tiktoken_obstacle(splitting=False) or ranks_obstacle(
                found.ranks, merged_ids=found.merged_ids, not_self_encoding=found.not_self_encoding
            )
            whole = pieces or found.pattern_obstacle or tiktoken_obstacle(splitting=True)
            self._obstacles = (whole, pieces)
        return self._obstacles

    @property
    def built(self) -> bool:
        return self.encode_piece is not None

    def auto(self, size: int, facts: Callable[[], EngineFacts]) -> str:
        """The engine for one call of ``size`` characters under ``"auto"``, building tiktoken's when due."""
        if self.encode_piece is None:
            self._seen += size
            if self._seen < self.build_chars:
                return "python"
            facts = functools.cache(facts)  # computed once however often it is asked for below
            if self.obstacles(facts)[1]:
                return "python"
            self._build(facts)
        return "tiktoken" if self.whole else "tiktoken-bpe"

    def require(self, engine: str, facts: Callable[[], EngineFacts]) -> None:
        """Build tiktoken's engine for an explicit ``engine``; ValueError saying why it cannot be used."""
        facts = functools.cache(facts)
        whole, pieces = self.obstacles(facts)
        reason = whole if engine == "tiktoken" else pieces
        if reason:
            raise BpeError(
                f"engine={engine!r} cannot encode with {facts().name!r} exactly: {reason}. "
                "Use engine='auto' (the fastest exact engine) or engine='python'"
            )
        if self.encode_piece is None:
            self._build(facts)

    def _build(self, facts: Callable[[], EngineFacts]) -> None:
        with self._lock:
            if self.encode_piece is not None:
                return
            import tiktoken

            found = facts()
            whole = self.obstacles(facts)[0] is None
            pattern = found.pattern if whole and found.pattern is not None else _WHOLE_TEXT
            ranks = found.ranks
            try:
                encoding = tiktoken.Encoding(name=found.name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
            except ValueError as exc:  # tiktoken's regex engine refused the pattern: merge pieces only
                self._obstacles = (f"tiktoken's regex engine rejected its pattern ({exc})", self.obstacles(facts)[1])
                whole = False
                encoding = tiktoken.Encoding(
                    name=found.name, pat_str=_WHOLE_TEXT, mergeable_ranks=ranks, special_tokens={}
                )
            core = getattr(encoding, "_core_bpe", None)
            self.encode_text = core.encode_ordinary if core is not None else encoding.encode_ordinary
            self.whole = whole
            # Set last: other threads read a non-None encode_piece as "built".
            self.encode_piece = core.encode_single_piece if core is not None else encoding._encode_single_piece


def to_encoding(
    *,
    name: str,
    pattern: str | None,
    ranks: Mapping[bytes, int],
    special_tokens: Mapping[str, int],
    merged_ids: Sequence[int],
    not_self_encoding: Sequence[int],
) -> tiktoken.Encoding:
    """A ``tiktoken.Encoding`` with the special tokens (see ``ranks_obstacle`` for the other
    arguments). ValueError naming the first obstacle."""
    import tiktoken

    problem = f"{name!r} cannot become a tiktoken encoding"
    overlap = special_token_prefix(special_tokens)
    if overlap:
        short, long = overlap
        raise BpeError(
            f"{problem}: special token {short!r} starts special token {long!r}; tiktoken may match "
            f"either one in {long!r} (it tries them in hash order), bpe_core always matches the "
            "longest, so the ids could differ: rename one of them"
        )
    reason = ranks_obstacle(ranks, merged_ids=merged_ids, not_self_encoding=not_self_encoding)
    if reason:
        raise BpeError(f"{problem}: {reason}")
    try:
        return tiktoken.Encoding(
            name=name,
            pat_str=pattern if pattern is not None else _WHOLE_TEXT,
            mergeable_ranks=dict(ranks),
            special_tokens=dict(special_tokens),
        )
    except ValueError as exc:
        raise BpeError(
            f"tiktoken rejected the pre-tokenization regex of {name!r} ({exc}); "
            "tiktoken's regex engine lacks some Python 'regex' features"
        ) from None
