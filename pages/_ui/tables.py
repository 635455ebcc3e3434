"""pandas tables that describe tokenizers (merge records, a Picky BPE tokenizer's removals), and
the rules for cells every table follows: tokens written by
``glyphs`` (characters, never ``\\xNN``), no empty value shown as "None", every cell laid out left to
right (``left_to_right``). Pure functions (no streamlit): pages show the frames with ``st.dataframe``
(through ``widgets.show_table``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from bpe_core import Tokenizer
from bpe_core.analysis.picky_removals import Removal
from bpe_core.display.glyphs import labels_in, text_direction, token_label

MERGE_COLUMNS = ["rank", "left", "right", "new token", "id", "count"]
#: A left-to-right mark: leading a cell, it makes the data grid lay the cell out left to right.
LRM = "\u200e"


def merges_table(
    tokenizer: Tokenizer, ranks: Iterable[int], *, records: list | None = None, vocab: Mapping[int, bytes] | None = None
) -> pd.DataFrame:
    """Rows for the given merge ranks: rank, left, right, new token, id, count. ``records`` and
    ``vocab`` are the tokenizer's when the caller keeps them (building them is slow at 200k tokens:
    bench/PERFORMANCE.md, "Figures behind choices in the code")."""
    records = tokenizer.merge_records if records is None else records
    tokens: Mapping[int, bytes] = tokenizer.vocab if vocab is None else vocab
    rows = []
    for rank in ranks:
        if 0 <= rank < len(records):
            r = records[rank]
            left, right = labels_in([tokens[r.left], tokens[r.right]])  # parts of one character named as such
            rows.append(
                {
                    "rank": r.rank,
                    "left": left,
                    "right": right,
                    "new token": token_label(tokens[r.id]),
                    "id": r.id,
                    "count": r.count,
                }
            )
    frame = pd.DataFrame(rows, columns=MERGE_COLUMNS)
    return frame if frame["count"].notna().any() else frame.drop(columns="count")


def pattern_label(tokenizer: Tokenizer) -> str:
    """The tokenizer's pre-tokenization: a preset's name, "none" or "custom"."""
    return tokenizer.pattern_name or ("none" if tokenizer.pattern is None else "custom")


def ratio_text(numerator: float, denominator: float) -> str:
    """``numerator / denominator`` with two decimals, or a dash when the denominator is 0."""
    return f"{numerator / denominator:.2f}" if denominator else "—"


#: What a table shows where it has no value.
MISSING = "—"


def _cell(value, whole: bool, is_id: bool, number: str | None = None) -> str:
    if pd.isna(value):
        return MISSING
    if number == "percent":
        return f"{value:.0%}"
    if number:  # printf style, as st.column_config.NumberColumn takes it: "%.2f"
        return number % value
    if is_id:
        return f"{int(value)}"
    if whole:
        return f"{int(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def without_missing(
    frame: pd.DataFrame, ids: Iterable[str] = (), formats: Mapping[str, str] | None = None
) -> tuple[pd.DataFrame, dict[str, str]]:
    """``frame`` with every empty value (None, NaN, NA) shown as "—" instead of Streamlit's "None":
    text columns filled, number columns with a gap written as text in the tables' convention (12,345;
    ids plain; 1.234; or a column's printf format from ``formats``, "%.2f", or "percent"); and the
    names of those number columns (to align right). Frames without a gap come back as they are.

    >>> gaps = pd.DataFrame({"n": [1234, None], "id": [15496, None], "t": ["a", None]})
    >>> frame, written = without_missing(gaps, ["id"])
    >>> frame.values.tolist(), sorted(written)
    ([['1,234', '15496', 'a'], ['—', '—', '—']], ['id', 'n'])
    """
    gaps = [column for column in frame.columns if frame[column].isna().any()]
    if not gaps:
        return frame, {}
    frame = frame.copy()
    written: dict[str, str] = {}
    ids = set(ids)
    for column in gaps:
        values = frame[column]
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        if not numeric and values.dropna().map(lambda v: isinstance(v, (int, float))).all() and values.notna().any():
            numeric = True  # an object column of numbers and None
        if not numeric:
            frame[column] = values.astype(object).where(values.notna(), MISSING)
            continue
        present = values.dropna().astype(float)
        whole = bool(((present % 1) == 0).all())
        frame[column] = [_cell(v, whole, column in ids, (formats or {}).get(column)) for v in values]
        written[column] = "right"
    return frame, written


def removals_frame(removals: Sequence[Removal]) -> pd.DataFrame:
    """Picky BPE's removals: when (the merge step that removed it, from 0), what (the token and the
    parts it was split into), why (its IoS), and whether a later merge brought it back."""
    rows = [
        {
            "merge step": removal.merge_step,
            "removed token": token_label(removal.token),
            "split into": " + ".join(labels_in(removal.parts)),
            "IoS": removal.ios,
            "frequency then": removal.frequency,
            "made again later": "yes" if removal.restored else "no",
        }
        for removal in removals
    ]
    columns = ["merge step", "removed token", "split into", "IoS", "frequency then", "made again later"]
    return pd.DataFrame(rows, columns=columns)


def left_to_right(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each text cell whose first strong character is right-to-left (Arabic, Hebrew)
    led by a left-to-right mark. The data grid lays such a cell out right to left against the right
    edge, so ‘⟨ا 1/2⟩’ was drawn ‘⟨1/2 ا⟩’ and hidden in a column wider than the table; with the mark
    it reads as every other cell, its Arabic still right to left inside. Other cells are untouched.

    >>> left_to_right(pd.DataFrame({"t": ["⟨ا 1/2⟩", "abc", "हि"], "n": [1, 2, 3]}))["t"].tolist()
    ['\u200e⟨ا 1/2⟩', 'abc', 'हि']
    """
    changed: dict[str, pd.Series] = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        rtl = values.map(lambda v: isinstance(v, str) and not v.isascii() and text_direction(v) == "rtl").astype(bool)
        if rtl.any():
            changed[column] = values.astype(object).where(~rtl, LRM + values.astype(str))
    if not changed:
        return frame
    frame = frame.copy()
    for column, values in changed.items():
        frame[column] = values
    return frame
