"""Train: pick a corpus, look at it, choose settings, train with live progress, inspect and keep."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import bpe_core
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.counting import count_words
from bpe_core.workspace.documents import trained_name
from bpe_core.workspace.jobs import TrainingJob
from pages._train import heldout
from pages._train.corpus import Corpus, corpus_section
from pages._train.settings import Settings, settings_section
from pages._ui import charts, exports, state, tables, tokenizers, training_jobs
from pages._ui.imports import tokenizer_upload_section
from pages._ui.keep import session_section
from pages._ui.messages import in_words, stopped_in_words
from pages._ui.names import show_name_note
from pages._ui.render import markdown_text as md
from pages._ui.widgets import format_seconds, page_header, show_table

KEPT_DEFAULTS = {
    "train.name": "",
    "train.vocab_size": 1000,
    "train.min_frequency": 2,
    "train.custom_regex": r"\s?\w+|\s+|[^\w\s]+",
    "train.tie_break": "lexicographic",
    "train.pattern": "gpt2",
    "train.specials": "",
    "train.paste": "",
    "train.samples": [],
}
SAVE_NAME = "train.save_name"
STAT_LABELS = ["documents", "characters", "bytes", "pre-tokens", "unique pre-tokens"]


#: Characters of a corpus whose pre-tokens the page counts (a larger corpus: its first this many; its
#: full count comes with the training, in a process of its own): counting 80 MB in the server would hold
#: the interpreter for every session for half a minute.
STATS_CHARS = 2_000_000


def counted_prefix(documents: list[str], limit: int) -> list[str]:
    """The first ``limit`` characters of ``documents``, as documents (the last one cut).

    >>> counted_prefix(["abc", "defg", "hi"], 5)
    ['abc', 'de']
    """
    kept, total = [], 0
    for document in documents:
        if total >= limit:
            break
        kept.append(document[: limit - total])
        total += len(kept[-1])
    return kept


@st.cache_data(show_spinner="Counting pre-tokens…", max_entries=8)
def corpus_statistics(signature: str, pattern: str | None, specials: tuple[str, ...], _documents: list[str]):
    """Documents, characters and bytes of the whole corpus; pre-tokens of its first STATS_CHARS
    characters (all of it, usually), with how many characters that was."""
    characters = sum(map(len, _documents))
    counted = counted_prefix(_documents, STATS_CHARS) if characters > STATS_CHARS else _documents
    counts = count_words(counted, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials)
    stats = counts.stats
    return {
        "documents": len(_documents),
        "characters": characters,
        "bytes": sum(len(d.encode("utf-8", "replace")) for d in _documents),
        "pre-tokens": stats.pretokens,
        "unique pre-tokens": len(counts.counts),
        "special tokens cut out": stats.special_tokens_cut,
        "counted characters": sum(map(len, counted)),
    }


def statistics_section(corpus: Corpus, settings: Settings) -> None:
    st.subheader("Corpus statistics")
    if not corpus.documents:
        st.info("No corpus yet: upload files, pick built-in samples or paste text above.")
        return
    if settings.pattern_error:
        st.warning("Fix the pre-tokenization regex to see pre-token counts.")
        return
    try:
        stats = corpus_statistics(corpus.signature, settings.pattern, tuple(settings.special_tokens), corpus.documents)
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return
    for column, label in zip(st.columns(len(STAT_LABELS)), STAT_LABELS, strict=True):
        column.metric(label, f"{stats[label]:,}")  # plain: the labels are STAT_LABELS
    if stats["counted characters"] < stats["characters"]:
        st.caption(
            f"Pre-tokens of the first {stats['counted characters']:,} characters of {stats['characters']:,}: "
            "training counts them all (in a process of its own, so the page stays quick)."
        )
    if stats["special tokens cut out"]:
        st.caption(f"{stats['special tokens cut out']:,} special-token occurrences are cut out before counting.")
    with st.expander("Sources"):
        show_table(pd.DataFrame(corpus.sources))


CANCEL = "train.cancel"


def training_section(corpus: Corpus, settings: Settings) -> None:
    """The Train button; a running training (in a process of its own) followed with its progress and a
    Cancel button, also after leaving the page and coming back; how the last one ended. Train, Cancel
    and what is shown follow the job's state (``pages/_ui/training_jobs``)."""
    st.header("3 · Train", divider="gray")
    kept = st.session_state.get(state.TRAIN_RESULT)
    before = f"The result below is still **{md(kept[4:])}**, trained before." if kept else ""  # key: new:/lib: + name
    running = training_jobs.running(
        state.TRAIN_JOB, CANCEL, state.TRAIN_ENDED, cancelled=training_jobs.sentences(training_jobs.CANCELLED, before)
    )
    can_train = bool(corpus.documents) and not settings.pattern_error and not settings.problem
    clicked = st.button("Train", type="primary", disabled=not can_train or running is not None, key="train.go")
    if running is None and clicked:
        try:
            job = TrainingJob(  # through files: counting progress in bytes read
                corpus.documents,
                settings.vocab_size,
                keep_alive=training_jobs.session_alive(),
                min_frequency=settings.min_frequency,
                pattern=settings.pattern,
                special_tokens=settings.special_tokens,
                tie_break=settings.tie_break,
                name="trained",
            )
        except (ValueError, OSError) as exc:
            training_jobs.failed_to_start(state.TRAIN_ENDED, exc)
        else:
            about = (settings.name.strip(), corpus.name_hint, before)
            training_jobs.start(state.TRAIN_JOB, state.TRAIN_ENDED, training_jobs.Running(job, about))
    if running is None:
        if not can_train:
            st.caption("Add a corpus (and fix the settings marked in red above, if any) to enable training.")
        training_jobs.show_ended(state.TRAIN_ENDED)
        return
    training_jobs.cancel_button(CANCEL)
    tokenizer, ended = training_jobs.follow(running.job)
    typed, hint, before = running.about
    if tokenizer is not None:
        tokenizer.name = typed or trained_name(hint, tokenizer)
        key = tokenizers.add_session_tokenizer(tokenizer, (corpus.label, corpus.documents))
        st.session_state[state.TRAIN_RESULT] = key
        st.session_state[SAVE_NAME] = tokenizer.name
        took = format_seconds(recorded_seconds(tokenizer.training))
        ended = training_jobs.Ended("done", f"Trained **{md(tokenizer.name)}** in {took}.")
    elif ended.kind == "failed":
        ended = training_jobs.Ended("failed", training_jobs.sentences(ended.message, before))
    training_jobs.finish(state.TRAIN_JOB, state.TRAIN_ENDED, ended)


def recorded_fields(value: object) -> dict[str, object]:
    """An object of a tokenizer's training record (its ``settings`` or ``corpus``); {} when absent or not one."""
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


def recorded_count(fields: dict[str, object], key: str) -> int:
    """An integer of a training record, 0 when absent or not an integer."""
    value = fields.get(key)
    return value if isinstance(value, int) else 0


def recorded_counts(training: dict[str, object]) -> list[int]:
    """The token count of the training corpus after each merge; [] when not recorded."""
    after = training.get("tokens_after_merge")
    return [count for count in after if isinstance(count, int)] if isinstance(after, list) else []


def recorded_seconds(training: dict[str, object]) -> float | None:
    """How long the training took, None when not recorded."""
    seconds = training.get("seconds")
    return seconds if isinstance(seconds, (int, float)) else None


def result_figures(tokenizer: bpe_core.Tokenizer) -> None:
    """The compression curve over the training corpus, and the first and last merges."""
    training = tokenizer.training
    corpus = recorded_fields(training.get("corpus"))
    after = recorded_counts(training)
    characters = recorded_count(corpus, "characters")
    if after and characters:
        tokens = [recorded_count(corpus, "bytes")] + after
        figure = charts.line(
            range(len(tokens)),
            [characters / t if t else None for t in tokens],
            name="chars/token",
            title="Compression as merges accrue",
            x_title="merges learned",
            y_title="characters per token (training corpus)",
            height=330,
        )
        st.plotly_chart(figure, key="train.curve")
    else:
        st.info("No merges were learned, so there is no compression curve.")
    n = len(tokenizer.merges)
    if not n:
        return
    # tabs, not two half-width columns: six columns of merges fit the page's width without scrolling
    first_tab, last_tab = st.tabs([f"First merges ({min(15, n)})", "Last merges"])  # plain: a count
    with first_tab:
        show_table(tables.merges_table(tokenizer, range(min(15, n))))
    with last_tab:
        last = tables.merges_table(tokenizer, range(max(15, n - 15), n))
        if len(last):
            show_table(last)
        else:
            st.caption("All merges are shown under First merges.")


def result_summary(tokenizer: bpe_core.Tokenizer) -> None:
    training = tokenizer.training
    corpus = recorded_fields(training.get("corpus"))
    after = recorded_counts(training)
    columns = st.columns(5)
    columns[0].metric("merges learned", f"{training.get('merges_learned', len(tokenizer.merges)):,}")
    columns[1].metric("vocabulary", f"{tokenizer.vocab_size:,}")
    columns[2].metric("training time", format_seconds(recorded_seconds(training)))
    characters, size = recorded_count(corpus, "characters"), recorded_count(corpus, "bytes")
    columns[3].metric("chars / token", tables.ratio_text(characters, after[-1]) if after else "—")
    columns[4].metric("bytes / token", tables.ratio_text(size, after[-1]) if after else "—")
    st.caption(f"Training ended: {md(stopped_in_words(training.get('stop_reason', 'unknown')))}.")
    with st.expander("Settings and corpus"):

        def shown(value: object) -> str:  # numbers as every page writes them (4,000)
            return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)

        table = {f"setting: {k}": shown(v) for k, v in recorded_fields(training.get("settings")).items()}
        table |= {f"corpus: {k}": shown(v) for k, v in corpus.items()}
        st.dataframe(pd.DataFrame({"field": list(table), "value": list(table.values())}), hide_index=True)


def keep_section(choice: tokenizers.TokenizerChoice, tokenizer: bpe_core.Tokenizer) -> None:
    st.subheader("Keep it")
    if choice.kind == "session":
        st.warning("Not saved yet: unsaved tokenizers disappear when the page is reloaded.")
    else:
        st.success(f"Saved in the library as **{md(choice.key.removeprefix('lib:'))}**.")
    if SAVE_NAME not in st.session_state:
        st.session_state[SAVE_NAME] = tokenizer.name
    save_cols = st.columns([3, 1, 1], vertical_alignment="bottom")
    save_name = save_cols[0].text_input("Library name", key=SAVE_NAME)
    overwrite = save_cols[1].checkbox("Overwrite", key="train.overwrite")
    show_name_note(save_name, st)
    if save_cols[2].button("Save to library", key="train.save"):
        try:
            new_key = tokenizers.save_to_library(choice.key, tokenizer, save_name, overwrite=overwrite)
        except ValueError as exc:
            st.error(f"Could not save: {md(in_words(exc))}")
        else:
            st.session_state[state.TRAIN_RESULT] = new_key
            state.flash("success", f"Saved **{md(new_key[4:])}** to the library ({md(tokenizers.library().folder)}).")
            st.rerun()
    exports.download_buttons(choice.fingerprint, tokenizer, "train")


def result_section() -> None:
    choices = tokenizers.available_tokenizers()
    result_key = st.session_state.get(state.TRAIN_RESULT)
    if result_key not in choices:
        st.session_state.pop(state.TRAIN_RESULT, None)  # deleted or renamed since
        return
    choice = choices[result_key]
    tokenizer = choice.get()
    st.header(f"4 · Result: {md(tokenizer.name)}", divider="gray")
    result_summary(tokenizer)
    heldout.evaluation_section(result_key, tokenizer)
    result_figures(tokenizer)
    keep_section(choice, tokenizer)


def main() -> None:
    state.keep_widget_state(KEPT_DEFAULTS)
    page_header(
        "Train a tokenizer",
        "Upload a corpus or pick built-in samples, check its statistics, choose the settings and train. "
        "A failed training leaves every existing tokenizer as it was.",
    )
    corpus = corpus_section()
    settings = settings_section(corpus)
    statistics_section(corpus, settings)
    with heldout.recording(corpus) as train_corpus:  # without the held-out part, when asked
        training_section(train_corpus, settings)
    result_section()
    session_section("train")
    with st.expander("Load a tokenizer file into the library"):
        tokenizer_upload_section("train.tokenizer_upload")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
