"""The Merge forest's "Unused tokens" tab: merged tokens that encoding a text never produces, on the
tokenizer's own training text (when this session has it), the built-in samples, or text the user
types or uploads; and the most used tokens. Usage is counted once per tokenizer and text (cached)."""

from __future__ import annotations

import collections
import hashlib

import pandas as pd
import streamlit as st

from bpe_core.corpora.text_files import decode_text
from pages._ui import tokenizers
from pages._ui.encoding import MAX_STATS_CHARS
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.widgets import show_table

from .index import Picked

MAX_TABLE_ROWS = 1_000
#: Characters of text per merge before the share of merged tokens a text never produces is shown.
MIN_CHARS_PER_MERGE = 20
SOURCES = {"corpus": "training text (or the built-in samples)", "mine": "my text"}


def encoded_part(texts: list[str]) -> list[str]:
    """The part of ``texts`` that usage is counted on: the first MAX_STATS_CHARS characters in all,
    each text cut where the budget ends, the texts after it left out.

    >>> encoded_part(["ab", "cd"]) == ["ab", "cd"]
    True
    """
    parts: list[str] = []
    budget = MAX_STATS_CHARS
    for text in texts:
        if budget <= 0:
            break
        parts.append(text[:budget])
        budget -= len(text)
    return parts


def usage_signature(key: str, label: str, parts: list[str]) -> str:
    """The cache key of a usage count: the tokenizer key, the text's label and a digest of ``parts``
    (``encoded_part``'s: text past the budget is never encoded, so it is not hashed on each rerun)."""
    hasher = hashlib.sha256()
    for part in parts:  # the length first: no two lists of parts hash alike
        hasher.update(f"{len(part)}:".encode())
        hasher.update(part.encode("utf-8", "surrogatepass"))
    return f"{key}|{label}|{hasher.hexdigest()}"


@st.cache_resource(show_spinner="Counting token usage…", max_entries=16)
def usage_counts(fingerprint: str, text_signature: str, _tokenizer, _parts: list[str]) -> dict[int, int]:
    """How often encoding each of ``_parts`` (``encoded_part``'s) produces each id."""
    counts: collections.Counter = collections.Counter()
    for part in _parts:
        counts.update(_tokenizer.encode(part, disallowed_special=()))
    return dict(counts)


@st.cache_resource(show_spinner=False, max_entries=16)
def never_produced(fingerprint: str, text_signature: str, _picked: Picked, _usage: dict[int, int]) -> list[int]:
    return _picked.forest.never_produced(_usage)


def unused_table(picked: Picked, ranks: list[int]) -> pd.DataFrame:
    """The merged tokens of ``ranks`` (the first MAX_TABLE_ROWS); a training count column only for
    tokenizers that recorded one."""
    forest = picked.forest
    rows = [
        {
            "rank": r,
            "token": picked.shown(forest.made[r]),
            "id": forest.made[r],
            "bytes": len(picked.vocab[forest.made[r]]),
            "training count": forest.counts[r],
            "built into": len(forest.used_in.get(forest.made[r], [])),
        }
        for r in ranks[:MAX_TABLE_ROWS]
    ]
    frame = pd.DataFrame(rows, columns=["rank", "token", "id", "bytes", "training count", "built into"])
    return frame if any(count is not None for count in forest.counts) else frame.drop(columns="training count")


def enough_text(characters: int, merges: int) -> bool:
    """Whether ``characters`` of text are enough to call a merged token unused: MIN_CHARS_PER_MERGE
    per merge (a 30,000-character text cannot produce most of GPT-2's 50,000 merged tokens).

    >>> enough_text(30_000, 50_000), enough_text(30_000, 500)
    (False, True)
    """
    return characters >= MIN_CHARS_PER_MERGE * merges


def headline(picked: Picked, unused: list[int], usage: dict[int, int], characters: int, label: str) -> None:
    """The counts, each naming the size of the text it rests on; the share of unused tokens only when
    the text is long enough to mean much (``enough_text``), else why not."""
    n_merges = len(picked.forest)
    columns = st.columns(3)
    columns[0].metric("merged tokens", f"{n_merges:,}")
    produced = sum(1 for token_id in usage if token_id in picked.forest.rank_of)
    if enough_text(characters, n_merges):
        columns[1].metric(f"never produced in {characters:,} characters", f"{len(unused):,}")
        columns[2].metric(f"share, in {characters:,} characters", f"{len(unused) / n_merges:.1%}")
        return
    columns[1].metric(f"merged tokens produced by {characters:,} characters", f"{produced:,}")
    columns[2].metric("characters needed for a share", f"{MIN_CHARS_PER_MERGE * n_merges:,}")
    st.warning(
        f"{md(label)} has {characters:,} characters: too little text to call {md(picked.choice.label)}'s merged "
        f"tokens unused (a text produces at most one token per character or so; {MIN_CHARS_PER_MERGE:,} characters "
        f"per merge, {MIN_CHARS_PER_MERGE * n_merges:,} in all, are needed before the share of unused tokens means "
        "much). The "
        "table lists the merged tokens this text does not produce; upload more text under *my text* for a share."
    )


def corpus_texts(picked: Picked) -> tuple[str, list[str]]:
    """The tokenizer's own training text when this session has it, else the default's."""
    corpus = tokenizers.corpus_for(picked.choice.key)
    if corpus is not None:
        st.markdown(f"Encoding the tokenizer's own training text: **{md(corpus[0])}**.")
        return corpus
    label, texts = tokenizers.default_corpus()
    st.markdown(
        f"The training text of **{md(picked.choice.label)}** is not available in this session, so the check "
        f"uses **{md(label)}** instead."
    )
    return label, texts


def user_texts() -> tuple[str, list[str]] | None:
    """Text typed in the box and uploaded files (UTF-8); None when there is none yet."""
    typed = st.text_area("Your text", key="forest.unused_text", height=120, placeholder="Paste text to check…")
    files = st.file_uploader("or upload text files", accept_multiple_files=True, key="forest.unused_upload")
    texts, names = ([typed], ["typed text"]) if typed else ([], [])
    for file in files or []:
        try:
            texts.append(decode_text(file.getvalue(), source=file.name))
            names.append(file.name)
        except ValueError as exc:
            st.error(md(in_words(exc)))
    if not texts:
        st.info("Type or upload some text to see which merged tokens it never produces.")
        return None
    return ", ".join(names), texts


def unused_tab(picked: Picked) -> None:
    """Merged tokens that encoding the chosen text never produces, and the most used ones."""
    source = st.radio(
        "Text to encode", list(SOURCES), format_func=SOURCES.get, horizontal=True, key="forest.unused_source"
    )
    found = corpus_texts(picked) if source == "corpus" else user_texts()
    if found is None:
        return
    label, texts = found
    total_chars = sum(map(len, texts))
    if total_chars > MAX_STATS_CHARS:
        st.caption(f"Only the first {MAX_STATS_CHARS:,} of {total_chars:,} characters are encoded.")
    parts = encoded_part(texts)
    signature = usage_signature(picked.choice.key, label, parts)
    try:
        usage = usage_counts(picked.choice.fingerprint, signature, picked.tokenizer, parts)
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return
    unused = never_produced(picked.choice.fingerprint, signature, picked, usage)
    headline(picked, unused, usage, min(total_chars, MAX_STATS_CHARS), label)
    st.caption(
        "A merged token can go unused because later merges always absorb it into longer tokens, or because "
        "the text differs from what the tokenizer was trained on."
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Never produced** by this text (by rank)")
        show_table(unused_table(picked, unused), height=360)
        if len(unused) > MAX_TABLE_ROWS:
            st.caption(f"First {MAX_TABLE_ROWS:,} of {len(unused):,}.")
    with right:
        st.markdown("**Most used**")
        top = sorted(usage.items(), key=lambda item: -item[1])[:50]
        rows = [{"token": picked.shown(i), "id": i, "uses": c} for i, c in top]
        show_table(pd.DataFrame(rows, columns=["token", "id", "uses"]), height=360)
