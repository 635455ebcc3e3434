"""Special tokens: checking them, finding them in text, and tiktoken's allowed/disallowed rules.

A special token is a string that becomes one id when allowed and is never split by the pattern.
This module matches and splits text at them (``SpecialTokenTable``: one tokenizer's, its regex compiled
on first use and text that holds none of them told apart at once); it does not pre-tokenize or encode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Literal

from bpe_core.bpe.vocabulary import special_token_bytes
from bpe_core.errors import BpeError

SpecialTokens = Literal["all"] | Collection[str]


def special_token_regex(special_tokens: Iterable[str]) -> re.Pattern[str] | None:
    """A regex matching any of ``special_tokens``, longest first, or None when there are none: an
    alternation of literals, which the standard library's `re` matches as `regex` does and compiles
    faster (bench/PERFORMANCE.md, "Figures behind choices in the code")."""
    tokens = sorted(set(special_tokens), key=lambda t: (-len(t), t))
    if not tokens:
        return None
    return re.compile("|".join(map(re.escape, tokens)))


def split_on_special_tokens(text: str, special_regex: re.Pattern[str] | None) -> Iterator[tuple[str, bool]]:
    """Yield ``(segment, is_special)`` covering ``text``; special tokens come out whole."""
    if special_regex is None:
        if text:
            yield text, False
        return
    position = 0
    for match in special_regex.finditer(text):
        start, end = match.span()
        if start > position:
            yield text[position:start], False
        yield match.group(), True
        position = end
    if position < len(text):
        yield text[position:], False


def validate_special_tokens(special_tokens: Sequence[str] | Iterable[str]) -> tuple[str, ...]:
    """Check special tokens are distinct non-empty strings that UTF-8 can encode (no lone surrogate:
    ``vocabulary.special_token_bytes``); return them as a tuple in order."""
    if isinstance(special_tokens, str):
        raise TypeError(
            f"special_tokens must be a list of strings, not one string: write special_tokens=[{special_tokens!r}]"
        )
    result: list[str] = []
    for token in special_tokens:
        special_token_bytes(token)
        if token in result:
            raise BpeError(f"special token {token!r} is listed twice")
        result.append(token)
    return tuple(result)


def allowed_and_disallowed(
    allowed_special: SpecialTokens, disallowed_special: SpecialTokens, *, specials: Collection[str], owner: str
) -> tuple[set[str], set[str]]:
    """tiktoken's keywords as two sets, checked against the ``specials`` of the tokenizer ``owner``:
    "all" means every special token (every one not allowed, for ``disallowed_special``)."""
    if allowed_special == "all":
        allowed = set(specials)
    elif isinstance(allowed_special, str):
        raise TypeError(f"allowed_special must be 'all' or a set of strings, not {allowed_special!r}")
    else:
        allowed = set(allowed_special)
    unknown = allowed - set(specials)
    if unknown:
        raise BpeError(
            f"allowed_special names {sorted(unknown)!r}, which are not special tokens of "
            f"{owner!r} (it has {sorted(specials)!r})"
        )
    if disallowed_special == "all":
        disallowed = set(specials) - allowed
    elif isinstance(disallowed_special, str):
        raise TypeError(f"disallowed_special must be 'all' or a set of strings, not {disallowed_special!r}")
    else:
        disallowed = set(disallowed_special)
    return allowed, disallowed


def check_disallowed(text: str, disallowed: Collection[str]) -> None:
    """ValueError, worded as tiktoken's, if ``text`` holds one of the ``disallowed`` special tokens."""
    pattern = special_token_regex(disallowed)
    if pattern is None:
        return
    found = pattern.search(text)
    if found:
        token = found.group()
        raise BpeError(
            f"Encountered text corresponding to disallowed special token {token!r}.\n"
            f"If you want this text to be encoded as a special token, pass it to `allowed_special`, "
            f"e.g. `allowed_special={{{token!r}, ...}}`.\n"
            f"If you want this text to be encoded as normal text, disable the check for this token "
            f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
            "To disable this check for all special tokens, pass `disallowed_special=()`."
        )


class SpecialTokenTable:
    """One tokenizer's special tokens (text -> id): the regex of all of them, compiled when first needed,
    and the characters they start with, so that text holding none of those (most text) is told apart
    without it.

    >>> table = SpecialTokenTable({"<|end|>": 9})
    >>> list(table.segments("a<|end|>", {"<|end|>"})), table.may_occur_in("no specials")
    ([('a', False), ('<|end|>', True)], False)
    """

    def __init__(self, special_tokens: Mapping[str, int]) -> None:
        self.ids = special_tokens
        self._starts = frozenset(token[0] for token in special_tokens)
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str] | None:
        """``special_token_regex`` of every special token (None when there are none)."""
        if self._regex is None and self.ids:
            self._regex = special_token_regex(self.ids)
        return self._regex

    def may_occur_in(self, text: str) -> bool:
        """False when ``text`` holds none of the characters a special token starts with."""
        return any(start in text for start in self._starts)

    def regex_for(self, allowed: Collection[str]) -> re.Pattern[str] | None:
        """The regex of the special tokens ``allowed`` (some of this table's)."""
        return self.regex if len(allowed) == len(self.ids) else special_token_regex(allowed)

    def segments(self, text: str, allowed: Collection[str]) -> Iterator[tuple[str, bool]]:
        """``split_on_special_tokens`` at the special tokens ``allowed``."""
        found = self.regex_for(allowed) if allowed and self.may_occur_in(text) else None
        return split_on_special_tokens(text, found)

    def disallowed_check(self, disallowed: set[str]) -> Callable[[str], None]:
        """``check_disallowed`` with ``disallowed``, which skips text none of these tokens can occur in
        when ``disallowed`` holds only these tokens."""
        if not disallowed:
            return _nothing_to_check
        if not disallowed <= self.ids.keys():
            return partial(_check_disallowed, disallowed=disallowed)
        return partial(_check_where_possible, self.may_occur_in, disallowed=disallowed)


def _nothing_to_check(text: str) -> None:
    pass


def _check_disallowed(text: str, *, disallowed: set[str]) -> None:
    check_disallowed(text, disallowed)


def _check_where_possible(may_occur_in: Callable[[str], bool], text: str, *, disallowed: set[str]) -> None:
    if may_occur_in(text):
        check_disallowed(text, disallowed)
