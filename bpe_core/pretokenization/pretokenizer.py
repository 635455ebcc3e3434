"""Pre-tokenization: split text into pieces before BPE, and cut out special tokens.

This module owns the regex presets (tiktoken's GPT-2, cl100k and o200k patterns, run with tiktoken's
Unicode classes whatever the `regex` release: see ``unicode_classes``), validates custom patterns
(compile errors, patterns that can match the empty string anywhere, see ``empty_matches``;
catastrophic backtracking is stopped by a time
budget per unit of input, see ``custom_patterns``) and splits text into pieces, also as a stream.
Text that a custom pattern does not match is not dropped: every unmatched character becomes a piece
of its own, so encoding always round-trips. It does not count words or apply merges.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from bpe_core.errors import BpeError
from bpe_core.pretokenization.custom_patterns import RegexBudget, scan, stream_custom
from bpe_core.pretokenization.empty_matches import can_match_empty
from bpe_core.pretokenization.special_tokens import split_on_special_tokens
from bpe_core.pretokenization.unicode_classes import ExactPattern, exact_pattern, narrowed_pattern, ranges

if TYPE_CHECKING:
    import re

#: tiktoken's GPT-2 / r50k pattern (equivalent to the original GPT-2 release, but faster).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
#: tiktoken's cl100k_base pattern (GPT-3.5 / GPT-4).
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
#: tiktoken's o200k_base pattern (GPT-4o).
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PRESETS: dict[str, str] = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}

# Where a preset's pieces may be cut apart: at a position matched by the preset's rule, pre-tokenizing
# the text before and the text after separately gives exactly the pieces of the whole. For GPT-2 that
# is any step from a non-space to a space: no alternative matches a non-space followed by a space, a
# match never looks behind, and the only look-aheads (`\s+(?!\S)`, `\s++$`) belong to all-space
# matches, which cannot end at the non-space before the cut. cl100k and o200k do put spaces after
# non-spaces (punctuation followed by newlines), but never after a letter, hence "letter, then
# space" for them. bench/PERFORMANCE.md spells the argument out; tests check it on random text.
# The rules test the space first, so that a letter is only looked for before a space. Their classes
# are narrowed to the code points where this `regex` agrees with tiktoken's (unicode_classes): a cut
# is only ever missed, never wrong.
_SAFE_CUTS: dict[str, str] = {
    GPT2_PATTERN: r"(?=\s)(?<=\S)",
    CL100K_PATTERN: r"(?=\s)(?<=\p{L})",
    O200K_PATTERN: r"(?=\s)(?<=\p{L})",
}
_SAFE_CUT_CACHE: dict[str, regex.Pattern[str]] = {}


def safe_cut_regex(source: object) -> regex.Pattern[str] | None:
    """A compiled regex whose (empty) matches are positions where the text may be split before
    pre-tokenizing with the preset ``source``, or None for anything else (a custom pattern, a
    ``stages.Pipeline``, no pattern)."""
    rule = _SAFE_CUTS.get(source) if isinstance(source, str) else None
    if rule is None:
        return None
    compiled = _SAFE_CUT_CACHE.get(rule)
    if compiled is None:
        compiled = _SAFE_CUT_CACHE[rule] = narrowed_pattern(rule)
    return compiled


def cut_at_safe_cuts(text: str, cut_regex: regex.Pattern[str] | None, size: int) -> list[str]:
    """``text`` in parts of at least ``size`` characters (the last may be shorter), cut only where
    ``cut_regex`` (see ``safe_cut_regex``) allows; the whole text when it is None. A ``size`` below 1
    counts as 1 (a cut must move forward).

    >>> cut_at_safe_cuts("ab cd ef", safe_cut_regex(GPT2_PATTERN), 0)
    ['ab', ' cd', ' ef']
    """
    size = max(size, 1)
    if cut_regex is None or len(text) <= size:
        return [text]
    parts = []
    start = 0
    while len(text) - start > size:
        found = cut_regex.search(text, start + size)
        if found is None:
            break
        parts.append(text[start : found.start()])
        start = found.start()
    parts.append(text[start:])
    return parts


#: The base of a custom pattern's time budget: seconds any one operation (a training run, an encode
#: call) may spend in it, to which each million characters of input adds ``custom_patterns.SECONDS_PER_MB``.
REGEX_TIMEOUT_SECONDS = 5.0

# Appended to custom patterns so that characters the pattern does not match become pieces of their
# own instead of vanishing. `[\s\S]` (not `(?s:.)`) because it means "any character" in the `regex`
# module, in tiktoken's fancy-regex and in HF tokenizers' Oniguruma alike.
_ANY_CHARACTER = r"[\s\S]"


# ------------------------------------------------------------------------------------------------
# GPT-2's pieces, fast. The standard library's `re` runs the same pattern written with explicit
# classes faster than the `regex` module (figures in bench/PERFORMANCE.md, "How the speed is reached"). Two
# `re` patterns serve GPT-2 (the default pattern), both exact:
#
# * `_GPT2_SEGMENTS` splits text into segments, each a run of spaces and the non-spaces after it, cut
#   only at safe cuts (non-space, then space; see _SAFE_CUTS), so a segment's pieces are its pieces
#   wherever it occurs. Text repeats segment by segment, so counting and encoding work on distinct
#   segments only. Astral characters are never taken for spaces (no cut after one), so the split is
#   exact even if some future Unicode put a space there.
# * `_GPT2_ASCII` is GPT-2's pattern for text that is all ASCII (`str.isascii` is O(1)), where \p{L}
#   is [A-Za-z], \p{N} is [0-9] and \s is [\t-\r ]. Its `\s++$` alternative is dropped: a space run
#   that reaches the end is matched whole by `\s+(?!\S)` as well.
#
# \s is Unicode's White_Space, the 25 characters below; _gpt2_fast() checks that, and the ASCII
# classes, against the pinned classes the presets use (unicode_classes) before the patterns are first
# used.
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_S = r"\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_ASTRAL = r"\U00010000-\U0010ffff"
_GPT2_SEGMENTS_SOURCE = rf"[{_S}]*(?:[^{_S}{_ASTRAL}]+|[{_ASTRAL}][{_S}]*)+|[{_S}]+"
_GPT2_ASCII_SOURCE = (
    r"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^\t-\r A-Za-z0-9]+|[\t-\r ]+(?![^\t-\r ])|[\t-\r ]"""
)
# cl100k's pattern for ASCII text, in the same way. Possessive quantifiers become plain ones (the
# `re` of Python 3.10 has none): in each alternative nothing that follows could take back what they
# hold (`[^\r\n\p{L}\p{N}]?+` is followed by letters, which it excludes; `\s++$` can only match
# where the whole run reaches the end). `(?i:...)` is spelled out with both cases.
_CL100K_ASCII_SOURCE = (
    r"""'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}"""
    r"""| ?[^\t-\r A-Za-z0-9]+[\r\n]*|[\t-\r ]+$|[\t-\r ]*[\r\n]|[\t-\r ]+(?![^\t-\r ])|[\t-\r ]"""
)
# On ASCII text there is no astral character and \s is [\t-\r ], so the segment pattern reduces to
# this simpler one, which `re` runs faster.
_GPT2_SEGMENTS_ASCII_SOURCE = r"[\t-\r ]*[^\t-\r ]+|[\t-\r ]+"
_gpt2_fast_patterns: list[tuple[re.Pattern[str], re.Pattern[str]] | None] = []


class _SegmentFinder:
    """``findall(text)``: GPT-2's segments of ``text``, with the simpler pattern when it is ASCII."""

    __slots__ = ("_any", "_ascii")

    def __init__(self, any_text: re.Pattern[str], ascii_text: re.Pattern[str]) -> None:
        self._any = any_text
        self._ascii = ascii_text

    def findall(self, text: str) -> list[str]:
        return (self._ascii if text.isascii() else self._any).findall(text)


def _gpt2_fast() -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """``(segments, ascii)`` compiled `re` patterns, or None if the pinned classes disagree with them."""
    if not _gpt2_fast_patterns:
        import re

        def ascii_part(name: str) -> str:
            return "".join(chr(code) for first, last in ranges(name) for code in range(first, min(last, 127) + 1))

        ok = (
            "".join(chr(code) for first, last in ranges("White_Space") for code in range(first, last + 1))
            == _WHITE_SPACE
            and ascii_part("L") == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
            and ascii_part("N") == "0123456789"
        )
        _gpt2_fast_patterns.append((re.compile(_GPT2_SEGMENTS_SOURCE), re.compile(_GPT2_ASCII_SOURCE)) if ok else None)
    return _gpt2_fast_patterns[0]


@functools.cache
def _cl100k_ascii_pattern() -> re.Pattern[str] | None:
    """cl100k's compiled `re` pattern for ASCII text, or None if `regex`'s ASCII classes differ."""
    import re

    return re.compile(_CL100K_ASCII_SOURCE) if _gpt2_fast() is not None else None


@functools.cache
def _gpt2_segment_finder() -> _SegmentFinder | None:
    """GPT-2's segment finder, or None if `regex`'s classes differ from the fast patterns'."""
    import re

    fast = _gpt2_fast()
    return None if fast is None else _SegmentFinder(fast[0], re.compile(_GPT2_SEGMENTS_ASCII_SOURCE))


def resolve_pattern(pattern: str | None) -> str | None:
    """Return the regex source for a preset name, a custom pattern, or None (no pre-splitting)."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise TypeError(
            f"pattern must be a preset name {sorted(PRESETS)}, a regex string or None, not {type(pattern).__name__}"
        )
    return PRESETS.get(pattern, pattern)


def preset_name(pattern: object) -> str | None:
    """The preset name whose regex is ``pattern``, or None for anything else (a custom pattern, a
    ``stages.Pipeline``, None)."""
    for name, source in PRESETS.items():
        if pattern == source or pattern == name:
            return name
    return None


@dataclass(frozen=True)
class PreTokenizer:
    """A compiled, validated pre-tokenization pattern.

    ``source`` is the user's regex (or None: the whole text is one piece). ``split`` yields
    ``(start, end)`` character offsets of the pieces, which tile the text exactly.
    """

    source: str | None
    compiled: regex.Pattern[str] | ExactPattern | None
    is_preset: bool

    @classmethod
    def build(cls, pattern: str | None) -> PreTokenizer:
        """The pre-tokenizer of a preset name, a regex or None; ValueError for unusable regexes.
        Built once per pattern and shared (it is immutable)."""
        return _build_pretokenizer(resolve_pattern(pattern))

    @property
    def full_source(self) -> str | None:
        """The regex actually run: custom patterns get a catch-all alternative for unmatched text."""
        return None if self.compiled is None else self.compiled.pattern

    def budget(self) -> RegexBudget:
        """A fresh time budget for this (custom) pattern over one operation; grant it the input."""
        return RegexBudget(self.source, base_seconds=REGEX_TIMEOUT_SECONDS)

    def spans(self, text: str, *, budget: RegexBudget | None = None) -> Iterator[tuple[int, int]]:
        """Character spans of the pieces of ``text``, in order, tiling it. A custom pattern runs on
        ``budget`` (the caller's, which has been granted the input; None: one for ``text`` alone)."""
        if not text:
            return
        if self.compiled is None:
            yield (0, len(text))
            return
        if self.is_preset:
            for match in self.compiled.finditer(text):
                start, end = match.span()
                if end > start:
                    yield (start, end)
            return
        if budget is None:
            budget = self.budget()
            budget.grant(len(text))
        with budget.running() as timeout:
            for match in self.compiled.finditer(text, timeout=timeout):
                start, end = match.span()
                if end > start:
                    yield (start, end)

    def pieces(self, text: str, *, budget: RegexBudget | None = None) -> list[str]:
        """The pieces of ``text`` as strings (``budget``: see ``spans``)."""
        if self.compiled is None:
            return [text] if text else []
        if self.is_preset:
            if text.isascii():
                ascii_findall = self.piece_finders()[0]
                if ascii_findall is not None:
                    return ascii_findall(text)
            return self.compiled.findall(text)
        if budget is None:
            budget = self.budget()
            budget.grant(len(text))
        return scan(self.compiled, text, 0, len(text), budget)

    def piece_finders(self) -> tuple[Callable[[str], list[str]] | None, Callable[[str], list[str]]]:
        """``(ascii_findall, findall)``: functions returning the pieces of a text, the first one only
        valid for ASCII text (None when there is no faster way for it). For presets only."""
        if self.compiled is None:
            raise TypeError("piece_finders needs a pattern: this pre-tokenizer has none")
        if self.source == GPT2_PATTERN:
            fast = _gpt2_fast()
            if fast is not None:
                return fast[1].findall, self.compiled.findall
        elif self.source == CL100K_PATTERN:
            ascii_pattern = _cl100k_ascii_pattern()
            if ascii_pattern is not None:
                return ascii_pattern.findall, self.compiled.findall
        return None, self.compiled.findall

    def segment_pattern(self) -> _SegmentFinder | None:
        """A compiled pattern whose ``findall`` splits text into segments that pre-tokenize on their
        own exactly as in place (runs of text between safe cuts), or None for patterns without one.
        Segments repeat far more than texts do, so per-segment caches and counts pay off."""
        return _gpt2_segment_finder() if self.source == GPT2_PATTERN else None


@functools.lru_cache(maxsize=32)
def _build_pretokenizer(source: str | None) -> PreTokenizer:
    if source is None:
        return PreTokenizer(None, None, False)
    if source in PRESETS.values():  # tiktoken's Unicode classes whatever the `regex` release (see unicode_classes)
        return PreTokenizer(source, exact_pattern(source), True)
    if not source:
        raise BpeError("pattern is empty: pass a regex, a preset name such as 'gpt2', or None")
    try:
        user_pattern = regex.compile(source)
    except regex.error as exc:
        raise BpeError(
            f"invalid pre-tokenization regex {source!r}: {exc}. "
            "Fix the regex (syntax of the Python 'regex' module) or use a preset such as 'gpt2'."
        ) from None
    try:
        matches_empty = user_pattern.fullmatch("", timeout=REGEX_TIMEOUT_SECONDS) is not None
        empty_somewhere = matches_empty or can_match_empty(user_pattern, timeout=REGEX_TIMEOUT_SECONDS)
    except TimeoutError:
        matches_empty = empty_somewhere = True
    if matches_empty:
        raise BpeError(
            f"pre-tokenization regex {source!r} matches the empty string, so it cannot split text "
            "into pieces. Use '+' instead of '*' (e.g. r'\\w+' rather than r'\\w*')."
        )
    if empty_somewhere:
        raise BpeError(
            f"pre-tokenization regex {source!r} can match the empty string at some places (a word boundary, "
            "an anchor or a look-around with nothing else to match, or an optional part), and an empty match "
            "is no piece: make every alternative consume at least one character, e.g. r'\\b\\w+\\b' rather "
            "than r'\\b', r'a(?=b)' rather than r'(?=b)', '+' rather than '*'."
        )
    return PreTokenizer(source, regex.compile(f"(?:{source})|{_ANY_CHARACTER}"), False)


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates (which UTF-8 cannot encode) replaced by U+FFFD, as tiktoken does;
    ``text`` itself when it has none (the common case costs one UTF-8 pass).

    >>> replace_surrogates("caf\\u00e9"), replace_surrogates("a\\ud800b")
    ('café', 'a\\ufffdb')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def stream_pieces(
    chunks: Iterable[str],
    pretokenizer: PreTokenizer,
    special_regex: re.Pattern[str] | None = None,
    *,
    guard: int = 0,
    check: Callable[[str], None] | None = None,
    budget: RegexBudget | None = None,
) -> Iterator[tuple[str, bool]]:
    """Yield ``(piece, is_special)`` for the concatenation of ``chunks``, exactly as splitting the
    joined text would, keeping only an unfinished tail in memory.

    ``guard`` is the length of the longest special token (a special token may straddle chunks).
    With a preset pattern the last three pre-tokens stay buffered between chunks, since a match may
    look ahead past its end (GPT-2's ``\\s+(?!\\S)`` looks one character ahead); random chunkings
    are tested against the joined text. A custom pattern may look ahead arbitrarily far, so it streams
    under the rule of ``custom_patterns`` (a piece is settled once ``CUSTOM_MARGIN`` characters follow
    it), in linear time and on ``budget`` (None: one for this stream). With no pattern the whole text
    is one piece and is held until the end. ``check(text)``, if given, sees every buffer state (a
    custom pattern: every chunk with the ``guard`` characters before it) before pieces are taken.
    """
    if pretokenizer.source is not None and not pretokenizer.is_preset:
        yield from stream_custom(
            chunks,
            pretokenizer.compiled,
            special_regex,
            guard=guard,
            check=check,
            budget=budget if budget is not None else pretokenizer.budget(),
        )
        return
    buffer = ""
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"expected str chunks, got {type(chunk).__name__}")
        buffer += chunk
        if check is not None:
            check(buffer)
        if pretokenizer.source is None and special_regex is None:
            continue
        limit = len(buffer) - guard
        if limit <= 0:
            continue
        ready, cut = _settled_pieces(buffer, pretokenizer, special_regex, limit)
        if cut:
            yield from ready
            buffer = buffer[cut:]
    if buffer:
        yield from (
            (piece, True) if is_special else (piece, False)
            for segment, is_special in split_on_special_tokens(buffer, special_regex)
            for piece in ([segment] if is_special else pretokenizer.pieces(segment))
        )


def _settled_pieces(
    buffer: str, pretokenizer: PreTokenizer, special_regex: re.Pattern[str] | None, limit: int
) -> tuple[list[tuple[str, bool]], int]:
    """The pieces at the start of ``buffer`` that no later text can change (each ending before
    ``limit``), and where they end (see ``stream_pieces``)."""
    ready: list[tuple[str, bool]] = []
    cut = 0
    position = 0
    segments = list(split_on_special_tokens(buffer, special_regex))
    for number, (segment, is_special) in enumerate(segments):
        last = number == len(segments) - 1
        if is_special:
            if position + len(segment) >= limit:
                break
            ready.append((segment, True))
            position += len(segment)
            cut = position
            continue
        spans = list(pretokenizer.spans(segment))
        if last:
            # Presets have a proven bounded look-ahead; with no pattern the open run is one piece.
            spans = spans[:-3] if pretokenizer.is_preset else []
        for start, end in spans:
            if position + end >= limit:
                return ready, cut
            ready.append((segment[start:end], False))
            cut = position + end
        if last:
            break
        position += len(segment)
    return ready, cut
