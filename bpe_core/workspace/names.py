"""Names to file names: the one rule by which a name a person gives (a tokenizer in the library folder,
an external tokenizer's file) becomes the name of a file, on Linux, macOS and Windows alike.

``file_stem(name)`` is the file's name without its suffix:

* **Made safe**: NFC; path separators, control characters and the characters Windows forbids
  (``: * ? " < > |``) become ``_``; whitespace runs become one space; leading dots, surrounding spaces,
  trailing dots and a ``.json`` suffix go. Letters, digits and combining marks of every script stay.
* **Refused** with a ``BpeError`` that names the character or the name: invisible characters (Unicode's
  default-ignorable code points: zero-width space, word joiner, soft hyphen, byte-order mark, tag
  characters...) and bidirectional controls (LRM, RLM, ALM, embeddings, overrides, isolates), which
  make a name look like another or show in another order; the joiners and selectors scripts and emoji
  need are kept where they act (``INVISIBLE_BUT_MEANT``). Windows device names (``CON``, ``PRN``,
  ``AUX``, ``NUL``, ``COM0``-``COM9``, ``LPT0``-``LPT9``, with ``¹ ² ³`` too, ``CONIN$``, ``CONOUT$``,
  ``CLOCK$``) as the whole name or before its first dot (``nul.tar.gz``), any case: no file can have
  such a name there. A name with no letter or digit.
* **Never cut into another**: a name longer than ``MAX_NAME_LENGTH`` characters or ``MAX_NAME_BYTES``
  UTF-8 bytes keeps its start (between whole characters) and ends in ``~`` and ten hex digits of the
  SHA-256 of the whole name, so two long names that share a start get two files.

``skeleton(name)`` (NFKC, default-ignorable code points removed) is what two names that look alike
share: the library refuses a new name whose skeleton is an existing name's. ``numbered(name)`` gives
the names tried when one is taken (``name 2``, ``name 3``...). ``listed_name(stem)`` is
the name a file found in a folder is listed under: its stem, with any invisible, bidirectional or
control character shown as ``<U+202E>`` (which no name made by the rule holds: ``<`` becomes ``_``).

This module only computes names; it reads and writes nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from collections.abc import Iterator

import regex

from bpe_core.errors import BpeError

MAX_NAME_LENGTH = 80
MAX_NAME_BYTES = 120  # file systems count bytes (255 on most, 143 under eCryptfs); a character takes up to 4
#: The end of a long name's stem: ``~`` and this many hex digits of the whole name's SHA-256.
HASH_DIGITS = 10

#: Made ``_``: path separators, characters Windows forbids in names, C0 and C1 controls, line and
#: paragraph separators, lone surrogates (not encodable as UTF-8).
_UNSAFE = re.compile('[/\\\\:*?"<>|\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+')
#: Refused: what hides or reorders text (Unicode's Default_Ignorable_Code_Point includes every
#: Bidi_Control; U+FFF9-FFFB, interlinear annotation, are invisible format characters too).
_HIDDEN = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\ufff9-\ufffb]")
#: Invisible characters kept where a script or emoji needs them: a joiner after a virama (Indic
#: scripts), a non-joiner between letters of a joining script (Persian, Arabic, Syriac...), a joiner
#: inside an emoji sequence, a variation selector after an emoji, keycap, symbol or ideograph (or a
#: Mongolian letter), a tag sequence after the black flag (the flags of Scotland, Wales...).
INVISIBLE_BUT_MEANT = regex.compile(
    r"""(?<=\p{ccc=Virama})[\u200c\u200d]
    | (?<=[\p{jt=L}\p{jt=D}]\p{jt=T}*)\u200c(?=\p{jt=T}*[\p{jt=R}\p{jt=D}])
    | (?<=[\p{ExtPict}\p{EMod}\ufe0f])\u200d(?=\p{ExtPict})
    | (?<=[\p{ExtPict}0-9\#*\p{Han}\p{Myanmar}\p{S}])[\ufe00-\ufe0f]
    | (?<=\p{Han})[\U000e0100-\U000e01ef]
    | (?<=\p{Script=Mongolian})[\u180b-\u180d\u180f]
    | (?<=\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]*)
      [\U000e0030-\U000e0039\U000e0061-\U000e007a\U000e007f]""",
    regex.VERBOSE,
)
_DEVICE = re.compile(r"(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)", re.IGNORECASE)
_SHOWN = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\ufff9-\ufffb\p{Cc}\u2028\u2029]")
_GRAPHEME = regex.compile(r"\X")
_SPACES = re.compile(r"\s+")
SUFFIX = ".json"


def file_stem(name: str) -> str:
    """The file name (without suffix) of ``name`` under the module's rule; ``BpeError`` when refused.

    >>> file_stem("../my model.json"), file_stem("हिन्दी-bpe"), file_stem("cafe\\u0301")
    ('_my model', 'हिन्दी-bpe', 'café')
    >>> file_stem("a" * 100)[-11:], len(file_stem("a" * 100)) <= MAX_NAME_LENGTH
    ('~2816597888', True)
    >>> file_stem("nul.tar.gz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bpe_core.errors.BpeError: 'nul.tar.gz' cannot be a file name on Windows: NUL is a device name there ...
    """
    cleaned = _cleaned(name)
    hidden = _hidden_character(cleaned)
    if hidden is not None:
        raise BpeError(_hidden_message(name, hidden))
    if not cleaned or not re.search(r"[^\W_]", cleaned):  # at least one letter or digit
        raise BpeError(f"{name!r} is not a usable tokenizer name: use letters, digits, spaces, '.', '_' or '-'")
    stem = _fitted(cleaned)
    device = _device(stem)
    if device is not None:
        first, dot, rest = stem.partition(".")
        where = " (the part before the first dot counts)" if dot else ""
        raise BpeError(
            f"{name!r} cannot be a file name on Windows: {device.upper()} is a device name there{where}, like "
            f"CON, PRN, AUX, NUL, COM1, LPT1 and CONIN$: pick another name, e.g. {f'{first}-tokenizer{dot}{rest}'!r}"
        )
    return stem


def safe_stem(name: str) -> str:
    """``file_stem`` for a name nobody typed (an imported file's own): refused characters removed and a
    device name followed by ``_`` instead of an error (still a ``BpeError`` with no letter or digit).

    >>> safe_stem("CON"), safe_stem("nul.tar.gz"), safe_stem("zero\\u200bwidth")
    ('CON_', 'nul_.tar.gz', 'zerowidth')
    """
    cleaned = _cleaned(name)
    meant = {found.start() for found in INVISIBLE_BUT_MEANT.finditer(cleaned)}
    visible = "".join(c for i, c in enumerate(cleaned) if i in meant or not _HIDDEN.fullmatch(c))
    try:
        return file_stem(visible)
    except BpeError:
        if not re.search(r"[^\W_]", visible):
            raise
        first, dot, rest = _fitted(visible).partition(".")
        return file_stem(f"{first.rstrip()}_{dot}{rest}")


def skeleton(name: str) -> str:
    """What a name looks like: NFKC, without default-ignorable code points. Two names with one
    skeleton look alike (``ﬁle`` and ``file``, ``a`` and ``a`` with a zero-width space).

    >>> skeleton("\\ufb01le") == skeleton("fi\\u200ble") == "file"
    True
    """
    return _HIDDEN.sub("", unicodedata.normalize("NFKC", name))


def listed_name(stem: str) -> str:
    """The name a file whose stem is ``stem`` is listed under: ``stem``, invisible, bidirectional and
    control characters shown as ``<U+XXXX>`` (but for those ``INVISIBLE_BUT_MEANT`` keeps).

    >>> listed_name("legacy\\u202e"), listed_name("plain")
    ('legacy<U+202E>', 'plain')
    """
    meant = {found.start() for found in INVISIBLE_BUT_MEANT.finditer(stem)}
    return "".join(f"<U+{ord(c):04X}>" if i not in meant and _SHOWN.fullmatch(c) else c for i, c in enumerate(stem))


def _cleaned(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"a tokenizer name must be a string, not {type(name).__name__}")
    cleaned = unicodedata.normalize("NFC", _UNSAFE.sub("_", name))
    cleaned = _SPACES.sub(" ", cleaned).strip().lstrip(".").strip()
    if cleaned.lower().endswith(SUFFIX):
        cleaned = cleaned[: -len(SUFFIX)].rstrip()
    return cleaned.rstrip(" .")


def _hidden_character(text: str) -> str | None:
    meant = {found.start() for found in INVISIBLE_BUT_MEANT.finditer(text)}
    return next((found[0] for found in _HIDDEN.finditer(text) if found.start() not in meant), None)


def _hidden_message(name: str, character: str) -> str:
    code = f"U+{ord(character):04X} ({unicodedata.name(character, 'an unnamed character')})"
    if regex.fullmatch(r"\p{Bidi_Control}", character):
        why = "a bidirectional control, which changes the order in which the name is shown"
    else:
        why = "an invisible character, so the name would look the same as another"
    return f"{listed_name(name)!r} holds {code}, {why}: remove it"


def _fitted(cleaned: str) -> str:
    """``cleaned`` when within the limits, else its start and ``~`` + the hash of all of it."""
    if len(cleaned) <= MAX_NAME_LENGTH and len(cleaned.encode("utf-8")) <= MAX_NAME_BYTES:
        return cleaned
    tail = "~" + hashlib.sha256(cleaned.encode("utf-8")).hexdigest()[:HASH_DIGITS]
    start = cut(cleaned, MAX_NAME_BYTES - len(tail), characters=MAX_NAME_LENGTH - len(tail)).rstrip(" .")
    return start + tail


def numbered(name: str) -> Iterator[str]:
    """``name``, then ``name 2``, ``name 3``... without end: the one convention for a name already
    taken, each numbered name cut to stay within the limits with its number (``cut``).

    >>> list(itertools.islice(numbered("my-bpe"), 3)), next(itertools.islice(numbered("a" * 90), 1, None))[-4:]
    (['my-bpe', 'my-bpe 2', 'my-bpe 3'], 'aa 2')
    """
    yield name
    for number in itertools.count(2):
        suffix = f" {number}"
        yield cut(name, MAX_NAME_BYTES - len(suffix), characters=MAX_NAME_LENGTH - len(suffix)).rstrip(" .") + suffix


def cut(text: str, limit: int, *, characters: int = MAX_NAME_LENGTH) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes and ``characters`` code points, never inside a
    user-perceived character (a letter keeps its combining marks).

    >>> cut("abc", 2), cut("ki\\u0307", 2)
    ('ab', 'k')
    """
    kept: list[str] = []
    size = length = 0
    for cluster in _GRAPHEME.findall(text):
        size += len(cluster.encode("utf-8"))
        length += len(cluster)
        if size > limit or length > characters:
            break
        kept.append(cluster)
    return "".join(kept)


def _device(stem: str) -> str | None:
    first = stem.split(".", 1)[0].rstrip(" ")
    return first if _DEVICE.fullmatch(first) else None
