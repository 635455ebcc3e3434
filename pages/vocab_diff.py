"""Vocabulary diff: two tokenizers' vocabularies side by side.

Pick A and B (any two tokenizers the app offers); see how many tokens each has that the other lacks,
how much the first k tokens of each share as k grows (the overlap curve), searchable tables of the
tokens only in A, only in B and in both with their ranks, where the merge orders agree (common
prefix, first divergences, rank correlation), and a CSV of every token. Every figure comes from
``bpe_core.analysis.vocab_diff``; external tokenizers (no merges, no learning order) get the token sets only.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import streamlit as st

from bpe_core.analysis import vocab_diff
from bpe_core.analysis.csv_export import csv_text
from bpe_core.analysis.vocab_diff import VocabDiff, Vocabulary
from bpe_core.display.glyphs import labels_in, quote, token_label
from bpe_core.display.marks import parse_token_display, token_display
from pages._ui import charts, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import page_header, show_table, tokenizer_picker

# Widget keys of this page.
K_A = "vdiff.a"
K_B = "vdiff.b"
K_QUERY = "vdiff.query"
K_ORDER = "vdiff.order"
KEPT = [K_A, K_B, K_QUERY, K_ORDER]

#: Rows of one token table (after the search); the CSV holds every token.
MAX_ROWS = 1_000
#: Points of the overlap chart in each power of ten (the table below it keeps 1, 2, 5).
CHART_STEPS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
ORDERS = {
    "rank": "Earliest rank first",
    "length": "Longest token first",
    "gap": "Largest rank difference first (tokens in both)",
}
ID_COLUMNS = ("id", "id in A", "id in B")
OVERLAP_NOTE = (
    "A token's rank is its place among the tokenizer's ordinary tokens in id order (special tokens left out): "
    "for BPE, the order the tokens joined the vocabulary, the 256 single bytes first. At each size k the curve "
    "compares the first k tokens of A with the first k of B: the share is |A_k ∩ B_k| / k, the Jaccard index "
    "|A_k ∩ B_k| / |A_k ∪ B_k|."
)

SPEARMAN_HELP = (
    "Spearman's rank correlation of the tokens both have, from how far apart each token's ranks in A "
    "and B are (squared, so a few tokens far out of place weigh a lot): 1 when they come in the same "
    "order, 0 when their orders are unrelated, -1 when reversed."
)
KENDALL_HELP = (
    "Kendall's rank correlation of the tokens both have, from pairs of tokens: the share of pairs A and B "
    "put in the same order minus the share they put in opposite orders (every pair counts the same, "
    "however far apart). 1 when they come in the same order, 0 when unrelated, -1 when reversed."
)
CLOSE_HELP = (
    "The share of the tokens both have whose rank in A and rank in B differ by at most this share of "
    "the larger of the two."
)


@st.cache_resource(show_spinner="Reading the vocabulary…", max_entries=8)
def vocabulary_of(fingerprint: str, _tokenizer) -> Vocabulary:
    return vocab_diff.vocabulary(_tokenizer)


@st.cache_resource(show_spinner="Comparing the vocabularies…", max_entries=8)
def diff_of(fingerprint_a: str, fingerprint_b: str, _a: Vocabulary, _b: Vocabulary) -> VocabDiff:
    limit = min(len(_a.tokens), len(_b.tokens))
    sizes = vocab_diff.curve_sizes(limit, steps=CHART_STEPS) if limit else None
    return vocab_diff.diff(_a, _b, sizes=sizes)


#: Whether st.download_button takes a callable (newer Streamlit releases do): the CSV is then written
#: when the button is pressed, not on every change of A or B.
DEFERRED_DOWNLOADS = "callable" in (st.download_button.__doc__ or "")


@st.cache_resource(show_spinner="Writing the CSV…", max_entries=4)
def csv_of(fingerprint_a: str, fingerprint_b: str, _diff: VocabDiff) -> bytes:
    """``csv_bytes``, kept per pair (for Streamlit releases that need the file before the click)."""
    return csv_bytes(_diff)


def csv_bytes(diff: VocabDiff) -> bytes:
    """Every token of both, one row each: shown as the pages show it, its bytes in hex, where it is,
    its rank and id in A and in B (empty where it is missing); then the special tokens. Spreadsheet-safe
    (``csv_export``: a token such as ``=`` or ``-`` is written ``'=``, its bytes in hex are exact). (About
    0.5 s for cl100k against o200k, so it is written when the button is pressed where Streamlit allows.)"""
    header = ["token", "bytes (hex)", "in", "rank in A", "rank in B", "id in A", "id in B"]
    return csv_text(header, _csv_rows(diff)).encode("utf-8")


def _csv_rows(diff: VocabDiff) -> Iterator[list[object]]:
    ids_a, ids_b = diff.a.ids, diff.b.ids
    for token, rank_a, rank_b in diff.sets.shared:
        yield [token_display(token), token.hex(), "both", rank_a, rank_b, ids_a[rank_a], ids_b[rank_b]]
    for token, rank in diff.sets.only_a:
        yield [token_display(token), token.hex(), "A only", rank, "", ids_a[rank], ""]
    for token, rank in diff.sets.only_b:
        yield [token_display(token), token.hex(), "B only", "", rank, "", ids_b[rank]]
    for row in special_rows(diff):
        special = row["special token"]
        yield [special, special.encode().hex(), f"special, {row['in']}", "", "", row["id in A"], row["id in B"]]


# ------------------------------------------------------------------------------------------------
# picking


def default_pair(choices: dict[str, TokenizerChoice]) -> tuple[str, str]:
    """The session's tokenizer trained last against GPT-2, else GPT-2 against cl100k (or the default)."""
    last = st.session_state.get(state.LAST_TRAINED)
    if last in choices:
        return last, "gpt2"
    return "gpt2", "cl100k" if "cl100k" in choices else tokenizers.DEFAULT_KEY


def swap() -> None:
    st.session_state[K_A], st.session_state[K_B] = st.session_state.get(K_B), st.session_state.get(K_A)


def pick(choices: dict[str, TokenizerChoice]) -> tuple[TokenizerChoice, TokenizerChoice]:
    first, second = default_pair(choices)
    left, middle, right = st.columns([10, 2, 10], vertical_alignment="bottom")
    with left:
        a = tokenizer_picker("Tokenizer A", choices, key=K_A, default=first)
    with middle:
        st.button("⇄ Swap", key="vdiff.swap", on_click=swap, help="Swap A and B.")
    with right:
        b = tokenizer_picker("Tokenizer B", choices, key=K_B, default=second)
    return a, b


def load(choice: TokenizerChoice) -> Vocabulary | None:
    try:
        return vocabulary_of(choice.fingerprint, choice.get())
    except (ValueError, OSError) as exc:  # e.g. a packaged vocabulary failed its checksum
        st.error(f"{md(choice.label)} could not be loaded: {md(in_words(exc))}")
        return None


# ------------------------------------------------------------------------------------------------
# sections


def summary(d: VocabDiff, a: TokenizerChoice, b: TokenizerChoice) -> None:
    counts = d.sets.counts
    size_a, size_b, shared = len(d.a.tokens), len(d.b.tokens), counts["shared"]
    st.caption(
        f"A is {md(a.label)}: {size_a:,} tokens, special tokens: {len(d.a.specials):,}. "
        f"B is {md(b.label)}: {size_b:,} tokens, special tokens: {len(d.b.specials):,}. "
        "Tokens are compared by their bytes, special tokens by their text."
    )
    columns = st.columns(5)
    columns[0].metric("in both", f"{shared:,}")
    columns[1].metric("only in A", f"{counts['only_a']:,}")
    columns[2].metric("only in B", f"{counts['only_b']:,}")
    jaccard = f"{shared / max(1, size_a + size_b - shared):.1%}"
    jaccard_help = "The Jaccard index of the whole vocabularies: in both / in either."
    columns[3].metric("Jaccard", jaccard, help=jaccard_help)  # plain: a percentage
    columns[4].metric("special tokens in both", f"{counts['specials_shared']:,}")
    st.write(
        f"{shared:,} tokens are in both: {shared / max(1, size_a):.0%} of A's and {shared / max(1, size_b):.0%} of B's."
    )
    for note in d.notes:
        st.info(md(note))


def overlap_section(d: VocabDiff, a: TokenizerChoice, b: TokenizerChoice) -> None:
    st.subheader("Overlap as the vocabulary grows")
    if d.curve is None:
        st.caption("No overlap curve: an external tokenizer has no rank order (see the note above).")
        return
    ks = [p.k for p in d.curve]
    series = {
        "share of the first k tokens in both": (ks, [p.share for p in d.curve]),
        "Jaccard index of the first k tokens": (ks, [p.jaccard for p in d.curve]),
    }
    title = f"{a.label} (A) vs {b.label} (B)"
    figure = charts.lines(
        series,
        "k = %{x:,}: %{y:.1%}",
        360,
        title=plot_text(title),
        xaxis_title="k (the first k tokens of each, log scale)",
        yaxis_title="overlap",
        yaxis_tickformat=".0%",
        yaxis_range=[0, 1.04],  # shares: 0% to 100%, whatever the curve (a flat 100% is not autoscaled to 200%)
    )
    charts.log_x(figure, ks)
    st.plotly_chart(figure, key="vdiff.chart.overlap", config=charts.plot_config("vocabulary-overlap"))
    st.caption(OVERLAP_NOTE)
    shown = set(vocab_diff.curve_sizes(ks[-1]))
    rows = [
        {"k": p.k, "in both": p.shared, "share": f"{p.share:.1%}", "Jaccard": f"{p.jaccard:.1%}"}
        for p in d.curve
        if p.k in shown
    ]
    show_table(pd.DataFrame(rows))


def matching(rows: list[tuple], needle: bytes) -> list[tuple]:
    """The rows whose token (first field) holds ``needle``, ASCII letters in any case."""
    if not needle:
        return rows
    low = needle.lower()
    return [row for row in rows if low in row[0].lower()]


def ordered(rows: list[tuple], order: str) -> list[tuple]:
    """Rows (token, rank, ...) as ``order`` says; they come by rank."""
    if order == "length":
        return sorted(rows, key=lambda row: (-len(row[0]), row[1]))
    if order == "gap" and rows and len(rows[0]) == 3:
        return sorted(rows, key=lambda row: (-abs(row[2] - row[1]), row[1]))
    return rows


def capped(rows: list[tuple], total: int) -> list[tuple]:
    """The first MAX_ROWS rows, with a caption saying how many there are."""
    matched = f"{len(rows):,} matching tokens of {total:,}" if len(rows) < total else f"{total:,} tokens"
    if len(rows) > MAX_ROWS:
        st.caption(f"The first {MAX_ROWS:,} of {matched}; the CSV below has every token.")  # plain: numbers
    elif len(rows) < total:
        st.caption(f"{matched}.")  # plain: numbers
    return rows[:MAX_ROWS]


def only_table(rows: list[tuple[bytes, int]], vocab: Vocabulary, needle: bytes, order: str) -> None:
    picked = capped(ordered(matching(rows, needle), order), len(rows))
    frame = pd.DataFrame(
        [{"token": token_label(t), "rank": r, "id": vocab.ids[r], "bytes": len(t)} for t, r in picked],
        columns=["token", "rank", "id", "bytes"],
    )
    show_table(frame, ids=ID_COLUMNS)


def shared_table(d: VocabDiff, needle: bytes, order: str) -> None:
    rows = d.sets.shared
    picked = capped(ordered(matching(rows, needle), order), len(rows))
    frame = pd.DataFrame(
        [
            {
                "token": token_label(t),
                "rank in A": ra,
                "rank in B": rb,
                "B - A": rb - ra,
                "id in A": d.a.ids[ra],
                "id in B": d.b.ids[rb],
            }
            for t, ra, rb in picked
        ],
        columns=["token", "rank in A", "rank in B", "B - A", "id in A", "id in B"],
    )
    show_table(frame, ids=ID_COLUMNS)


def special_rows(d: VocabDiff) -> list[dict]:
    ids_a, ids_b = dict(d.a.specials), dict(d.b.specials)
    where = {
        **dict.fromkeys(d.sets.specials_only_a, "A only"),
        **dict.fromkeys(d.sets.specials_only_b, "B only"),
        **dict.fromkeys(d.sets.specials_shared, "both"),
    }
    return [
        {"special token": text, "in": where[text], "id in A": ids_a.get(text), "id in B": ids_b.get(text)}
        for text in sorted(where)
    ]


def tokens_section(d: VocabDiff) -> None:
    st.subheader("Tokens")
    left, right = st.columns([3, 2])
    query = left.text_input(
        "Find tokens holding",
        key=K_QUERY,
        placeholder="e.g. ␣the, ↵, 你",
        help="␣ for a space, → for a tab, ↵ for a newline; a byte that is not a whole character as a backslash, x "
        "and its two hex digits (\\\\xe4). ASCII letters match in either case.",
    )
    state.ensure_option(K_ORDER, list(ORDERS), "rank")
    order = right.selectbox("Order", list(ORDERS), format_func=ORDERS.__getitem__, key=K_ORDER)
    needle = parse_token_display(query) if query else b""
    counts = d.sets.counts
    specials = len(special_rows(d))
    tabs = st.tabs(
        [
            f"Only in A ({counts['only_a']:,})",
            f"Only in B ({counts['only_b']:,})",
            f"In both ({counts['shared']:,})",
            f"Special tokens ({specials:,})",
        ]
    )
    with tabs[0]:
        only_table(d.sets.only_a, d.a, needle, order)
    with tabs[1]:
        only_table(d.sets.only_b, d.b, needle, order)
    with tabs[2]:
        shared_table(d, needle, order)
    with tabs[3]:
        show_table(pd.DataFrame(special_rows(d), columns=["special token", "in", "id in A", "id in B"]), ids=ID_COLUMNS)


def merge_text(merge: tuple[bytes, bytes] | None) -> str:
    """A merge, ‘a’ + ‘b’, the two parts written knowing each other (‘⟨你 1–2/3⟩’ + ‘⟨你 3/3⟩’); a dash
    past the end of the list."""
    if merge is None:
        return "—"
    left, right = labels_in(list(merge))
    return f"{quote(left)} + {quote(right)}"


def merges_section(d: VocabDiff) -> None:
    st.subheader("Where the merge orders agree")
    if d.ranks is None:
        st.caption("Not compared: an external tokenizer has no merge list and no rank order (see the note above).")
        return
    ranks = d.ranks
    columns = [*st.columns(3), *st.columns(3)]  # two rows: six labels side by side would be cut at 1280 px
    for column, label, value, help_text in (
        (columns[0], "Spearman's rho", ranks.spearman, SPEARMAN_HELP),
        (columns[1], "Kendall's tau", ranks.kendall, KENDALL_HELP),
    ):
        column.metric(label, "—" if value is None else f"{value:.3f}", help=help_text)  # plain: a number or a dash
    close = "—" if ranks.close is None else f"{ranks.close:.1%}"
    columns[2].metric(f"ranks within {ranks.tolerance:.0%}", close, help=CLOSE_HELP)  # plain: a number or a dash
    m = d.merges
    if m is None:
        st.caption("No merge list to compare (see the note above).")
        return
    columns[3].metric(
        "same first merges",
        f"{m.common_prefix:,}",
        help="How many merges, from the first, are the same pair in the same order.",
    )
    columns[4].metric("same rank, same merge", f"{m.same_rank:,}", help="Ranks where both lists merge the same pair.")
    columns[5].metric("merges in both", f"{m.shared_pairs:,}", help="Pairs both lists merge, at any rank.")
    st.write(merge_sentence(m))  # plain: merge_sentence escapes the tokens it quotes
    rows = [{"rank": rank, "A merges": merge_text(x), "B merges": merge_text(y)} for rank, x, y in m.divergences]
    if rows:
        st.caption("The first ranks where the merge lists differ:")
        show_table(pd.DataFrame(rows))
    ks = [p.k for p in m.curve]
    figure = charts.line(
        ks,
        [p.share for p in m.curve],
        name="merges",
        title="Share of the first k merges both lists make",
        x_title="k (the first k merges of each, log scale)",
        y_title="in both",
        height=300,
    )
    with charts.PLOTLY_LOCK:
        figure.update_layout(yaxis_tickformat=".0%", yaxis_range=[0, 1.04])  # a share: 0% to 100%
    charts.log_x(figure, ks)
    st.plotly_chart(figure, key="vdiff.chart.merges", config=charts.plot_config("merge-order-agreement"))


def merge_sentence(m) -> str:
    """One sentence (Markdown, escaped) on the common prefix and the first divergence."""
    if not m.divergences:
        return f"The two merge lists are the same ({m.merges_a:,} merges)."
    rank, x, y = m.divergences[0]
    start = (
        f"The first {m.common_prefix:,} merges are the same; "
        if m.common_prefix
        else "The merge lists differ from the first merge: "
    )
    return start + f"at rank {rank:,} A merges {md(merge_text(x))} and B merges {md(merge_text(y))}."


def download(d: VocabDiff, a: TokenizerChoice, b: TokenizerChoice) -> None:
    data = (lambda: csv_bytes(d)) if DEFERRED_DOWNLOADS else csv_of(a.fingerprint, b.fingerprint, d)
    st.download_button(
        "Download every token as CSV",
        data,
        file_name="vocabulary_diff.csv",
        mime="text/csv",
        key="vdiff.csv",
        help="token, bytes (hex), in (both / A only / B only / special), rank and id in A and in B.",
    )


def main() -> None:
    page_header(
        "Vocabulary diff",
        "Two tokenizers' vocabularies side by side: the tokens only one has, how the overlap grows with the "
        "vocabulary, and where their merge orders agree.",
    )
    state.keep_widget_state(restore_only=KEPT)
    choices = tokenizers.available_tokenizers()
    a, b = pick(choices)
    notes = tokenizers.not_installed_notes()
    if notes:  # built-in tokenizers whose package is missing
        st.caption(md("; ".join(notes)))
    vocab_a, vocab_b = load(a), load(b)
    if vocab_a is None or vocab_b is None:
        return
    if a.key == b.key:
        st.info("A and B are the same tokenizer, so everything agrees: pick another one for B.")
    d = diff_of(a.fingerprint, b.fingerprint, vocab_a, vocab_b)
    summary(d, a, b)
    overlap_section(d, a, b)
    tokens_section(d)
    merges_section(d)
    download(d, a, b)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
