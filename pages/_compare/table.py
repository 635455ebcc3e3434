"""Compare's full table: one row per sample and tokenizer, shown in views of a few columns each (cost,
words, vocabulary, the texts), so that every view fits the page at 1280 px without a sideways scroll;
the CSV download and the report hold every column. Draws the views; the numbers are ``measures``'.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.analysis.csv_export import frame_csv
from pages._ui import tables
from pages._ui.widgets import number_formats

from .measures import COLUMNS_EXPLAINED, NUMBER_COLUMNS, TABLE_COLUMNS
from .report import Report

#: The full table, in views of a few columns each (every view fits the page at 1280 px; the CSV and the
#: report hold all of them): its name, and its columns after the sample and the tokenizer.
TABLE_VIEWS = {
    "Cost": ["tokens", "chars_per_token", "bytes_per_token", "premium", "reference"],
    "Words": ["words", "fertility", "split_share"],
    "Vocabulary": ["unique_tokens", "renyi_efficiency", "vocab_size", "seen_in_training"],
    "The texts": ["kind", "script", "characters", "bytes", "bytes_per_char"],
    "Sample ids": ["sample"],
}
TABLE_KEYS = ["label", "tokenizer"]


def table_view(table: pd.DataFrame, columns: list[str], key: str) -> None:
    """One view of the full table: the sample and the tokenizer, then ``columns`` (those it has)."""
    part = table[[c for c in TABLE_KEYS + columns if c in table.columns]]
    formats = {column: number for column, (_, number) in NUMBER_COLUMNS.items()}
    shown, written = tables.without_missing(part, formats=formats)  # "—" where a metric does not apply
    shown = tables.left_to_right(shown)  # an Arabic or Hebrew file name laid out as the other cells
    config = (
        number_formats(shown)
        | {"label": "sample", "sample": "sample id"}
        | {
            column: st.column_config.NumberColumn(label, format=number)
            for column, (label, number) in NUMBER_COLUMNS.items()
            if column not in written
        }
        | {
            column: st.column_config.TextColumn(NUMBER_COLUMNS.get(column, (column,))[0], alignment="right")
            for column in written
        }
    )
    st.dataframe(shown, hide_index=True, key=key, column_config=config)


def table_section(frame: pd.DataFrame, report: Report) -> None:
    st.subheader("Full table", divider="gray")
    table = frame[[c for c in TABLE_COLUMNS if c in frame.columns]]
    views = st.tabs(list(TABLE_VIEWS))  # plain: TABLE_VIEWS' names
    for tab, (name, columns) in zip(views, TABLE_VIEWS.items(), strict=True):
        with tab:
            table_view(table, columns, key=f"cmp.table.{name.lower().replace(' ', '_')}")
    report.table("Full table", table)
    st.download_button(
        "⬇ Table as CSV",
        data=frame_csv(table).encode("utf-8"),  # spreadsheet-safe cells
        file_name="tokenizer-comparison.csv",
        mime="text/csv",
        key="cmp.csv",
        help="Every column of every view in one file.",
    )
    with st.expander("What the columns mean"):
        st.markdown(COLUMNS_EXPLAINED)
