"""The Lab page's tables as pandas frames, from a ``VariantComparison`` (``bpe_core.analysis.variants``):
the summary per group of texts, one measure per text and variant (a row per language, programming
language or data format, a column per variant), every measure per text and the superwords (Picky
BPE's removals are ``pages/_ui/tables.py``'s). Shares are in percent. Pure functions (no streamlit):
the page shows the frames."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bpe_core.analysis.variants import VariantComparison
from bpe_core.display.glyphs import token_label
from bpe_core.display.marks import parse_token_display

#: comparison field -> column title; the fields in percent are PERCENT.
MEASURES = {
    "tokens_per_byte": "tokens/byte",
    "saved_vs_bpe": "saved vs BPE %",
    "renyi_efficiency": "Rényi efficiency",
    "unique_tokens": "unique tokens",
    "avg_token_rank": "avg token rank",
    "fertility": "fertility",
    "zipf_slope": "Zipf slope",
    "zipf_mae": "Zipf fit error",
    "zipf_auc": "Zipf area",
    "superword_share": "superwords %",
    "tokens": "tokens",
    "bytes": "bytes",
}
PERCENT = ("saved_vs_bpe", "superword_share")
GROUP_NAMES = {
    "natural": "natural languages",
    "code": "code",
    "data": "data formats",
    "held-out": "your held-out text",
    "all": "all texts",
}


def _value(row: dict, field: str) -> float | None:
    value = row.get(field)
    if value is None:
        return None
    return 100 * value if field in PERCENT else value


def summary_frame(comparison: VariantComparison, fields: Sequence[str] = tuple(MEASURES)) -> pd.DataFrame:
    """One row per variant and group of texts (natural, code, data, all), pooled."""
    rows = []
    for row in comparison.summary:
        entry = {"variant": row["variant"], "texts": GROUP_NAMES.get(row["sample"], row["sample"])}
        entry |= {MEASURES[field]: _value(row, field) for field in fields}
        rows.append(entry)
    return pd.DataFrame(rows, columns=["variant", "texts", *(MEASURES[field] for field in fields)])


def per_text_frame(comparison: VariantComparison, field: str) -> pd.DataFrame:
    """``field`` for each held-out text (a row: its label and kind) and variant (a column), in the
    order of the texts and of the variants."""
    variants = list(dict.fromkeys(row["variant"] for row in comparison.rows))
    texts: dict[str, dict] = {}
    for row in comparison.rows:
        entry = texts.setdefault(row["sample"], {"text": row["label"], "kind": row["kind"]})
        entry[row["variant"]] = _value(row, field)
    return pd.DataFrame(list(texts.values()), columns=["text", "kind", *variants])


def rows_frame(comparison: VariantComparison) -> pd.DataFrame:
    """Every measure of every variant on every held-out text."""
    rows = [
        {"variant": row["variant"], "text": row["label"], "kind": row["kind"]}
        | {MEASURES[field]: _value(row, field) for field in MEASURES}
        for row in comparison.rows
    ]
    return pd.DataFrame(rows, columns=["variant", "text", "kind", *MEASURES.values()])


def superwords_frame(found: Sequence[tuple[str, int]]) -> pd.DataFrame:
    """A SuperBPE variant's most frequent superwords (as ``compare_variants`` gives them: in
    ``token_display``'s convention) and their counts on the held-out text, each written as the app
    writes tokens (``glyphs.token_label``: characters, never ``\\xNN``)."""
    rows = [{"superword": token_label(parse_token_display(text)), "held-out count": count} for text, count in found]
    return pd.DataFrame(rows, columns=["superword", "held-out count"])
