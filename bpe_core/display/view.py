"""A text as a tokenizer cuts it, for a notebook and a terminal: what ``Tokenizer.show`` returns.

``TokenView`` draws itself in Jupyter and VS Code (``_repr_html_``) as the workbench's token strip
(``strip.render_tokens_html``, the one renderer: grapheme clusters whole, right-to-left runs in
reading order, whitespace marked, id and bytes on hover), as one self-contained piece of HTML (the
style sheet inline, fonts from the reader's machine, no script, nothing fetched), and in a terminal
(``str``, ``repr``) as a line of figures and the tokens written by ``glyphs.labels_in`` (⟨न 1–2/3⟩ for
part of a character, never ``\\xNN``).

It does not encode anything itself (the tokenizer does), measure beyond counting (``analysis``), or
compare tokenizers (``comparison``).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any, Literal

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.display.glyphs import labels_in
from bpe_core.display.strip import render_tokens_html
from bpe_core.display.styles import NOTEBOOK_CSS, TOKEN_CSS
from bpe_core.errors import BpeError

#: How many tokens a view draws unless told otherwise (``limit``): a page of text, quick in any browser.
DEFAULT_LIMIT = 5_000
#: Characters of token labels per line of the text form.
TEXT_WIDTH = 100


@dataclass(frozen=True, repr=False)
class TokenView:
    """``text`` as ``name`` cuts it: its ``tokens`` (``TokenInfo``: id, bytes, character span) and each
    token's merge rank (``ranks``: None for a single byte, a special token, or a tokenizer without
    ranked merges). ``limit`` tokens are drawn (None: all); the figures count every token."""

    name: str
    text: str
    tokens: tuple[TokenInfo, ...]
    ranks: tuple[int | None, ...]
    show_whitespace: bool = True
    show_bytes: bool = False
    limit: int | None = DEFAULT_LIMIT

    @property
    def ids(self) -> list[int]:
        """The token ids, in order."""
        return [token.id for token in self.tokens]

    @property
    def drawn(self) -> tuple[TokenInfo, ...]:
        """The tokens drawn (the first ``limit``)."""
        return self.tokens if self.limit is None else self.tokens[: self.limit]

    def summary(self) -> str:
        """One line of figures: "gpt2: 5 tokens · 24 characters · 4.80 characters per token"."""
        count, characters = len(self.tokens), len(self.text)
        per_token = f" · {characters / count:.2f} characters per token" if count else ""
        return f"{self.name}: {count:,} token{'' if count == 1 else 's'} · {characters:,} characters{per_token}"

    @property
    def hidden(self) -> int:
        """How many tokens are not drawn (beyond ``limit``)."""
        return len(self.tokens) - len(self.drawn)

    def strip_html(self) -> str:
        """The token strip alone (no style sheet, no figures): ``strip.render_tokens_html`` of the
        tokens drawn, each with its id, merge rank and bytes on hover."""
        rank_by_id = {token.id: rank for token, rank in zip(self.tokens, self.ranks, strict=True)}
        drawn = self.drawn
        text = self.text[: max((token.end for token in drawn), default=0)] if self.hidden else self.text
        return render_tokens_html(
            text,
            drawn,
            rank_of=rank_by_id.get,
            show_whitespace=self.show_whitespace,
            show_bytes=self.show_bytes,
            style=False,
        )

    def to_html(self) -> str:
        """The view as one self-contained piece of HTML: the figures, then the token strip."""
        head = f'<div class="bpe-nb-head">{html.escape(self.summary())}</div>'
        return f'{TOKEN_CSS}{NOTEBOOK_CSS}<div class="bpe-nb">{head}{self.strip_html()}{self.hidden_html()}</div>'

    def hidden_html(self) -> str:
        """A line saying how many tokens are not drawn ("" when every one is)."""
        if not self.hidden:
            return ""
        return f'<div class="bpe-nb-more">… {self.hidden:,} more tokens not drawn (limit=None draws all)</div>'

    def _repr_html_(self) -> str:  # what Jupyter and VS Code draw
        return self.to_html()

    def text_lines(self) -> list[str]:
        """The tokens drawn, as text: each token's label in brackets, lines of about ``TEXT_WIDTH``
        characters."""
        lines: list[str] = []
        line = ""
        for label in labels_in([token.bytes for token in self.drawn]):
            if line and len(line) + len(label) + 2 > TEXT_WIDTH:
                lines.append(line)
                line = ""
            line += f"[{label}]"
        if line:
            lines.append(line)
        if self.hidden:
            lines.append(f"… {self.hidden:,} more tokens (limit=None shows all)")
        return lines

    def __str__(self) -> str:
        return "\n".join([self.summary(), *self.text_lines()])

    def __repr__(self) -> str:  # what a terminal's Python and IPython print
        return str(self)


SpecialTokens = Literal["all"] | Set[str]


def _rank_function(tokenizer: Any) -> Callable[[int], int | None]:
    """The tokenizer's ``merge_rank_of``, None where it has no rank to give (a Picky BPE tokenizer, a
    file run by another library)."""
    rank_of = getattr(tokenizer, "merge_rank_of", None)

    def rank(token_id: int) -> int | None:
        if rank_of is None:
            return None
        try:
            found = rank_of(token_id)
        except (ValueError, KeyError):  # BpeError is a ValueError
            return None
        return found if isinstance(found, int) else None

    return rank


def show(
    tokenizer: Any,
    text: str,
    *,
    name: str | None = None,
    allowed_special: SpecialTokens = frozenset(),
    show_whitespace: bool = True,
    show_bytes: bool = False,
    limit: int | None = DEFAULT_LIMIT,
) -> TokenView:
    """``text`` as ``tokenizer`` (anything with ``encode_with_details``: a ``Tokenizer``, a file run by
    ``load_external``) cuts it. Special tokens' text is ordinary text (as ``encode_ordinary`` counts
    it) unless ``allowed_special`` names them (``"all"``: every one); ``show_whitespace=False`` leaves
    spaces blank (newlines keep ↵); ``show_bytes`` labels the pieces of a split character with their
    bytes; ``limit`` tokens are drawn (None: all). ``name`` defaults to the tokenizer's.

    >>> import bpe_core
    >>> print(show(bpe_core.load("gpt2"), "Hello world"))
    gpt2: 2 tokens · 11 characters · 5.50 characters per token
    [Hello][␣world]
    """
    if not isinstance(text, str):
        raise BpeError(f"show takes the text as a str, not {type(text).__name__}: decode bytes first")
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise BpeError(f"limit must be a number of tokens (0 or more) or None for all, not {limit!r}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, as the tokenizer sees them: U+FFFD
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    tokens = tuple(tokenizer.encode_with_details(text, allowed_special=allowed_special, disallowed_special=()))
    rank = _rank_function(tokenizer)
    ranks = tuple(None if token.special else rank(token.id) for token in tokens)
    label = name if name is not None else str(getattr(tokenizer, "name", None) or type(tokenizer).__name__)
    return TokenView(label, text, tokens, ranks, show_whitespace, show_bytes, limit)
