"""Whether a pre-tokenization regex can match the empty string anywhere, not only in the empty text.

A pattern that can match nothing at some place (``\\b``, ``(?=a)``, ``^``, ``x*``) cuts text into
empty pieces there: training learns nothing from them and ``findall`` behaves differently between
regex engines, so ``pretokenizer`` refuses such patterns. Whether an assertion holds depends on the
text around it, so the question is answered for every text at once: each zero-width assertion (word
boundaries, anchors, look-arounds) is taken as true and the rest of the pattern asked whether it
matches the empty text. That refuses every pattern that can match empty somewhere, and beyond them
only patterns whose assertions can never all hold (``(?=a)(?!a)``), which match nothing at all.

This module only reads patterns; it does not compile presets or split text.
"""

from __future__ import annotations

import regex

#: Escapes that match a position rather than a character (``\\b``, ``\\A``, ``\\m`` ...).
_ASSERTION_ESCAPES = frozenset("bBAZzGmMK")
_LOOK_AROUNDS = ("(?=", "(?!", "(?<=", "(?<!")
_ALWAYS = "(?:)"
#: Texts tried when the pattern cannot be rewritten (syntax this reader does not follow).
_PROBES = ("", "a", "ab", "a b", "Ab1 ", "hello, world!\n", "x\n\ny", "1 2", "é中", "\t-_.'")


def can_match_empty(pattern: regex.Pattern[str], *, timeout: float) -> bool:
    """Whether ``pattern`` (compiled from a user's source) can match the empty string at some
    position of some text (see the module docstring); may raise ``TimeoutError``."""
    rewritten = without_assertions(pattern.pattern)
    if rewritten is not None:
        try:
            return regex.compile(rewritten, pattern.flags).fullmatch("", timeout=timeout) is not None
        except regex.error:
            pass
    return any(
        pattern.match(text, start, timeout=timeout) is not None and pattern.match(text, start).end() == start
        for text in _PROBES
        for start in range(len(text) + 1)
    )


def without_assertions(source: str) -> str | None:
    """``source`` with every zero-width assertion replaced by an always-true empty group, or None
    when it holds syntax this reader does not follow (verbose mode, nested sets).

    >>> without_assertions(r"\\b\\w+(?=[$^])|^x$")
    '(?:)\\\\w+(?:)|(?:)x(?:)'
    """
    if regex.search(r"\(\?[a-zA-Z]*[xV]", source):  # verbose comments, version-1 nested sets
        return None
    out: list[str] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            escaped = source[i + 1 : i + 2]
            out.append(_ALWAYS if escaped in _ASSERTION_ESCAPES else source[i : i + 2])
            i += 2
        elif char == "[":
            end = _set_end(source, i)
            out.append(source[i:end])
            i = end
        elif source.startswith(_LOOK_AROUNDS, i):
            group_end = _group_end(source, i)
            if group_end is None:
                return None
            out.append(_ALWAYS)
            i = group_end
        elif char in "^$":
            out.append(_ALWAYS)
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _set_end(source: str, start: int) -> int:
    """The index after the character set opening at ``start`` (``]`` first in a set is literal)."""
    i = start + 1
    if source[i : i + 1] == "^":
        i += 1
    if source[i : i + 1] == "]":
        i += 1
    while i < len(source):
        if source[i] == "\\":
            i += 2
        elif source.startswith("[:", i):  # a POSIX class such as [:alpha:]
            close = source.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
        elif source[i] == "]":
            return i + 1
        else:
            i += 1
    return len(source)


def _group_end(source: str, start: int) -> int | None:
    """The index after the group opening at ``start``, or None when its parentheses do not close."""
    depth = 0
    i = start
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _set_end(source, i)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None
