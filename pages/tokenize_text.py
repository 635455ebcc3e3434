"""Tokenize: one text, several tokenizers side by side, with ids, statistics and cut differences."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from pages._tokenize_text import chat, dropout, linked, markup
from pages._tokenize_text.decode import decode_box
from pages._tokenize_text.encodings import Encodings
from pages._tokenize_text.inputs import (
    ONE_PER_ROW,
    REFERENCE,
    TEXT,
    TOGGLE_DEFAULTS,
    TOKENIZERS,
    View,
    options_from_url,
    read_view,
    share_in_url,
    show_missing,
    start_from_url,
)
from pages._tokenize_text.paging import page_controls
from pages._ui import render, state, tokenizers
from pages._ui.encoding import (
    MAX_STATS_CHARS,
    Encoded,
    Page,
    cut_overlap,
    indexed_text,
    page_starts,
    text_digest,
    window_tokens,
)
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import page_header, show_table

PAGE = "tokenize.page"
SPECIAL_TEXT_NOTE = (
    "␣ is a space, → a tab, ↵ a newline. A character split between tokens is drawn once, above one numbered "
    "dashed piece per token (hover a piece for its bytes, or turn on Show bytes); dark tokens are special tokens. "
    "Hovering a token lights up the same characters in every panel and id list; click a token for its merge tree."
)


@st.cache_resource(show_spinner=False, max_entries=96)
def tokens_html_cached(
    key: str,
    fingerprint: str,
    digest: str,
    start: int,
    end: int,
    treat_special: bool,
    reference: str | None,
    _text: str,
    _tokenizer: Tokenizer,
    _infos: list,
    _reference_cuts: np.ndarray | None,
) -> str:
    """``render.render_tokens_html`` of one window of the text, cached (marks cuts the reference does
    not make anywhere in the whole text). ``_infos`` are ``window_tokens`` of that window, which
    ``fingerprint``, ``digest``, ``start``, ``end`` and ``treat_special`` stand for in the key. The
    markup is the same whatever Mark whitespace and Show bytes say (``switchable``: the page's
    ``render.toggle_css`` picks), so flipping them re-sends no panel and the browser only restyles."""
    marked = None
    if _reference_cuts is not None:
        starts = sorted(render.cut_positions(_infos))
        marked = {int(c) for c in np.asarray(starts)[~np.isin(starts, _reference_cuts)]} if starts else set()
    # no style: main() draws TOKEN_CSS once for the page
    rank_of = tokenizers.rank_function(_tokenizer)
    return render.render_tokens_html(
        _text, _infos, rank_of=rank_of, marked=marked, key=key, switchable=True, style=False
    )


def overlap(
    page: Page, special: bool, choices, cuts: dict[str, np.ndarray], first: str, second: str
) -> tuple[int, ...]:
    """``cut_overlap`` of two chosen tokenizers' whole-text cuts: (only first, only second, both)."""
    fingerprints = choices[first].fingerprint, choices[second].fingerprint
    return cut_overlap(*fingerprints, page.digest, special, cuts[first], cuts[second])


def summary_table(view: View, page: Page, choices, encoded: dict[str, Encoded], cuts: dict[str, np.ndarray]) -> None:
    """Counts over the whole text, one row per tokenizer."""
    reference = view.reference if view.reference in cuts else None  # None when the reference failed to load
    rows = []
    for key, enc in encoded.items():
        if not reference:
            missing = "—"
        else:
            only = overlap(page, view.treat_special, choices, cuts, key, reference)[0]
            missing = "reference" if key == reference else f"{only:,}"
        rows.append(
            {
                "tokenizer": choices[key].label,
                "tokens": enc.ids_total,
                "chars/token": round(enc.chars / enc.ids_total, 3) if enc.ids_total else None,
                "bytes/token": round(enc.bytes / enc.ids_total, 3) if enc.ids_total else None,
                "cuts not in reference": missing,
            }
        )
    if rows:
        show_table(pd.DataFrame(rows))


def show_one(view: View, page: Page, choice: TokenizerChoice, enc: Encoded, tokenizer, reference_cuts) -> None:
    """One tokenizer's coloured tokens and ids in the window; ``reference_cuts`` are the reference
    tokenizer's whole-text cuts (None for no marks)."""
    st.markdown(f"**{md(choice.label)}** · {enc.ids_total:,} tokens")
    if choice.kind == "external":
        st.caption(md(f"{choice.note}: read-only, no merge ranks"))
    infos = window_tokens(enc, tokenizer, page.index, page.text, page.start, page.end)
    clickable = choice.key if choice.kind != "external" else None
    panel = tokens_html_cached(
        choice.key,
        choice.fingerprint,
        page.digest,
        page.start,
        page.end,
        view.treat_special,
        view.reference if reference_cuts is not None else None,
        page.text,
        tokenizer,
        infos,
        reference_cuts,
    )
    markup.draw(markup.trusted_html(panel), key=f"tokenize.panel.{choice.key}")
    with st.expander(f"ids on this page ({len(infos):,} of {enc.ids_total:,})"):
        ids = linked.ids_html(infos, clickable, style=False)
        markup.draw(markup.trusted_html(ids), key=f"tokenize.ids.{choice.key}")


def panels_per_row(count: int, one_per_row: bool) -> int:
    """How many panels a row of the grid holds: one each when asked, else two for four panels and at
    most three otherwise; every row has as many columns, so all panels are as wide.

    >>> [panels_per_row(n, False) for n in range(0, 7)], panels_per_row(5, True)
    ([1, 1, 2, 3, 2, 3, 3], 1)
    """
    if one_per_row:
        return 1
    return 2 if count == 4 else max(1, min(3, count))  # no panel (every tokenizer failed): one empty row


def show_tokens(view: View, choices, encodings: Encodings, page: Page) -> None:
    """The window's token spans, one panel per tokenizer, in an equal-width grid (or one per row). Each
    panel is drawn as soon as its tokenizer is loaded and the text encoded (``Encodings``), so the
    browser draws the first ones while the next load; the reference loads first (the others mark the
    cuts it does not make). The grid is laid out for every chosen tokenizer before it is known which
    load: one that fails leaves its place to the next (its message is above the counts), so the last row
    is one short."""
    reference = view.reference if view.reference and encodings.ensure(view.reference) else None
    per_row = panels_per_row(len(encodings.keys), bool(st.session_state.get(ONE_PER_ROW)))
    drawn = 0
    columns: list = []
    for key in encodings.keys:
        if not encodings.ensure(key):
            continue
        if drawn % per_row == 0:
            columns = st.columns(per_row)
        against = encodings.cuts[reference] if reference and key != reference else None
        with columns[drawn % per_row]:
            show_one(view, page, choices[key], encodings.encoded[key], encodings.loaded[key], against)
        drawn += 1
    red = ""
    if reference:
        red = f"A red bar marks a cut (token start) that **{md(choices[reference].label)}** does not make. "
    st.caption(red + SPECIAL_TEXT_NOTE)  # plain: red's only user text went through md() above


def show_cut_differences(page: Page, special: bool, choices, keys: list[str], cuts: dict[str, np.ndarray]) -> None:
    """Counts over the whole text; the text of the window drawn with both tokenizers' cuts."""
    st.subheader("Where two tokenizers cut differently")
    pair = st.columns(2)
    state.ensure_option("tokenize.cut_a", keys, keys[0])
    first = pair[0].selectbox("First", keys, format_func=lambda k: choices[k].option, key="tokenize.cut_a")
    others = [k for k in keys if k != first]  # never a tokenizer against itself (e.g. after one was removed)
    state.ensure_option("tokenize.cut_b", others, others[0])
    second = pair[1].selectbox("Second", others, format_func=lambda k: choices[k].option, key="tokenize.cut_b")
    a, b = cuts[first], cuts[second]
    only_a, only_b, shared = overlap(page, special, choices, cuts, first, second)
    st.html(render.cuts_legend_html(choices[first].label, choices[second].label, only_a, only_b, shared, style=False))

    def inside(cuts_of_one: np.ndarray) -> set[int]:
        low, high = np.searchsorted(cuts_of_one, [page.start + 1, page.end])
        return {int(c) - page.start for c in cuts_of_one[low:high]}

    cut_view = render.render_cuts_html(page.text[page.start : page.end], inside(a), inside(b), style=False)
    markup.draw(markup.trusted_html(cut_view), key="tokenize.cuts")


@st.fragment
def window_views(view: View, choices, encodings: Encodings, whole: Page) -> None:
    """The paging controls, the window's panels and cut differences: a page turn reruns only this (with
    the full run's ``encodings``, complete by then)."""
    start, end = page_controls(whole.text, page_starts(whole.digest, whole.text), key=PAGE)
    page = Page(whole.text, whole.digest, whole.index, start, end)
    show_tokens(view, choices, encodings, page)
    encodings.ensure_all()
    if len(encodings.encoded) >= 2:
        show_cut_differences(page, view.treat_special, choices, list(encodings.encoded), encodings.cuts)


def checked(view: View) -> bool:
    """Whether there is something to tokenize (else say what is missing); warns about long text."""
    if not view.selected:
        st.info("Pick at least one tokenizer.")
        return False
    if not view.text:
        st.info("Type some text (or upload a file) to tokenize.")
        return False
    if len(view.text) > MAX_STATS_CHARS:
        st.warning(
            f"The text has {len(view.text):,} characters: the first {MAX_STATS_CHARS:,} are counted and drawn "
            "(page by page); the rest is left out."
        )
    return True


def main() -> None:
    started = time.perf_counter()
    page_header(
        "Tokenize",
        "Type or upload text and compare how tokenizers cut it. Hover a token for its id, bytes and merge rank. "
        "The text (up to 2,000 characters), the chosen tokenizers, the toggles and the reference are kept in the URL, "
        "so you can share the view.",
    )
    choices = tokenizers.available_tokenizers()
    options_from_url(choices)
    state.keep_widget_state(
        TOGGLE_DEFAULTS,
        restore_only=[
            TEXT,
            TOKENIZERS,
            REFERENCE,
            PAGE,
            "tokenize.cut_a",
            "tokenize.cut_b",
            "tokenize.decode_tokenizer",
            "tokenize.decode_ids",
        ],
    )
    start_from_url(choices)
    show_missing()
    view = read_view(choices)
    notes = tokenizers.not_installed_notes()
    if notes:  # built-in tokenizers whose package is missing
        st.caption(md("; ".join(notes)))
    share_in_url(view)
    if not checked(view):
        return
    text = view.text[:MAX_STATS_CHARS]
    digest = text_digest(text)
    index = indexed_text(digest, text)
    page = Page(text, digest, index, 0, len(text))
    encodings = Encodings(choices, view.selected, page, view.treat_special)
    problems = st.container()  # the tokenizers that fail to load or encode, said above the counts
    table = st.empty()  # the counts, once every tokenizer is in: below, the panels are drawn one by one
    # The panels' style, once per page and the same on every run: each style sheet added to the page
    # makes the browser restyle every element its rules match (each panel's own copy cost 0.2-0.7 s a page).
    st.html(render.TOKEN_CSS + linked.IDS_CSS)
    # Shown after half a second only: a fresh server's first view loads and builds each tokenizer.
    with st.spinner(f"Loading {len(view.selected)} tokenizer(s) and encoding {len(page.text):,} characters…"):
        window_views(view, choices, encodings, page)
    for key, message in encodings.errors.items():
        problems.error(f"{md(choices[key].label)}: {md(in_words(message))}")
    encoded, loaded = encodings.encoded, encodings.loaded
    with table:
        summary_table(view, page, choices, encoded, encodings.cuts)
    clicked = linked.linked_views(key="tokenize.linked")
    linked.open_merge_tree(clicked, [k for k in loaded if choices[k].kind != "external"])
    chat.chat_section(choices, view.selected)
    dropout.dropout_section(choices, loaded, text, digest)
    decode_box(choices, next(iter(encoded), None))
    st.caption(f"Server time for this view: {(time.perf_counter() - started) * 1000:,.0f} ms.")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
