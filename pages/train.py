"""Train: pick a corpus, look at it, choose settings, train with live progress, inspect and keep."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd
import streamlit as st

import bpe_core
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.counting import count_words
from bpe_core.training.merge_loop import MAX_VOCAB_SIZE
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from bpe_core.workspace.documents import trained_name
from bpe_core.workspace.jobs import TrainingJob
from pages._train import heldout
from pages._train.corpus import Corpus, corpus_section
from pages._ui import charts, exports, state, tables, tokenizers
from pages._ui.imports import tokenizer_upload_section
from pages._ui.keep import session_section
from pages._ui.messages import in_words
from pages._ui.names import show_name_note
from pages._ui.render import markdown_text as md
from pages._ui.render import pieces_html
from pages._ui.samples import sample_text
from pages._ui.training_jobs import follow
from pages._ui.widgets import format_seconds, page_header, show_table

PATTERN_OPTIONS = {
    "gpt2": "GPT-2 preset",
    "cl100k": "cl100k preset (GPT-3.5/4)",
    "o200k": "o200k preset (GPT-4o)",
    "custom": "Custom regex",
    "none": "None (each document is one piece)",
}
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
PREVIEW_TEXT = "train.preview_text"
STAT_LABELS = ["documents", "characters", "bytes", "pre-tokens", "unique pre-tokens"]


@dataclass(frozen=True)
class Settings:
    name: str
    vocab_size: int
    min_frequency: int
    tie_break: str
    special_tokens: list[str]
    pattern: str | None
    pattern_error: str | None
    problem: str | None = None  # a setting that keeps Train disabled (said under its field)


#: The vocabulary sizes the Train page accepts: the 256 bytes and one merge, up to what bpe_core trains.
MIN_VOCAB = 257
MAX_VOCAB = MAX_VOCAB_SIZE


def vocab_problem(vocab_size: int, specials: int) -> str | None:
    """Why ``vocab_size`` cannot hold the 256 bytes, ``specials`` special tokens and one merge (None
    when it can).

    >>> vocab_problem(258, 2).split(":")[0]
    'With 2 special tokens the vocabulary needs at least 259 ids (256 bytes, 2 special tokens and one merge)'
    >>> vocab_problem(259, 2) is None
    True
    """
    least = 256 + specials + 1
    if vocab_size >= least:
        return None
    tokens = f"{specials:,} special token{'s' if specials != 1 else ''}"
    return (
        f"With {tokens} the vocabulary needs at least {least:,} ids (256 bytes, {tokens} and one merge): "
        f"raise it to {least:,} or more."
    )


def vocab_note(vocab_size: int, specials: int) -> str:
    """What the vocabulary size trains to, and the range accepted (shown under the field, so a value typed
    outside it, which the field refuses, is not mistaken for the one used)."""
    merges = max(vocab_size - 256 - specials, 0)
    return (
        f"Trains up to {vocab_size:,} ids: 256 bytes, {specials:,} special token(s) and up to {merges:,} merges. "
        f"Accepted: {MIN_VOCAB:,} to {MAX_VOCAB:,}."
    )


def parse_special_tokens(text: str) -> list[str]:
    """Special tokens from comma- or newline-separated text (blanks ignored, order kept)."""
    return list(dict.fromkeys(token for part in re.split(r"[,\n]", text or "") if (token := part.strip())))


def regex_problem(pattern: str | None, error: ValueError) -> str:
    """What is wrong with ``pattern``, once, in the regex engine's words ("missing ) at position 7"):
    bpe_core's own message repeats the pattern (as a Python literal, its backslashes doubled) and
    what to do, which the page says in its own words around it."""
    import regex

    try:
        regex.compile(pattern or "")
    except regex.error as problem:
        return f"{problem.msg} at position {problem.pos}" if problem.pos is not None else problem.msg
    return str(error)


def pattern_preview(pattern: str | None, corpus: Corpus) -> str | None:
    """The preview text split by the pattern; returns the pattern's error, if any."""
    signature = corpus.signature
    if st.session_state.get(state.TRAIN_PREVIEW_FOR) != signature:  # follow the corpus as it changes
        st.session_state[state.TRAIN_PREVIEW_FOR] = signature
        st.session_state[PREVIEW_TEXT] = (corpus.documents[0] if corpus.documents else sample_text(300))[:300]
    preview_text = st.text_area("Preview text (how the pattern splits it)", key=PREVIEW_TEXT, height=90)
    try:
        pieces = PreTokenizer.build(pattern).pieces(preview_text[:2000])
    except ValueError as exc:
        st.error(
            f"The pre-tokenization regex ‘{md(pattern)}’ is not valid: {md(regex_problem(pattern, exc))}. "
            "Fix it (the syntax of Python's `regex` module) or pick a preset."
        )
        return str(exc)
    st.caption(f"How the preview splits into {len(pieces):,} pre-tokens (␣ is a space, → a tab, ↵ a newline):")
    st.html(pieces_html(pieces))
    return None


def settings_section(corpus: Corpus) -> Settings:
    st.header("2 · Settings", divider="gray")
    left, right = st.columns(2)
    with left:
        name = st.text_input(
            "Tokenizer name",
            key="train.name",
            max_chars=80,
            placeholder="the corpus and the vocabulary it reaches",
            help="Left empty, the tokenizer is named after its corpus and the vocabulary it reached (e.g. fox-300).",
        )
        name_ok = show_name_note(name, st)
        if not name.strip():
            hint = md(corpus.name_hint or "corpus")
            named = f"Left empty, it will be named **{hint}-** and the vocabulary it reaches (e.g. {hint}-1000)."
            st.caption(named)  # plain: hint went through md()
        vocab_size = st.number_input(
            "Vocabulary size (256 bytes + special tokens + merges)",
            min_value=MIN_VOCAB,
            max_value=MAX_VOCAB,
            step=100,
            key="train.vocab_size",
            help=f"From {MIN_VOCAB:,} (the 256 bytes and one merge) to {MAX_VOCAB:,}, the most bpe_core trains. "
            "A value outside is refused by the field (red) and the last accepted one is kept.",
        )
        vocab_notes = st.container()  # filled once the special tokens below are known
        min_frequency = st.number_input(
            "Minimum pair frequency (stop when the best pair is rarer)",
            min_value=0,
            max_value=1_000_000,
            key="train.min_frequency",
            help="From 0 to 1,000,000: training stops when the most frequent pair occurs fewer times than this.",
        )
        tie_break = st.radio(
            "Tie rule (pairs with equal counts)",
            list(TIE_BREAKS),
            horizontal=True,
            key="train.tie_break",
            help="  \n".join(f"**{rule}**: {TIE_RULES[rule]}" for rule in TIE_BREAKS)  # plain: bpe_core's rules
            + "  \nWith the GPT-2 pattern, huggingface gives BpeTrainer's merges (same min frequency) and "
            "rustbpe gives rustbpe's (min frequency 1: rustbpe has none).",
        )
        specials_text = st.text_area(
            "Special tokens (separated by commas or new lines)",
            key="train.specials",
            placeholder="<|endoftext|>",
            height=80,
        )
    specials = parse_special_tokens(specials_text)
    problem = vocab_problem(int(vocab_size), len(specials))
    if problem:
        vocab_notes.error(problem)  # plain: numbers only
    else:
        vocab_notes.caption(vocab_note(int(vocab_size), len(specials)))  # plain: numbers only
    if not name_ok:
        problem = problem or "the tokenizer name"
    with right:
        pattern, pattern_error = pattern_settings(corpus)
    return Settings(name, int(vocab_size), int(min_frequency), tie_break, specials, pattern, pattern_error, problem)


def pattern_settings(corpus: Corpus) -> tuple[str | None, str | None]:
    """The pre-tokenization choice and its preview: (pattern, what is wrong with it or None)."""
    pattern_choice = st.selectbox(
        "Pre-tokenization",
        list(PATTERN_OPTIONS),
        format_func=PATTERN_OPTIONS.__getitem__,
        key="train.pattern",
        help="Text is split into pieces with this regex before BPE; merges never cross pieces.",
    )
    pattern: str | None = None if pattern_choice == "none" else pattern_choice
    if pattern_choice == "custom":
        pattern = st.text_input("Custom regex (Python 'regex' module syntax)", key="train.custom_regex")
        if not (pattern or "").strip():
            message = "The custom regex is empty: type one, or pick a preset."
            st.error(message)  # plain: a constant
            return pattern, message
    return pattern, pattern_preview(pattern, corpus)


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


def training_section(corpus: Corpus, settings: Settings) -> None:
    """The Train button; a running training (in a process of its own) followed with its progress and a
    Cancel button, also after leaving the page and coming back."""
    st.header("3 · Train", divider="gray")
    job = st.session_state.get(state.TRAIN_JOB)
    if job is None:
        can_train = bool(corpus.documents) and not settings.pattern_error and not settings.problem
        if not st.button("Train", type="primary", disabled=not can_train, key="train.go"):
            if not can_train:
                st.caption("Add a corpus (and fix the settings marked in red above, if any) to enable training.")
            return
        try:
            job = TrainingJob(  # through files: counting progress in bytes read
                corpus.documents,
                settings.vocab_size,
                min_frequency=settings.min_frequency,
                pattern=settings.pattern,
                special_tokens=settings.special_tokens,
                tie_break=settings.tie_break,
                name="trained",
            )
        except (ValueError, OSError) as exc:
            st.error(f"Training failed: {md(in_words(exc))}")
            return
        st.session_state[state.TRAIN_JOB] = job
        st.session_state[state.TRAIN_JOB_NAMES] = (settings.name.strip(), corpus.name_hint)
    tokenizer = follow(job, key="train.cancel", on_cancel=lambda: st.session_state.pop(state.TRAIN_JOB, None))
    if st.session_state.get(state.TRAIN_JOB) is job:
        st.session_state.pop(state.TRAIN_JOB, None)
    typed, hint = st.session_state.pop(state.TRAIN_JOB_NAMES, ("", corpus.name_hint))
    if tokenizer is None:
        return
    tokenizer.name = typed or trained_name(hint, tokenizer)
    st.caption(f"Done in {format_seconds(recorded_seconds(tokenizer.training))}.")  # plain: a duration
    key = tokenizers.add_session_tokenizer(tokenizer, (corpus.label, corpus.documents))
    st.session_state[state.TRAIN_RESULT] = key
    st.session_state[SAVE_NAME] = tokenizer.name


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
    st.caption(f"Stopped because: **{md(training.get('stop_reason', 'unknown'))}**.")
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
