"""The Library page's list of the models in the local Hugging Face cache (``pages/_ui/hub_models``):
which ones every tokenizer picker offers as ``🤗 org/name``, at which commit and from which file, and how
to add one (a command the user runs; the workbench never downloads)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.errors import BpeError
from bpe_core.pretrained import hub_cache
from pages._ui import hub_models
from pages._ui.render import markdown_text as md
from pages._ui.widgets import show_table


def hub_section() -> None:
    st.subheader("Your Hugging Face models")
    try:
        folder = hub_cache.cache_folder()
    except BpeError:
        st.caption(
            "Models already in your Hugging Face cache are offered in every tokenizer picker once "
            f"huggingface_hub is installed ({hub_cache.INSTALL_HINT})."
        )
        return
    models = hub_models.cached_models()
    st.caption(
        f"The models with a tokenizer file in the Hugging Face cache on this machine ({md(folder)}; "
        "HF_HUB_CACHE or HF_HOME chooses another), offered in every tokenizer picker as 🤗 org/name. "
        "Nothing is downloaded: to add a model, run `hf download org/name tokenizer.json`."
    )
    if not models:
        st.info("No model in the cache has a tokenizer file (tokenizer.json, tokenizer.model or *.tiktoken) yet.")
        return
    rows = [{"model": m.repo_id, "revision": m.revision, "file": m.file, "commit": m.commit[:12]} for m in models]
    show_table(pd.DataFrame(rows))
