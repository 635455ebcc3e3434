"""Oniguruma regexes (the engine Hugging Face ``tokenizers`` runs ``Split`` patterns with) read into
the Python ``regex`` module's syntax, exactly, or refused with a message naming the construct.

The two engines agree on most of the syntax tokenizer files use, but not all of it:

* ``X{n,m}+`` is "one or more times X{n,m}" to Oniguruma and a possessive interval to ``regex``:
  it becomes ``(?:X{n,m})+``;
* ``$`` and ``^`` are line anchors in Oniguruma (Ruby syntax), ``\\Z`` allows one final newline in
  both engines but ``regex``'s does not: they become look-arounds that read the same in both;
* ``(?i)`` folds case differently (Oniguruma also matches ``ss`` to ``ß`` and ``fi`` to ``ﬁ``;
  ``regex`` matches ``i`` to ``İ``): letters under ``(?i)`` become explicit classes (``[sSſ]``), and
  ASCII letters are all it may hold;
* ``\\w``, ``\\b``, ``\\h``, POSIX brackets, nested classes, back-references and inline options
  other than ``(?i)`` have no exact counterpart here: refused.

The output means the same to both engines, so it is also what an export writes back. Character
classes such as ``\\p{L}`` follow each engine's Unicode tables: they agree on every character both
tables know, and may differ on characters assigned in a Unicode version only one of them knows.
This module knows nothing of tokenizers; ``huggingface`` uses it.
"""

from __future__ import annotations

import regex

from bpe_core.errors import BpeError

#: General categories and scripts that may follow ``\p``; both engines read these the same way.
_CATEGORIES = frozenset(
    "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Co".split()
)
_SCRIPTS = frozenset("Han Hiragana Katakana Hangul Latin Greek Cyrillic Arabic Hebrew Thai Devanagari Common".split())
#: Escapes that mean the same thing in both engines, outside and inside classes.
_SAME_ESCAPES = frozenset("sSdDnrtfva")
_CONTROL = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a"}
#: Letter pairs that Oniguruma matches to one character under (?i) (ß, ﬆ, ﬀ, ﬁ, ﬂ and their kin).
_MULTI_FOLDS = ("ss", "st", "ff", "fi", "fl")
_QUANTIFIER = regex.compile(r"\{(\d*)(,?)(\d*)\}")


def _refuse(source: str, position: int, what: str) -> ValueError:
    return BpeError(
        f"the Split regex {source!r} uses {what} at position {position}, which Oniguruma (HF tokenizers) "
        "and bpe_core's regex engine do not read the same way; it is not imported approximately"
    )


def _escape(char: str) -> str:
    r"""``char`` as a regex matching only itself, in or out of a class, in both engines.

    >>> _escape("a"), _escape("."), _escape("\n"), _escape("é")
    ('a', '\\.', '\\x0a', 'é')
    """
    if ord(char) < 0x20 or char == "\x7f":
        return f"\\x{ord(char):02x}"
    if char.isascii() and not char.isalnum() and char not in " '\"_,;:!%&<>=@`~/":
        return "\\" + char
    return char


def _case_class(letter: str) -> str:
    """The class Oniguruma matches an ASCII letter with under ``(?i)``.

    >>> _case_class("s"), _case_class("B")
    ('[sSſ]', '[bB]')
    """
    extra = {"k": "\u212a", "s": "\u017f"}.get(letter.lower(), "")
    return f"[{letter.lower()}{letter.upper()}{extra}]"


class _Translator:
    """One left-to-right pass over an Oniguruma pattern, writing the ``regex`` equivalent."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.position = 0
        self.out: list[str] = []
        self.groups: list[tuple] = []  # (output index, case-insensitive, look-around, outer sequence)
        self.ignore_case = False
        self.atom: int | None = None  # output index where the last quantifiable atom starts
        self.letters = ""  # consecutive literal letters under (?i), for the multi-character folds
        # Whether what was read can match the empty string (HF and bpe_core step over empty matches
        # differently, so such patterns are refused): the finished alternatives of the current group,
        # the items of the current sequence before its last atom, and that atom (None: no atom).
        self.nullable_alternative = False
        self.nullable_sequence = True
        self.nullable_atom: bool | None = None

    def refuse(self, what: str, at: int | None = None) -> ValueError:
        return _refuse(self.source, self.position if at is None else at, what)

    def translate(self) -> str:
        source = self.source
        if source.startswith("(?i)"):
            self.ignore_case, self.position = True, 4
        while self.position < len(source):
            self.step(source[self.position])
        if self.groups:
            raise self.refuse("an unclosed group")
        if self.nullable_alternative or self.sequence_nullable():
            raise BpeError(
                f"the Split regex {source!r} can match the empty string; HF tokenizers and bpe_core step "
                "over empty matches differently, so it is not imported"
            )
        return "".join(self.out)

    def sequence_nullable(self) -> bool:
        return self.nullable_sequence and self.nullable_atom is not False

    def emit(self, text: str, *, atom: bool, nullable: bool = False) -> None:
        """Append ``text``: an atom (which a quantifier may follow), or a zero-width item."""
        self.nullable_sequence = self.sequence_nullable()
        self.nullable_atom = nullable if atom else None
        self.atom = len(self.out) if atom else None
        self.out.append(text)

    def step(self, char: str) -> None:
        start = self.position
        self.position += 1
        if char == "\\":
            self.escape(start)
        elif char == "[":
            self.letters = ""
            self.emit(self.char_class(start), atom=True)
        elif char == "(":
            self.open_group(start)
        elif char == ")":
            self.close_group(start)
        elif char == "|":
            self.letters = ""
            self.nullable_alternative = self.nullable_alternative or self.sequence_nullable()
            self.nullable_sequence, self.nullable_atom, self.atom = True, None, None
            self.out.append("|")
        elif char in "*+?{":
            self.quantifier(char, start)
        elif char == "^":
            self.emit(r"(?<![^\x0a])", atom=False)
        elif char == "$":
            self.emit(r"(?![^\x0a])", atom=False)
        elif char == ".":
            self.letters = ""
            self.emit(".", atom=True)
        else:
            self.literal(char, start)

    def literal(self, char: str, start: int) -> None:
        """A character matched as itself (or, under (?i), with its other case)."""
        if self.ignore_case and char.isalpha():
            if not char.isascii():
                raise self.refuse(f"the non-ASCII letter {char!r} under (?i)", start)
            self.letters += char.lower()
            if any(pair in self.letters for pair in _MULTI_FOLDS):
                raise self.refuse(
                    f"the letters {self.letters[-2:]!r} under (?i) (Oniguruma also matches them to one "
                    "ligature or sharp s)",
                    start,
                )
            self.emit(_case_class(char), atom=True)
            return
        self.letters = ""
        self.emit(_escape(char), atom=True)

    def escape(self, start: int) -> None:
        source = self.source
        if self.position >= len(source):
            raise self.refuse("a trailing backslash", start)
        char = source[self.position]
        self.position += 1
        if char in "pP":
            self.letters = ""
            self.emit(self.property(char, start), atom=True)
        elif char in "sSdD":
            self.letters = ""
            self.emit("\\" + char, atom=True)
        elif char in _SAME_ESCAPES:
            self.literal(_CONTROL[char], start)
        elif char in "xue":
            self.literal(self.code_point(char, start), start)
        elif char in "Az":
            self.emit("\\" + char, atom=False)
        elif char == "Z":
            self.emit(r"(?=\x0a?\z)", atom=False)
        elif char.isascii() and char.isalnum():
            raise self.refuse(f"the escape \\{char}", start)
        else:
            self.literal(char, start)

    def code_point(self, kind: str, start: int) -> str:
        """The character of ``\\xHH``, ``\\x{H..}``, ``\\uHHHH`` or ``\\e``."""
        if kind == "e":
            return "\x1b"
        source = self.source
        braced = kind == "x" and source.startswith("{", self.position)
        digits = r"\{([0-9A-Fa-f]{1,6})\}" if braced else "([0-9A-Fa-f]{2})" if kind == "x" else "([0-9A-Fa-f]{4})"
        found = regex.compile(digits).match(source, self.position)
        if found is None:
            raise self.refuse(f"a \\{kind} escape that is not \\xHH, \\x{{H..}} or \\uHHHH", start)
        self.position = found.end()
        code = int(found.group(1), 16)
        if code > 0x10FFFF or 0xD800 <= code < 0xE000:
            raise self.refuse(f"the escape {source[start : self.position]!r}, which is no character", start)
        return chr(code)

    def property(self, kind: str, start: int) -> str:
        found = regex.match(r"\{(\^?)([A-Za-z]+)\}", self.source[self.position :])
        if found is None:
            raise self.refuse(f"\\{kind} without a {{name}}", start)
        self.position += found.end()
        if self.ignore_case:
            raise self.refuse(f"\\{kind}{{...}} under (?i)", start)
        name = found.group(2)
        if name not in _CATEGORIES and name not in _SCRIPTS:
            raise self.refuse(
                f"the property \\{kind}{{{name}}} (supported: general categories and "
                f"the scripts {', '.join(sorted(_SCRIPTS))})",
                start,
            )
        negated = (kind == "P") != bool(found.group(1))
        return f"\\{'P' if negated else 'p'}{{{name}}}"

    # long on purpose: one branch per group opener, each a line or two.
    def open_group(self, start: int) -> None:
        self.letters = "" if not self.ignore_case else self.letters
        rest = self.source[self.position :]
        look = False
        inner_case = self.ignore_case
        if rest.startswith("?"):
            found = regex.match(r"\?(?::|i:|=|!|<=|<!|>|<[A-Za-z_][A-Za-z0-9_]*>)", rest)
            if found is None:
                raise self.refuse("a group option other than (?:, (?i:, look-arounds, (?> and named groups", start)
            opener = found.group(0)
            self.position += len(opener)
            if opener == "?i:":
                inner_case = True
            look = opener in ("?=", "?!", "?<=", "?<!")
            text = "(" + opener if look or opener == "?>" else "(?:"
        else:
            text = "(?:"  # capture groups only matter to back-references, which are refused
        outer = (self.nullable_alternative, self.sequence_nullable())
        self.groups.append((len(self.out), self.ignore_case, look, outer))
        self.ignore_case = inner_case
        self.out.append(text)
        self.nullable_alternative, self.nullable_sequence, self.nullable_atom, self.atom = False, True, None, None

    def close_group(self, start: int) -> None:
        if not self.groups:
            raise self.refuse("an unmatched ')'", start)
        index, outer_case, look, outer = self.groups.pop()
        inner_nullable = self.nullable_alternative or self.sequence_nullable()
        self.ignore_case = outer_case
        self.nullable_alternative, self.nullable_sequence = outer
        self.nullable_atom = None if look else inner_nullable
        self.out.append(")")
        self.atom = None if look else index

    def quantifier(self, char: str, start: int) -> None:
        text = char
        interval = None
        if char == "{":
            interval = _QUANTIFIER.match(self.source, start)
            if interval is None or not (interval.group(1) or interval.group(3)):
                raise self.refuse("a '{' that is not a {n,m} quantifier (escape it as \\{)", start)
            self.position = interval.end()
            text = interval.group(0)
        if self.atom is None:
            raise self.refuse(f"the quantifier {text!r} with nothing to repeat", start)
        if char in "*?" or (interval is not None and not interval.group(1).strip("0")):
            self.nullable_atom = True
        follower = self.source[self.position : self.position + 1]
        if follower in ("?", "+"):
            self.position += 1
            if interval is not None and follower == "+":
                # Oniguruma: repeat "X{n,m}" one or more times (not a possessive interval).
                atom = "".join(self.out[self.atom :])
                del self.out[self.atom :]
                self.out.append(f"(?:{atom}{text})+")
                self.atom = None
                return
            if interval is not None and not interval.group(2):
                raise self.refuse(f"{text}? (optional in Oniguruma, lazy in regex)", start)
            text += follower
        if self.source[self.position : self.position + 1] in ("*", "+", "?", "{"):
            raise self.refuse("two quantifiers in a row", self.position)
        self.out.append(text)
        self.atom = None

    def char_class(self, start: int) -> str:
        """A ``[...]`` class, its items checked; under (?i) its letters get their other case."""
        source = self.source
        out = ["["]
        if source.startswith("^", self.position):
            out.append("^")
            self.position += 1
        if source.startswith("]", self.position):
            raise self.refuse("a class starting with ']' (escape it as \\])", self.position)
        items: list[str] = []
        while True:
            if self.position >= len(source):
                raise self.refuse("an unclosed '['", start)
            char = source[self.position]
            if char == "]":
                self.position += 1
                break
            if char == "[" or source.startswith("&&", self.position):
                raise self.refuse("a nested class, set operation or POSIX bracket", self.position)
            items.append(self.class_item())
        body = "".join(items)
        return "".join(out) + body + "]"

    def class_item(self) -> str:
        """One class member or range, written for ``regex``."""
        first, first_char = self.class_atom()
        source = self.source
        if (
            first_char is not None
            and source.startswith("-", self.position)
            and not source.startswith("-]", self.position)
        ):
            self.position += 1
            last, last_char = self.class_atom()
            if last_char is None or last_char < first_char:
                raise self.refuse("a class range that is not between two characters", self.position)
            return self.case_range(first_char, last_char)
        if first_char is not None:
            return self.case_range(first_char, first_char)
        return first

    def class_atom(self) -> tuple[str, str | None]:
        """(text for regex, the character when it is a single character, else None)."""
        source = self.source
        start = self.position
        char = source[start]
        self.position += 1
        if char != "\\":
            return _escape(char), char
        if self.position >= len(source):
            raise self.refuse("a trailing backslash", start)
        kind = source[self.position]
        self.position += 1
        if kind in "pP":
            return self.property(kind, start), None
        if kind in "sSdD":
            return "\\" + kind, None
        if kind in _SAME_ESCAPES:
            return _escape(_CONTROL[kind]), _CONTROL[kind]
        if kind in "xue":
            char = self.code_point(kind, start)
            return _escape(char), char
        if kind.isascii() and kind.isalnum():
            raise self.refuse(f"the escape \\{kind} in a class", start)
        return _escape(kind), kind

    def case_range(self, first: str, last: str) -> str:
        """``first-last`` in a class, with the other case of its letters under (?i)."""
        text = _escape(first) if first == last else f"{_escape(first)}-{_escape(last)}"
        if not self.ignore_case:
            return text
        span = range(ord(first), ord(last) + 1)
        letters = [chr(c) for c in span if chr(c).isalpha()]
        if any(not letter.isascii() for letter in letters) or (letters and any(not chr(c).isalpha() for c in span)):
            raise self.refuse("a class range under (?i) that is not within a-z or A-Z", self.position)
        return text + "".join(_case_class(letter)[1:-1] for letter in letters)


def from_oniguruma(source: str) -> str:
    r"""``source`` (an Oniguruma pattern from a tokenizer.json) in the ``regex`` module's syntax,
    meaning the same on every text; ValueError naming what has no exact counterpart.

    >>> from_oniguruma(r"\p{N}{1,3}+|(?i:'s|'t)")
    "(?:\\p{N}{1,3})+|(?:'[sSſ]|'[tT])"
    """
    if not isinstance(source, str) or not source:
        raise BpeError(f"a Split regex must be a non-empty string, got {source!r}")
    translated = _Translator(source).translate()
    try:
        regex.compile(translated)
    except regex.error as exc:
        raise BpeError(f"the Split regex {source!r} does not compile ({exc})") from None
    return translated
