"""The Lab page's examples: SuperBPE's most frequent superwords on the held-out text, Picky BPE's
removed tokens (when, what, why), and one held-out text cut by every variant, drawn with the app's
token renderer, superwords underlined (with a legend). Superwords are
``bpe_core.analysis.variants.superword_ids``', removals ``bpe_core.analysis.picky_removals``'."""

from __future__ import annotations

from collections.abc import Collection

import streamlit as st

from bpe_core.analysis.picky_removals import picky_removals
from bpe_core.analysis.variants import VariantComparison, superword_ids
from pages._ui import state, tables, tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.render import render_tokens_html, superword_legend_html
from pages._ui.widgets import show_table

from .tables import superwords_frame
from .training import LabRun

#: Characters of the example text drawn per variant.
EXAMPLE_CHARS = 700
EXAMPLE_KEY = "lab.example"


def superwords_section(run: LabRun, comparison: VariantComparison) -> None:
    labels = [label for label, tokenizer in run.tokenizers.items() if superword_ids(tokenizer)]
    if not labels:
        return
    st.subheader("SuperBPE's superwords")
    st.caption(
        "Tokens of two or more words, made across a space by SuperBPE's second stage: the most frequent on "
        "the held-out text, with how often each occurs there."
    )
    for column, label in zip(st.columns(len(labels)), labels, strict=True):
        with column:
            found = comparison.superwords.get(label, [])
            st.markdown(f"**{md(label)}**: {len(superword_ids(run.tokenizers[label])):,} superwords in its vocabulary")
            if found:
                show_table(superwords_frame(found))
            else:
                st.caption("None of them occurs in the held-out text.")


def removals_section(run: LabRun) -> None:
    picky = [label for label in run.tokenizers if label.startswith("Picky")]  # VariantSpec's label
    if not picky:
        return
    st.subheader("Picky BPE's removed tokens")
    st.caption(
        "When (the merge step, from 0, whose check removed it), what (the token and the parts its occurrences "
        "were split into) and why (its Intersection over Self: the share of its occurrences the merge took, "
        "above the threshold)."
    )
    for label in picky:
        removals = picky_removals(run.tokenizers[label])
        if not removals:
            st.markdown(f"**{md(label)}** removed no token: it is plain BPE at this threshold.")
            continue
        gone = sum(not removal.restored for removal in removals)
        st.markdown(f"**{md(label)}**: {len(removals):,} removals; {gone:,} of them left the vocabulary for good.")
        show_table(tables.removals_frame(removals), height=min(38 + 35 * len(removals), 320))


def excerpt(text: str, limit: int = EXAMPLE_CHARS) -> str:
    r"""The first ``limit`` characters of ``text``, cut after its last whole line there if it has one.

    >>> excerpt("one\ntwo\nthree", 10), excerpt("a long line", 6)
    ('one\ntwo\n', 'a long')
    """
    if len(text) <= limit:
        return text
    end = text.rfind("\n", 0, limit)
    return text[: end + 1] if end > 0 else text[:limit]


def most_superwords(comparison: VariantComparison, latin: Collection[str] = ()) -> str | None:
    """The held-out text on which a SuperBPE variant emits the most superwords, among those in ``latin``
    (ids of texts in Latin letters, easiest to read for most) if any has some; None: no superword."""
    counts = [
        (row["sample"] in latin, row["superword_share"] * row["tokens"], row["sample"])
        for row in comparison.rows
        if row["superword_share"]
    ]
    return max(counts)[2] if counts else None


def in_latin_letters(text: str) -> bool:
    """Whether most of the letters of ``text`` are ASCII letters.

    >>> in_latin_letters("Über den Fluss"), in_latin_letters("नमस्ते दुनिया")
    (True, False)
    """
    letters = [char for char in text if char.isalpha()]
    return sum(char.isascii() for char in letters) * 2 > len(letters)


def strips_section(run: LabRun, comparison: VariantComparison) -> None:
    st.subheader("One held-out text, cut by each variant")
    samples = {sample.id: sample for sample in run.corpus.samples}
    latin = [sample.id for sample in samples.values() if sample.kind == "natural" and in_latin_letters(sample.text)]
    state.ensure_option(EXAMPLE_KEY, list(samples), most_superwords(comparison, latin) or "eng")
    chosen = st.selectbox(
        "Held-out text",
        list(samples),
        key=EXAMPLE_KEY,
        format_func=lambda sample_id: f"{samples[sample_id].label} ({samples[sample_id].kind})",
        help="Opens on a text where SuperBPE uses many superwords.",
    ) or next(iter(samples))
    text = excerpt(samples[chosen].text)
    if any(superword_ids(tokenizer) for tokenizer in run.tokenizers.values()):
        st.html(superword_legend_html())
    for label, tokenizer in run.tokenizers.items():
        infos = tokenizer.encode_with_details(text, disallowed_special=())
        marked = superword_ids(tokenizer)
        count = sum(info.id in marked for info in infos)
        st.markdown(f"**{md(label)}**: {len(infos):,} tokens" + (f", {count:,} of them superwords" if marked else ""))
        st.html(render_tokens_html(text, infos, rank_of=tokenizers.rank_function(tokenizer), superwords=marked.keys()))
    if len(text) < len(samples[chosen].text):
        st.caption(f"The first {len(text):,} of the text's {len(samples[chosen].text):,} characters.")


def examples_section(run: LabRun, comparison: VariantComparison) -> None:
    st.header("3 · Examples", divider="gray")
    superwords_section(run, comparison)
    removals_section(run)
    strips_section(run, comparison)
