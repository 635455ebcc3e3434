"""CSV that a spreadsheet opens as data, never as formulas: the one way bpe_core and the workbench write
CSV (the CLI's ``compare --csv`` and ``lab --csv``, ``compare_variants``' tables, every CSV download of
the app).

A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is one a spreadsheet
(Excel, LibreOffice, Google Sheets) may run as a formula: a sample or file named ``=cmd|' /C calc'!A0``
would run a program on the reader's machine. As OWASP's advice on CSV injection says, such a cell is
written with a single quote in front (``'=cmd…``), which spreadsheets show as text (and so is one that
already begins with quotes before such a character); ``csv_value`` takes it off again. Numbers stay
numbers (a negative number is no formula), empty values (None, NaN) are empty cells, lines end in CR LF
and quoting is Python's ``csv`` module's. This module knows nothing of what the tables hold.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: What a text cell may not begin with (it would be a formula).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet takes for data.

    >>> safe_cell("=cmd|' /C calc'!A0"), safe_cell("-5%"), safe_cell(-5), safe_cell("eng"), safe_cell(None)
    ("'=cmd|' /C calc'!A0", "'-5%", -5, 'eng', '')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_STARTS):  # quotes too, so that
        return "'" + value  # csv_value gives back exactly what was written
    return value


def csv_value(cell: str) -> str:
    """A cell read back from such a CSV, as it was before ``safe_cell``.

    >>> csv_value("'=1+1"), csv_value("''=1+1"), csv_value("'quoted"), csv_value("plain")
    ('=1+1', "'=1+1", "'quoted", 'plain')
    """
    return cell[1:] if cell.startswith("'") and cell.lstrip("'").startswith(FORMULA_STARTS) else cell


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> str:
    """``rows`` (sequences in ``header``'s order, or mappings by its names) as CSV text with ``header``
    first, every cell through ``safe_cell``; lines end in CR LF, as RFC 4180 has them (so that a cell
    holding either is quoted).

    >>> csv_text(["sample", "tokens"], [{"sample": "@home", "tokens": 3}, ["plain", -1]]).splitlines()
    ['sample,tokens', "'@home,3", 'plain,-1']
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([safe_cell(name) for name in header])
    for row in rows:
        values = [row.get(name) for name in header] if isinstance(row, Mapping) else list(row)
        writer.writerow([safe_cell(value) for value in values])
    return out.getvalue()


def frame_csv(frame: Any) -> str:
    """A pandas DataFrame as ``csv_text`` writes it: its columns as the header, no index (as
    ``frame.to_csv(index=False)``, with every cell safe)."""
    return csv_text([str(column) for column in frame.columns], frame.itertuples(index=False, name=None))
