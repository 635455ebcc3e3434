"""Multi-stage pre-tokenization and Unicode normalization, as Hugging Face ``tokenizers`` runs them.

A ``Pipeline`` is what a ``tokenizer.json`` of a recent open model asks for and one regex cannot
say: an optional normalization of the text (NFC, NFD, NFKC, NFKD, lowercase, in order), then split
rules applied one after another, each to every piece the previous ones left (HF's ``Sequence`` of
``Split`` pre-tokenizers). A rule is a regex or a literal, with HF's ``behavior`` for what it
matches (``isolated``, ``removed``, ``merged_with_previous``, ``merged_with_next``, ``contiguous``)
and ``invert`` (the matches are the delimiters, or the text between them is). ``PrefixSpace`` is
HF ``ByteLevel(add_prefix_space=True)``: a space before every piece not starting with one.

``Tokenizer(pattern=Pipeline(...))`` encodes with it; ``StagedPreTokenizer`` is the compiled form,
with the same ``pieces`` as ``pretokenize.PreTokenizer`` (normalizing is ``normalization``'s).
Normalization changes the text, so ``token_infos`` reports spans in the original text: a token from
characters that normalization changed gets the span of the original characters they came from, a
prefix space an empty span.
This module does not read tokenizer files (``formats.huggingface`` does) nor encode pieces.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from bpe_core.bpe.tokens import TokenInfo, piece_token_infos
from bpe_core.errors import BpeError
from bpe_core.pretokenization import custom_patterns
from bpe_core.pretokenization.normalization import NORMALIZATIONS, normalize, normalize_aligned
from bpe_core.pretokenization.pretokenizer import PreTokenizer

BEHAVIORS = ("isolated", "removed", "merged_with_previous", "merged_with_next", "contiguous")


@dataclass(frozen=True)
class Split:
    """One split rule: ``pattern`` (a ``regex`` module pattern, or literal text when ``literal``) cuts
    each piece into matches and the text between them; ``behavior`` says what becomes of the matches
    (with ``invert``, of the text between them), exactly as HF's ``Split`` pre-tokenizer.

    >>> Split(r"\\d", behavior="merged_with_next").split("a1b2")
    ['a', '1b', '2']
    """

    pattern: str
    behavior: str = "isolated"
    invert: bool = False
    literal: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str) or not self.pattern:
            raise BpeError(f"a Split pattern must be a non-empty string, got {self.pattern!r}")
        if self.behavior not in BEHAVIORS:
            raise BpeError(f"Split behavior {self.behavior!r} is not one of {', '.join(BEHAVIORS)}")
        for flag in ("invert", "literal"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"Split {flag} must be True or False, not {getattr(self, flag)!r}")
        _compiled(self)  # refuses regexes that do not compile or match the empty string

    def split(self, text: str) -> list[str]:
        """The pieces this rule leaves of ``text``."""
        return _splitter(self)(text)


@dataclass(frozen=True)
class PrefixSpace:
    """HF ``ByteLevel(add_prefix_space=True)``: a space before every piece that does not start with one.

    >>> PrefixSpace().split("a"), PrefixSpace().split(" b")
    ([' a'], [' b'])
    """

    def split(self, text: str) -> list[str]:
        return [text if text.startswith(" ") else " " + text]


Stage = Split | PrefixSpace


@dataclass(frozen=True)
class Pipeline:
    """Normalization (``normalizers``, applied in order) then ``stages`` (applied in order, each to
    every piece the previous ones left), as HF ``tokenizers`` runs a normalizer and pre-tokenizers.

    >>> Pipeline([Split(r"\\p{N}{1,3}"), Split(r"[a-z]+")], normalizers=["lowercase"]).pieces("AB12345c")
    ['ab', '123', '45', 'c']
    """

    # Any sequence is taken (a list, as above); __post_init__ keeps them as tuples.
    stages: Sequence[Stage] = ()
    normalizers: Sequence[str] = ()

    def __post_init__(self) -> None:
        for field, value in (("stages", self.stages), ("normalizers", self.normalizers)):
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise TypeError(f"Pipeline {field} must be a list, not {type(value).__name__}")
            object.__setattr__(self, field, tuple(value))
        for stage in self.stages:
            if not isinstance(stage, (Split, PrefixSpace)):
                raise TypeError(f"a Pipeline stage must be a Split or PrefixSpace, not {type(stage).__name__}")
        for name in self.normalizers:
            if name not in NORMALIZATIONS:
                raise BpeError(f"normalizer {name!r} is not one of {', '.join(NORMALIZATIONS)}")

    def pieces(self, text: str) -> list[str]:
        """The pieces of ``text`` (see ``StagedPreTokenizer.pieces``)."""
        return StagedPreTokenizer.build(self).pieces(text)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in bpe_core's file (``from_dict`` reads it back)."""
        return {
            "normalizers": list(self.normalizers),
            "stages": [
                {"type": "prefix_space"}
                if isinstance(stage, PrefixSpace)
                else {
                    "type": "split",
                    "pattern": stage.pattern,
                    "literal": stage.literal,
                    "behavior": stage.behavior,
                    "invert": stage.invert,
                }
                for stage in self.stages
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Pipeline:
        """Read ``to_dict``'s form; ValueError saying what is wrong."""
        if not isinstance(data, Mapping) or not isinstance(data.get("stages"), list):
            raise BpeError("a pipeline must be an object with a 'stages' list")
        normalizers = data.get("normalizers", [])
        if not isinstance(normalizers, list):
            raise BpeError("a pipeline's 'normalizers' must be a list")
        return cls([_stage_from_dict(number, entry) for number, entry in enumerate(data["stages"])], normalizers)


def _stage_from_dict(number: int, entry: Any) -> Stage:
    if isinstance(entry, Mapping) and entry.get("type") == "prefix_space":
        return PrefixSpace()
    if not isinstance(entry, Mapping) or entry.get("type") != "split":
        raise BpeError(f"pipeline stage {number} must be an object of type 'split' or 'prefix_space'")
    pattern: Any = entry.get("pattern")  # whatever the file holds: Split checks it
    try:
        return Split(
            pattern,
            behavior=entry.get("behavior", "isolated"),
            invert=entry.get("invert", False),
            literal=entry.get("literal", False),
        )
    except (TypeError, ValueError) as exc:
        raise BpeError(f"pipeline stage {number}: {exc}") from None


# ------------------------------------------------------------------------------------------------
# Split rules, as HF's NormalizedString.split: the matches and the gaps between them tile the text
# ("is_match" flipped by invert), then the behavior keeps, drops or joins them.


@functools.lru_cache(maxsize=64)
def _compiled(rule: Split) -> regex.Pattern[str]:
    source = regex.escape(rule.pattern) if rule.literal else rule.pattern
    try:
        compiled = regex.compile(source)
    except regex.error as exc:
        raise BpeError(f"invalid Split regex {rule.pattern!r}: {exc} (syntax of the Python 'regex' module)") from None
    if compiled.fullmatch("") is not None:
        raise BpeError(f"Split regex {rule.pattern!r} matches the empty string, so it cannot split text")
    return compiled


def _time_limit(text: str) -> float:
    """Seconds one Split regex may spend on ``text``: the allowance custom patterns get
    (``custom_patterns.allowance``), so that a long text is not taken for catastrophic backtracking
    on a busy machine."""
    return custom_patterns.allowance(len(text))


def _timed_out(rule: Split, text: str) -> ValueError:
    return BpeError(
        f"Split regex {rule.pattern!r} took more than {_time_limit(text):.3g} s on a piece of "
        f"{len(text):,} characters (catastrophic backtracking?); simplify it"
    )


@functools.lru_cache(maxsize=64)
def _splitter(rule: Split) -> Callable[[str], list[str]]:
    """``rule.split`` as a function of the text alone. Isolated and removed rules run in C: the
    matches alone when they cover the text (the usual case), else a split that keeps them."""
    compiled = _compiled(rule)
    general = lambda text: [text[start:end] for start, end in _kept_spans(rule, text)]  # noqa: E731
    if rule.behavior not in ("isolated", "removed") or compiled.groups:
        return general
    findall = compiled.findall
    split = regex.compile(f"({compiled.pattern})", flags=compiled.flags).split
    # The split gives gap, match, gap, ..., gap: isolated keeps all, removed the gaps or (inverted) the matches.
    keep = slice(None) if rule.behavior == "isolated" else slice(1 if rule.invert else 0, None, 2)

    def in_c(text: str) -> list[str]:
        try:
            if keep == slice(None):
                matches = findall(text, timeout=_time_limit(text))
                if sum(map(len, matches)) == len(text) and "" not in matches:
                    return matches
            parts = split(text, timeout=_time_limit(text))
        except TimeoutError:
            raise _timed_out(rule, text) from None
        if "" in parts[1::2]:
            return general(text)  # an empty match: the general path says why that is refused
        return [part for part in parts[keep] if part]

    return in_c


def _tiles(rule: Split, text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, is_match)`` tiling ``text``: the matches of the rule and the gaps between."""
    tiles = []
    previous = 0
    try:
        for match in _compiled(rule).finditer(text, timeout=_time_limit(text)):
            start, end = match.span()
            if start == end:
                raise BpeError(
                    f"Split regex {rule.pattern!r} matched the empty string at character {start}; HF "
                    "tokenizers and bpe_core step over empty matches differently, so the pieces would "
                    "not be exact: make the pattern consume at least one character"
                )
            if start > previous:
                tiles.append((previous, start, rule.invert))
            tiles.append((start, end, not rule.invert))
            previous = end
    except TimeoutError:
        raise _timed_out(rule, text) from None
    if previous < len(text):
        tiles.append((previous, len(text), rule.invert))
    return tiles


def _kept_spans(rule: Split, text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that become pieces under ``rule`` (HF's five behaviors).

    >>> rule = lambda behavior: Split("-", behavior=behavior, literal=True)
    >>> [_kept_spans(rule(b), "a-b--c") for b in BEHAVIORS]  # doctest: +NORMALIZE_WHITESPACE
    [[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)], [(0, 1), (2, 3), (5, 6)],
     [(0, 2), (2, 4), (4, 5), (5, 6)], [(0, 1), (1, 3), (3, 4), (4, 6)], [(0, 1), (1, 2), (2, 3), (3, 5), (5, 6)]]
    """
    tiles = _tiles(rule, text)
    behavior = rule.behavior
    if behavior == "isolated":
        return [(start, end) for start, end, _ in tiles]
    if behavior == "removed":
        return [(start, end) for start, end, is_match in tiles if not is_match]
    if behavior == "merged_with_next":
        reversed_tiles = [(-end, -start, is_match) for start, end, is_match in reversed(tiles)]
        return [(-end, -start) for start, end in reversed(_merged(reversed_tiles, "merged_with_previous"))]
    return _merged(tiles, behavior)


def _merged(tiles: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """``contiguous``: neighbours with the same flag join; ``merged_with_previous``: a match joins
    the piece before it unless that piece is a match itself."""
    spans: list[list[int]] = []
    previous_match = False
    for start, end, is_match in tiles:
        if spans and (is_match == previous_match if behavior == "contiguous" else is_match and not previous_match):
            spans[-1][1] = end
        else:
            spans.append([start, end])
        previous_match = is_match
    return [(start, end) for start, end in spans]


# ------------------------------------------------------------------------------------------------
# The compiled pipeline.


class StagedPreTokenizer:
    """A ``Pipeline`` ready to split text, standing in for ``pretokenize.PreTokenizer`` (``source`` is
    the pipeline, ``pieces`` the pieces). It is never a preset and has no safe cuts, so text is
    held until the next special token when streamed."""

    is_preset = False
    compiled = None

    def __init__(self, pipeline: Pipeline) -> None:
        self.source = pipeline
        self._normalizers = pipeline.normalizers
        self._stages = pipeline.stages
        self._splitters = [_splitter(stage) if isinstance(stage, Split) else stage.split for stage in self._stages]

    @classmethod
    def build(cls, pipeline: Pipeline) -> StagedPreTokenizer:
        """The compiled form of ``pipeline``, shared (it is immutable)."""
        return _build(pipeline)

    @property
    def full_source(self) -> str:
        """Refused: tiktoken and ``.tiktoken`` files hold one regex, which cannot say this."""
        raise BpeError(
            f"this tokenizer pre-tokenizes in {len(self._stages)} stage(s)"
            + (f" after normalizing ({', '.join(self._normalizers)})" if self._normalizers else "")
            + ", which one regex cannot express: tiktoken and .tiktoken files cannot hold it "
            "(save it as bpe_core JSON or Hugging Face tokenizer.json instead)"
        )

    def segment_pattern(self) -> None:
        return None

    def pieces(self, text: str) -> list[str]:
        """The pieces of ``text``: normalized, then split by every stage in turn."""
        if self._normalizers:
            text = normalize(text, self._normalizers)
        pieces = [text] if text else []
        for split in self._splitters:
            pieces = split(pieces[0]) if len(pieces) == 1 else [piece for whole in pieces for piece in split(whole)]
        return pieces

    def aligned_pieces(self, text: str) -> list[tuple[str, list[int], list[int]]]:
        """``(piece, starts, ends)``: each piece with, per character, the span of ``text`` it comes
        from (an inserted prefix space has the empty span where its piece starts)."""
        pieces = [normalize_aligned(text, self._normalizers)] if text else []
        for stage in self._stages:
            pieces = [split for piece in pieces for split in _split_aligned(stage, *piece) if split[0]]
        return pieces

    def token_infos(
        self, text: str, encode_piece: Callable[[str], Sequence[int]], vocab: Mapping[int, bytes], *, offset: int = 0
    ) -> list[TokenInfo]:
        """``TokenInfo`` of every token of ``text`` (no special tokens in it), spans in ``text``
        shifted by ``offset``."""
        out = []
        for piece, starts, ends in self.aligned_pieces(text):
            for info in piece_token_infos(piece, encode_piece(piece), vocab, offset=0):
                start, end = offset + starts[info.start], offset + ends[info.end - 1]
                out.append(TokenInfo(info.id, info.bytes, start, max(start, end), info.partial, False))
        return out


def _split_aligned(
    stage: Stage, text: str, starts: list[int], ends: list[int]
) -> list[tuple[str, list[int], list[int]]]:
    if isinstance(stage, PrefixSpace):
        if text.startswith(" "):
            return [(text, starts, ends)]
        return [(" " + text, [starts[0]] + starts, [starts[0]] + ends)]
    return [(text[a:b], starts[a:b], ends[a:b]) for a, b in _kept_spans(stage, text)]


@functools.lru_cache(maxsize=32)
def _build(pipeline: Pipeline) -> StagedPreTokenizer:
    return StagedPreTokenizer(pipeline)


def build_pretokenizer(pattern: str | Pipeline | None) -> PreTokenizer | StagedPreTokenizer:
    """The pre-tokenizer of a ``Tokenizer``'s ``pattern``: a preset name, a regex or None
    (``pretokenize.PreTokenizer``), or a ``Pipeline`` (``StagedPreTokenizer``)."""
    if isinstance(pattern, Pipeline):
        return StagedPreTokenizer.build(pattern)
    return PreTokenizer.build(pattern)
