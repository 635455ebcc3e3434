"""Compare: what each tokenizer costs each language and each kind of code.

Pick tokenizers and samples (built-in parallel translations, code and data, or your own files); see
characters per token, the token premium against a reference language, a heatmap, the full table
with a CSV download, compression against vocabulary size, and a shortcut that trains a tokenizer on
a chosen mix and sets it against GPT-2, and a link to Fairer training (``pages/fairer.py``: standard
against parity-aware BPE on parallel text). Every number comes from ``bpe_core``.
"""

from __future__ import annotations

import re
import time

import pandas as pd
import streamlit as st

from bpe_core.analysis import metrics
from bpe_core.corpora.samples import REFERENCE_ID
from pages._compare import in_sample, measures
from pages._compare.curves import K_CURVE_TOKENIZER, curve_section
from pages._compare.measures import (
    HIGHER_IS_BETTER,
    METRIC_LABELS,
    Builtin,
    Comparison,
    Selection,
    display_names,
    load_tokenizers,
    measure,
    shared_figure,
    summary_lines,
    text_digest,
)
from pages._compare.report import Report, report_button
from pages._compare.table import table_section
from pages._compare.versus import train_section
from pages._ui import charts, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.uploads import file_uploader, upload_limit_mb
from pages._ui.widgets import page_header, show_sentences, tokenizer_multiselect

# Widget keys of this page (all prefixed "cmp."; its other state is under state.CMP_*; the training
# shortcut's widgets are in pages/_compare/versus.py).
K_TOKENIZERS = "cmp.tokenizers"
K_SOURCE = "cmp.source"
K_SAMPLES = "cmp.samples"
K_UPLOADS = "cmp.uploads"
K_UNSPACED = "cmp.unspaced"
K_REFERENCE = "cmp.reference"
K_HEAT_METRIC = "cmp.heat_metric"

SOURCE_BUILTIN = "Built-in samples"
SOURCE_FILES = "My files"
MAX_TOKENIZERS = 6


# ------------------------------------------------------------------------------------------------
# inputs


def set_samples(ids: list[str]) -> None:
    st.session_state[K_SAMPLES] = ids


def init_selection(choices: dict[str, TokenizerChoice], builtin: Builtin) -> None:
    """First values of the tokenizer and sample pickers; a tokenizer trained below goes first."""
    if K_TOKENIZERS not in st.session_state:
        st.session_state[K_TOKENIZERS] = tokenizers.preferred_keys(choices, MAX_TOKENIZERS)
    else:  # drop tokenizers deleted since (e.g. on the Library page)
        st.session_state[K_TOKENIZERS] = [k for k in st.session_state[K_TOKENIZERS] if k in choices]
    pending = st.session_state.pop(state.CMP_PENDING_SELECT, None)
    if pending:
        add_trained(pending, choices)
    if K_SAMPLES not in st.session_state:
        st.session_state[K_SAMPLES] = list(builtin.natural_ids)


def add_trained(pending: list[str], choices: dict[str, TokenizerChoice]) -> None:
    """A tokenizer trained below (``pending``: it, then GPT-2 to set it against) goes first in the
    comparison, as far as there is room: it never takes the place of a tokenizer the user chose. When
    the comparison is full, it says so instead."""
    chosen = st.session_state[K_TOKENIZERS]
    new = [k for k in pending if k in choices and k not in chosen]
    room = max(0, MAX_TOKENIZERS - len(chosen))
    st.session_state[K_TOKENIZERS] = new[:room] + chosen
    if pending[0] in st.session_state[K_TOKENIZERS]:
        st.session_state[K_CURVE_TOKENIZER] = pending[0]  # show the new tokenizer's curve
    elif pending[0] in choices:
        st.warning(
            f"**{md(choices[pending[0]].label)}** is not in the comparison: it already compares "
            f"{MAX_TOKENIZERS} tokenizers. Remove one above to add it."
        )


def builtin_samples_input(selection: Selection, builtin: Builtin) -> None:
    by_id = builtin.by_id
    chosen = st.multiselect(
        "Built-in samples",
        [s.id for s in builtin.samples],
        format_func=lambda sid: f"{by_id[sid].label} · {by_id[sid].kind}",
        key=K_SAMPLES,
        help="21 languages translating the same passage (parallel text), one program in 7 languages, "
        "a JSON and a Markdown document.",
    )
    presets = [
        ("All languages", "languages", builtin.natural_ids),
        ("All code and data", "code", builtin.code_ids),
        ("Everything", "all", [s.id for s in builtin.samples]),
        ("Clear", "clear", []),
    ]
    for column, (label, name, ids) in zip(st.columns(len(presets)), presets, strict=True):
        column.button(label, key=f"cmp.preset.{name}", on_click=set_samples, args=(ids,))  # plain: presets
    for sample in (by_id[sid] for sid in chosen):
        selection.samples.append(sample)
        selection.sample_key.append((sample.id, sample.label, sample.kind, sample.spaced, text_digest(sample.text)))
        selection.texts_for_curve[sample.label] = sample.text
    if any(by_id[sid].kind == "natural" for sid in chosen):
        state.ensure_option(K_REFERENCE, builtin.natural_ids, REFERENCE_ID)
        selection.reference = st.selectbox(
            "Reference for the premium",
            builtin.natural_ids,
            format_func=lambda sid: by_id[sid].label,
            key=K_REFERENCE,
            help="The premium of a language is its token count divided by the reference's token count "
            "for the same passage. It need not be among the chosen samples.",
        )
        selection.reference_label = by_id[selection.reference].label


def read_files() -> tuple[dict[str, str], dict[str, str]]:
    """The user's readable files, labelled by name: (label -> text, label -> digest)."""
    uploads = file_uploader(
        f"Your files: one per language or program, UTF-8 text (up to {upload_limit_mb():,} MB each, "
        f"measured whole up to {measures.MAX_FILE_CHARS:,} characters); the file name is the label",
        K_UPLOADS,
        help="For a fair premium, upload translations of the same text, one language per file. Each file "
        f"is measured whole up to {measures.MAX_FILE_CHARS:,} characters; only the first "
        f"{measures.MAX_FILE_CHARS:,} characters of a longer file are measured, with a warning.",
    )
    file_texts: dict[str, str] = {}
    digests: dict[str, str] = {}
    for upload in uploads:
        if upload.error:
            st.error(f"Skipped {md(upload.name)}: {md(in_words(upload.error))}")
            continue
        text, digest = upload.text, upload.digest
        if not text.strip():
            st.warning(f"Skipped {md(upload.name)}: the file is empty.")
            continue
        label, number = upload.name, 2
        while label in file_texts:
            label, number = f"{upload.name} ({number})", number + 1
        cap = measures.MAX_FILE_CHARS  # read at run time: the tests lower it
        if len(text) > cap:
            st.warning(
                f"{md(upload.name)} has {len(text):,} characters: the first {cap:,} are measured "
                "(split the file to measure the rest)."
            )
            text = text[:cap]
            digest = text_digest(text)
        file_texts[label], digests[label] = text, digest
    return file_texts, digests


def file_samples_input(selection: Selection) -> None:
    file_texts, digests = read_files()
    selection.file_texts = file_texts
    labels = list(file_texts)
    if not labels:
        return
    st.session_state[K_UNSPACED] = [v for v in st.session_state.get(K_UNSPACED, []) if v in labels]
    unspaced = st.multiselect(
        "Files written without spaces between words (e.g. Chinese, Japanese, Thai, Burmese)",
        labels,
        key=K_UNSPACED,
        help="Word-based metrics (tokens per word, split words) are left empty for these.",
    )
    for label in labels:
        selection.samples.append((label, file_texts[label], label not in unspaced))
        selection.texts_for_curve[label] = file_texts[label]
        selection.sample_key.append((label, label not in unspaced, digests[label]))
    english = [label for label in labels if re.sub(r"\..*$", "", label).lower() in ("en", "eng", "english")]
    state.ensure_option(K_REFERENCE, labels, english[0] if english else labels[0])
    selection.reference = st.selectbox(
        "Reference for the premium (one of your files)",
        labels,
        key=K_REFERENCE,
        help="Each file's premium is its token count divided by this file's token count.",
    )
    selection.reference_label = selection.reference


def inputs(choices: dict[str, TokenizerChoice], builtin: Builtin) -> tuple[list[str], Selection]:
    """Draw the pickers: (chosen tokenizer keys, chosen samples)."""
    init_selection(choices, builtin)
    left, right = st.columns([2, 3], gap="large")
    with left:
        selected = tokenizer_multiselect(
            "Tokenizers",
            choices,
            key=K_TOKENIZERS,
            limit=MAX_TOKENIZERS,
            help="Your tokenizers (trained in this session ✱, saved in your library 📁), today's models, "
            "GPT-2, and the example sample-bpe.",
        )
        st.caption(
            "Train your own on the Train page, or with **Train to see the difference** at the bottom of this page."
        )
    with right:
        sources = [SOURCE_BUILTIN, in_sample.SOURCE_HELDOUT, SOURCE_FILES]
        selection = Selection(st.radio("Samples", sources, horizontal=True, key=K_SOURCE))
        if selection.source == SOURCE_BUILTIN:
            builtin_samples_input(selection, builtin)
        elif selection.source == in_sample.SOURCE_HELDOUT:
            in_sample.heldout_input(selection, builtin)
        else:
            file_samples_input(selection)
    return selected, selection


# ------------------------------------------------------------------------------------------------
# the comparison


def premium_section(
    frame: pd.DataFrame,
    rows: list[dict],
    names: list[str],
    reference_label: str,
    colours: dict[str, str],
    view: tuple,
    report: Report,
) -> None:
    st.subheader(f"Token premium against {md(reference_label) or 'the reference'}", divider="gray")
    premium = frame[frame["premium"].notna()]
    if premium.empty:
        st.info(
            "No premium to show: it compares translations of the same passage, so it needs natural-language "
            "samples (built in) or your own files. Code and data samples are not parallel text."
        )
        return
    # dearest first: samples ordered by their mean premium over the chosen tokenizers
    means = premium.groupby("label", sort=False)["premium"].mean()
    order = means.sort_values(ascending=False).index.tolist()
    title = f"Tokens needed relative to {reference_label}"

    def build():
        figure = charts.grouped_bars(premium, "premium", names, order, title, METRIC_LABELS["premium"], colours)
        charts.add_parity_line(figure, reference_label)
        return figure

    figure = shared_figure(view, "premium", build)
    st.plotly_chart(figure, key="cmp.chart.premium", config=charts.plot_config("token-premium"))
    report.figure(f"Token premium against {reference_label}", figure)
    st.caption(
        "Samples are sorted from the dearest to the cheapest (mean premium over the chosen tokenizers). "
        f"Bars above the dashed parity line cost more tokens than {md(reference_label)}."
    )
    show_sentences(summary_lines(rows, names, "premium"))
    report.sentences(summary_lines(rows, names, "premium"))


#: Why a metric has no value for some samples (the heatmap leaves those rows out and says so).
NO_VALUE = {
    "premium": "no premium: they are not translations of the reference passage (code, data, or the reference missing)",
    "fertility": "no words to count: written without spaces between words, or not natural language",
    "split_share": "no words to count: written without spaces between words, or not natural language",
}


def heatmap_metric(frame: pd.DataFrame) -> list[str]:
    """The metrics the picker offers (those with a value somewhere), after choosing one unless the user
    did: the premium when every sample has one, else characters per token (which every sample has)."""
    available = [m for m in metrics.METRIC_NAMES if frame[m].notna().any()]
    everywhere = [m for m in available if frame[m].notna().all()]
    default = "premium" if "premium" in everywhere else "chars_per_token"
    chosen = st.session_state.get(K_HEAT_METRIC)
    if chosen not in available or chosen == st.session_state.get(state.CMP_HEAT_DEFAULT):  # not the user's pick
        pick = default if default in available else available[0]
        st.session_state[K_HEAT_METRIC] = st.session_state[state.CMP_HEAT_DEFAULT] = pick
    return available


def heatmap_section(
    frame: pd.DataFrame, rows: list[dict], names: list[str], order: list[str], view: tuple, report: Report
) -> None:
    st.subheader("Heatmap", divider="gray")
    available = heatmap_metric(frame)
    metric = st.selectbox("Metric", available, format_func=METRIC_LABELS.__getitem__, key=K_HEAT_METRIC)
    with_value = [label for label in order if frame.loc[frame["label"] == label, metric].notna().any()]
    left_out = [label for label in order if label not in with_value]

    def build():  # only when no session has built it yet: the pivot is most of the cost
        grid = frame.pivot(index="label", columns="tokenizer", values=metric).reindex(index=with_value, columns=names)
        return charts.heatmap(grid, METRIC_LABELS[metric], metric in HIGHER_IS_BETTER)

    figure = shared_figure(view, f"heat:{metric}", build)
    st.plotly_chart(figure, key="cmp.chart.heat", config=charts.plot_config(f"heatmap-{metric}"))
    report.figure(f"Heatmap: {METRIC_LABELS[metric]}", figure)
    better = "greener is better" if metric in HIGHER_IS_BETTER else "redder costs more"
    st.caption(f"Rows are samples, columns tokenizers; {md(better)}.")
    if left_out:
        why = NO_VALUE.get(metric, "no value for this metric")
        st.caption(f"Left out, {md(why)}: {md(', '.join(left_out))}. Pick characters per token to see every sample.")
    if metric not in ("chars_per_token", "premium"):  # their sentences are already under their charts above
        show_sentences(summary_lines(rows, names, metric))


def show_comparison(selected: list[str], selection: Selection, choices, report: Report) -> Comparison | None:
    """Charts, sentences and table for the chosen tokenizers and samples; None when there is nothing
    to compare."""
    if not selected:
        st.info("Pick at least one tokenizer.")
        return None
    if not selection.samples:
        if selection.source == SOURCE_FILES:
            st.info("Upload one or more UTF-8 text files (one per language or program) to compare them.")
        else:
            st.info("Pick at least one sample, e.g. with **All languages**.")
        return None
    loaded = load_tokenizers(selected, choices)
    if not loaded:
        return None
    # † after the names of tokenizers measured on text they were trained on (in_sample)
    seen = in_sample.seen_in_training(list(loaded), choices, selection.texts_for_curve, tuple(selection.sample_key))
    names = in_sample.marked_names(display_names(list(loaded), choices), seen)
    rows = measure(names, loaded, choices, tuple(selection.sample_key), selection.reference, selection.samples)
    if rows is None:
        return None
    rows = in_sample.annotate(rows, names, seen)
    frame = pd.DataFrame(rows)
    order = list(dict.fromkeys(frame["label"]))
    shown = [names[k] for k in loaded]
    colours = {names[k]: colour for k, colour in charts.tokenizer_colours(list(loaded)).items()}  # one per tokenizer
    view = (
        tuple(names.items()),
        tuple(choices[k].fingerprint for k in loaded),
        tuple(selection.sample_key),
        selection.reference,
        selection.reference_label,
    )
    st.subheader("Characters per token", divider="gray")
    title = "Characters per token (higher: fewer tokens)"
    figure = shared_figure(
        view,
        "cpt",
        lambda: charts.grouped_bars(
            frame, "chars_per_token", shown, order, title, METRIC_LABELS["chars_per_token"], colours
        ),
    )
    st.plotly_chart(figure, key="cmp.chart.cpt", config=charts.plot_config("characters-per-token"))
    report.figure("Characters per token", figure)
    in_sample.note(names, seen)
    show_sentences(summary_lines(rows, shown, "chars_per_token"))
    report.sentences(summary_lines(rows, shown, "chars_per_token"))
    premium_section(frame, rows, shown, selection.reference_label, colours, view, report)
    heatmap_section(frame, rows, shown, order, view, report)
    table_section(frame, report)
    return Comparison(rows, names, loaded)


def fairer_link() -> None:
    """Where a tokenizer that costs each language more evenly is trained: the Fairer training page."""
    st.subheader("Train a fairer tokenizer", divider="gray")
    st.caption(
        "Parity-aware BPE gives each merge to the language that is worst compressed so far; standard BPE to the "
        "pair most frequent over all the text. Train both on the same parallel text and compare them on held-out "
        "sentences beside today's models:"
    )
    st.page_link("pages/fairer.py", label="Fairer training", icon=":material/balance:")


def run_report(selected: list[str], selection: Selection, choices) -> Report:
    """The report of this run, with its settings; the sections add their charts, tables and sentences."""
    report = Report()
    report.setting("tokenizers", ", ".join(choices[k].label for k in selected) or "none")
    report.setting("samples", selection.source)
    labels = [s.label if hasattr(s, "label") else s[0] for s in selection.samples]
    report.setting("sample texts", ", ".join(labels) or "none")
    report.setting("reference for the premium", selection.reference_label or "none")
    return report


def main() -> None:
    started = time.perf_counter()
    page_header(
        "Compare tokenizers across languages and code",
        "The same message costs a different number of tokens in every language. Pick tokenizers and samples "
        "(built-in parallel translations of one passage, programs, data, or your own files) and see the cost: "
        "characters per token (higher is better) and the token premium, i.e. how many times more tokens a text "
        "needs than the same text in the reference language (1.0 is parity).",
    )
    choices = tokenizers.available_tokenizers()
    notes = tokenizers.not_installed_notes()
    if notes:  # built-in tokenizers whose package is missing
        st.caption(md("; ".join(notes)))
    builtin = Builtin.load()
    selected, selection = inputs(choices, builtin)
    download = st.container()  # the report's button, filled once the run has drawn what it holds
    report = run_report(selected, selection, choices)
    result = show_comparison(selected, selection, choices, report)
    curve_section(result, selection, choices, report)
    with download:
        report_button(report, key="cmp.report")
    train_section(builtin, selection, choices)
    fairer_link()
    st.caption(f"Server time for this view: {(time.perf_counter() - started) * 1000:,.0f} ms.")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
