"""HTML for the pages: token spans, cut differences, pre-token pieces, sentences, and escaping of
user text for Markdown and plotly.

Every piece of user text (typed text, file and tokenizer names, token texts, error messages) is escaped
here: HTML by the builders below, Markdown sinks by ``markdown_text``, plotly by ``plot_text``. Pure functions of
their arguments: no streamlit import, no state, nothing drawn (pages pass the result to ``st.html``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

from bpe_core import TokenInfo, token_display

_WHITESPACE_VISIBLE = {" ": "·", "\t": "→\t", "\r": "␍", "\n": "↵\n"}

TOKEN_CSS = """
<style>
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem;
  line-height: 1.9; white-space: pre-wrap; word-break: break-word; padding: 0.5rem;
  border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; max-height: 32rem; overflow-y: auto; }
.bpe-tokens .t { border-radius: 3px; padding: 1px 0; margin-right: 1px; color: #1a1a1a; }
.bpe-tokens .c0 { background: #ffd8a8; } .bpe-tokens .c1 { background: #a5d8ff; }
.bpe-tokens .c2 { background: #b2f2bb; } .bpe-tokens .c3 { background: #fcc2d7; }
.bpe-tokens .c4 { background: #d0bfff; } .bpe-tokens .c5 { background: #ffec99; }
.bpe-tokens .p { outline: 1px dashed #c92a2a; font-size: 0.8rem; }
.bpe-tokens .s { background: #343a40; color: #fff; font-weight: 600; }
.bpe-tokens .x { box-shadow: -3px 0 0 0 #e03131; }
.bpe-tokens .w { color: #868e96; }
.bpe-cuts { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem;
  line-height: 2.1; white-space: pre-wrap; word-break: break-word; padding: 0.5rem;
  border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; max-height: 20rem; overflow-y: auto; }
.bpe-cuts .both { border-left: 1px solid #adb5bd; }
.bpe-cuts .a { border-left: 3px solid #1971c2; background: #d0ebff; }
.bpe-cuts .b { border-left: 3px solid #e8590c; background: #ffe8cc; }
.bpe-legend span { padding: 0 0.4rem; border-radius: 3px; margin-right: 0.6rem; }
</style>
"""
SENTENCES_CSS = (
    "<style>.cmp-summary p{margin:0.15rem 0;font-size:0.95rem}"
    ".cmp-summary{border-left:3px solid #4c6ef5;padding:0.2rem 0.7rem;margin:0.2rem 0 0.8rem}</style>"
)


def _text(text: str) -> str:
    return html.escape(text, quote=False)


def _attribute(text: str) -> str:
    return html.escape(text, quote=True)


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


def visible_whitespace(text: str) -> str:
    """Spaces, tabs, carriage returns and newlines shown as visible marks."""
    return "".join(_WHITESPACE_VISIBLE.get(ch, ch) for ch in text)


def cut_positions(infos: Sequence[TokenInfo]) -> set[int]:
    """Character offsets where tokens start (text start excluded): where the tokenizer cuts."""
    return {info.start for info in infos if info.start > 0}


def token_title(info: TokenInfo, rank: int | None) -> str:
    """Hover text: id, how the token was made (merge rank, byte or special) and its bytes in hex."""
    if info.special:
        origin = "special token"
    elif rank is None:
        origin = "single byte"
    else:
        origin = f"merge rank {rank}"
    hex_bytes = info.bytes.hex(" ")
    if len(hex_bytes) > 120:
        hex_bytes = hex_bytes[:117] + "…"
    return f"id {info.id} · {origin} · bytes {hex_bytes}"


def _token_span(text: str, index: int, info: TokenInfo, rank: int | None, show_whitespace: bool, marked: bool) -> str:
    classes = ["t", f"c{index % 6}"]
    if info.special:
        classes.append("s")
        shown = text[info.start : info.end]
    elif info.partial:
        classes.append("p")
        shown = token_display(info.bytes)
    else:
        shown = text[info.start : info.end]
        if show_whitespace:
            shown = visible_whitespace(shown)
    if marked:
        classes.append("x")
    return f'<span class="{" ".join(classes)}" title="{_attribute(token_title(info, rank))}">{_text(shown)}</span>'


def render_tokens_html(
    text: str,
    infos: Sequence[TokenInfo],
    *,
    rank_of: Callable[[int], int | None],
    show_whitespace: bool = False,
    marked: set[int] | None = None,
) -> str:
    """Coloured spans, one per token, with a hover title; every piece of user text is escaped.

    Tokens holding only part of a UTF-8 character show their bytes (``token_display``); ``marked``
    holds cut positions to highlight (a red bar before the token).
    """
    spans = (
        _token_span(
            text,
            index,
            info,
            None if info.special else rank_of(info.id),
            show_whitespace,
            bool(marked) and info.start in marked,
        )
        for index, info in enumerate(infos)
    )
    return f'{TOKEN_CSS}<div class="bpe-tokens">{"".join(spans)}</div>'


def render_cuts_html(text: str, cuts_a: set[int], cuts_b: set[int]) -> str:
    """The text once, split at every cut of either tokenizer; a piece starting at a cut only the
    first (second) tokenizer makes is blue (orange); cuts both make are thin grey lines."""
    positions = sorted({0, len(text)} | cuts_a | cuts_b)
    parts = [TOKEN_CSS, '<div class="bpe-cuts">']
    for start, end in zip(positions, positions[1:]):
        in_a, in_b = start in cuts_a, start in cuts_b
        css = "a" if in_a and not in_b else "b" if in_b and not in_a else "both" if start else ""
        parts.append(f'<span class="{css}">{_text(text[start:end])}</span>')
    parts.append("</div>")
    return "".join(parts)


def cuts_legend_html(label_a: str, label_b: str, only_a: int, only_b: int, shared: int) -> str:
    """The legend above ``render_cuts_html``: which colour is which tokenizer, with the counts."""
    return (
        TOKEN_CSS
        + '<div class="bpe-legend bpe-cuts" style="max-height:none">'
        + f'<span class="a">cut only by {html.escape(label_a)}: {only_a:,}</span>'
        + f'<span class="b">cut only by {html.escape(label_b)}: {only_b:,}</span>'
        + f'<span class="both">cut by both: {shared:,}</span></div>'
    )


def pieces_html(pieces: Sequence[str], show_whitespace: bool = True) -> str:
    """Pre-tokenization pieces as alternating coloured spans (for regex previews)."""
    parts = [TOKEN_CSS, '<div class="bpe-tokens">']
    for index, piece in enumerate(pieces):
        shown = visible_whitespace(piece) if show_whitespace else piece
        parts.append(f'<span class="t c{index % 6}" title="{_attribute(repr(piece))}">{_text(shown)}</span>')
    parts.append("</div>")
    return "".join(parts)


def sentences_html(lines: Sequence[str]) -> str:
    """Plain sentences in a bordered block (escaped: they may quote file names)."""
    body = "".join(f"<p>{_text(line)}</p>" for line in lines)
    return f'{SENTENCES_CSS}<div class="cmp-summary">{body}</div>'


def bold_html(text: str) -> str:
    """One line with ``text`` in bold, escaped."""
    return f"<b>{_text(text)}</b>"


WORDS_CSS = (
    "<style>.bpe-words{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.95rem;line-height:2.3;}"
    ".bpe-words .sym{border:1px solid #adb5bd;border-radius:4px;padding:1px 5px;margin-right:2px;"
    "background:#f8f9fa;color:#212529;}"
    ".bpe-words .new{background:#ffd43b;border-color:#f08c00;font-weight:700;}"
    ".bpe-words .freq{color:#868e96;margin-left:6px;margin-right:18px;}</style>"
)


def symbol_text(symbol: bytes | str) -> str:
    """A training symbol as text: bytes through ``token_display`` with spaces shown as ␣; a textbook
    symbol (already text) as it is."""
    if isinstance(symbol, bytes):
        return token_display(symbol).replace(" ", "␣")
    return symbol


def words_html(words: Sequence[tuple[Sequence[bytes | str], int]], highlight: bytes | str | None) -> str:
    """Each unique word as boxed symbols with its frequency; the newly merged symbol highlighted."""
    parts = [WORDS_CSS, '<div class="bpe-words">']
    for symbols, freq in words:
        parts.append("<div>")
        for symbol in symbols:
            css = "sym new" if highlight is not None and symbol == highlight else "sym"
            parts.append(f'<span class="{css}">{_text(symbol_text(symbol))}</span>')
        parts.append(f'<span class="freq">×{freq}</span></div>')
    parts.append("</div>")
    return "".join(parts)
