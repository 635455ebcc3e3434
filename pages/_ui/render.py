"""The app's side of drawing text: escaping user text for Streamlit's Markdown sinks (``markdown_text``)
and plotly (``plot_text``), the sentences block, and the one token renderer under the names pages use.

The renderer itself (token strips, the cut view, pieces, Step through's words) is the library's
``bpe_core.display.strip``, shared with notebooks (``Tokenizer.show``); tokens written as text come
from ``bpe_core.display.glyphs`` (characters, never ``\\xNN``). Pure functions of their arguments: no
streamlit import, no state, nothing drawn (pages pass the result to ``st.html``, ``st.markdown``...).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from bpe_core.display.glyphs import symbol_text, text_direction, token_quote
from bpe_core.display.strip import (
    cut_positions,
    cuts_legend_html,
    pieces_html,
    render_cuts_html,
    render_tokens_html,
    sequence_html,
    span_data,
    superword_legend_html,
    toggle_css,
    token_groups,
    tokens_inner,
    words_html,
)

from .styles import APP_CSS, SCRIPT_FONTS, SENTENCES_CSS, TOKEN_CSS

__all__ = [  # the library's renderer and styles, re-exported under the names the pages use
    "APP_CSS",
    "SCRIPT_FONTS",
    "TOKEN_CSS",
    "cut_positions",
    "cuts_legend_html",
    "pieces_html",
    "render_cuts_html",
    "render_tokens_html",
    "sequence_html",
    "span_data",
    "superword_legend_html",
    "symbol_text",
    "text_direction",
    "toggle_css",
    "token_groups",
    "token_quote",
    "tokens_inner",
    "words_html",
]


def _text(text: str) -> str:  # element text: <, > and & escaped
    return html.escape(text, quote=False)


# An underscore between two letters or digits can neither open nor close emphasis (CommonMark), so
# names such as vocab_size are left as they are; every other underscore is escaped.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>#|~:$&!@]|(?<![^\W_])_|_(?![^\W_]))")
# Streamlit finds bare URLs, e-mail addresses and material icons in the text *after* escapes are
# resolved, so escaping cannot stop them: an invisible word joiner (U+2060) after ":" and "@" and
# between "www" and "." breaks the patterns without changing what is shown.
_AUTOLINK_BREAKS = re.compile(r"(?i)(:(?=\S)|@|www(?=\.))")
WORD_JOINER = "\u2060"


def markdown_text(text: object) -> str:
    r"""Text for any sink that reads Markdown (``st.markdown``, ``st.caption``, headers, ``st.error`` and
    the other alerts, widget labels, ``help`` tooltips, flash messages), shown exactly as written.

    The one helper for user text there (tokenizer and file names, token texts, regexes, messages that
    quote them): Markdown punctuation is backslash-escaped, so no link, image, HTML tag, emphasis, code,
    heading, table, math or Streamlit directive (``:red[...]``) can start; an invisible word joiner
    (U+2060) after ``:`` and ``@`` and in ``www.`` keeps GitHub's bare autolinks (``https://...``,
    ``www.``..., e-mail addresses) and material icons (``:material/home:``) from forming. Escaped
    punctuation renders as itself, so the text reads the same. Not for code spans (backticks show
    backslashes literally).

    >>> shown = markdown_text("[x](https://e.x/) **b** _i_ vocab_size")
    >>> print(shown.replace(WORD_JOINER, "|"))
    \[x\](https\:|//e.x/) \*\*b\*\* \_i\_ vocab_size
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
    return _AUTOLINK_BREAKS.sub(lambda match: match.group(1) + WORD_JOINER, escaped)


def plot_text(text: object) -> str:
    """Text for plotly labels, titles, legend names and hover text: plotly reads a few HTML tags there
    (``<b>``, ``<a href>``, ``<br>``), so ``&``, ``<`` and ``>`` are escaped and show as themselves."""
    return _text(str(text))


def sentences_html(lines: Sequence[str]) -> str:
    """Plain sentences in a bordered block (escaped: they may quote file names)."""
    body = "".join(f"<p>{_text(line)}</p>" for line in lines)
    return f'{SENTENCES_CSS}<div class="cmp-summary">{body}</div>'


def bold_html(text: str) -> str:
    """One line with ``text`` in bold, escaped."""
    return f"<b>{_text(text)}</b>"
