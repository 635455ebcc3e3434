"""Fairer training: standard and parity-aware BPE trained on the same parallel text at the same
vocabulary size (``bpe_core.analysis.parity_report.compare_training``), measured on held-out sentences
beside today's models: a plain sentence, metric cards, the premium per language with bootstrap error
bars, the premium against vocabulary size, the merges each language was served, a table with a CSV
download, and buttons that keep or save both tokenizers. The inputs are ``pages/_fairer/inputs.py``'s,
the run and keeping ``run.py``'s, the charts ``view.py``'s; every number comes from ``bpe_core``.
"""

from __future__ import annotations

import time

import streamlit as st

from pages._fairer.inputs import K_GO, read_inputs
from pages._fairer.run import RESULT, keep_section, run_comparison
from pages._fairer.view import show_result
from pages._ui import tokenizers
from pages._ui.widgets import page_header

INTRODUCTION = (
    "Standard BPE merges the pair most frequent over all the text, which favours the languages that compress "
    "easily. Parity-aware BPE (Foroutan et al., 2025) gives each merge to the language that is worst compressed "
    "so far on a parallel development text (or furthest below a target rate). Both are trained here on the same "
    "text at the same vocabulary size and measured on held-out sentences, beside today's models."
)


def main() -> None:
    page_header("Train a fairer tokenizer", INTRODUCTION)
    choices = tokenizers.available_tokenizers()
    inputs = read_inputs(choices)
    clicked = st.button("Train both", type="primary", key=K_GO, disabled=inputs is None)
    if clicked and inputs is not None:
        started = time.perf_counter()
        result = run_comparison(inputs, choices)
        if result is not None:
            st.session_state[RESULT] = (inputs.digest(), inputs, result, time.perf_counter() - started)
    held = st.session_state.get(RESULT)
    if held is None:
        return
    digest, used, result, _ = held
    if inputs is None or inputs.digest() != digest:
        st.caption("The settings changed since this result: click **Train both** to update it.")
    show_result(result)
    keep_section(result, used, choices)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
