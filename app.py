"""BPE workbench: a Streamlit app on top of bpe_core.

Run it with ``streamlit run app.py``. This file is the frame every page runs in: the page config,
the style, the navigation (the pages are listed in ``pages/_ui/navigation.py``) and the sidebar's
note on the tokenizer library. The pages are the files in ``pages/``; the UI modules they share are
in ``pages/_ui/``, and the helpers of one page in its own ``pages/_<page>/`` package.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:  # so `import bpe_core` and `import pages._ui` work from anywhere
    sys.path.insert(0, str(ROOT))

from pages._ui import navigation, render, state, tokenizers, training_jobs  # noqa: E402

st.set_page_config(page_title="BPE workbench", page_icon="🧩", layout="wide")
st.html(render.APP_CSS)  # chips and button labels wrap instead of being cut (a style only: takes no space)
training_jobs.sweep_at_start()  # job folders left by killed servers and workers, once a server

page = navigation.navigate()
state.sync_kept_state()  # save page widget values before Streamlit forgets those of a page left

with st.sidebar:
    st.caption(f"Tokenizer library: `{tokenizers.library().folder}`")
    st.caption("Set BPE_WORKBENCH_DIR to use another folder.")

page.run()
