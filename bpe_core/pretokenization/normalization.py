"""Unicode normalization as Hugging Face ``tokenizers`` applies it: NFC, NFD, NFKC, NFKD (Python's
``unicodedata``) and lowercase, character by character as Rust's ``char::to_lowercase`` (so a final
sigma stays σ, where ``str.lower()`` would write ς), in a given order; and the same with, for each
output character, the span of the input it comes from. It knows nothing of pre-tokenization
(``stages`` uses it) and of Unicode versions: each library normalizes by its own tables.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from itertools import pairwise
from typing import Literal

NORMALIZATIONS = ("NFC", "NFD", "NFKC", "NFKD", "lowercase")
#: The Unicode normal forms among ``NORMALIZATIONS``, each by its name as ``unicodedata`` types it.
_FORMS: dict[str, Literal["NFC", "NFD", "NFKC", "NFKD"]] = {"NFC": "NFC", "NFD": "NFD", "NFKC": "NFKC", "NFKD": "NFKD"}


def _lowercase(text: str) -> str:
    """Character by character (HF's way); ``str.lower()`` gives the same except for a final sigma."""
    return "".join(map(str.lower, text)) if "Σ" in text else text.lower()


def normalize(text: str, normalizers: Sequence[str]) -> str:
    """``text`` normalized by each of ``normalizers`` in turn.

    >>> normalize("ΟΔΟΣ Cafe\\u0301", ["NFC", "lowercase"])
    'οδοσ café'
    """
    for name in normalizers:
        text = _lowercase(text) if name == "lowercase" else unicodedata.normalize(_FORMS[name], text)
    return text


def _units(text: str, name: str) -> list[tuple[int, int, str]]:
    """``(start, end, output)`` covering ``text``: what each run of characters becomes under the
    normalizer ``name``, in runs as short as normalization allows (one character for lowercase)."""
    if name == "lowercase":
        return [(index, index + 1, char.lower()) for index, char in enumerate(text)]
    form = _FORMS[name]
    if unicodedata.is_normalized(form, text):
        return [(index, index + 1, char) for index, char in enumerate(text)]
    # Runs start at characters of combining class 0; two runs are kept apart only when normalizing
    # them apart gives what normalizing them together does (Hangul jamo compose across such starts).
    starts = [0] + [index for index in range(1, len(text)) if unicodedata.combining(text[index]) == 0]
    units: list[list[int]] = []
    for start, end in pairwise([*starts, len(text)]):
        if units:
            first = units[-1][0]
            joined = unicodedata.normalize(form, text[first:end])
            if joined != unicodedata.normalize(form, text[first:start]) + unicodedata.normalize(form, text[start:end]):
                units[-1][1] = end
                continue
        units.append([start, end])
    out = [(start, end, unicodedata.normalize(form, text[start:end])) for start, end in units]
    if "".join(output for _, _, output in out) != unicodedata.normalize(form, text):
        return [(0, len(text), unicodedata.normalize(form, text))]
    return out


def normalize_aligned(text: str, normalizers: Sequence[str]) -> tuple[str, list[int], list[int]]:
    """``normalize(text, normalizers)`` with, for each of its characters, the start and end of the
    characters of ``text`` it comes from.

    >>> normalize_aligned("Ａb", ["NFKC", "lowercase"])
    ('ab', [0, 1], [1, 2])
    """
    starts = list(range(len(text)))
    ends = list(range(1, len(text) + 1))
    for name in normalizers:
        new_text: list[str] = []
        new_starts: list[int] = []
        new_ends: list[int] = []
        for start, end, output in _units(text, name):
            if end - start == len(output):
                new_starts.extend(starts[start:end])
                new_ends.extend(ends[start:end])
            else:
                new_starts.extend([starts[start]] * len(output))
                new_ends.extend([ends[end - 1]] * len(output))
            new_text.append(output)
        text, starts, ends = "".join(new_text), new_starts, new_ends
    return text, starts, ends
