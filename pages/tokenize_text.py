"""Tokenize: one text, several tokenizers side by side, with ids, statistics and cut differences."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from pages._tokenize_text import chat, dropout, linked, markup
from pages._tokenize_text.decode import decode_box
from pages._tokenize_text.encodings import Encodings
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
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.uploads import file_uploader, upload_limit_mb
from pages._ui.widgets import page_header, show_table, tokenizer_multiselect

EXAMPLE = (
    'Tokenizers cut text into pieces: "unbelievable" → un·believ·able?\n'
    "Numbers 1234567 and 3.14159, code `for i in range(10):  print(i**2)`,\n"
    "accents (naïve café), Chinese 你好世界, emoji 🙂👍🏽, and <b>markup</b>.\n"
)
PAGE = "tokenize.page"
#: Text longer than this is not written into the page URL.
MAX_URL_TEXT = 2_000
MAX_TOKENIZERS = 6
TEXT = "tokenize.text"
TOKENIZERS = "tokenize.tokenizers"
REFERENCE = "tokenize.reference"
ONE_PER_ROW = "tokenize.one_per_row"
SPECIAL_TEXT_NOTE = (
    "␣ is a space, → a tab, ↵ a newline. A character split between tokens is drawn once, above one numbered "
    "dashed piece per token (hover a piece for its bytes, or turn on Show bytes); dark tokens are special tokens. "
    "Hovering a token lights up the same characters in every panel and id list; click a token for its merge tree."
)


@dataclass(frozen=True)
class View:
    """What the user asked for: the text, where it came from, the tokenizers and the options."""

    text: str
    from_file: bool
    selected: list[str]
    show_whitespace: bool
    show_bytes: bool
    treat_special: bool
    reference: str | None


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


#: The page's toggles and their names in the URL ("1" on, "0" off), and their first-time values.
URL_TOGGLES = {
    "tokenize.whitespace": "ws",
    "tokenize.special": "special",
    "tokenize.bytes": "bytes",
    "tokenize.diff": "diff",
}
#: Written to the URL by ``display_toggles`` (a flip reruns only that fragment); the rest by ``share_in_url``.
DISPLAY_TOGGLES = ("tokenize.whitespace", "tokenize.bytes")
TOGGLE_DEFAULTS = {
    "tokenize.whitespace": True,
    "tokenize.bytes": False,
    "tokenize.special": True,
    "tokenize.diff": True,
    ONE_PER_ROW: False,
}


def options_from_url(choices: dict[str, TokenizerChoice]) -> None:
    """Once per session, before the widgets keep their state: the toggles and the reference tokenizer
    from the URL, and which of its tokenizers this machine lacks (a sharer's library or session ones)."""
    if st.session_state.get(state.TOKENIZE_URL_READ):
        return
    st.session_state[state.TOKENIZE_URL_READ] = True
    for key, name in URL_TOGGLES.items():
        if st.query_params.get(name) in ("0", "1"):
            st.session_state[key] = st.query_params[name] == "1"
    if st.query_params.get("ref") in choices:
        st.session_state[REFERENCE] = st.query_params["ref"]
    missing = [k for k in st.query_params.get_all("tok") if k not in choices]
    st.session_state[state.TOKENIZE_MISSING] = list(dict.fromkeys(missing))


def describe_missing(key: str) -> str:
    """How a tokenizer key from a shared URL reads when this machine lacks it (plain text).

    >>> describe_missing("lib:my-bpe")
    'my-bpe (saved in the library of whoever shared the link)'
    """
    kind, _, name = key.partition(":")
    where = {
        "lib": "saved in the library of whoever shared the link",
        "new": "trained but not saved in the session of whoever shared the link",
        "ext": "an external tokenizer in the library of whoever shared the link",
        "hf": "a model in the Hugging Face cache of whoever shared the link; hf download puts it in yours",
    }.get(kind)
    return f"{name} ({where})" if where else f"{key} (a built-in tokenizer not installed here)"


def show_missing() -> None:
    missing = st.session_state.get(state.TOKENIZE_MISSING) or []
    if missing:
        st.warning(
            "The link names tokenizers that are not on this machine: "
            + md("; ".join(describe_missing(k) for k in missing))
            + ". Import their files on the Library page (or train them) to see them here."
        )


def start_from_url(choices: dict[str, TokenizerChoice]) -> None:
    """On the page's first run in this session, take the text and the tokenizers from the URL."""
    if TEXT not in st.session_state:
        st.session_state[TEXT] = st.query_params.get("text", EXAMPLE)
    if TOKENIZERS not in st.session_state:
        wanted = [k for k in st.query_params.get_all("tok") if k in choices]
        st.session_state[TOKENIZERS] = wanted or tokenizers.preferred_keys(choices, MAX_TOKENIZERS)


def read_text() -> tuple[str, bool]:
    """The typed text, or the uploaded file's text while one is loaded: (text, from a file)."""
    text = st.text_area("Text", key=TEXT, height=140)
    uploads = file_uploader(
        f"…or a UTF-8 text file (up to {upload_limit_mb():,} MB; it replaces the typed text while it is loaded)",
        "tokenize.upload",
        multiple=False,
    )
    for upload in uploads:
        if upload.error:
            st.error(f"{md(upload.error.rstrip('.'))}. The typed text is used instead.")
            continue
        st.caption(
            f"Using **{md(upload.name)}** ({len(upload.text):,} characters). "
            "Remove the file to go back to the typed text."
        )
        return upload.text, True
    return text, False


@st.fragment
def display_toggles() -> None:
    """Mark whitespace and Show bytes, with the style that applies them to the panels. Flipping one
    reruns only this fragment: the panels' markup does not depend on them (``tokens_html_cached``)."""
    columns = st.columns(2, vertical_alignment="center")
    show_ws = columns[0].toggle(
        "Mark whitespace", key="tokenize.whitespace", help="On: ␣ for a space, → for a tab, ↵ for a newline."
    )
    show_bytes = columns[1].toggle(
        "Show bytes",
        key="tokenize.bytes",
        help="Label each piece of a character split between tokens with its bytes (in hex) instead of its number.",
    )
    for key in DISPLAY_TOGGLES:
        st.query_params[URL_TOGGLES[key]] = "1" if st.session_state.get(key) else "0"
    # not style-only, so the style stays in this fragment's container (and is replaced with it)
    st.html(render.toggle_css(show_whitespace=show_ws, show_bytes=show_bytes) + '<span class="bpe-toggles"></span>')


def read_view(choices: dict[str, TokenizerChoice]) -> View:
    """Draw the inputs and return what they ask for."""
    text, from_file = read_text()
    selected = tokenizer_multiselect("Tokenizers", choices, key=TOKENIZERS, limit=MAX_TOKENIZERS)
    # Short labels (the help says more): five controls share one row without cutting a label.
    options = st.columns([2, 1, 1, 1.3], vertical_alignment="center")
    with options[0]:
        display_toggles()
    show_ws = bool(st.session_state.get("tokenize.whitespace"))
    show_bytes = bool(st.session_state.get("tokenize.bytes"))
    treat_special = options[1].toggle(
        "Match specials",
        key="tokenize.special",
        help="On: text such as <|endoftext|> becomes the special token. Off: it is encoded as ordinary text.",
    )
    highlight = options[2].toggle(
        "Cut differences", key="tokenize.diff", help="A red bar marks a cut the reference tokenizer does not make."
    )
    options[2].toggle("One per row", key=ONE_PER_ROW, help="Off: the panels side by side in a grid of equal columns.")
    reference = None
    if highlight and len(selected) >= 2:
        state.ensure_option(REFERENCE, selected, "gpt2")
        reference = options[3].selectbox(
            "Reference tokenizer", selected, format_func=lambda k: choices[k].option, key=REFERENCE
        )
    return View(text, from_file, selected, show_ws, show_bytes, treat_special, reference)


def share_in_url(view: View) -> None:
    """Keep the view shareable: the tokenizers, the toggles, the reference tokenizer, and the typed text
    when it is short enough."""
    st.query_params["tok"] = view.selected
    for key in [k for k in URL_TOGGLES if k not in DISPLAY_TOGGLES]:
        st.query_params[URL_TOGGLES[key]] = "1" if st.session_state.get(key) else "0"
    if view.reference:
        st.query_params["ref"] = view.reference
    elif "ref" in st.query_params:
        del st.query_params["ref"]
    if not view.from_file and len(view.text) <= MAX_URL_TEXT:
        st.query_params["text"] = view.text
    elif "text" in st.query_params:
        del st.query_params["text"]
    if not view.from_file and len(view.text) > MAX_URL_TEXT:
        st.caption(f"The text is longer than {MAX_URL_TEXT:,} characters, so it is not put into the URL.")


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
        problems.error(f"{md(choices[key].label)}: {md(message)}")
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
