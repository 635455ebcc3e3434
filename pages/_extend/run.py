"""The Extend page's run: the Extend button, the extension in a process of its own
(``bpe_core.workspace.extension_job.ExtensionJob``) followed with its progress and Cancel as Train
follows a training (``pages/_ui/training_jobs``), and, once it is done, the extended tokenizer added to
the session's tokenizers (so that the Merge forest and every page can open it) and measured on the
language's held-out sentences (``bpe_core.analysis.extension.extension_report``). Draws only the run;
the result is ``view``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.extension import ExtensionReport, extension_report
from bpe_core.corpora.samples import REFERENCE_ID, parallel_text
from bpe_core.pretrained import catalogue
from bpe_core.workspace.extension_job import ExtensionJob
from pages._extend.inputs import Inputs, names
from pages._ui import state, tokenizers, training_jobs
from pages._ui.render import markdown_text as md

K_GO = "extend.go"
K_CANCEL = "extend.cancel"


@dataclass(frozen=True)
class Extended:
    """An extension done in this session: the inputs it ran with (``digest`` names them), the base and
    the extended tokenizer's session key, and what the held-out sentences say."""

    inputs: Inputs
    digest: str
    base_key: str
    extended_key: str
    report: ExtensionReport
    heldout: tuple[str, ...]
    reference: tuple[str, ...]


@st.cache_data(show_spinner=False)
def heldout(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The language's held-out sentences and English's (the same sentences, for the premium)."""
    found = parallel_text(split="heldout", languages=list(dict.fromkeys([language, REFERENCE_ID])))
    return tuple(found[language]), tuple(found[REFERENCE_ID])


def base_spec(inputs: Inputs) -> Tokenizer | str:
    """What the worker loads: a built-in by its name (no copy of it written), else the tokenizer itself."""
    choice = inputs.base
    return choice.key if choice.kind == "built-in" and choice.key in catalogue.BUILTINS else choice.get()


def extend_section(inputs: Inputs | None) -> None:
    """The Extend button; a running extension followed with its progress and Cancel (also after leaving
    the page and coming back); how the last one ended."""
    running = training_jobs.running(state.EXTEND_JOB, K_CANCEL, state.EXTEND_ENDED)
    clicked = st.button("Extend", type="primary", disabled=inputs is None or running is not None, key=K_GO)
    if running is None and clicked and inputs is not None:
        try:
            job = ExtensionJob(
                base_spec(inputs),
                list(inputs.documents),
                inputs.add,
                keep_alive=training_jobs.session_alive(),
                name=f"{inputs.base.label.split(' · ')[0]} + {names()[inputs.language]}",
                **inputs.options(),
            )
        except (ValueError, OSError) as exc:
            training_jobs.failed_to_start(state.EXTEND_ENDED, exc)
        else:
            training_jobs.start(state.EXTEND_JOB, state.EXTEND_ENDED, training_jobs.Running(job, inputs))
    if running is None:
        if inputs is None:
            st.caption("Choose a model and a corpus (and fix what is marked in red above, if anything) to extend.")
        training_jobs.show_ended(state.EXTEND_ENDED)
        return
    training_jobs.cancel_button(K_CANCEL)
    extended, ended = training_jobs.follow(running.job)
    if extended is not None:
        ended = finished(running.about, extended)
    training_jobs.finish(state.EXTEND_JOB, state.EXTEND_ENDED, ended)


def finished(inputs: Inputs, extended: Tokenizer) -> training_jobs.Ended:
    """Keep the extended tokenizer in the session, measure it, and say so."""
    base = inputs.base.get()
    key = tokenizers.add_session_tokenizer(extended, (inputs.corpus_label, list(inputs.documents)))
    sentences, english = heldout(inputs.language)
    report = extension_report(base, extended, list(sentences), reference=list(english))
    st.session_state[state.EXTEND_RESULT] = Extended(
        inputs, inputs.digest(), inputs.base.key, key, report, sentences, english
    )
    added = report.added
    return training_jobs.Ended(
        "done",
        f"Added **{added:,}** tokens to **{md(inputs.base.label)}**: the new tokenizer is **{md(extended.name)}**.",
    )
