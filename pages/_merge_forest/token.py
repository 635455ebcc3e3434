"""The Merge forest's "Find a token" tab: finding a token by text or id (a text that is not one token
drawn as a token strip), its facts and derivation tree (graphviz), and what is built from it (a table
with depths and a collapsible tree, both capped). Tokens are written by ``glyphs``: characters,
never ``\\xNN``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.display import glyphs
from bpe_core.display.marks import parse_token_display
from pages._ui import render, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import token_quote
from pages._ui.widgets import show_table

from .index import Picked, token_by_text
from .outline import Line, outline_html

MAX_TREE_NODES = 255
#: Rows of the "built from it" table and its tree.
MAX_BUILT_ROWS = 1_000
#: Tokens drawn in the strip of a text that is not one token.
MAX_STRIP_TOKENS = 400
DEPTH_COLOURS = ["#e9ecef", "#d0ebff", "#a5d8ff", "#74c0fc", "#4dabf7", "#339af0", "#228be6", "#1c7ed6"]
DOT_HEADER = [
    "digraph derivation {",
    'graph [ordering=out, nodesep=0.15, ranksep=0.35, bgcolor="transparent"];',
    'node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10, color="#495057"];',
    'edge [arrowhead=none, color="#868e96"];',
]


#: The derivation tree is drawn at its own size (its text 10 pt, 13 px), never shrunk to the column's
#: width (a wide tree's text came out at 7 px); a tree wider than the column scrolls sideways in it.
TREE_KEY = "forest.tree"
TREE_CSS = (
    "<style>.st-key-forest-tree [data-testid=stGraphVizChart]{overflow-x:auto}"
    ".st-key-forest-tree [data-testid=stGraphVizChart] svg{max-width:none!important;width:auto!important;"
    "height:auto!important}</style>"
)


def dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def dot_node(picked: Picked, tid: int, node: str, label: str) -> str:
    """One node of the derivation tree: the token (``label``), its id and how it was made, coloured by depth."""
    forest = picked.forest
    rank = forest.rank_of.get(tid)
    label = dot_escape(label)
    if rank is None:
        label += f"\\nbyte {picked.vocab[tid].hex()} · id {tid}"
        colour = "#fff3bf"
    else:
        label += f"\\nid {tid} · rank {rank:,}"
        if forest.counts[rank] is not None:
            label += f"\\ncount {forest.counts[rank]:,}"
        colour = DEPTH_COLOURS[min(forest.depth[tid], len(DEPTH_COLOURS) - 1)]
    return f'{node} [label="{label}", fillcolor="{colour}"];'


def derivation_dot(picked: Picked, token_id: int) -> tuple[str, bool]:
    """DOT source of the derivation tree of ``token_id`` (root on top, bytes at the bottom), and
    whether it was cut at MAX_TREE_NODES. Each node is written knowing the root's bytes around it (the
    bytes of न under it read ‘⟨न 1–2/3⟩’ and ‘⟨न 3/3⟩’)."""
    lines = list(DOT_HEADER)
    counter = 0
    clipped = False
    root = picked.vocab[token_id]
    parsed = glyphs.units(root)

    def add(tid: int, offset: int) -> str:
        nonlocal counter, clipped
        node = f"n{counter}"
        counter += 1
        size = len(picked.vocab[tid])
        lines.append(dot_node(picked, tid, node, glyphs.span_label(root, offset, offset + size, parsed=parsed)))
        parts = picked.forest.parts(tid)
        if parts is not None:
            if counter + 2 > MAX_TREE_NODES:
                clipped = True
            else:
                left = add(parts[0], offset)
                right = add(parts[1], offset + len(picked.vocab[parts[0]]))
                lines.extend([f"{node} -> {left};", f"{node} -> {right};"])
        return node

    add(token_id, 0)
    lines.append("}")
    return "\n".join(lines), clipped


def find_by_text(picked: Picked, default_id: int) -> int | None:
    """A text box for a token; when the text is not one token, its tokens drawn as a strip and a
    choice among the merged tokens it encodes to."""
    key = f"forest.query:{picked.choice.key}"
    if key not in st.session_state:
        st.session_state[key] = picked.typed(default_id)
    query = st.text_input(
        "Token text, typed plainly or with marks (␣ a space, → a tab, ↵ a newline)",
        key=key,
        help="A leading space matters: ␣the and the are different tokens. A byte that is not a whole character is "
        "typed as a backslash, x and its two hex digits (\\\\xe0).",
    )
    if not query:
        return None
    found = token_by_text(picked.tokenizer, query)
    if found is not None:
        return found
    text = parse_token_display(query).decode("utf-8", "replace")
    pieces = picked.tokenizer.encode(text, disallowed_special=())
    st.info(
        f"{md(token_quote(text))} is not a single token of {md(picked.choice.label)}; it encodes as "
        f"{len(pieces):,} tokens (hover one for its id and bytes):"
    )
    shown = pieces[:MAX_STRIP_TOKENS]
    st.html(render.sequence_html([picked.vocab[i] for i in shown], ids=shown))
    if len(pieces) > MAX_STRIP_TOKENS:
        st.caption(f"The first {MAX_STRIP_TOKENS:,} of {len(pieces):,} tokens.")
    merged = list(dict.fromkeys(i for i in pieces if i in picked.forest.rank_of))
    if not merged:
        return None
    where = in_context(picked, pieces)
    state.ensure_option("forest.pick", merged)
    return st.selectbox(
        "Pick one of its merged tokens", merged, format_func=lambda i: f"{where[i]} (id {i})", key="forest.pick"
    )


def in_context(picked: Picked, pieces: list[int]) -> dict[int, str]:
    """Each id of ``pieces`` written as it stands in the text, ‘⟨न 1–2/3⟩’ (the first few places
    when it stands for parts of several characters)."""
    labels: dict[int, list[str]] = {}
    for token_id, label in zip(pieces, glyphs.labels_in([picked.vocab[i] for i in pieces]), strict=True):
        seen = labels.setdefault(token_id, [])
        if label not in seen:
            seen.append(label)
    return {
        i: ", ".join(glyphs.quote(x) for x in found[:3]) + (" …" if len(found) > 3 else "")
        for i, found in labels.items()
    }


def find_by_id(picked: Picked, default_id: int) -> int | None:
    key = f"forest.id:{picked.choice.key}"
    if key not in st.session_state:
        st.session_state[key] = default_id
    chosen = st.number_input("Token id", min_value=0, max_value=max(picked.vocab), step=1, key=key)
    try:
        picked.tokenizer.decode_single_token_bytes(int(chosen))
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return None
    return int(chosen)


def show_facts(picked: Picked, token_id: int) -> None:
    """A token's facts and how it was made, with its derivation tree."""
    forest = picked.forest
    rank = forest.rank_of.get(token_id)
    st.subheader(md(picked.quote(token_id)), anchor=False)
    token = picked.vocab[token_id]
    if picked.shown(token_id) != picked.typed(token_id):
        st.caption(
            f"Its bytes: {md(token.hex(' '))}. ⟨…⟩ names a character the token holds part of, or what its bytes "
            "can be part of: ⟨CJK 1–2/3⟩ is the first 2 of the 3 bytes of a CJK character."
        )
    facts: list[tuple[str, int | str]] = [
        ("id", token_id),
        ("bytes", len(token)),
        ("merge rank", f"{rank:,}" if rank is not None else "—"),
        ("tree depth", forest.depth.get(token_id, 0)),
    ]
    for column, (label, value) in zip(st.columns(4), facts, strict=True):
        column.metric(label, value)  # plain: constant labels, numbers
    if picked.tokenizer.is_special_token(token_id):
        st.info("A special token: added whole, never built by merges.")
    elif rank is None:
        st.info(md(tokenizers.unmerged_note(picked.tokenizer, token_id, token)))
    else:
        left, right, count = forest.left[rank], forest.right[rank], forest.counts[rank]
        left_text, right_text = picked.parts(rank)
        seen = f", seen {count:,} times when it was chosen" if count is not None else ""
        st.markdown(
            f"Made by merge rank **{rank:,}**: {md(glyphs.quote(left_text))} (id {left:d}) + "
            f"{md(glyphs.quote(right_text))} (id {right:d}){md(seen)}."
        )
        dot, clipped = derivation_dot(picked, token_id)
        st.html(TREE_CSS)  # a style only: takes no space
        with st.container(key=TREE_KEY):
            st.graphviz_chart(dot)
        if clipped:
            st.caption(f"The tree is cut at {MAX_TREE_NODES:,} nodes.")


def built_from_outline(picked: Picked, token_id: int, rows: list[tuple[int, int, int]]) -> str:
    """The tokens built from ``token_id`` as a collapsible tree: each under the token it was reached through."""
    forest = picked.forest
    lines = {str(token_id): Line(picked.shown(token_id), f"id {token_id}")}
    children: dict[str, list[str]] = {}
    for depth, rank, parent in rows:
        made = forest.made[rank]
        lines[str(made)] = Line(
            picked.shown(made),
            f"= {picked.how_built(made)} · rank {rank:,} · id {made}",
            f"depth {depth} · bytes {picked.vocab[made].hex(' ')}",
        )
        children.setdefault(str(parent), []).append(str(made))
    return outline_html([str(token_id)], lines, children, open_roots=1)


def show_built_from(picked: Picked, token_id: int) -> None:
    """The tokens built from this one, level by level: a table (depth 1: merges that use it) and a tree."""
    direct = len(picked.forest.used_in.get(token_id, []))
    rows = picked.forest.built_from(token_id, limit=MAX_BUILT_ROWS)
    st.markdown(f"**Tokens built from it**: {direct:,} directly" + (f", {len(rows):,} in all shown" if rows else ""))
    if not rows:
        return
    forest = picked.forest
    table = [
        {
            "depth": depth,
            "rank": rank,
            "token": picked.shown(forest.made[rank]),
            "id": forest.made[rank],
            "made from": picked.how_built(forest.made[rank]),
        }
        for depth, rank, _ in rows
    ]
    show_table(pd.DataFrame(table), height=240)
    if len(rows) >= MAX_BUILT_ROWS:
        st.caption(f"The first {MAX_BUILT_ROWS:,} tokens built from it, nearest first.")
    st.html(built_from_outline(picked, token_id, rows))
    st.caption("Each token sits under the token it was built from; click a token to open or close what is built on it.")


def token_tab(picked: Picked) -> int | None:
    """Find a token and show it; returns its id (None when none is found)."""
    # Widgets whose range depends on the tokenizer get one key per tokenizer (and a default value):
    # each tokenizer keeps its own choices. The default token is the deepest of the first 2,000 merges.
    forest = picked.forest
    early = forest.made[:2_000]
    deepest = max(range(len(early)), key=lambda rank: (forest.depth[early[rank]], -rank))
    mode = st.radio("Find by", ["text", "id"], horizontal=True, key="forest.mode")
    default = early[deepest]
    token_id = find_by_text(picked, default) if mode == "text" else find_by_id(picked, default)
    if token_id is not None:
        show_facts(picked, token_id)
        show_built_from(picked, token_id)
    return token_id
