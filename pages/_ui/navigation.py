"""The app's pages, as app.py gives them to ``st.navigation``, and the one way a page reaches app.py's
frame when Streamlit ran it alone: a session opened on a page's URL before any session ran app.py.

Why that can happen (Streamlit 1.67, ``streamlit/runtime/pages_manager.py`` and
``runtime/scriptrunner/script_runner.py``). The first session a server creates sets a process-wide
flag to whether a ``pages/`` folder sits next to the entrypoint. While the flag is on, Streamlit does
not run app.py but its legacy multipage mode (``_mpa_v1``): app.py and every ``pages/*.py`` file are
pages (files only: ``__init__.py`` and subfolders such as ``pages/_ui/`` are never pages), and a URL
such as ``/tokenize_text`` runs ``pages/tokenize_text.py`` alone, without app.py's page config, style,
sidebar and navigation. Calling ``st.navigation`` turns the flag off for the whole process ("If you
call st.navigation in your app (in any session), Streamlit will switch to using the newer,
Page-and-navigation multipage structure": docs.streamlit.io, "Creating multipage apps using the
pages/ directory"). No option turns the legacy mode off (``client.showSidebarNavigation`` only hides
the menu); only the folder's name or the entrypoint's place decides it, and ``pages/`` is this
project's fixed layout.

So a page's first run in a session that app.py did not frame calls ``st.navigation`` with the app's
pages (public API) and reruns: the rerun runs app.py, whose navigation opens the same page (a page's
URL is its file name, and Streamlit identifies a page by its URL in both modes), with the URL's query
string. Only a session's first run does this: a rerun drops widget events, and a first run has none.
``tests/app/test_navigation.py`` (AppTest) and ``tests/app/test_browser.py`` (a fresh server in
Chromium) fail if Streamlit stops switching this way.

Draws nothing but the navigation; knows no page's content (it only starts ``builtins.warm_up``).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import builtins, state

PAGES_FOLDER = Path(__file__).resolve().parents[1]


def app_pages() -> list:
    """The app's pages in menu order. No custom ``url_path``: each page's URL is its file name
    (/tokenize_text, /merge_forest...), which the legacy mode also uses (see the module's docstring)."""
    return [
        st.Page(PAGES_FOLDER / "home.py", title="Home", icon=":material/home:", default=True),
        st.Page(PAGES_FOLDER / "train.py", title="Train", icon=":material/model_training:"),
        st.Page(PAGES_FOLDER / "tokenize_text.py", title="Tokenize", icon=":material/text_fields:"),
        st.Page(PAGES_FOLDER / "merge_forest.py", title="Merge forest", icon=":material/account_tree:"),
        st.Page(PAGES_FOLDER / "step_through.py", title="Step through", icon=":material/footprint:"),
        st.Page(PAGES_FOLDER / "library.py", title="Library", icon=":material/folder_open:"),
        st.Page(PAGES_FOLDER / "compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page(PAGES_FOLDER / "fairer.py", title="Fairer training", icon=":material/balance:"),
        st.Page(PAGES_FOLDER / "languages.py", title="Languages side by side", icon=":material/translate:"),
        st.Page(PAGES_FOLDER / "extend.py", title="Extend", icon=":material/add_circle:"),
        st.Page(PAGES_FOLDER / "vocab_diff.py", title="Vocabulary diff", icon=":material/difference:"),
        st.Page(PAGES_FOLDER / "lab.py", title="Lab", icon=":material/science:"),
    ]


def navigate():
    """app.py's navigation: marks this run as framed by app.py and returns the page to run. The first
    run on a server also starts loading, in the background, the tokenizers the pages open with."""
    builtins.warm_up()
    st.session_state[state.FRAMED] = True
    return st.navigation(app_pages())


def ensure_framed() -> None:
    """Call first in every page run: on a session's first run that app.py did not frame (Streamlit's
    legacy ``pages/`` mode, see the module's docstring), leave that mode and rerun through app.py."""
    framed = st.session_state.pop(state.FRAMED, False)
    if st.session_state.get(state.STARTED):
        return
    st.session_state[state.STARTED] = True
    if not framed:
        st.navigation(app_pages())
        st.rerun()
