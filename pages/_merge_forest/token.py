"""The Merge forest's "Find a token" tab: finding a token by text or id, its facts and derivation
tree (graphviz), and what is built from it (a table with depths and an icicle chart, both capped)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bpe_core.bpe.tokens import parse_token_display
from pages._ui import charts, state, tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text, token_quote
from pages._ui.widgets import show_table

from .index import Picked, token_by_text

MAX_TREE_NODES = 255
#: Rows of the "built from it" table, and nodes of its chart (an icicle stays readable up to a few hundred).
MAX_BUILT_ROWS = 1_000
MAX_ICICLE_NODES = 200
#: Branches of the icicle: the tokens built directly from it with the most built from them in turn.
MAX_ICICLE_BRANCHES = 16
DEPTH_COLOURS = ["#e9ecef", "#d0ebff", "#a5d8ff", "#74c0fc", "#4dabf7", "#339af0", "#228be6", "#1c7ed6"]
DOT_HEADER = [
    "digraph derivation {",
    'graph [ordering=out, nodesep=0.15, ranksep=0.35, bgcolor="transparent"];',
    'node [shape=box, style="rounded,filled", fontname="monospace", fontsize=11, color="#495057"];',
    'edge [arrowhead=none, color="#868e96"];',
]


def dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def dot_node(picked: Picked, tid: int, node: str) -> str:
    """One node of the derivation tree: the token, its id and how it was made, coloured by depth."""
    forest = picked.forest
    rank = forest.rank_of.get(tid)
    label = dot_escape(picked.shown(tid))
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
    whether it was cut at MAX_TREE_NODES."""
    lines = list(DOT_HEADER)
    counter = 0
    clipped = False

    def add(tid: int) -> str:
        nonlocal counter, clipped
        node = f"n{counter}"
        counter += 1
        lines.append(dot_node(picked, tid, node))
        parts = picked.forest.parts(tid)
        if parts is not None:
            if counter + 2 > MAX_TREE_NODES:
                clipped = True
            else:
                left, right = add(parts[0]), add(parts[1])
                lines.extend([f"{node} -> {left};", f"{node} -> {right};"])
        return node

    add(token_id)
    lines.append("}")
    return "\n".join(lines), clipped


def find_by_text(picked: Picked, default_id: int) -> int | None:
    """A text box for a token; when the text is not one token, a choice among the merged tokens it encodes to."""
    key = f"forest.query:{picked.choice.key}"
    if key not in st.session_state:
        st.session_state[key] = picked.shown(default_id)
    query = st.text_input(
        "Token text, as the pages show it (␣ is a space, → a tab, ↵ a newline, \\xNN a byte) or typed plainly",
        key=key, help="A leading space matters: ␣the and the are different tokens.",
    )  # fmt: skip
    if not query:
        return None
    found = token_by_text(picked.tokenizer, query)
    if found is not None:
        return found
    text = parse_token_display(query).decode("utf-8", "replace")
    pieces = picked.tokenizer.encode(text, disallowed_special=())
    merged = list(dict.fromkeys(i for i in pieces if i in picked.forest.rank_of))
    st.info(
        f"{md(token_quote(text))} is not a single token of {md(picked.choice.label)}; it encodes as "
        + " · ".join(md(picked.quote(i)) for i in pieces[:40])
        + ("…" if len(pieces) > 40 else "")
    )
    if not merged:
        return None
    state.ensure_option("forest.pick", merged)
    return st.selectbox("Pick one of its merged tokens", merged, format_func=lambda i: f"{picked.quote(i)} (id {i})",
                        key="forest.pick")  # fmt: skip


def find_by_id(picked: Picked, default_id: int) -> int | None:
    key = f"forest.id:{picked.choice.key}"
    if key not in st.session_state:
        st.session_state[key] = default_id
    chosen = st.number_input("Token id", min_value=0, max_value=max(picked.vocab), step=1, key=key)
    try:
        picked.tokenizer.decode_single_token_bytes(int(chosen))
    except ValueError as exc:
        st.error(md(exc))
        return None
    return int(chosen)


def show_facts(picked: Picked, token_id: int) -> None:
    """A token's facts and how it was made, with its derivation tree."""
    forest = picked.forest
    rank = forest.rank_of.get(token_id)
    st.subheader(md(picked.quote(token_id)), anchor=False)
    facts = [("id", token_id), ("bytes", len(picked.vocab[token_id])), ("merge rank", f"{rank:,}" if rank is not None else "—"),
             ("tree depth", forest.depth.get(token_id, 0))]  # fmt: skip
    for column, (label, value) in zip(st.columns(4), facts):
        column.metric(label, value)  # plain: constant labels, numbers
    if picked.tokenizer.is_special_token(token_id):
        st.info("A special token: added whole, never built by merges.")
    elif rank is None:
        st.info(md(tokenizers.unmerged_note(picked.tokenizer, token_id, picked.vocab[token_id])))
    else:
        left, right, count = forest.left[rank], forest.right[rank], forest.counts[rank]
        seen = f", seen {count:,} times when it was chosen" if count is not None else ""
        st.markdown(
            f"Made by merge rank **{rank:,}**: {md(picked.quote(left))} (id {left:d}) + "
            f"{md(picked.quote(right))} (id {right:d}){md(seen)}."
        )
        dot, clipped = derivation_dot(picked, token_id)
        st.graphviz_chart(dot)
        if clipped:
            st.caption(f"The tree is cut at {MAX_TREE_NODES:,} nodes.")


def built_from_icicle(picked: Picked, token_id: int, rows: list[tuple[int, int, int]]) -> go.Figure:
    """The tokens built from ``token_id`` as an icicle: each under the token it was reached through."""
    forest = picked.forest
    ids = [str(token_id)] + [str(forest.made[rank]) for _, rank, _ in rows]
    labels = [plot_text(picked.shown(token_id))] + [plot_text(picked.shown(forest.made[rank])) for _, rank, _ in rows]
    parents = [""] + [str(parent) for _, _, parent in rows]
    hover = [plot_text(f"{picked.quote(token_id)} · id {token_id}")] + [
        plot_text(f"{picked.quote(forest.made[rank])} = {picked.how_built(forest.made[rank])} · rank {rank:,} · depth {depth}")
        for depth, rank, _ in rows
    ]
    figure = go.Figure(go.Icicle(ids=ids, labels=labels, parents=parents, hovertext=hover, hoverinfo="text",
                                 maxdepth=4, tiling=dict(orientation="v")))  # fmt: skip
    return charts.compact(figure, 420, top=10)


def icicle_rows(picked: Picked, rows: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The rows the icicle shows: the MAX_ICICLE_BRANCHES direct users with the largest subtrees
    (in the breadth-first tree), each with its nearest descendants, MAX_ICICLE_NODES in all."""
    made = picked.forest.made
    branch: dict[int, int] = {}  # token -> the direct user it was reached through
    sizes: dict[int, int] = {}
    for depth, rank, parent in rows:
        branch[made[rank]] = made[rank] if depth == 1 else branch[parent]
        sizes[branch[made[rank]]] = sizes.get(branch[made[rank]], 0) + 1
    kept = set(sorted(sizes, key=lambda token: -sizes[token])[:MAX_ICICLE_BRANCHES])
    return [row for row in rows if branch[made[row[1]]] in kept][:MAX_ICICLE_NODES]


def show_built_from(picked: Picked, token_id: int) -> None:
    """The tokens built from this one, level by level: a table (depth 1: merges that use it) and an icicle."""
    direct = len(picked.forest.used_in.get(token_id, []))
    rows = picked.forest.built_from(token_id, limit=MAX_BUILT_ROWS)
    st.markdown(f"**Tokens built from it**: {direct:,} directly" + (f", {len(rows):,} in all shown" if rows else ""))
    if not rows:
        return
    forest = picked.forest
    table = [{"depth": depth, "rank": rank, "token": picked.shown(forest.made[rank]), "id": forest.made[rank],
              "made from": picked.how_built(forest.made[rank])} for depth, rank, _ in rows]  # fmt: skip
    show_table(pd.DataFrame(table), height=240)
    if len(rows) >= MAX_BUILT_ROWS:
        st.caption(f"The first {MAX_BUILT_ROWS:,} tokens built from it, nearest first.")
    shown = icicle_rows(picked, rows)
    st.plotly_chart(built_from_icicle(picked, token_id, shown), key="forest.built_icicle")
    st.caption(
        f"Each token sits under the token it was built from (click a box to zoom in, the top to zoom out). "
        f"Shown: {len(shown):,} of the {len(rows):,} in the table, under the {MAX_ICICLE_BRANCHES} tokens built "
        "directly from it that most is built from; more boxes would be too thin to read."
    )


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
