"""Train to see the difference: the Compare page's shortcut that trains a small tokenizer on a mix
of built-in samples (and the user's files), adds it to the comparison (beside the tokenizers chosen,
never in place of one), and sets it against GPT-2 with a star on the samples it was trained on. The
tokenizer is named after what it is (its samples and the vocabulary it reached) unless the user names
it. Training is ``bpe_core.train``'s tokenizer, trained through files in a process of its own as on
the Train page (``bpe_core.workspace.jobs``: the bar counts bytes read, Cancel stops it); every number comes
from ``measures``.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core.corpora.samples import REFERENCE_ID
from bpe_core.workspace.documents import trained_name
from bpe_core.workspace.jobs import TrainingJob
from pages._ui import charts, state, tokenizers, training_jobs
from pages._ui.keep import session_section
from pages._ui.messages import stopped_in_words
from pages._ui.render import bold_html
from pages._ui.render import markdown_text as md
from pages._ui.widgets import show_sentences

from . import in_sample
from .measures import METRIC_LABELS, Builtin, Selection, load_tokenizers, measure, summary_lines, versus_frame

K_TRAIN_SAMPLES = "cmp.train.samples"
K_TRAIN_FILES = "cmp.train.use_files"
K_TRAIN_VOCAB = "cmp.train.vocab"
K_TRAIN_NAME = "cmp.train.name"
K_TRAIN_GO = "cmp.train.go"
DEFAULT_TRAIN_MIX = ["eng", "hin", "mya"]


@dataclass(frozen=True)
class Mix:
    """What the training shortcut is asked to train on, and whether Train was clicked."""

    documents: list[str]
    trained_on: list[str]  # labels of the samples and files
    name: str  # as typed ("" to name it after what it is once trained)
    hint: str  # what it is trained on, in a few words for that name
    vocab_size: int
    clicked: bool


def training_mix(builtin: Builtin, selection: Selection, choices, *, busy: bool = False) -> Mix:
    """Draw the training inputs (Train disabled while a training runs: ``busy``)."""
    columns = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
    if K_TRAIN_SAMPLES not in st.session_state:
        st.session_state[K_TRAIN_SAMPLES] = list(DEFAULT_TRAIN_MIX)
    ids = columns[0].multiselect(
        "Train on these built-in samples",
        [s.id for s in builtin.samples],
        format_func=lambda sid: builtin.by_id[sid].label,
        key=K_TRAIN_SAMPLES,
    )
    vocab = columns[1].number_input(
        "Vocabulary size",
        min_value=257,
        max_value=50_000,
        value=1000,
        step=100,
        key=K_TRAIN_VOCAB,
        help="256 bytes + merges. A small corpus may stop earlier: pairs seen only once are not merged.",
    )
    typed = columns[2].text_input(
        "Name",
        key=K_TRAIN_NAME,
        placeholder="the samples and the vocabulary reached",
        max_chars=80,
        help="Left empty, the tokenizer is named after what it was trained on and the vocabulary it reached "
        "(e.g. mix-eng-hin-mya-560 when training stopped at 560).",
    )
    files = list(selection.file_texts)
    use_files = bool(files) and st.toggle(f"Also train on my {len(files)} uploaded file(s)", key=K_TRAIN_FILES)
    chosen_files = files if use_files else []
    documents = [builtin.by_id[sid].text for sid in ids] + [selection.file_texts[f] for f in chosen_files]
    trained_on = [builtin.by_id[sid].label for sid in ids] + chosen_files
    clicked = columns[3].button("Train", type="primary", key=K_TRAIN_GO, disabled=not documents or busy)
    if not documents:
        st.caption("Pick at least one sample (or upload files) to train on.")
    hint = "mix-" + "-".join(ids[:4]) + ("-more" if len(ids) > 4 else "") + ("-files" if chosen_files else "")
    return Mix(documents, trained_on, (typed or "").strip(), hint, int(vocab), clicked and bool(documents))


CANCEL = "cmp.train.cancel"


def start_training(mix: Mix) -> None:
    """Start training ``mix`` in a process of its own (followed by ``finish_training`` on this run and the next)."""
    try:
        job = TrainingJob(
            mix.documents,
            mix.vocab_size,
            keep_alive=training_jobs.session_alive(),
            min_frequency=2,
            pattern="gpt2",
            name="trained",
        )
    except (ValueError, OSError) as exc:
        training_jobs.failed_to_start(state.CMP_TRAIN_ENDED, exc)
        return
    training_jobs.start(state.CMP_TRAIN_JOB, state.CMP_TRAIN_ENDED, training_jobs.Running(job, mix))


def finish_training(running: training_jobs.Running, choices) -> None:
    """Follow the running training; when it is done, name the tokenizer after what it is (unless the user
    named it), keep it for this session and add it to the comparison beside the user's choice (never in
    place of a tokenizer the user chose: when the comparison is full, it says so instead), then rerun."""
    training_jobs.cancel_button(CANCEL)
    tokenizer, ended = training_jobs.follow(running.job)
    mix: Mix = running.about
    if tokenizer is not None:
        name = tokenizers.unused_name(mix.name or trained_name(mix.hint, tokenizer), choices)
        tokenizer.name = name
        trained_on = mix.trained_on
        label = ", ".join(trained_on[:4]) + (f" and {len(trained_on) - 4} more" if len(trained_on) > 4 else "")
        key = tokenizers.add_session_tokenizer(tokenizer, (label, mix.documents))
        st.session_state[state.CMP_TRAIN_RESULT] = key
        st.session_state.setdefault(state.CMP_TRAIN_INFO, {})[key] = trained_on
        st.session_state[state.CMP_PENDING_SELECT] = [key, "gpt2"]
        stopped = (tokenizer.training or {}).get("stop_reason")
        reached = "" if tokenizer.vocab_size >= mix.vocab_size else f" (of the {mix.vocab_size:,} asked for)"
        ended = training_jobs.Ended(
            "done",
            f"Trained **{md(tokenizer.name)}** on {md(label)}: {len(tokenizer.merges):,} merges, vocabulary "
            f"{tokenizer.vocab_size:,}{reached}"
            + (f" (ended: {md(stopped_in_words(stopped))})" if stopped else "")
            + ". "
            "It is unsaved (save it below, or from the Train or Library page).",
        )
    training_jobs.finish(state.CMP_TRAIN_JOB, state.CMP_TRAIN_ENDED, ended)


def versus_chart(
    rows: list[dict], names: list[str], trained_labels: set[str], reference_label: str, colours: dict | None = None
) -> None:
    """The trained tokenizer against GPT-2 by sample; ★ marks the samples it was trained on."""
    frame, order, metric = versus_frame(rows, trained_labels)
    has_premium = metric == "premium"
    title = f"Token premium against {reference_label}" if has_premium else "Characters per token"
    figure = charts.grouped_bars(
        frame[frame[metric].notna()], metric, names, order, title, METRIC_LABELS[metric], colours
    )
    if has_premium:
        charts.add_parity_line(figure, reference_label)
    st.plotly_chart(figure, key="cmp.chart.versus")
    st.caption(
        "★ marks the samples the tokenizer was trained on: its numbers there are in-sample (measured on its "
        "own training text) and flatter it; compare the unstarred ones."
    )
    show_sentences(summary_lines(rows, names, metric))
    table = frame.pivot(index="label", columns="tokenizer", values="tokens").reindex(index=order, columns=names)
    with st.expander("Tokens per sample"):
        st.dataframe(table.reset_index(), hide_index=True, key="cmp.versus_table")


def show_versus(key: str, selection: Selection, builtin: Builtin, choices) -> None:
    """The tokenizer trained here last against GPT-2, on the chosen samples (or every language)."""
    versus = [key, "gpt2"]
    loaded = load_tokenizers(versus, choices)
    if len(loaded) != 2:
        return
    names = {key: key[4:], "gpt2": "GPT-2"}
    if names[key] == "GPT-2":
        names[key] = choices[key].label
    if selection.samples:
        samples, sample_key = selection.samples, tuple(selection.sample_key)
        reference, reference_label = selection.reference, selection.reference_label
    else:
        samples = [builtin.by_id[sid] for sid in builtin.natural_ids]
        sample_key = tuple(("builtin", sid) for sid in builtin.natural_ids)
        reference, reference_label = REFERENCE_ID, builtin.by_id[REFERENCE_ID].label
    st.html(f"<p>{bold_html(names[key])} against GPT-2</p>")
    rows = measure(names, loaded, choices, sample_key, reference, samples)
    if rows is not None:
        trained_on = st.session_state.get(state.CMP_TRAIN_INFO, {}).get(key, [])
        trained_labels = in_sample.starred_labels(key, choices, samples, sample_key, trained_on)  # by text
        colours = {names[k]: colour for k, colour in charts.tokenizer_colours(versus).items()}
        versus_chart(rows, [names[k] for k in versus], trained_labels, reference_label, colours)


def train_section(builtin: Builtin, selection: Selection, choices) -> None:
    st.subheader("Train to see the difference", divider="gray")
    st.caption(
        "Train a small tokenizer on a mix of languages or programs and set it against GPT-2: the languages it "
        "was trained on get cheaper. Try the default mix, then train again without Burmese."
    )
    running = training_jobs.running(state.CMP_TRAIN_JOB, CANCEL, state.CMP_TRAIN_ENDED)
    mix = training_mix(builtin, selection, choices, busy=running is not None)
    if mix.clicked and running is None:
        start_training(mix)  # runs the page again once it started
    if running is not None:
        finish_training(running, choices)
    training_jobs.show_ended(state.CMP_TRAIN_ENDED)
    key = st.session_state.get(state.CMP_TRAIN_RESULT)
    if key and key not in choices:  # deleted or renamed since
        st.session_state.pop(state.CMP_TRAIN_RESULT, None)
    elif key:
        show_versus(key, selection, builtin, choices)
    session_section("cmp")
