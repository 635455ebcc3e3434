"""The Lab page's comparison of the trained variants on held-out text: the Rényi order (alpha), the
summary per group of texts, tokens per byte and tokens saved against BPE per language, programming
language and data format, every measure per text, and the CSV and LaTeX downloads. The numbers are
``bpe_core.analysis.variants.compare_variants``', cached per run and alpha; the frames ``tables``'."""

from __future__ import annotations

import streamlit as st

from bpe_core.analysis.intrinsic import RENYI_ALPHA
from bpe_core.analysis.variants import VariantComparison, compare_variants
from bpe_core.errors import BpeError
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.widgets import format_seconds, show_table

from .tables import MEASURES, PERCENT, per_text_frame, summary_frame
from .training import LabRun

TABS = ["Summary", "Tokens per byte per text", "Tokens saved vs BPE per text", "Any measure per text"]
#: The summary's measures in three tables (all of them in one would not fit the page at 1280 px).
SUMMARY_GROUPS = {
    "Compression": ("tokens_per_byte", "saved_vs_bpe", "superword_share", "tokens", "bytes"),
    "How the vocabulary is used": ("renyi_efficiency", "unique_tokens", "avg_token_rank", "fertility"),
    "Zipf's law": ("zipf_slope", "zipf_mae", "zipf_auc"),
}
#: The measures, their formulas and where they come from (links to the papers).
MEASURES_EXPLAINED = (
    "<ul class='lab-measures'>"
    "<li><b>tokens/byte</b>: tokens ÷ UTF-8 bytes of the text (lower: better compression).</li>"
    "<li><b>saved vs BPE %</b>: 1 − tokens ÷ BPE's tokens on the same text; <b>superwords %</b>: the share of "
    "the tokens that are SuperBPE stage-2 tokens of two or more words "
    "(<a href='https://arxiv.org/abs/2503.13423'>SuperBPE</a>).</li>"
    "<li><b>Rényi efficiency</b>: the Rényi entropy of order α of the tokens' frequencies ÷ log of the "
    "vocabulary size (<a href='https://arxiv.org/abs/2306.16842'>Zouhar et al. 2023</a>).</li>"
    "<li><b>unique tokens</b>: distinct tokens used (it grows with the text: compare texts of equal size); "
    "<b>avg token rank</b>: the mean rank of the tokens used, rank 1 the most frequent.</li>"
    "<li><b>fertility</b>: tokens per whitespace-separated word "
    "(<a href='https://arxiv.org/abs/2012.15613'>Rust et al. 2021</a>).</li>"
    "<li><b>Zipf slope, fit error, area</b>: a least-squares line through log count against log rank: its "
    "slope (−1 for Zipf's law), its mean error, and the area under the curve.</li></ul>"
    "<p>Picky BPE is <a href='https://arxiv.org/abs/2409.04599'>Chizhov et al. 2024</a>.</p>"
)


@st.cache_data(show_spinner="Measuring every variant on the held-out text…", max_entries=16)
def measure(uid: str, alpha: float, _run: LabRun) -> VariantComparison:
    """``compare_variants`` of the run ``uid`` (``_run``) on its held-out texts, Rényi order ``alpha``."""
    return compare_variants(_run.tokenizers, _run.corpus.samples, baseline="BPE", alpha=alpha)


def _formats(frame, *, percent: bool = False) -> dict:
    """Fractional columns with three decimals, percentages (``percent``: all of them) with one."""
    return {
        column: st.column_config.NumberColumn(format="%.1f" if percent or column.endswith("%") else "%.3f")
        for column in frame.columns
        if frame[column].dtype.kind == "f"
    }


def downloads(comparison: VariantComparison) -> None:
    columns = st.columns(3)
    columns[0].download_button(
        "⬇ Every text (CSV)",
        comparison.to_csv(),
        file_name="lab.csv",
        mime="text/csv",
        key="lab.dl.csv",
        help="One row per variant and held-out text.",
    )
    columns[1].download_button(
        "⬇ Summary (CSV)",
        comparison.to_csv(summary=True),
        file_name="lab-summary.csv",
        mime="text/csv",
        key="lab.dl.summary",
        help="One row per variant and group of texts.",
    )
    columns[2].download_button(
        "⬇ Summary (LaTeX)",
        comparison.to_latex(),
        file_name="lab.tex",
        mime="text/x-tex",
        key="lab.dl.latex",
        help="The natural, code and all rows as a booktabs tabular (\\usepackage{booktabs}).",
    )


def describe(run: LabRun) -> None:
    total = sum(run.seconds.values())
    st.caption(
        f"{len(run.tokenizers)} variants at vocabulary size {run.vocab_size:,}, trained on "
        f"{md(run.corpus.label)} in {format_seconds(total)}; measured on {len(run.corpus.samples)} "
        "held-out texts."
    )


def summary_tables(comparison: VariantComparison) -> None:
    """The summary per group of texts, one table per group of measures (``SUMMARY_GROUPS``)."""
    for title, fields in SUMMARY_GROUPS.items():
        st.markdown(f"**{title}**")  # plain: SUMMARY_GROUPS
        frame = summary_frame(comparison, fields)
        show_table(frame, column_config=_formats(frame))
    st.caption(
        "Pooled per group: tokens and bytes added over its texts, the intrinsic measures computed on the added "
        "token counts. Lower tokens/byte is better compression; saved vs BPE is 1 - tokens / BPE's tokens on "
        "the same text. What each measure is: below the tables."
    )


def results_section(run: LabRun) -> VariantComparison | None:
    """The comparison's tables and downloads; the comparison, or None (its error shown)."""
    st.header("2 · Compared on held-out text", divider="gray")
    describe(run)
    alpha = st.columns([1, 2])[0].number_input(
        "Rényi order α of the efficiency",
        min_value=0.0,
        max_value=100.0,
        step=0.5,
        key="lab.alpha",
        help=f"Zouhar et al. 2023 recommend {RENYI_ALPHA} (the default); 1 is Shannon's entropy. Changing it "
        "measures again without training again.",
    )
    try:
        comparison = measure(run.uid, float(alpha), run)
    except BpeError as exc:
        st.error(f"Could not measure the variants: {md(in_words(exc))}")
        return None
    tabs = st.tabs(TABS)
    with tabs[0]:
        summary_tables(comparison)
    with tabs[1]:
        frame = per_text_frame(comparison, "tokens_per_byte")
        show_table(frame, column_config=_formats(frame))
    with tabs[2]:
        if comparison.baseline is None:
            st.info("Tick BPE among the variants to see the tokens each variant saves against it.")
        else:
            frame = per_text_frame(comparison, "saved_vs_bpe")
            show_table(frame, column_config=_formats(frame, percent=True))
            st.caption("Percent of BPE's tokens saved on each text (negative: more tokens than BPE).")
    with tabs[3]:
        field = st.selectbox("Measure", list(MEASURES), format_func=MEASURES.__getitem__, key="lab.measure")
        frame = per_text_frame(comparison, field)
        show_table(frame, column_config=_formats(frame, percent=field in PERCENT), height=420)
        st.caption("Every measure of every text and variant is in the CSV below (Every text).")
    with st.expander("What the measures mean, and their sources"):
        st.html(MEASURES_EXPLAINED)  # constant HTML: its links are the papers'; no user text in it
    downloads(comparison)
    return comparison
