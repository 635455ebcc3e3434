"""New tokens only where asked: the Unicode scripts a tokenizer's extension may add tokens in.

``ScriptRule(["Devanagari"])`` says which new tokens are allowed: a token must be whole UTF-8
characters (no byte piece of one), each of one of the given scripts or of the scripts every language
shares (``Common``: spaces, punctuation, ASCII digits, the danda; ``Inherited``: combining marks such
as the zero-width joiners), and at least one of them of a given script. So ``" नमस्ते"`` with its
leading space, ``"नमस्ते।"`` and ``"१२३"`` are allowed for Devanagari; ``"  "``, ``"।।"``, ``"the"`` and
the first two bytes of ``"न"`` are not.

Why this keeps other text exactly as it was: a new token holds a character of a given script and is
whole characters, and UTF-8 is self-synchronising, so its bytes occur in the UTF-8 of a text only
where that text has those characters. A text with no character of the given scripts never meets a
new token, and BPE (or tiktoken's rule) on it makes exactly the merges it made before
(``tests/training/test_extension_scripts.py`` holds this on random text, code and 20 languages).

Script names are the `regex` module's (``\\p{Script=...}``: Unicode's long names such as ``Devanagari``,
``Han``, ``Hangul``, ``Tamil``, or the four-letter codes such as ``Deva``), in any case. This module
neither trains nor encodes; ``extension`` uses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import regex

from bpe_core.errors import BpeError

#: The scripts shared by every language: never a script to restrict to, always allowed beside one.
SHARED_SCRIPTS = ("Common", "Inherited")
_SHARED = {"common", "zyyy", "inherited", "zinh", "qaai", "unknown", "zzzz"}


def _class(names: Iterable[str]) -> str:
    return "".join(rf"\p{{Script={name}}}" for name in names)


def check_scripts(scripts: str | Iterable[str]) -> tuple[str, ...]:
    """``scripts`` as a tuple of names the `regex` module knows, each once; a ``BpeError`` naming a
    script it does not know, or a shared one (Common, Inherited).

    >>> check_scripts("Devanagari"), check_scripts(["han", "Hiragana", "Han"])
    (('Devanagari',), ('han', 'Hiragana'))
    """
    given = [scripts] if isinstance(scripts, str) else list(scripts)
    names: list[str] = []
    for name in given:
        if not isinstance(name, str):
            raise TypeError(f"scripts must be script names (str), got {name!r}")
        name = name.strip().replace(" ", "_")
        if not name:
            raise BpeError("a script name is empty: give Unicode script names such as Devanagari, Tamil or Han")
        if name.lower() in _SHARED:
            raise BpeError(
                f"{name!r} is shared by every language (spaces, punctuation, digits, marks): new tokens of it "
                "alone would change other text; give the scripts of your language (e.g. Devanagari), and "
                "characters of Common and Inherited are allowed beside them"
            )
        try:
            regex.compile(_class([name]))
        except regex.error:
            raise BpeError(
                f"unknown script {name!r}: give Unicode script names such as Devanagari, Bengali, Tamil, Arabic, "
                "Han, Hangul, Thai (or their four-letter codes: Deva)"
            ) from None
        if name.lower() not in {n.lower() for n in names}:
            names.append(name)
    if not names:
        raise BpeError("scripts is empty: give at least one Unicode script name (e.g. Devanagari), or None")
    return tuple(names)


class ScriptRule:
    """Which new tokens are allowed (the module docstring): ``ScriptRule(scripts)`` checks the names
    (``check_scripts``); ``refuse`` is the merge engine's predicate and counts in ``refused`` the
    tokens it turned down.

    >>> rule = ScriptRule(["Devanagari"])
    >>> [rule.allows(t.encode()) for t in [" नमस्ते", "नमस्ते।", "  ", "the", "न a"]], rule.allows("न".encode()[:2])
    ([True, True, False, False, False], False)
    """

    def __init__(self, scripts: str | Iterable[str]) -> None:
        self.scripts = check_scripts(scripts)
        self._allowed = regex.compile(f"[{_class(self.scripts + SHARED_SCRIPTS)}]+")
        self._target = regex.compile(f"[{_class(self.scripts)}]")
        self.refused = 0

    def __repr__(self) -> str:
        return f"ScriptRule({list(self.scripts)!r})"

    def allows(self, token: bytes) -> bool:
        """Whether ``token`` is whole characters, of the scripts or shared ones, one of the scripts."""
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return False  # a byte piece of a character: its bytes occur inside other scripts' characters
        return self._allowed.fullmatch(text) is not None and self._target.search(text) is not None

    def refuse(self, token: bytes) -> bool:
        if self.allows(token):
            return False
        self.refused += 1
        return True

    def in_text(self, text: str) -> bool:
        """Whether ``text`` has a character of the scripts (where new tokens can change its tokens)."""
        return self._target.search(text) is not None


#: ``dominant_scripts``: a script counts when its letters are at least this share of the corpus's.
DOMINANT_SHARE = 0.1
#: ``dominant_scripts`` looks at the most frequent distinct pre-tokens only, this many.
DOMINANT_PIECES = 20_000


def dominant_scripts(counts: Mapping[str, int], *, share: float = DOMINANT_SHARE) -> tuple[str, ...]:
    """The scripts of a corpus's letters (Common and Inherited left out) that make at least ``share`` of
    them, most first, from its ``DOMINANT_PIECES`` most frequent pre-tokens: what an extension without
    ``scripts`` was trained for, so that the text of other scripts can be checked.

    >>> dominant_scripts({"नमस्ते": 5, " दुनिया": 3, " ok": 1})
    ('Devanagari',)
    """
    letters: dict[str, int] = {}
    # the pieces alone sorted (a list of keys, not of (piece, count) tuples), stable as before
    top = [(piece, counts[piece]) for piece in sorted(counts, key=counts.__getitem__, reverse=True)[:DOMINANT_PIECES]]
    for piece, count in top:
        for char in piece:
            if char.isalpha():
                name = script_of(char)
                if name is not None:
                    letters[name] = letters.get(name, 0) + count
    total = sum(letters.values())
    ranked = sorted(letters.items(), key=lambda item: (-item[1], item[0]))
    return tuple(name for name, count in ranked if total and count / total >= share)


#: The scripts ``script_of`` knows (those of the built-in samples and the main writing systems).
KNOWN_SCRIPTS = (
    "Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya",
    "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar", "Khmer", "Georgian",
    "Armenian", "Ethiopic", "Han", "Hiragana", "Katakana", "Hangul", "Thaana", "Syriac", "Mongolian", "Cherokee",
    "Canadian_Aboriginal", "Tifinagh", "Javanese", "Balinese", "Sundanese", "Nko", "Vai", "Yi", "Bopomofo",
)  # fmt: skip
_KNOWN = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in KNOWN_SCRIPTS]
_SCRIPT_CACHE: dict[str, str | None] = {}


def script_of(char: str) -> str | None:
    """The script of one character among ``KNOWN_SCRIPTS``, or None (Common, Inherited, another one).

    >>> script_of("न"), script_of("a"), script_of(" ")
    ('Devanagari', 'Latin', None)
    """
    found = _SCRIPT_CACHE.get(char, "")
    if found != "":
        return found
    name = next((name for name, pattern in _KNOWN if pattern.match(char)), None)
    if len(_SCRIPT_CACHE) < 1 << 16:
        _SCRIPT_CACHE[char] = name
    return name
