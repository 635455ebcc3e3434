"""The Train page's settings: the tokenizer's name, the vocabulary size (the range it accepts and what
it trains to, said under the field), the minimum pair frequency, the tie rule, the special tokens, and
the pre-tokenization with its live preview. Each is checked where it is typed: a problem is said under
its field and put in ``Settings.problem``, which keeps Train disabled. Draws the settings; training is
the page's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import streamlit as st

from bpe_core.corpora.samples import sample_text
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.engine import MAX_VOCAB_SIZE
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from pages._ui import state
from pages._ui.names import show_name_note
from pages._ui.render import markdown_text as md
from pages._ui.render import pieces_html

from .corpus import Corpus

PATTERN_OPTIONS = {
    "gpt2": "GPT-2 preset",
    "cl100k": "cl100k preset (GPT-3.5/4)",
    "o200k": "o200k preset (GPT-4o)",
    "custom": "Custom regex",
    "none": "None (each document is one piece)",
}
PREVIEW_TEXT = "train.preview_text"


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
