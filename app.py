"""BPE workbench: a Streamlit app on top of bpe_core.

Run it with ``streamlit run app.py``. This file only sets up the page and the navigation; the pages
live in ``pages/`` and share the UI modules in ``pages/_ui/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:  # so `import bpe_core` and `import pages._ui` work from anywhere
    sys.path.insert(0, str(ROOT))

from pages._ui import render, state, tokenizers  # noqa: E402

st.set_page_config(page_title="BPE workbench", page_icon="🧩", layout="wide")
st.html(render.APP_CSS)  # chips and button labels wrap instead of being cut (a style only: takes no space)

PAGES = ROOT / "pages"
# No custom url_path: each page's URL is its file name (/tokenize_text, /merge_forest...). With a
# pages/ folder present, Streamlit resolves the URL of a server's very first session against the file
# names before st.navigation runs; custom paths would show a "Page not found" dialog there.
pages = [
    st.Page(PAGES / "home.py", title="Home", icon=":material/home:", default=True),
    st.Page(PAGES / "train.py", title="Train", icon=":material/model_training:"),
    st.Page(PAGES / "tokenize_text.py", title="Tokenize", icon=":material/text_fields:"),
    st.Page(PAGES / "merge_forest.py", title="Merge forest", icon=":material/account_tree:"),
    st.Page(PAGES / "step_through.py", title="Step through", icon=":material/footprint:"),
    st.Page(PAGES / "library.py", title="Library", icon=":material/folder_open:"),
]
if (PAGES / "compare.py").is_file():
    pages.append(st.Page(PAGES / "compare.py", title="Compare", icon=":material/compare_arrows:"))
pages.append(st.Page(PAGES / "vocab_diff.py", title="Vocabulary diff", icon=":material/difference:"))

navigation = st.navigation(pages)
state.sync_kept_state()  # save page widget values before Streamlit forgets those of a page left

with st.sidebar:
    st.caption(f"Tokenizer library: `{tokenizers.workspace().folder}`")
    st.caption("Set BPE_WORKBENCH_DIR to use another folder.")

navigation.run()
