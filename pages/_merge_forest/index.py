"""The Merge forest page's picked tokenizer and its forest index (``bpe_core.analysis.forest.MergeForest``),
built once per tokenizer fingerprint and kept by ``st.cache_resource``; the text of a token as the
page shows it. Draws nothing but the picker and the messages about it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.forest import MergeForest
from bpe_core.display import glyphs
from bpe_core.display.marks import parse_token_display
from pages._ui import tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import tokenizer_picker

from .picky import Picky

#: Widgets whose values survive visits to other pages.
KEPT = [
    "forest.tokenizer",
    "forest.mode",
    "forest.seg_text",
    "forest.search_mode",
    "forest.unused_source",
    "forest.unused_text",
]


@dataclass(frozen=True)
class Picked:
    """The tokenizer the page shows, with its forest."""

    choice: TokenizerChoice
    tokenizer: Tokenizer
    forest: MergeForest

    @property
    def vocab(self) -> Mapping[int, bytes]:
        return self.forest.vocab

    def shown(self, token_id: int) -> str:
        """The token as the pages write it alone (``glyphs.token_label``: ␣ for a space, ⟨CJK 1–2/3⟩ for
        part of a character, never ``\\xNN``)."""
        return glyphs.token_label(self.vocab[token_id])

    def typed(self, token_id: int) -> str:
        """The token as the search boxes read it (``token_display``: ``\\xNN`` for a stray byte)."""
        return self.forest.display[token_id]

    def quote(self, token_id: int) -> str:
        """The token in prose: ‘␣the’."""
        return glyphs.quote(self.shown(token_id))

    def parts(self, rank: int) -> tuple[str, str]:
        """The two parts of merge ``rank`` written knowing each other (``glyphs.labels_in``): the bytes
        of न split as ‘⟨न 1–2/3⟩’ and ‘⟨न 3/3⟩’."""
        left, right = glyphs.labels_in([self.vocab[self.forest.left[rank]], self.vocab[self.forest.right[rank]]])
        return left, right

    def how_built(self, token_id: int) -> str:
        """How a token is made: ‘a’ + ‘b’, a byte, a special token, or no merge."""
        rank = self.forest.rank_of.get(token_id)
        if rank is not None:
            left, right = self.parts(rank)
            return f"{glyphs.quote(left)} + {glyphs.quote(right)}"
        if self.tokenizer.is_special_token(token_id):
            return "special token"
        return "byte" if len(self.vocab[token_id]) == 1 else "no merge (tiktoken's rule)"


@st.cache_resource(show_spinner="Indexing the merges (once per tokenizer)…", max_entries=8)
def forest_of(fingerprint: str, _tokenizer: Tokenizer) -> MergeForest:
    return MergeForest.of(_tokenizer)


def token_by_text(tokenizer: Tokenizer, query: str) -> int | None:
    """The id of the token ``query`` names: the text itself, or what the pages show for a token
    (␣ for a space, ↵ for a newline, ``\\xNN`` for a byte); None when it is not one token."""
    for candidate in (query.encode("utf-8", "surrogatepass"), parse_token_display(query)):
        try:
            return tokenizer.encode_single_token(candidate)
        except (KeyError, ValueError, TypeError):
            continue
    return None


def pick_tokenizer(choices: dict[str, TokenizerChoice], external: list[str]) -> Picked | Picky | None:
    """The tokenizer picker; None (after saying why) when the tokenizer cannot be shown; a ``Picky``
    for a Picky BPE tokenizer, which has no forest (``picky`` draws it)."""
    if external:  # WordPiece, Unigram, SentencePiece files: no merges to draw
        st.caption(
            "Not offered here: "
            + md(", ".join(external))
            + ": external tokenizers have no merge list (see Tokenize and Compare for them)."
        )
    # a real model first (the one trained last, else today's models), the example only when none is here
    default = tokenizers.preferred_keys(choices, 1)[0]
    choice = tokenizer_picker("Tokenizer", choices, key="forest.tokenizer", default=default)
    try:
        tokenizer = choice.get()
    except ValueError as exc:
        st.error(f"{md(choice.label)} could not be loaded: {md(in_words(exc))}")
        return None
    if tokenizer.rule == "picky":  # merge and removal events, not ranked merges: no forest
        return Picky(choice, tokenizer)
    picked = Picked(choice, tokenizer, forest_of(choice.fingerprint, tokenizer))
    if not len(picked.forest):
        st.warning(f"{md(choice.label)} has no merges: every token is a single byte (or a special token).")
        return None
    return picked
