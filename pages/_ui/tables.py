"""pandas tables that describe tokenizers: merge records, a Picky BPE tokenizer's removals and the
one-row summary of a tokenizer. Pure functions (no streamlit): pages show the frames with
``st.dataframe``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from bpe_core import Tokenizer
from bpe_core.analysis.picky_removals import Removal
from bpe_core.bpe.tokens import token_display

MERGE_COLUMNS = ["rank", "left", "right", "new token", "id", "count"]


def merges_table(tokenizer: Tokenizer, ranks: Iterable[int], *, records: list | None = None,
                 vocab: dict | None = None) -> pd.DataFrame:
    """Rows for the given merge ranks: rank, left, right, new token, id, count. ``records`` and
    ``vocab`` are the tokenizer's when the caller keeps them (building them is slow at 200k tokens:
    bench/PERFORMANCE.md, "Figures behind choices in the code")."""
    records = tokenizer.merge_records if records is None else records
    vocab = tokenizer.vocab if vocab is None else vocab
    rows = []
    for rank in ranks:
        if 0 <= rank < len(records):
            r = records[rank]
            rows.append(
                {
                    "rank": r.rank,
                    "left": token_display(vocab[r.left]),
                    "right": token_display(vocab[r.right]),
                    "new token": token_display(vocab[r.id]),
                    "id": r.id,
                    "count": r.count,
                }
            )
    return pd.DataFrame(rows, columns=MERGE_COLUMNS)


def pattern_label(tokenizer: Tokenizer) -> str:
    """The tokenizer's pre-tokenization: a preset's name, "none" or "custom"."""
    return tokenizer.pattern_name or ("none" if tokenizer.pattern is None else "custom")


def specials_text(specials, shown: int = 3) -> str:
    """The first ``shown`` special tokens and how many more (modern tokenizers have thousands).

    >>> specials_text(["<a>", "<b>", "<c>", "<d>", "<e>"]), specials_text([])
    ('<a>, <b>, <c> and 2 more', '—')
    """
    specials = list(specials)
    more = f" and {len(specials) - shown:,} more" if len(specials) > shown else ""
    return ", ".join(specials[:shown]) + more if specials else "—"


def summary_row(choice, tokenizer: Tokenizer) -> dict:
    """One row of the table of available tokenizers (``choice``: a ``tokenizers.TokenizerChoice``); the
    note before the special tokens, which are cut to a few."""
    return {
        "tokenizer": choice.label,
        "kind": choice.kind,
        "vocab size": tokenizer.vocab_size,
        "merges": len(tokenizer.merges),
        "pattern": pattern_label(tokenizer),
        "note": choice.note,
        "special tokens": specials_text(tokenizer.special_tokens),
    }


def ratio_text(numerator: float, denominator: float) -> str:
    """``numerator / denominator`` with two decimals, or a dash when the denominator is 0."""
    return f"{numerator / denominator:.2f}" if denominator else "—"


def removals_frame(removals: Sequence[Removal]) -> pd.DataFrame:
    """Picky BPE's removals: when (the merge step that removed it, from 0), what (the token and the
    parts it was split into), why (its IoS), and whether a later merge brought it back."""
    rows = [{
        "merge step": removal.merge_step,
        "removed token": token_display(removal.token),
        "split into": " + ".join(token_display(part) for part in removal.parts),
        "IoS": removal.ios,
        "frequency then": removal.frequency,
        "made again later": "yes" if removal.restored else "no",
    } for removal in removals]  # fmt: skip
    columns = ["merge step", "removed token", "split into", "IoS", "frequency then", "made again later"]
    return pd.DataFrame(rows, columns=columns)
