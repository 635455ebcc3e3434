"""A held-out split of a training corpus, and compression measured on the held-out part.

``split_heldout`` sets aside a share of a corpus for evaluation, deterministically: the same
documents, fraction and seed always give the same split, on every machine and Python version. It
holds out whole documents when the corpus has many (``DOCUMENT_SPLIT_FROM`` non-blank documents or
more), else single lines of the documents. A unit (document or line) is held out by the rank of a
keyed hash of its text (BLAKE2b keyed with the seed), so identical units always land on the same side:
no held-out line appears verbatim in the training part. Blank units are never held out.

``heldout_measures`` encodes the held-out text with several tokenizers and gives characters per
token, bytes per token and tokens per 1,000 characters for each. ``overlap_shares`` says how much of
a text a tokenizer saw in training (the share of its lines that occur verbatim in the training text),
so a measurement on text it was trained on can be flagged as in-sample.

This module does not train, read files or draw anything; it imports no UI library.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core.analysis.fairness import clean_text, ratio
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer

#: From this many non-blank documents on, ``by="auto"`` holds out whole documents (else lines).
DOCUMENT_SPLIT_FROM = 100
UNITS = ("auto", "document", "line")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True)
class HeldOutSplit:
    """A corpus cut in two: ``train`` and ``heldout`` are lists of documents (for a line split,
    each is a run of consecutive lines of one document). ``unit`` is ``"document"`` or ``"line"``;
    ``units`` counts the non-blank units and ``heldout_units`` those held out."""

    train: list[str]
    heldout: list[str]
    unit: str
    units: int
    heldout_units: int
    fraction: float
    seed: int

    @property
    def train_characters(self) -> int:
        return sum(map(len, self.train))

    @property
    def heldout_characters(self) -> int:
        return sum(map(len, self.heldout))

    def describe(self) -> str:
        """One plain sentence, e.g. ``'12 of 120 lines held out (1,234 of 12,345 characters, 10.0%), seed 0.'``"""
        total = self.train_characters + self.heldout_characters
        share = 100 * self.heldout_characters / total if total else 0.0
        return (
            f"{self.heldout_units:,} of {self.units:,} {self.unit}s held out ({self.heldout_characters:,} of "
            f"{total:,} characters, {share:.1f}%), seed {self.seed}."
        )


def _check(fraction: object, seed: object, by: object) -> None:
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        raise BpeError(f"fraction must be a number between 0 and 1 (e.g. 0.1 for 10%), got {fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BpeError(f"seed must be a whole number >= 0, got {seed!r}")
    if by not in UNITS:
        raise BpeError(f"by must be one of {', '.join(UNITS)}, got {by!r}")


def _documents(documents: str | Iterable[str]) -> list[str]:
    if isinstance(documents, str):
        return [documents]
    found = list(documents)
    for position, document in enumerate(found):
        if not isinstance(document, str):
            raise TypeError(
                f"document {position} is a {type(document).__name__}, not str: pass texts, not bytes or ids"
            )
    return found


def _scorer(seed: int) -> Callable[[str], bytes]:
    """text -> its BLAKE2b hash keyed with the seed (the key set up once, copied per text)."""
    key = seed.to_bytes(16, "little") if seed < 2**128 else hashlib.sha256(str(seed).encode()).digest()
    keyed = hashlib.blake2b(digest_size=16, key=key)

    def score(text: str) -> bytes:
        hasher = keyed.copy()
        hasher.update(text.encode("utf-8", "surrogatepass"))
        return hasher.digest()

    return score


def choose_heldout(units: Sequence[str], fraction: float, seed: int) -> set[str]:
    """The texts of the units to hold out: whole groups of identical texts, lowest keyed hash first,
    as many as fit in ``round(fraction * len(units))`` units (at least one group). Blank texts are
    never chosen.

    >>> sorted(choose_heldout(["a", "b", "c", "d"], 0.5, 0))
    ['a', 'd']
    """
    counts: dict[str, int] = {}
    for text in units:
        if text.strip():
            counts[text] = counts.get(text, 0) + 1
    wanted = round(fraction * sum(counts.values()))
    if wanted < 1:
        return set()
    chosen: set[str] = set()
    taken = 0
    score = _scorer(seed)
    ranked = [text for _, text in sorted((score(text), text) for text in counts)]
    for text in ranked:
        if taken + counts[text] <= wanted:
            chosen.add(text)
            taken += counts[text]
    if not chosen:  # every group is larger than the share: the first one, whatever its size
        chosen.add(ranked[0])
    return chosen


def _empty_heldout(unit: str, units: int, fraction: float) -> ValueError:
    return BpeError(
        f"the held-out part would be empty: {fraction:.0%} of {units:,} non-blank {unit}(s) is less than one "
        f"{unit}. Add more text (one held-out {unit} needs about {max(2, round(1 / fraction)):,} of them), raise "
        "the held-out share, or train without a held-out split."
    )


def _empty_train(unit: str, units: int) -> ValueError:
    return BpeError(
        f"the training part would be empty: all {units:,} non-blank {unit}(s) would be held out (identical "
        f"{unit}s stay together). Add more varied text, lower the held-out share, or train without a held-out split."
    )


def split_heldout(
    documents: str | Iterable[str], *, fraction: float = 0.1, seed: int = 0, by: str = "auto"
) -> HeldOutSplit:
    """Hold out about ``fraction`` of the corpus for evaluation, deterministically (see the module).

    ``by="auto"`` holds out whole documents when there are ``DOCUMENT_SPLIT_FROM`` non-blank ones or
    more, else lines; ``"document"`` or ``"line"`` forces the unit. ValueError when the held-out part or
    the training part would be empty, saying what to do.

    >>> split = split_heldout(["one\\ntwo\\nthree\\nfour\\n"], fraction=0.25, seed=0)
    >>> split.unit, split.heldout, split.train
    ('line', ['one\\n'], ['two\\nthree\\nfour\\n'])
    """
    _check(fraction, seed, by)
    docs = _documents(documents)
    non_blank = sum(1 for d in docs if d.strip())
    unit = by if by != "auto" else ("document" if non_blank >= DOCUMENT_SPLIT_FROM else "line")
    if unit == "document":
        chosen = choose_heldout(docs, fraction, seed)
        if not chosen:
            raise _empty_heldout(unit, non_blank, fraction)
        train = [d for d in docs if d not in chosen]
        heldout = [d for d in docs if d in chosen]
        units, held = non_blank, len(heldout)
    else:
        lines = [_LINE.findall(d) for d in docs]
        units = sum(1 for doc in lines for line in doc if line.strip())
        chosen = choose_heldout([line for doc in lines for line in doc], fraction, seed)
        if not chosen:
            raise _empty_heldout(unit, units, fraction)
        train, heldout = _runs(lines, chosen)
        held = sum(1 for doc in lines for line in doc if line in chosen)
    if held >= units:
        raise _empty_train(unit, units)
    return HeldOutSplit(train, heldout, unit, units, held, float(fraction), seed)


def _runs(documents: list[list[str]], chosen: set[str]) -> tuple[list[str], list[str]]:
    """Each document's maximal runs of lines on one side, joined: (training runs, held-out runs).
    Nothing is joined across a cut, so no text the corpus did not hold is made up."""
    train: list[str] = []
    heldout: list[str] = []
    for lines in documents:
        run: list[str] = []
        side = None
        for line in lines:
            held = line in chosen
            if run and held != side:
                (heldout if side else train).append("".join(run))
                run = []
            run.append(line)
            side = held
        if run:
            (heldout if side else train).append("".join(run))
    return train, heldout


# --------------------------------------------------------------------------------------------------
# measuring on the held-out part


@dataclass(frozen=True)
class HeldOutMeasure:
    """One tokenizer on the held-out text: counts and the three compression figures."""

    tokenizer: str
    characters: int
    bytes: int
    tokens: int
    chars_per_token: float | None
    bytes_per_token: float | None
    tokens_per_1000_chars: float | None


def count_tokens(tokenizer: Any, texts: Sequence[str]) -> int:
    """Tokens of all ``texts``, each encoded on its own without special-token handling; a bpe_core
    ``Tokenizer`` runs its fastest exact engine (``engine="auto"``), other tokenizers their own
    ``encode_ordinary``.

    >>> import bpe_core
    >>> count_tokens(bpe_core.train("ab ab ab", 257, min_frequency=1), ["ab", "ab ab"])
    4
    """
    return _count_clean(tokenizer, [clean_text(text) for text in texts])


def _count_clean(tokenizer: Any, cleaned: list[str]) -> int:
    """``count_tokens`` of texts already through ``clean_text``."""
    if isinstance(tokenizer, Tokenizer):
        return sum(map(len, tokenizer.encode_ordinary_batch(cleaned, engine="auto")))
    return sum(len(tokenizer.encode_ordinary(text)) for text in cleaned)


def heldout_measures(tokenizers: Mapping[str, Any], texts: Sequence[str]) -> list[HeldOutMeasure]:
    """Each tokenizer (name -> anything with ``encode_ordinary``) measured on the same held-out texts,
    in the order given. Ratios are None when there are no tokens (or no characters). Each text is
    cleaned (``clean_text``) once, whatever the number of tokenizers."""
    if isinstance(texts, str):
        raise TypeError("texts must be a list of held-out documents, not one str: wrap it in a list")
    cleaned = [clean_text(text) for text in texts]
    characters = sum(map(len, cleaned))
    size = sum(len(text.encode("utf-8")) for text in cleaned)
    found = []
    for name, tokenizer in tokenizers.items():
        tokens = _count_clean(tokenizer, cleaned)
        per_1000 = None if not characters else 1000 * tokens / characters
        found.append(
            HeldOutMeasure(name, characters, size, tokens, ratio(characters, tokens), ratio(size, tokens), per_1000)
        )
    return found


# --------------------------------------------------------------------------------------------------
# in-sample: was a measured text part of the training text?

#: Lines shorter than this (stripped) are too common (``}``, ``end``) to show that a text was seen.
OVERLAP_MIN_CHARS = 8


def _keyed_lines(text: str) -> set[str]:
    lines = {stripped for line in text.splitlines() if (stripped := line.strip())}
    long = {line for line in lines if len(line) >= OVERLAP_MIN_CHARS}
    return long or lines


def overlap_shares(training: Iterable[str], texts: Mapping[str, str]) -> dict[str, float]:
    """For each text (label -> text), the share of its distinct lines (stripped; those of
    ``OVERLAP_MIN_CHARS`` characters or more when it has any) that occur as a line of the training
    documents. 1.0: every line was trained on; 0.0: none. One pass over the training text, holding only
    the measured texts' lines, so a large corpus costs time, not memory.

    >>> overlap_shares(["the first line\\nthe second line\\n"], {"a": "the first line\\nsomething new", "b": "x"})
    {'a': 0.5, 'b': 0.0}
    """
    wanted = {label: _keyed_lines(text) for label, text in texts.items()}
    every = set().union(*wanted.values()) if wanted else set()
    found: set[str] = set()
    for document in training:
        for line in document.splitlines():
            stripped = line.strip()
            if stripped in every:
                found.add(stripped)
    return {label: (len(lines & found) / len(lines) if lines else 0.0) for label, lines in wanted.items()}
