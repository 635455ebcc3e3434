r"""HTML for the pages: token spans (split characters drawn as fragments, right-to-left text isolated),
cut differences, pre-token pieces, sentences, and escaping of user text for Markdown and plotly.

Every piece of user text (typed text, file and tokenizer names, token texts, error messages) is escaped
here: HTML by the builders below, Markdown sinks by ``markdown_text``, plotly by ``plot_text``. Whitespace
and stray bytes follow ``bpe_core.bpe.tokens``' one display convention (␣ → ↵, ``\xNN``). Pure functions of
their arguments: no streamlit import, no state, nothing drawn (pages pass the result to ``st.html``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence

from bpe_core import TokenInfo
from bpe_core.bpe.tokens import WHITESPACE_MARKS, text_display, token_display

#: Fonts for every script the samples use, so no text falls back to boxes: Linux (Noto: the Debian
#: packages fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji), macOS and Windows equivalents.
SCRIPT_FONTS = (
    '"Noto Sans", "Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Tamil", "Noto Sans Thai", '
    '"Noto Sans Myanmar", "Noto Sans Ethiopic", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans CJK SC", '
    '"Noto Sans CJK JP", "Noto Sans CJK KR", "PingFang SC", "Hiragino Sans", "Apple SD Gothic Neo", '
    '"Kohinoor Devanagari", "Microsoft YaHei", "Yu Gothic", "Malgun Gothic", "Nirmala UI", "Leelawadee UI", '
    '"Myanmar Text", "Ebrima", "Segoe UI", "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", '
    '"Segoe UI Symbol", "Noto Sans Symbols 2"'
)
MONO_FONTS = f'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", {SCRIPT_FONTS}, monospace'
_MARK_CHARS = "".join(WHITESPACE_MARKS.values()) + "".join(chr(0x2400 + c) for c in range(32)) + "␡"
# Space and tab marks (class "w wb": blanked by ``toggle_css``) apart from the other marks (class "w").
_MARK_RUN = re.compile(f"([␣→]+)|([{re.escape(_MARK_CHARS.replace('␣', '').replace('→', ''))}]+)")

# Square, opaque boxes: rounded backgrounds cost paint, a translucent piece a compositing effect (bench/PERFORMANCE.md,
# "The Tokenize page in a browser").
TOKEN_CSS = (
    "<style>"
    f".bpe-tokens, .bpe-cuts {{ font-family: {MONO_FONTS}; font-size: 0.9rem; padding: 0.5rem; "
    "border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; overflow: auto; tab-size: 4; }"
    """
.bpe-tokens { line-height: 2.1; white-space: pre-wrap; max-height: 32rem; }
.bpe-tokens .t { display: inline-block; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%;
  vertical-align: top; unicode-bidi: isolate; padding: 0 1px; margin: 0 1px 2px 0;
  color: #1a1a1a; line-height: 1.6; }
.bpe-tokens .c0 { background: #ffd8a8; } .bpe-tokens .c1 { background: #a5d8ff; }
.bpe-tokens .c2 { background: #b2f2bb; } .bpe-tokens .c3 { background: #fcc2d7; }
.bpe-tokens .c4 { background: #d0bfff; } .bpe-tokens .c5 { background: #ffec99; }
.bpe-tokens .s { background: #343a40; color: #fff; font-weight: 600; }
.bpe-tokens .x { box-shadow: -3px 0 0 0 #e03131; } .bpe-tokens .a { outline: 1px dotted #868e96; }
.bpe-tokens .w, .bpe-cuts .w { color: #868e96; }
.bpe-tokens .hl, .bpe-ids .hl { outline: 2px solid #1c7ed6; outline-offset: 0; background: #74c0fc; } .bpe-tokens[data-k] [data-i] { cursor: pointer; }
.bpe-tokens .g { display: inline-flex; flex-direction: column; vertical-align: top; margin: 0 1px 2px 0;
  unicode-bidi: isolate; line-height: 1.6; }
.bpe-tokens .g .gc { text-align: center; white-space: pre; padding: 0 1px; border: 1px dashed #868e96;
  border-bottom: none; color: #1a1a1a; }
.bpe-tokens .g .p { flex: 1 1 0; min-width: max-content; padding: 0 2px; margin: 0; border: 1px dashed #868e96;
  font-size: 0.6rem; line-height: 1.3; text-align: center; color: #343a40; white-space: nowrap; }
.bpe-tokens .g .p + .p { border-left: none; } .bpe-tokens .g .gb { display: flex; }
.bpe-tokens .g.hex .p { flex-basis: auto; } .bpe-tokens .p .ph { display: none; }
.bpe-tokens .g .n2 { flex-grow: 2; } .bpe-tokens .g .n3 { flex-grow: 3; } .bpe-tokens .g .n4 { flex-grow: 4; }
.bpe-cuts { line-height: 2.1; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; }
.bpe-cuts span { unicode-bidi: isolate; } .bpe-cuts .both { border-left: 1px solid #adb5bd; }
.bpe-cuts .a { border-left: 3px solid #1971c2; background: #d0ebff; } .bpe-cuts .b { border-left: 3px solid #e8590c; background: #ffe8cc; }
.bpe-legend span { padding: 0 0.4rem; border-radius: 3px; margin-right: 0.6rem; }
.bpe-tokens .sw { border-bottom: 3px solid #5f3dc4; font-weight: 600; }
</style>
"""
)
#: Page-wide CSS (app.py draws it on every page): chips of a multiselect wrap onto new lines and button
#: labels wrap, instead of being cut at the right edge of a narrow column.
APP_CSS = """<style>
[data-testid="stMultiSelect"] .react-aria-ComboBox > [role="group"] { height: auto !important; max-height: none !important; }
[data-testid="stMultiSelectTagsContainer"] { flex-wrap: wrap !important; height: auto !important;
  overflow: visible !important; mask-image: none !important; -webkit-mask-image: none !important; }
[data-testid="stMultiSelectTagsContainer"] > [role="group"] { flex-wrap: wrap !important; }
[data-testid="stButton"] button .stMarkdownEllipsis, [data-testid="stButton"] button .stMarkdownEllipsis p {
  white-space: normal !important; text-overflow: clip !important; overflow: visible !important; }
</style>"""
SENTENCES_CSS = "<style>.cmp-summary p{margin:0.15rem 0;font-size:0.95rem}.cmp-summary{border-left:3px solid #4c6ef5;padding:0.2rem 0.7rem;margin:0.2rem 0 0.8rem}</style>"


def _text(text: str) -> str:  # element text: <, > and & escaped
    return html.escape(text, quote=False)


def _attribute(text: str) -> str:  # attribute values (always double-quoted here): quotes escaped too
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


def token_quote(token: bytes | str) -> str:
    """A token (bytes, or a textbook symbol as text) in running prose, headings and table cells:
    ``token_display`` between curly quotes, e.g. ‘␣the’."""
    shown = token_display(token) if isinstance(token, bytes) else text_display(token)
    return f"‘{shown}’"


def visible_html(text: str, *, marks: bool = True) -> str:
    """Escaped HTML of ``text`` with whitespace as dim marks (␣ → ↵); with ``marks`` off, spaces and
    tabs stay blank (never collapsed: the boxes are ``pre``) and only newlines are marked."""
    shown = text_display(text) if marks else "".join(ch if ch in " \t" else text_display(ch) for ch in text)
    return _MARK_RUN.sub(lambda m: f'<span class="w wb">{m[1]}</span>' if m[1] else f'<span class="w">{m[2]}</span>', _text(shown))


def _lines(text: str) -> list[str]:
    """``text`` cut after each newline, so a token spanning lines is drawn as one box per line."""
    if "\n" not in text:
        return [text]
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def _boxes(text: str, classes: str, title: str, *, marks: bool = True, raw: bool = False, data: str = "") -> str:
    """One inline-block per line of ``text`` (a real line break after each ↵), same classes, title and
    ``data`` attributes (``span_data``)."""
    parts = []
    for line in _lines(text):
        inner = _text(line.rstrip("\n")) if raw else visible_html(line, marks=marks)
        parts.append(f'<span class="{classes}" title="{_attribute(title)}"{data}>{inner}</span>')
        if line.endswith("\n"):
            parts.append("\n")
    return "".join(parts)


def cut_positions(infos: Sequence[TokenInfo]) -> set[int]:
    """Character offsets where tokens start (text start excluded): where the tokenizer cuts."""
    return {info.start for info in infos if info.start > 0}


def token_title(info: TokenInfo, rank: int | None) -> str:
    """Hover text: id, how the token was made (merge rank, counted from 0, byte or special) and its
    bytes in hex."""
    if info.special:
        origin = "special token"
    elif rank is None:
        origin = "single byte"
    else:
        origin = f"merge rank {rank:,}"
    hex_bytes = info.bytes.hex(" ")
    if len(hex_bytes) > 120:
        hex_bytes = hex_bytes[:117] + "…"
    return f"id {info.id} · {origin} · bytes {hex_bytes}"


def _inside_grapheme(text: str, position: int) -> bool:
    """Whether a cut before ``text[position]`` would split what a reader sees as one character: a
    combining mark, an emoji modifier, a variation selector or a zero-width joiner next to it, or a
    virama before it (Devanagari, Burmese and other conjuncts)."""
    if not 0 < position < len(text):
        return False
    after, before = text[position], text[position - 1]
    if before == "\u200d" or unicodedata.combining(before) == 9:
        return True
    code = ord(after)
    return (
        unicodedata.category(after) in ("Mn", "Mc", "Me")
        or after == "\u200d"
        or 0xFE00 <= code <= 0xFE0F
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
    )


def token_groups(infos: Sequence[TokenInfo], text: str = "") -> list[list[int]]:
    r"""Indexes of the tokens drawn together: tokens whose character spans overlap (pieces of a
    character split between tokens), and with ``text``, tokens that meet inside what a reader sees as
    one character (a letter and its combining mark, an emoji and its modifier), form one group;
    every other token is a group of its own.

    >>> a = TokenInfo(1, b"\xe4\xbd", 0, 1, True, False); b = TokenInfo(2, b"\xa0", 0, 1, True, False)
    >>> token_groups([a, b, TokenInfo(3, b"x", 1, 2, False, False)])
    [[0, 1], [2]]
    """
    groups: list[list[int]] = []
    end = -1
    for index, info in enumerate(infos):
        joins = info.start < end or (info.start == end and _inside_grapheme(text, info.start))
        if groups and not info.special and not infos[groups[-1][-1]].special and info.end > info.start and joins:
            groups[-1].append(index)
            end = max(end, info.end)
        else:
            groups.append([index])
            end = info.end
    return groups


def text_direction(text: str) -> str | None:
    """"rtl" or "ltr" from the first strongly directional character of ``text``; None when it has none
    (spaces, digits, punctuation)."""
    if text.isascii():  # the common case, without a lookup per character
        return "ltr" if any(ch.isalpha() for ch in text) else None
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return None


def span_data(info: TokenInfo) -> str:
    """The token's character span (``data-s``, ``data-e``) and id (``data-i``, not for special tokens)
    as attributes: what the linked hover and the click to the merge tree read (ints: drawn unsanitised)."""
    return f' data-s="{int(info.start)}" data-e="{int(info.end)}"' + ("" if info.special else f' data-i="{int(info.id)}"')


def _token_html(text: str, index: int, info: TokenInfo, rank: int | None, marks: bool, marked: bool,
                superword: bool = False) -> str:  # fmt: skip
    classes = f"t c{index % 6}" + (" s" if info.special else "") + (" x" if marked else "")
    classes += " sw" if superword else ""
    if info.end <= info.start:  # added by the pre-tokenizer (a prefix space): not in the text
        title = token_title(info, rank) + " · not in the text"
        return _boxes(token_display(info.bytes), classes + " a", title, raw=True, data=span_data(info))
    title = token_title(info, rank)
    return _boxes(text[info.start : info.end], classes, title, marks=marks, raw=info.special, data=span_data(info))


def _fragment_html(text: str, group: Sequence[int], infos: Sequence[TokenInfo], rank_of, show_bytes: bool, marked,
                   superwords: Collection[int] = ()) -> str:  # fmt: skip
    """Tokens that share characters (``token_groups``): the characters drawn once, above one dashed piece per token
    (numbered, or its bytes when ``show_bytes``), each with its own hover title."""
    start, end = infos[group[0]].start, max(infos[i].end for i in group)
    chars = text_display(text[start:end])
    pieces, previous_start = [], None
    for number, index in enumerate(group, 1):
        info = infos[index]
        cut = info.start in marked and info.start != previous_start
        previous_start = info.start
        title = f"{token_title(info, rank_of(info.id))} · piece {number} of {len(group)} of ‘{chars}’"
        label = f'<span class="pn">{number}</span><span class="ph">{info.bytes.hex(" ")}</span>' if show_bytes is None else (
            info.bytes.hex(" ") if show_bytes else f"{number}")  # fmt: skip
        classes = f"t c{index % 6} p n{min(len(info.bytes), 4)}{' x' if cut else ''}"
        classes += " sw" if superwords and info.id in superwords else ""
        pieces.append(f'<span class="{classes}" title="{_attribute(title)}"{span_data(info)}>{label}</span>')
    title = f"‘{chars}’ in {len(group)} tokens"
    return (
        f'<span class="g{" hex" if show_bytes else ""}"><span class="gc" dir="auto" title="{_attribute(title)}">'
        f'{visible_html(text[start:end])}</span><span class="gb">{"".join(pieces)}</span></span>'
    )


def _isolate_rtl(parts: Sequence[tuple[str | None, str]]) -> str:
    """Join drawn groups, wrapping each run of right-to-left groups (with the neutral ones between
    them) in an RTL isolate, so an Arabic or Hebrew phrase reads right to left, token by token."""
    out: list[str] = []
    run: list[str] = []
    pending: list[str] = []
    for direction, markup in [*parts, ("end", "")]:
        if direction == "rtl":
            run += pending + [markup]
            pending = []
        elif direction is None and run:
            pending.append(markup)
        else:
            if run and direction != "ltr":  # neutrals ending a right-to-left line belong to it (". 2024")
                run, pending = run + pending, []
            if run:
                out.append(f'<span class="rtl" dir="rtl">{"".join(run)}</span>')
                run = []
            out += pending + [markup]
            pending = []
    return "".join(out)


def render_tokens_html(
    text: str,
    infos: Sequence[TokenInfo],
    *,
    rank_of: Callable[[int], int | None],
    show_whitespace: bool = True,
    show_bytes: bool = False,
    marked: set[int] | None = None,
    key: str | None = None,
    switchable: bool = False,
    style: bool = True,
    superwords: Collection[int] = (),
) -> str:
    """Coloured boxes, one per token, with a hover title; every piece of user text is escaped.

    A box never breaks inside (unless it is wider than the panel); whitespace is drawn as ␣ → ↵ (as
    blank space with ``show_whitespace`` off); a token spanning lines is one box per line. Tokens
    that hold parts of a character are drawn as that character once, above one numbered dashed piece
    per token (their bytes with ``show_bytes``; always in the hover); so are tokens that meet inside
    what a reader sees as one character (a letter and its combining mark). Right-to-left runs read
    right to left. ``marked`` holds cut positions to highlight (a red bar before the token). Each
    token carries its character span and id as ``data-`` attributes, and the panel the tokenizer's
    ``key`` (``data-k``, escaped) when given: the linked hover and the click to the merge tree. With
    ``switchable``, the markup holds both forms of each toggle (marks and both piece labels) and
    ``toggle_css`` picks one, so flipping a toggle restyles the panel instead of replacing it. Without
    ``style`` the page draws ``TOKEN_CSS`` once (each style sheet added restyles the whole page). Tokens
    whose id is in ``superwords`` (SuperBPE's tokens across a space) are underlined (``superword_legend_html``).
    """
    show_whitespace, show_bytes = (True, None) if switchable else (show_whitespace, show_bytes)
    marked = marked or set()
    parts = []
    for group in token_groups(infos, text):
        info = infos[group[0]]
        if len(group) == 1 and not info.partial:
            rank = None if info.special else rank_of(info.id)
            superword = bool(superwords) and info.id in superwords
            markup = _token_html(text, group[0], info, rank, show_whitespace, info.start in marked, superword)
        else:
            markup = _fragment_html(text, group, infos, rank_of, show_bytes, marked, superwords)
        shown = text[info.start : max(infos[i].end for i in group)]
        parts.append(("break" if "\n" in shown else text_direction(shown), markup))
    panel = f' data-k="{_attribute(key)}"' if key else ""
    return f'{TOKEN_CSS if style else ""}<div class="bpe-tokens"{panel}>{_isolate_rtl(parts)}</div>'


def toggle_css(*, show_whitespace: bool, show_bytes: bool) -> str:
    """The style showing ``switchable`` panels with the toggles' values: space and tab marks blank (transparent:
    nothing moves) or not, bytes or numbers as labels. Outranks ``TOKEN_CSS`` (later in the page, in each panel)."""
    rules = [] if show_whitespace else [".bpe-tokens .w.wb { color: transparent; }"]
    if show_bytes:
        rules.append(".bpe-tokens .g .p .ph { display: inline; } .bpe-tokens .g .p .pn { display: none; } .bpe-tokens .g .gb .p { flex-basis: auto; }")
    return f"<style>{' '.join(rules) or '.bpe-tokens {}'}</style>"


def render_cuts_html(text: str, cuts_a: set[int], cuts_b: set[int], *, style: bool = True) -> str:
    """The text once, split at every cut of either tokenizer; a piece starting at a cut only the
    first (second) tokenizer makes is blue (orange); cuts both make are thin grey lines. Whitespace
    is marked as everywhere (␣ → ↵). Without ``style``, no ``TOKEN_CSS`` (the page draws it once)."""
    positions = sorted({0, len(text)} | cuts_a | cuts_b)
    parts = [TOKEN_CSS if style else "", '<div class="bpe-cuts">']
    for start, end in zip(positions, positions[1:]):
        in_a, in_b = start in cuts_a, start in cuts_b
        css = "a" if in_a and not in_b else "b" if in_b and not in_a else "both" if start else ""
        piece = text[start:end]
        parts.append(f'<span class="{css}">{visible_html(piece)}</span>' + "\n" * piece.count("\n"))
    parts.append("</div>")
    return "".join(parts)


def cuts_legend_html(label_a: str, label_b: str, only_a: int, only_b: int, shared: int, *, style: bool = True) -> str:
    """The legend above ``render_cuts_html``: which colour is which tokenizer, with the counts."""
    return (
        (TOKEN_CSS if style else "")
        + '<div class="bpe-legend bpe-cuts" style="max-height:none">'
        + f'<span class="a">cut only by {html.escape(label_a)}: {only_a:,}</span>'
        + f'<span class="b">cut only by {html.escape(label_b)}: {only_b:,}</span>'
        + f'<span class="both">cut by both: {shared:,}</span></div>'
    )


def superword_legend_html(*, style: bool = True) -> str:
    """The legend beside panels that mark superwords (``render_tokens_html(superwords=...)``)."""
    return (
        (TOKEN_CSS if style else "")
        + '<div class="bpe-tokens bpe-legend" style="max-height:none"><span class="t c0 sw">of␣the</span> a '
        + "superword: one token across a space (SuperBPE's second stage); other tokens as everywhere</div>"
    )


def pieces_html(pieces: Sequence[str], show_whitespace: bool = True) -> str:
    """Pre-tokenization pieces as alternating coloured boxes (for regex previews), whitespace marked."""
    boxes = (_boxes(piece, f"t c{index % 6}", token_quote(piece), marks=show_whitespace) for index, piece in enumerate(pieces))
    return f'{TOKEN_CSS}<div class="bpe-tokens">{"".join(boxes)}</div>'


def sentences_html(lines: Sequence[str]) -> str:
    """Plain sentences in a bordered block (escaped: they may quote file names)."""
    body = "".join(f"<p>{_text(line)}</p>" for line in lines)
    return f'{SENTENCES_CSS}<div class="cmp-summary">{body}</div>'


def bold_html(text: str) -> str:
    """One line with ``text`` in bold, escaped."""
    return f"<b>{_text(text)}</b>"


WORDS_CSS = (
    f"<style>.bpe-words{{font-family:{MONO_FONTS};font-size:0.95rem;line-height:2.3;overflow-wrap:anywhere;}}"
    ".bpe-words .sym{display:inline-block;white-space:pre;border:1px solid #adb5bd;border-radius:4px;"
    "padding:0 5px;margin:0 2px 2px 0;line-height:1.6;background:#f8f9fa;color:#212529;unicode-bidi:isolate;}"
    ".bpe-words .new{background:#ffd43b;border-color:#f08c00;font-weight:700;}"
    ".bpe-words .freq{display:inline-block;color:#868e96;margin-left:6px;margin-right:18px;}</style>"
)


def symbol_text(symbol: bytes | str) -> str:
    """A training symbol as text in the display convention: bytes through ``token_display`` (␣ for a
    space, ``\\xNN`` for a stray byte); a textbook symbol (already text) with its whitespace marked."""
    return token_display(symbol) if isinstance(symbol, bytes) else text_display(symbol)


def words_html(words: Sequence[tuple[Sequence[bytes | str], int]], highlight: bytes | str | None) -> str:
    """Each unique word as boxed symbols with its frequency; the newly merged symbol highlighted. The
    boxes wrap at the panel's edge (a one-stream input is one long word)."""
    parts = [WORDS_CSS, '<div class="bpe-words">']
    for symbols, freq in words:
        parts.append("<div>")
        for symbol in symbols:
            css = "sym new" if highlight is not None and symbol == highlight else "sym"
            parts.append(f'<span class="{css}">{_text(symbol_text(symbol))}</span><wbr>')
        parts.append(f'<span class="freq">×{freq:,}</span></div>')
    parts.append("</div>")
    return "".join(parts)
