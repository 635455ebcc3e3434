"""Picky BPE's removals read back from a tokenizer (``rule="picky"``, see ``training.picky``): when
each happened (the merge step that triggered it), what was removed (the token, and the parts its
occurrences were split into) and why (its Intersection over Self, above the threshold). The tokens
and the order come from ``Tokenizer.picky_events``; the IoS and the token's frequency then from
``training["picky_events"]``, which bpe_core JSON files keep (None where a tokenizer has no such
record). Reads only: trains and encodes nothing. Background: docs/library/variants.md, "Picky BPE".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MERGE, REMOVE = "merge", "remove"


@dataclass(frozen=True)
class Removal:
    """One removal. ``event`` is its place among all events, ``merge_step`` the place (from 0) among
    the merge events of the merge whose IoS check removed it; ``frequency`` is the token's count when
    removed (given to its parts); ``restored`` says whether a later merge made the token again, so that
    it is in the final vocabulary."""

    event: int
    merge_step: int
    token: bytes
    parts: tuple[bytes, ...]
    ios: float | None
    frequency: int | None
    restored: bool


def _training_rows(tokenizer: Any, events: Sequence[tuple]) -> list | None:
    """``training["picky_events"]`` when it lines up with the events (one row each, same kinds)."""
    rows = (getattr(tokenizer, "training", None) or {}).get("picky_events")
    if not isinstance(rows, list) or len(rows) != len(events):
        return None
    try:
        if all(row[1] == kind for row, (kind, _, _) in zip(rows, events, strict=True)):
            return rows
    except (TypeError, IndexError, KeyError):
        pass
    return None


def _number(row: list | None, index: int, kind: type | tuple[type, ...]) -> Any:
    """``row[index]`` (the IoS: the first item of a list) if it is a ``kind``, else None."""
    if row is None or len(row) <= index:
        return None
    value = row[index]
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, kind) and not isinstance(value, bool) else None


def picky_removals(tokenizer: Any) -> list[Removal]:
    """Every removal of a Picky BPE tokenizer, in training order; empty for any other tokenizer.

    >>> from bpe_core.training.picky import train_picky
    >>> tok = train_picky(["the then there the then"], 258, threshold=0.7, min_frequency=1, pattern=None)
    >>> [(r.merge_step, r.token, r.parts, r.ios) for r in picky_removals(tok)]
    [(1, b'th', (b't', b'h'), 1.0), (2, b'the', (b't', b'h', b'e'), 0.8)]
    """
    if getattr(tokenizer, "rule", "bpe") != "picky":
        return []
    events = tokenizer.picky_events
    rows = _training_rows(tokenizer, events)
    present = set(tokenizer.vocab.values())
    found, merges = [], 0
    for index, (kind, token, parts) in enumerate(events):
        if kind == MERGE:
            merges += 1
            continue
        row = rows[index] if rows is not None else None
        ios = _number(row, 6, (int, float))
        found.append(
            Removal(
                index,
                merges - 1,
                token,
                tuple(parts),
                None if ios is None else float(ios),
                _number(row, 4, int),
                token in present,
            )
        )
    return found


def removed_tokens(tokenizer: Any) -> dict[bytes, Removal]:
    """The tokens a Picky BPE tokenizer made and removed for good (not in its vocabulary), each with
    its last removal; empty for any other tokenizer."""
    return {removal.token: removal for removal in picky_removals(tokenizer) if not removal.restored}


def merge_steps(tokenizer: Any) -> dict[bytes, int]:
    """A Picky BPE tokenizer's present merged tokens -> the merge step (from 0, among merge events)
    that last made each: what a merge rank is for the other tokenizers. Empty for any other tokenizer."""
    if getattr(tokenizer, "rule", "bpe") != "picky":
        return {}
    present = set(tokenizer.vocab.values())
    steps: dict[bytes, int] = {}
    merges = 0
    for kind, token, _ in tokenizer.picky_events:
        if kind == MERGE:
            if token in present:
                steps[token] = merges
            merges += 1
    return steps
