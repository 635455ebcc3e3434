r"""The one token strip, as HTML: coloured boxes, one per token, with the token's id and bytes on hover;
a character split between tokens drawn once over its numbered pieces; grapheme clusters whole;
right-to-left runs in reading order (whitespace ␣ where the word starts, on its right); whitespace
marked (␣ → ↵); every piece of text escaped. Also the cut view (two tokenizers' cuts on one text),
pre-token pieces and Step through's words.

The app's pages, ``Tokenizer.show`` and ``bpe_core.compare`` in a notebook draw with these same
functions. Pure functions of their arguments: no state, nothing drawn (callers pass the result to
``st.html`` or return it from ``_repr_html_``); the style sheets are ``styles``', the text of tokens
``glyphs``' and ``marks``'.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Collection, Sequence

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.display.glyphs import (
    cluster_starts,
    labels_in,
    reading_order,
    sequence_infos,
    text_direction,
    token_label,
    token_quote,
)
from bpe_core.display.marks import MARK_CHARACTERS, text_display
from bpe_core.display.styles import TOKEN_CSS, WORDS_CSS

# Space and tab marks (class "w wb": blanked by ``toggle_css``) apart from the other marks (class "w").
_MARK_RUN = re.compile(f"([␣→]+)|([{re.escape(MARK_CHARACTERS.replace('␣', '').replace('→', ''))}]+)")


def _text(text: str) -> str:  # element text: <, > and & escaped
    return html.escape(text, quote=False)


def _attribute(text: str) -> str:  # attribute values (always double-quoted here): quotes escaped too
    return html.escape(text, quote=True)


def visible_html(text: str, *, marks: bool = True) -> str:
    """Escaped HTML of ``text`` with whitespace as dim marks (␣ → ↵); with ``marks`` off, spaces and
    tabs stay blank (never collapsed: the boxes are ``pre``) and only newlines are marked."""
    shown = text_display(text) if marks else "".join(ch if ch in " \t" else text_display(ch) for ch in text)
    return _MARK_RUN.sub(_mark_span, _text(shown))


def _mark_span(match: re.Match) -> str:
    return f'<span class="w wb">{match[1]}</span>' if match[1] else f'<span class="w">{match[2]}</span>'


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


def token_groups(infos: Sequence[TokenInfo], text: str = "") -> list[list[int]]:
    r"""Indexes of the tokens drawn together: tokens whose character spans overlap (pieces of a
    character split between tokens), and with ``text``, tokens that meet inside a grapheme cluster
    (a letter and its vowel sign, a conjunct, an emoji and its skin tone or joiners), form one group;
    every other token is a group of its own.

    >>> a = TokenInfo(1, b"\xe4\xbd", 0, 1, True, False); b = TokenInfo(2, b"\xa0", 0, 1, True, False)
    >>> token_groups([a, b, TokenInfo(3, b"x", 1, 2, False, False)])
    [[0, 1], [2]]
    """
    groups: list[list[int]] = []
    end = -1
    starts = _cluster_starts_under(infos, text)
    for index, info in enumerate(infos):
        joins = info.start < end or (info.start == end and starts is not None and info.start not in starts)
        if groups and not info.special and not infos[groups[-1][-1]].special and info.end > info.start and joins:
            groups[-1].append(index)
            end = max(end, info.end)
        else:
            groups.append([index])
            end = info.end
    return groups


def _cluster_starts_under(infos: Sequence[TokenInfo], text: str) -> set[int] | None:
    """Where grapheme clusters start in the part of ``text`` the tokens cover; None when every
    character there is a cluster of its own (ASCII but CR LF) or there is no text."""
    if not text or not infos:
        return None
    low, high = min(i.start for i in infos), max(i.end for i in infos)
    part = text[low:high]
    if part.isascii() and "\r\n" not in part:
        return None
    return cluster_starts(text, low, high)


def span_data(info: TokenInfo) -> str:
    """The token's character span (``data-s``, ``data-e``) and id (``data-i``, not for special tokens)
    as attributes: what the linked hover and the click to the merge tree read (ints: drawn unsanitised)."""
    span = f' data-s="{int(info.start)}" data-e="{int(info.end)}"'
    return span + ("" if info.special else f' data-i="{int(info.id)}"')


TitleOf = Callable[[TokenInfo], str]


def _token_html(text: str, index: int, info: TokenInfo, title: str, marks: bool, classes: str) -> str:
    classes = f"t c{index % 6}{classes}" + (" s" if info.special else "")
    if info.end <= info.start:  # added by the pre-tokenizer (a prefix space): not in the text
        title += " · not in the text"
        return _boxes(token_label(info.bytes), classes + " a", title, raw=True, data=span_data(info))
    return _boxes(text[info.start : info.end], classes, title, marks=marks, raw=info.special, data=span_data(info))


def _fragment_html(
    text: str,
    group: Sequence[int],
    infos: Sequence[TokenInfo],
    title_of: TitleOf,
    show_bytes: bool | None,
    extra: Callable[[int], str],
) -> str:
    """Tokens that share characters (``token_groups``): the characters drawn once, above one dashed piece per token
    (numbered, or its bytes when ``show_bytes``), each with its own hover title."""
    start, end = infos[group[0]].start, max(infos[i].end for i in group)
    chars = reading_order(text_display(text[start:end]))
    pieces = []
    for number, index in enumerate(group, 1):
        info = infos[index]
        title = f"{title_of(info)} · piece {number} of {len(group)} of ‘{chars}’"
        if show_bytes is None:  # both labels: toggle_css shows one
            label = f'<span class="pn">{number}</span><span class="ph">{info.bytes.hex(" ")}</span>'
        else:
            label = info.bytes.hex(" ") if show_bytes else f"{number}"
        classes = f"t c{index % 6} p n{min(len(info.bytes), 4)}{extra(index)}"
        pieces.append(f'<span class="{classes}" title="{_attribute(title)}"{span_data(info)}>{label}</span>')
    title = f"‘{chars}’ in {len(group)} tokens"
    return (
        f'<span class="g{" hex" if show_bytes else ""}"><span class="gc" dir="auto" title="{_attribute(title)}">'
        f'{visible_html(text[start:end])}</span><span class="gb">{"".join(pieces)}</span></span>'
    )


def _direction(shown: str) -> str | None:
    """How a drawn group takes part in right-to-left runs: "break" when it holds a newline, "space"
    when it is only spaces and tabs (it joins a right-to-left run it leads), else its direction."""
    if "\n" in shown:
        return "break"
    if shown and not shown.strip(" \t"):
        return "space"
    return text_direction(shown)


def _isolate_rtl(parts: Sequence[tuple[str | None, str]]) -> str:
    """Join drawn groups, wrapping each run of right-to-left groups (with the neutral ones between
    them) in an RTL isolate, so an Arabic or Hebrew phrase reads right to left, token by token.
    Spaces just before a run open it: a space drawn alone stands where the word starts, on its right,
    as it does inside a token that holds both (``␣שלום``)."""
    out: list[str] = []
    run: list[str] = []
    pending: list[str] = []  # neutral groups after an open run, or spaces waiting for one
    for direction, markup in [*parts, ("end", "")]:
        if direction == "rtl":
            run += pending + [markup]
            pending = []
        elif direction == "space" or (direction is None and run):
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


def ranked_titles(rank_of: Callable[[int], int | None]) -> TitleOf:
    """``token_title`` with the merge rank ``rank_of`` gives (a tokenizer's ``merge_rank_of``)."""
    return lambda info: token_title(info, None if info.special else rank_of(info.id))


def tokens_inner(
    text: str,
    infos: Sequence[TokenInfo],
    *,
    title_of: TitleOf,
    show_whitespace: bool = True,
    show_bytes: bool | None = False,
    marked: set[int] | None = None,
    emphasis: Callable[[TokenInfo], bool] | None = None,
    superwords: Collection[int] = (),
) -> str:
    """The token boxes of ``render_tokens_html`` without the panel around them (for strips drawn in
    rows: Step through's words, the languages side by side). ``show_bytes`` None: both piece labels."""
    marked = marked or set()

    def extra(index: int) -> str:  # a red bar for a marked cut (once per start), the emphasis class, a superword
        info = infos[index]
        cut = info.start in marked and (index == 0 or infos[index - 1].start != info.start)
        emphasised = " new" if emphasis is not None and emphasis(info) else ""
        return (" x" if cut else "") + emphasised + (" sw" if superwords and info.id in superwords else "")

    parts = []
    for group in token_groups(infos, text):
        info = infos[group[0]]
        if len(group) == 1 and not info.partial:
            markup = _token_html(text, group[0], info, title_of(info), show_whitespace, extra(group[0]))
        else:
            markup = _fragment_html(text, group, infos, title_of, show_bytes, extra)
        parts.append((_direction(text[info.start : max(infos[i].end for i in group)]), markup))
    return _isolate_rtl(parts)


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
    title_of: TitleOf | None = None,
    superwords: Collection[int] = (),
) -> str:
    """Coloured boxes, one per token, with a hover title; every piece of user text is escaped.

    A box never breaks inside (unless it is wider than the panel); whitespace is drawn as ␣ → ↵ (as
    blank space with ``show_whitespace`` off); a token spanning lines is one box per line. Tokens
    that hold parts of a character are drawn as that character once, above one numbered dashed piece
    per token (their bytes with ``show_bytes``; always in the hover); so are tokens that meet inside a
    grapheme cluster (a letter and its vowel sign, an emoji and its skin tone). Right-to-left runs
    read right to left. ``marked`` holds cut positions to highlight (a red bar before the token). Each
    token carries its character span and id as ``data-`` attributes, and the panel the tokenizer's
    ``key`` (``data-k``, escaped) when given: the linked hover and the click to the merge tree. With
    ``switchable``, the markup holds both forms of each toggle (marks and both piece labels) and
    ``toggle_css`` picks one, so flipping a toggle restyles the panel instead of replacing it. Without
    ``style`` the page draws ``TOKEN_CSS`` once (each style sheet added restyles the whole page).
    ``title_of`` writes a token's hover text (default: ``token_title`` with ``rank_of``'s rank).
    Tokens whose id is in ``superwords`` (SuperBPE's tokens across a space) are underlined in bold
    (``superword_legend_html`` says so).
    """
    shown_bytes: bool | None = None if switchable else show_bytes
    inner = tokens_inner(
        text,
        infos,
        title_of=title_of or ranked_titles(rank_of),
        marked=marked,
        show_whitespace=True if switchable else show_whitespace,
        show_bytes=shown_bytes,
        superwords=superwords,
    )
    panel = f' data-k="{_attribute(key)}"' if key else ""
    return f'{TOKEN_CSS if style else ""}<div class="bpe-tokens"{panel}>{inner}</div>'


def sequence_html(tokens: Sequence[bytes], *, ids: Sequence[int] | None = None, title_of: TitleOf | None = None) -> str:
    """A strip of tokens that follow each other (a text's encoding), drawn as ``render_tokens_html``
    draws a text; tokens that spell no valid UTF-8 are written one per box (``glyphs.labels_in``)."""
    spelled = sequence_infos(tokens, ids)
    if spelled is None:
        return f'{TOKEN_CSS}<div class="bpe-tokens">{labelled_boxes(tokens)}</div>'
    titles = title_of or (lambda info: (f"id {info.id} · " if ids is not None else "") + titles_of_bytes(info.bytes))
    text, infos = spelled
    return f'{TOKEN_CSS}<div class="bpe-tokens">{tokens_inner(text, infos, title_of=titles)}</div>'


def titles_of_bytes(token: bytes) -> str:
    """A token's hover text when only its bytes are known."""
    return f"bytes {token.hex(' ')}"


def labelled_boxes(tokens: Sequence[bytes], highlight: bytes | None = None) -> str:
    """Tokens that spell no valid UTF-8, one box each, written by ``glyphs.labels_in``."""
    boxes = []
    for number, (token, label) in enumerate(zip(tokens, labels_in(tokens), strict=True)):
        classes = f"t c{number % 6}" + (" new" if token == highlight else "")
        boxes.append(f'<span class="{classes}" title="{_attribute(titles_of_bytes(token))}">{_text(label)}</span>')
    return "".join(boxes)


def toggle_css(*, show_whitespace: bool, show_bytes: bool) -> str:
    """The style showing ``switchable`` panels with the toggles' values: space and tab marks blank (transparent:
    nothing moves) or not, bytes or numbers as labels. Outranks ``TOKEN_CSS`` (later in the page, in each panel)."""
    rules = [] if show_whitespace else [".bpe-tokens .w.wb { color: transparent; }"]
    if show_bytes:
        rules.append(
            ".bpe-tokens .g .p .ph { display: inline; } .bpe-tokens .g .p .pn { display: none; } "
            ".bpe-tokens .g .gb .p { flex-basis: auto; min-width: 0; white-space: normal; overflow-wrap: anywhere; }"
        )
    return f"<style>{' '.join(rules) or '.bpe-tokens {}'}</style>"


def render_cuts_html(text: str, cuts_a: set[int], cuts_b: set[int], *, style: bool = True) -> str:
    """The text once, split at every cut of either tokenizer; a piece starting at a cut only the
    first (second) tokenizer makes is blue (orange); cuts both make are thin grey lines. A cut inside
    a grapheme cluster (between a letter and its vowel sign, inside a conjunct or an emoji) does not
    split it: the cluster is underlined, dotted, in the tokenizer's colour. Pieces are not isolated
    from each other, so Arabic letters stay joined and right-to-left lines read right to left.
    Whitespace is marked as everywhere (␣ → ↵). Without ``style``, no ``TOKEN_CSS``."""
    starts = cluster_starts(text) if not text.isascii() or "\r\n" in text else None

    def snapped(cuts: set[int]) -> tuple[set[int], set[int]]:  # (cuts on cluster starts, clusters cut inside)
        if starts is None:
            return set(cuts), set()
        ordered = sorted(starts)
        on, inside = set(), set()
        for cut in cuts:
            if cut in starts:
                on.add(cut)
            else:
                inside.add(ordered[bisect.bisect_right(ordered, cut) - 1])
        return on, inside

    on_a, in_a = snapped(cuts_a)
    on_b, in_b = snapped(cuts_b)
    positions = sorted({0, len(text)} | on_a | on_b | in_a | in_b)
    parts = []
    for start, end in zip(positions, positions[1:], strict=False):
        a, b = start in on_a, start in on_b
        css = ["a" if a and not b else "b" if b and not a else "both" if a and b else ""]
        css += ["ia"] if start in in_a else []
        css += ["ib"] if start in in_b else []
        piece = text[start:end]
        title = ' title="cut inside this character"' if start in in_a or start in in_b else ""
        classes = " ".join(c for c in css if c)
        markup = f'<span class="{classes}"{title}>{visible_html(piece)}</span>' + "\n" * piece.count("\n")
        parts.append((_direction(piece), markup))
    return f'{TOKEN_CSS if style else ""}<div class="bpe-cuts">{_isolate_rtl(parts)}</div>'


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
    boxes = (_boxes(piece, f"t c{n % 6}", token_quote(piece), marks=show_whitespace) for n, piece in enumerate(pieces))
    return f'{TOKEN_CSS}<div class="bpe-tokens">{"".join(boxes)}</div>'


def words_html(words: Sequence[tuple[Sequence[bytes | str], int]], highlight: bytes | str | None) -> str:
    """Each unique word as a strip of its symbols (``tokens_inner``: a character split between symbols
    drawn once over its numbered pieces) with its frequency; the newly merged symbol highlighted.
    The boxes wrap at the panel's edge (a one-stream input is one long word)."""
    target = highlight.encode("utf-8") if isinstance(highlight, str) else highlight
    parts = [TOKEN_CSS, WORDS_CSS, '<div class="bpe-tokens bpe-words">']
    for symbols, freq in words:
        tokens = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in symbols]
        spelled = sequence_infos(tokens)
        if spelled is None:  # not valid UTF-8 (a byte stream cut mid-character): one labelled box each
            inner = labelled_boxes(tokens, target)
        else:
            text, infos = spelled
            inner = tokens_inner(
                text,
                infos,
                title_of=lambda info: titles_of_bytes(info.bytes),
                emphasis=lambda info: target is not None and info.bytes == target,
            )
        parts.append(f'<div class="wd">{inner}<span class="freq">×{freq:,}</span></div>')
    parts.append("</div>")
    return "".join(parts)
