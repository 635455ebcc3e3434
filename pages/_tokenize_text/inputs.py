"""The Tokenize page's inputs: the text (typed, followed as it is typed, or an uploaded file), the
tokenizers, the toggles and the reference tokenizer, read from the page's URL on a first visit and
written back to it so that a view can be shared. Draws the inputs only; encoding and the panels are
the page's.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from pages._tokenize_text.live import follow_typing
from pages._ui import render, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.uploads import file_uploader, upload_limit_mb
from pages._ui.widgets import tokenizer_multiselect

EXAMPLE = (
    'Tokenizers cut text into pieces: "unbelievable" → un·believ·able?\n'
    "Numbers 1234567 and 3.14159, code `for i in range(10):  print(i**2)`,\n"
    "accents (naïve café), Chinese 你好世界, emoji 🙂👍🏽, and <b>markup</b>.\n"
)
#: Text longer than this is not written into the page URL.
MAX_URL_TEXT = 2_000
MAX_TOKENIZERS = 6
TEXT = "tokenize.text"
TOKENIZERS = "tokenize.tokenizers"
REFERENCE = "tokenize.reference"
ONE_PER_ROW = "tokenize.one_per_row"


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
    text = st.text_area(
        "Text",
        key=TEXT,
        height=140,
        help="The view follows as you type (a moment after you pause); Ctrl+Enter applies at once.",
    )
    follow_typing(TEXT)
    uploads = file_uploader(
        f"…or a UTF-8 text file (up to {upload_limit_mb():,} MB; it replaces the typed text while it is loaded)",
        "tokenize.upload",
        multiple=False,
    )
    for upload in uploads:
        if upload.error:
            st.error(f"{md(in_words(upload.error))} The typed text is used instead.")
            continue
        if not upload.text:
            st.warning(
                f"**{md(upload.name)}** is empty: there is nothing in it to tokenize. Upload a text file with "
                "something in it, or remove it; the typed text is used meanwhile."
            )
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
        "Mark whitespace", wrap=True, key="tokenize.whitespace", help="On: ␣ for a space, → for a tab, ↵ for a newline."
    )
    show_bytes = columns[1].toggle(
        "Show bytes",
        wrap=True,
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
        wrap=True,
        key="tokenize.special",
        help="On: text such as <|endoftext|> becomes the special token. Off: it is encoded as ordinary text.",
    )
    highlight = options[2].toggle(
        "Cut differences",
        wrap=True,
        key="tokenize.diff",
        help="A red bar marks a cut the reference tokenizer does not make.",
    )
    options[2].toggle(
        "One per row", wrap=True, key=ONE_PER_ROW, help="Off: the panels side by side in a grid of equal columns."
    )
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
