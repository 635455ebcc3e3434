"""Lab: BPE and its variants (SuperBPE, Picky BPE, parity-aware BPE) trained on one corpus at one
vocabulary size in one go, then compared on held-out text per language, programming language and
data format (compression, tokens saved against BPE, intrinsic measures), with SuperBPE's superwords
and Picky BPE's removed tokens as examples; CSV and LaTeX downloads; keep one variant. The parts are
in ``pages/_lab/``; the training and the numbers are ``bpe_core.analysis.variants``' (the training
runs in a process of its own, with a Cancel button: ``pages/_lab/training.py``)."""

from __future__ import annotations

from pages._lab.examples import examples_section
from pages._lab.keeping import keep_section
from pages._lab.results import results_section
from pages._lab.setup import KEPT_DEFAULTS, setup_section
from pages._lab.training import current_run, training_section
from pages._ui import state
from pages._ui.widgets import page_header


def main() -> None:
    state.keep_widget_state(KEPT_DEFAULTS)
    page_header(
        "Lab: BPE variants",
        "Train standard BPE, SuperBPE, Picky BPE and parity-aware BPE on one corpus at one vocabulary size, "
        "then compare them on text none of them was trained on.",
    )
    training_section(setup_section())
    run = current_run()
    if run is None:
        return
    comparison = results_section(run)
    if comparison is not None:
        examples_section(run, comparison)
    keep_section(run)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
