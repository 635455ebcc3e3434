"""The rows of "Languages side by side": one sentence in each language as a token strip with its cost,
drawn as HTML for the page (``render.tokens_inner``: the one token renderer) and as a self-made SVG
for slides (boxes and text only: opens in any browser, Inkscape, PowerPoint or Keynote, no script, no
font or image fetched).

The SVG lays the boxes out itself: a box is as wide as an estimate of its text (grapheme clusters:
narrow, wide East Asian, emoji) and the text is fitted to it (``textLength``), so nothing spills
whatever font the viewer has; a right-to-left row is laid out from the right. Every text in both is
escaped. Builds markup only.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import TokenInfo
from bpe_core.display import glyphs
from bpe_core.display.marks import text_display
from pages._ui import render
from pages._ui.styles import MONO_FONTS, TOKEN_COLOURS, TOKEN_CSS

#: The six token colours of the strips (``styles.TOKEN_CSS``'s c0..c5).
COLOURS = TOKEN_COLOURS
ROWS_CSS = (
    "<style>.bpe-langs .lrow{display:grid;grid-template-columns:11rem 1fr;gap:0.6rem;align-items:start;"
    "margin:0 0 0.35rem 0}.bpe-langs .meta{font-size:0.85rem;line-height:1.35;padding-top:0.2rem}"
    ".bpe-langs .meta b{font-size:0.95rem}.bpe-langs .ref{color:#1971c2}.bpe-langs .bpe-tokens{padding:0.25rem 0.4rem;"
    "max-height:none}.bpe-langs .x2{color:#e8590c}.bpe-langs .x4{color:#c92a2a;font-weight:700}</style>"
)


@dataclass(frozen=True)
class Row:
    """One language: its name, the sentence, its tokens, and what they cost against the reference."""

    name: str
    text: str
    infos: list[TokenInfo]
    multiple: float | None  # tokens / the reference's tokens
    cost: float | None  # for a million such sentences, at the price given
    reference: bool = False

    @property
    def tokens(self) -> int:
        return len(self.infos)


def multiple_text(row: Row) -> str:
    """×2.31 (or "reference")."""
    if row.reference:
        return "reference"
    return "—" if row.multiple is None else f"×{row.multiple:.2f}"


def cost_text(cost: float | None) -> str:
    """A price with as many decimals as it needs to show (2 from 1 on, 4 below)."""
    if cost is None:
        return ""
    return f"{cost:,.2f}" if cost >= 1 else f"{cost:,.4f}"


def _meta(row: Row, price_label: str) -> str:
    level = ""
    if row.multiple is not None and not row.reference:  # twice the reference's cost in orange, four times in red
        level = " x4" if row.multiple >= 4 else " x2" if row.multiple >= 2 else ""
    multiple = f'<span class="m{level}">{html.escape(multiple_text(row))}</span>'
    lines = [f"<b>{html.escape(row.name)}</b>", f"{row.tokens:,} tokens · {multiple}"]
    if row.cost is not None:
        lines.append(f"{html.escape(cost_text(row.cost))} {html.escape(price_label)}")
    return f'<div class="meta{" ref" if row.reference else ""}">{"<br>".join(lines)}</div>'


def _title(info: TokenInfo) -> str:
    return f"id {info.id} · bytes {info.bytes.hex(' ')}"


def rows_html(rows: Sequence[Row], *, price_label: str = "") -> str:
    """The rows as the page draws them: name, tokens, multiple (and cost) on the left, the strip on the right."""
    parts = [TOKEN_CSS, ROWS_CSS, '<div class="bpe-langs">']
    for row in rows:
        strip = render.tokens_inner(row.text, row.infos, title_of=_title)
        direction = ' dir="rtl"' if glyphs.text_direction(row.text) == "rtl" else ""
        strip = f'<div class="bpe-tokens"{direction}>{strip}</div>'
        parts.append(f'<div class="lrow">{_meta(row, price_label)}{strip}</div>')
    parts.append("</div>")
    return "".join(parts)


# ------------------------------------------------------------------------------------------------
# SVG

FONT = 15  # px
WIDTH = 1200
LABEL = 210  # px for the name and numbers on the left
GAP = 3


def _cluster_width(cluster: str) -> float:
    """An estimate of a grapheme cluster's width in em."""
    first = cluster[0]
    if any(ord(ch) >= 0x1F000 or ch in "\u200d\ufe0f" for ch in cluster):
        return 1.25  # emoji
    if unicodedata.east_asian_width(first) in ("W", "F"):
        return 1.0
    if first.isascii() or "LATIN" in unicodedata.name(first, "") or unicodedata.category(first)[0] in "NPZS":
        return 0.62
    return 0.9  # other scripts: Devanagari, Arabic, Thai, Myanmar...


def text_width(text: str) -> float:
    """An estimate of ``text``'s width in px at FONT."""
    return sum(_cluster_width(c) for c in glyphs.clusters(text)) * FONT if text else 0.0


def _text(
    x: float,
    y: float,
    text: str,
    width: float,
    *,
    size: int = FONT,
    colour: str = "#1a1a1a",
    fit: bool = True,
    anchor: str = "middle",
) -> str:
    fitted = f' textLength="{width:.1f}" lengthAdjust="spacingAndGlyphs"' if fit and text.strip() else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{colour}" text-anchor="{anchor}"'
        f"{fitted}>{html.escape(text, quote=False)}</text>"
    )


@dataclass
class _Box:
    width: float
    markup: list[str]  # drawn at x = 0, y = 0 (top left); moved into place with a transform


def _boxes(row: Row) -> list[_Box]:
    """One box per token (or per group of tokens sharing a character: the character over numbered pieces)."""
    out = []
    for group in render.token_groups(row.infos, row.text):
        infos = [row.infos[i] for i in group]
        start, end = infos[0].start, max(i.end for i in infos)
        shown = text_display(row.text[start:end]) if end > start else glyphs.token_label(infos[0].bytes)
        inner = text_width(shown)
        shown = glyphs.reading_order(shown)  # ␣ on the right of a right-to-left word, as in the HTML rows
        if len(group) == 1 and not infos[0].partial:
            width = inner + 8
            colour = COLOURS[group[0] % len(COLOURS)]
            out.append(
                _Box(
                    width,
                    [f'<rect width="{width:.1f}" height="24" fill="{colour}"/>', _text(width / 2, 17, shown, inner)],
                )
            )
            continue
        width = max(inner + 8, 16 * len(group))
        markup = [
            f'<rect width="{width:.1f}" height="24" fill="#fff" stroke="#868e96" stroke-dasharray="3 2"/>',
            _text(width / 2, 17, shown, inner),
        ]
        piece = width / len(group)
        for number, index in enumerate(group):
            x = number * piece
            fill = COLOURS[index % len(COLOURS)]
            markup.append(
                f'<rect x="{x:.1f}" y="24" width="{piece:.1f}" height="13" fill="{fill}" '
                'stroke="#868e96" stroke-dasharray="3 2"/>'
            )
            markup.append(_text(x + piece / 2, 34, str(number + 1), 0, size=9, colour="#343a40", fit=False))
        out.append(_Box(width, markup))
    return out


def rows_svg(rows: Sequence[Row], *, title: str, subtitle: str = "", price_label: str = "") -> str:
    """The rows as one SVG document: a title, then per language its numbers and its boxes, wrapped
    to WIDTH (right to left for a right-to-left language)."""
    body: list[str] = []
    y = 58.0
    for row in rows:
        boxes = _boxes(row)
        rtl = glyphs.text_direction(row.text) == "rtl"
        line_top, x = y, 0.0
        available = WIDTH - LABEL - 20
        placed: list[tuple[float, float, _Box]] = []
        for box in boxes:
            if x and x + box.width > available:
                line_top, x = line_top + 44, 0.0
            placed.append((x, line_top, box))
            x += box.width + GAP
        for x, top, box in placed:
            left = LABEL + (available - x - box.width if rtl else x)
            body.append(f'<g transform="translate({left:.1f},{top:.1f})">{"".join(box.markup)}</g>')
        numbers = f"{row.tokens:,} tokens · {multiple_text(row)}"
        body.append(
            _text(
                0,
                y + 14,
                row.name,
                0,
                size=14,
                colour="#1971c2" if row.reference else "#212529",
                fit=False,
                anchor="start",
            )
        )
        body.append(_text(0, y + 31, numbers, 0, size=12, colour="#495057", fit=False, anchor="start"))
        if row.cost is not None:
            body.append(
                _text(
                    0,
                    y + 46,
                    f"{cost_text(row.cost)} {price_label}",
                    0,
                    size=12,
                    colour="#495057",
                    fit=False,
                    anchor="start",
                )
            )
        y = line_top + 56
    height = y + 10
    head = [
        _text(0, 22, title, 0, size=18, fit=False, anchor="start"),
        _text(0, 42, subtitle, 0, size=12, colour="#495057", fit=False, anchor="start"),
    ]
    font = html.escape(MONO_FONTS.replace('"', "'"), quote=True)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="-10 0 {WIDTH + 20} {height:.0f}" font-family="{font}">'
        f'<rect x="-10" width="{WIDTH + 20}" height="{height:.0f}" fill="#fff"/>{"".join(head + body)}</svg>'
    )
