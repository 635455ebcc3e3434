"""Extend: lower a language's cost in the model you already use. Pick a model and a language (its
built-in text or your files), add tokens learned on it while every id the model knows stays as it is
(``bpe_core.extend``, in a process of its own with progress and Cancel), and see the language's premium
and token strips before and after, the curve over the tokens added, the new tokens (each one's merge
tree in the Merge forest) and the files to take to the model. The inputs are ``pages/_extend/inputs.py``'s,
the run ``run.py``'s, the result ``view.py``'s.
"""

from __future__ import annotations

import streamlit as st

from pages._extend.inputs import KEPT_DEFAULTS, read_inputs
from pages._extend.run import Extended, extend_section
from pages._extend.view import show_result
from pages._ui import state, tokenizers
from pages._ui.keep import session_section
from pages._ui.widgets import page_header

INTRODUCTION = (
    "Adapting a model to a language usually starts here: keep the model's tokenizer, add tokens learned on the "
    "language's text, and grow the embedding matrix by as many rows (as Chinese-LLaMA and EEVE did). Every id the "
    "model knows keeps its bytes; restricted to the language's scripts, all other text encodes exactly as before."
)


def main() -> None:
    state.keep_widget_state(KEPT_DEFAULTS)
    page_header("Extend a tokenizer", INTRODUCTION)
    choices = tokenizers.available_tokenizers()
    inputs = read_inputs(choices)
    extend_section(inputs)
    result = st.session_state.get(state.EXTEND_RESULT)
    if isinstance(result, Extended) and result.extended_key in choices and result.base_key in choices:
        if inputs is None or inputs.digest() != result.digest:
            st.caption("The settings changed since this result: click **Extend** to update it.")
        show_result(result, choices[result.base_key].get(), choices[result.extended_key].get())
    session_section("extend")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
