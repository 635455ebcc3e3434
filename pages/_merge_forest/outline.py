"""A collapsible tree of tokens in HTML (``<details>``, no script): the Merge forest's overview of the
first merges (each token under its left part) and the tokens built from one token. Every line is a
token written by ``glyphs`` (characters, never ``\\xNN``) with a note (rank, id, how many tokens sit
below it); a branch opens on a click. Builds markup only; every text in it is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pages._ui.styles import MONO_FONTS

OUTLINE_CSS = (
    "<style>.bpe-outline{font-size:0.9rem;line-height:1.9;max-height:34rem;overflow:auto;padding:0.3rem 0.6rem;"
    "border:1px solid rgba(128,128,128,0.25);border-radius:0.4rem}"
    ".bpe-outline ul{list-style:none;margin:0;padding-left:1.4rem;border-left:1px dotted #ced4da}"
    ".bpe-outline>ul{padding-left:0;border-left:none}.bpe-outline summary{cursor:pointer}"
    f".bpe-outline .tk{{font-family:{MONO_FONTS};background:#e7f5ff;border:1px solid #a5d8ff;padding:0 4px;"
    "white-space:pre-wrap;overflow-wrap:anywhere;unicode-bidi:isolate}"
    ".bpe-outline .nt{color:#868e96;font-size:0.8rem;margin-left:0.5rem}"
    ".bpe-outline li.leaf{padding-left:1.05rem}</style>"
)


@dataclass(frozen=True)
class Line:
    """One token of the tree: its text, a note after it, and its hover text."""

    label: str
    note: str
    title: str = ""


def _line_html(line: Line, below: int) -> str:
    note = line.note + (f" · {below:,} below" if below else "")
    title = f' title="{html.escape(line.title, quote=True)}"' if line.title else ""
    label, note = html.escape(line.label, quote=False), html.escape(note, quote=False)
    return f'<span class="tk"{title}>{label}</span><span class="nt">{note}</span>'


def outline_html(
    roots: Sequence[str], lines: Mapping[str, Line], children: Mapping[str, Sequence[str]], *, open_roots: int = 3
) -> str:
    """The trees under ``roots`` (keys of ``lines``; ``children`` lists each key's children in order),
    the ``open_roots`` largest open. A key is reached once (its first parent)."""
    sizes: dict[str, int] = {}

    def size(key: str) -> int:  # tokens below ``key`` (iterative: trees can be deep)
        stack, order = [key], []
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(child for child in children.get(node, ()) if child not in sizes)
        for node in reversed(order):
            sizes[node] = sum(1 + sizes.get(child, 0) for child in children.get(node, ()))
        return sizes[key]

    for root in roots:
        size(root)
    opened = set(sorted(roots, key=lambda r: -sizes.get(r, 0))[:open_roots])
    out = [OUTLINE_CSS, '<div class="bpe-outline"><ul>']
    # iterative depth-first writing: each item is a key to open, or a closing tag to write
    stack: list[str | tuple[str]] = [root for root in reversed(roots)]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            out.append(item[0])
            continue
        kids = children.get(item, ())
        below = sizes.get(item, 0)
        if not kids:
            out.append(f'<li class="leaf">{_line_html(lines[item], 0)}</li>')
            continue
        is_open = " open" if item in opened else ""
        out.append(f"<li><details{is_open}><summary>{_line_html(lines[item], below)}</summary><ul>")
        stack.append(("</ul></details></li>",))
        stack.extend(reversed(kids))
    out.append("</ul></div>")
    return "".join(out)
