"""Merge forest: how a token was built, what it builds, segmentation with the first k merges, an
overview of the whole forest, and tokens that encoding never produces."""

from __future__ import annotations

import collections
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bpe_core import Tokenizer, token_display
from bpe_core.tokens import parse_token_display

from pages._ui import charts, state, tables, tokenizers
from pages._ui.encoding import MAX_STATS_CHARS, encode_text
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text, render_tokens_html, token_quote
from pages._ui.render import symbol_text as shown
from pages._ui.samples import sample_text
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import page_header, show_table, tokenizer_picker

MAX_TREE_NODES = 255
MAX_TABLE_ROWS = 1_000
MAX_SEGMENT_CHARS = 5_000
DEPTH_COLOURS = ["#e9ecef", "#d0ebff", "#a5d8ff", "#74c0fc", "#4dabf7", "#339af0", "#228be6", "#1c7ed6"]
DOT_HEADER = [
    "digraph derivation {",
    'graph [ordering=out, nodesep=0.15, ranksep=0.35, bgcolor="transparent"];',
    'node [shape=box, style="rounded,filled", fontname="monospace", fontsize=11, color="#495057"];',
    'edge [arrowhead=none, color="#868e96"];',
]


@dataclass(frozen=True)
class Forest:
    """Indexes over a tokenizer's merge records (computed once per tokenizer)."""

    records: list
    made_by: dict  # token id -> MergeRecord that made it
    used_in: dict  # token id -> ranks of the merges that use it as a part
    depth: dict  # token id -> height of its derivation tree (bytes: 0)
    length: dict  # token id -> bytes
    vocab: dict  # token id -> bytes (Tokenizer.vocab copies: once here, not per lookup)


@dataclass(frozen=True)
class Picked:
    """The tokenizer the page shows, with its forest."""

    choice: TokenizerChoice
    tokenizer: Tokenizer
    forest: Forest

    @property
    def vocab(self) -> dict[int, bytes]:
        return self.forest.vocab


@st.cache_resource(show_spinner="Indexing merges…", max_entries=8)
def forest_of(fingerprint: str, _tokenizer: Tokenizer) -> Forest:
    records = _tokenizer.merge_records
    made_by = {r.id: r for r in records}
    used_in: dict[int, list[int]] = collections.defaultdict(list)
    depth: dict[int, int] = {}
    for r in records:
        used_in[r.left].append(r.rank)
        if r.right != r.left:
            used_in[r.right].append(r.rank)
        depth[r.id] = 1 + max(depth.get(r.left, 0), depth.get(r.right, 0))
    vocab = _tokenizer.vocab
    length = {token_id: len(token) for token_id, token in vocab.items()}
    return Forest(records, made_by, dict(used_in), depth, length, vocab)


@st.cache_resource(show_spinner="Building the truncated tokenizer…", max_entries=16)
def truncated(fingerprint: str, k: int, _tokenizer: Tokenizer) -> Tokenizer:
    return _tokenizer.truncated(k)


@st.cache_data(show_spinner="Counting token usage…", max_entries=16)
def usage_counts(fingerprint: str, text_signature: str, _tokenizer: Tokenizer, _texts: list[str]) -> dict[int, int]:
    counts: collections.Counter = collections.Counter()
    budget = MAX_STATS_CHARS
    for text in _texts:
        if budget <= 0:
            break
        counts.update(_tokenizer.encode(text[:budget], disallowed_special=()))
        budget -= len(text)
    return dict(counts)


def dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def dot_node(picked: Picked, tid: int, node: str) -> str:
    """One node of the derivation tree: the token, its id and how it was made, coloured by depth."""
    token = picked.vocab[tid]
    record = picked.forest.made_by.get(tid)
    label = dot_escape(shown(token))
    if record is None:
        label += f"\\nbyte {token.hex()} · id {tid}"
        colour = "#fff3bf"
    else:
        label += f"\\nid {tid} · rank {record.rank:,}"
        if record.count is not None:
            label += f"\\ncount {record.count:,}"
        colour = DEPTH_COLOURS[min(picked.forest.depth[tid], len(DEPTH_COLOURS) - 1)]
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
        record = picked.forest.made_by.get(tid)
        if record is not None:
            if counter + 2 > MAX_TREE_NODES:
                clipped = True
            else:
                left, right = add(record.left), add(record.right)
                lines.extend([f"{node} -> {left};", f"{node} -> {right};"])
        return node

    add(token_id)
    lines.append("}")
    return "\n".join(lines), clipped


def token_by_text(tokenizer: Tokenizer, query: str) -> int | None:
    """The id of the token ``query`` names: the text itself, or what the pages show for a token
    (␣ for a space, ↵ for a newline, ``\\xNN`` for a byte); None when it is not one token."""
    for candidate in (query.encode("utf-8", "surrogatepass"), parse_token_display(query)):
        try:
            return tokenizer.encode_single_token(candidate)
        except (KeyError, ValueError, TypeError):
            continue
    return None


def find_by_text(picked: Picked, default_id: int) -> int | None:
    """A text box for a token; when the text is not one token, a choice among the merged tokens it encodes to."""
    query = st.text_input(
        "Token text, as the pages show it (␣ is a space, → a tab, ↵ a newline, \\xNN a byte) or typed plainly",
        value=token_display(picked.vocab[default_id]),
        key=f"forest.query:{picked.choice.key}",
        help="A leading space matters: ␣the and the are different tokens.",
    )
    if not query:
        return None
    found = token_by_text(picked.tokenizer, query)
    if found is not None:
        return found
    text = parse_token_display(query).decode("utf-8", "replace")
    pieces = picked.tokenizer.encode(text, disallowed_special=())
    merged = list(dict.fromkeys(i for i in pieces if i in picked.forest.made_by))
    st.info(
        f"{md(token_quote(text))} is not a single token of {md(picked.choice.label)}; it encodes as "
        + " · ".join(md(token_quote(picked.vocab[i])) for i in pieces[:40])
        + ("…" if len(pieces) > 40 else "")
    )
    if not merged:
        return None
    state.ensure_option("forest.pick", merged)
    return st.selectbox(
        "Pick one of its merged tokens",
        merged,
        format_func=lambda i: f"{token_quote(picked.vocab[i])} (id {i})",
        key="forest.pick",
    )


def find_by_id(picked: Picked, default_id: int) -> int | None:
    chosen = st.number_input(
        "Token id", min_value=0, max_value=max(picked.vocab), value=default_id, step=1,
        key=f"forest.id:{picked.choice.key}",
    )  # fmt: skip
    try:
        picked.tokenizer.token_bytes(int(chosen))
    except ValueError as exc:
        st.error(md(exc))
        return None
    return int(chosen)


def show_token(picked: Picked, token_id: int) -> None:
    """A token's facts, its derivation tree and the merges that use it."""
    token, forest = picked.vocab[token_id], picked.forest
    record = forest.made_by.get(token_id)
    st.subheader(md(token_quote(token)), anchor=False)
    facts = [("id", token_id), ("bytes", len(token)), ("merge rank", f"{record.rank:,}" if record else "—"),
             ("tree depth", forest.depth.get(token_id, 0))]  # fmt: skip
    for column, (label, value) in zip(st.columns(4), facts):
        column.metric(label, value)  # plain: constant labels, numbers
    if picked.tokenizer.is_special(token_id):
        st.info("A special token: added whole, never built by merges.")
    elif record is None:
        st.info(md(tokenizers.unmerged_note(picked.tokenizer, token_id, token)))
    else:
        count = f", seen {record.count:,} times when it was chosen" if record.count is not None else ""
        st.markdown(
            f"Made by merge rank **{record.rank:,}**: {md(token_quote(picked.vocab[record.left]))} (id {record.left:d}) + "
            f"{md(token_quote(picked.vocab[record.right]))} (id {record.right:d}){md(count)}."
        )
        dot, clipped = derivation_dot(picked, token_id)
        st.graphviz_chart(dot)
        if clipped:
            st.caption(f"The tree is cut at {MAX_TREE_NODES:,} nodes.")
    users = forest.used_in.get(token_id, [])
    st.markdown(f"**Tokens built from it**: {len(users):,}")
    if users:
        show_table(tables.merges_table(picked.tokenizer, users[:MAX_TABLE_ROWS], records=forest.records, vocab=picked.vocab), height=240)
        if len(users) > MAX_TABLE_ROWS:
            st.caption(f"First {MAX_TABLE_ROWS:,} of {len(users):,}.")


def token_tab(picked: Picked) -> None:
    # Widgets whose range depends on the tokenizer get one key per tokenizer (and a default value):
    # each tokenizer keeps its own choices. The default token is the deepest of the first 2,000 merges.
    early = picked.forest.records[:2_000]
    deepest = max(early, key=lambda r: (picked.forest.depth[r.id], -r.rank))
    mode = st.radio("Find by", ["text", "id"], horizontal=True, key="forest.mode")
    token_id = find_by_text(picked, deepest.id) if mode == "text" else find_by_id(picked, deepest.id)
    if token_id is not None:
        show_token(picked, token_id)


def segmentation_tab(picked: Picked) -> None:
    """The text encoded with only the first k merges."""
    n_merges, vocab = len(picked.forest.records), picked.vocab
    if "forest.seg_text" not in st.session_state:
        st.session_state["forest.seg_text"] = sample_text(400)
    seg_text = st.text_area("Text", key="forest.seg_text", height=110)
    k = st.slider("Merges applied (k)", 0, n_merges, value=min(n_merges, 50), key=f"forest.k:{picked.choice.key}")
    text = seg_text[:MAX_SEGMENT_CHARS]
    if len(seg_text) > MAX_SEGMENT_CHARS:
        st.caption(f"Only the first {MAX_SEGMENT_CHARS:,} characters are used here.")
    if not text:
        st.info("Type some text to watch its segmentation.")
        return
    try:
        partial = truncated(picked.choice.fingerprint, int(k), picked.tokenizer)
        infos = partial.encode_with_details(text, disallowed_special=())
        full = encode_text(picked.choice.fingerprint, text, False, picked.tokenizer)
    except ValueError as exc:
        st.error(md(exc))
        return
    columns = st.columns(3)
    columns[0].metric(f"tokens with {k:,} merges", f"{len(infos):,}")
    columns[1].metric(f"tokens with all {n_merges:,}", f"{full.ids_total:,}")
    columns[2].metric("bytes (k = 0)", f"{len(text.encode('utf-8', 'replace')):,}")
    if k:
        last = picked.forest.records[int(k) - 1]
        st.caption(
            f"Merge rank {k - 1:,} (the last applied) makes {md(token_quote(vocab[last.id]))} from "
            f"{md(token_quote(vocab[last.left]))} + {md(token_quote(vocab[last.right]))}."
        )
    st.html(render_tokens_html(text, infos, rank_of=partial.merge_rank_of))


def sunburst(picked: Picked, subset: int) -> go.Figure:
    """The first ``subset`` merges as a hierarchy: each token under its left part."""
    forest, vocab = picked.forest, picked.vocab
    records = forest.records[:subset]
    roots = dict.fromkeys(r.left for r in records if r.left not in forest.made_by)
    ids = [str(b) for b in roots] + [str(r.id) for r in records]
    labels = [plot_text(shown(vocab[b])) for b in roots] + [plot_text(shown(vocab[r.id])) for r in records]
    parents = [""] * len(roots) + [str(r.left) for r in records]
    hover = [f"byte {vocab[b].hex()} · id {b}" for b in roots] + [
        plot_text(f"rank {r.rank:,} · id {r.id} · {token_quote(vocab[r.left])} + {token_quote(vocab[r.right])}")
        + (f" · count {r.count:,}" if r.count is not None else "")
        for r in records
    ]
    figure = go.Figure(
        go.Sunburst(ids=ids, labels=labels, parents=parents, hovertext=hover, hoverinfo="text", maxdepth=3)
    )
    return charts.compact(figure, 560, top=10)


def overview_tab(picked: Picked) -> None:
    forest = picked.forest
    n_merges = len(forest.records)
    depths = list(forest.depth.values())
    longest = max(forest.records, key=lambda r: (forest.length[r.id], -r.rank))
    columns = st.columns(4)
    columns[0].metric("merges", f"{n_merges:,}")
    columns[1].metric("deepest tree", f"{max(depths):,}")
    columns[2].metric("mean depth", f"{sum(depths) / len(depths):.2f}")
    columns[3].metric("longest token (bytes)", f"{forest.length[longest.id]:,}")
    left, right = st.columns(2)
    with left:
        figure = charts.count_bars(depths, "derivation tree depth", "merged tokens", "Depth distribution")
        st.plotly_chart(figure, key="forest.depths")
    with right:
        lengths = [forest.length[r.id] for r in forest.records]
        figure = charts.count_bars(lengths, "token length (bytes)", "merged tokens", "Token length distribution")
        st.plotly_chart(figure, key="forest.lengths")
    st.markdown("**The first merges as a hierarchy**: each token sits under its left part (so *the* sits under *th*).")
    subset_max = min(n_merges, 3_000)
    subset = st.slider(
        "Merges in the plot", min_value=1, max_value=max(subset_max, 2), value=min(subset_max, 300),
        key=f"forest.subset:{picked.choice.key}",
    )  # fmt: skip
    st.plotly_chart(sunburst(picked, subset), key="forest.sunburst")
    st.caption("Click a segment to zoom into it; click the centre to zoom out.")


def unused_table(picked: Picked, unused: list) -> pd.DataFrame:
    forest = picked.forest
    rows = [
        {
            "rank": r.rank,
            "token": shown(picked.vocab[r.id]),
            "id": r.id,
            "bytes": forest.length[r.id],
            "training count": r.count,
            "built into": len(forest.used_in.get(r.id, [])),
        }
        for r in unused[:MAX_TABLE_ROWS]
    ]
    return pd.DataFrame(rows, columns=["rank", "token", "id", "bytes", "training count", "built into"])


def check_texts(choice: TokenizerChoice) -> tuple[str, list[str]]:
    """The texts to encode: the tokenizer's own training text when this session has it, else the default's."""
    corpus = tokenizers.corpus_for(choice.key)
    if corpus is not None:
        st.markdown(f"Encoding the tokenizer's own training text: **{md(corpus[0])}**.")
        return corpus
    label, texts = tokenizers.corpus_for(tokenizers.DEFAULT_KEY)
    st.markdown(
        f"The training text of **{md(choice.label)}** is not available in this session, so the check uses "
        f"**{md(label)}** instead."
    )
    return label, texts


def unused_tab(picked: Picked) -> None:
    """Merged tokens that encoding the training text never produces, and the most used ones."""
    label, texts = check_texts(picked.choice)
    total_chars = sum(map(len, texts))
    if total_chars > MAX_STATS_CHARS:
        st.caption(f"Only the first {MAX_STATS_CHARS:,} of {total_chars:,} characters are encoded.")
    signature = f"{picked.choice.key}|{label}|{total_chars}"
    try:
        usage = usage_counts(picked.choice.fingerprint, signature, picked.tokenizer, texts)
    except ValueError as exc:
        st.error(md(exc))
        return
    n_merges = len(picked.forest.records)
    unused = [r for r in picked.forest.records if r.id not in usage]
    columns = st.columns(3)
    columns[0].metric("merged tokens", f"{n_merges:,}")
    columns[1].metric("never produced", f"{len(unused):,}")
    columns[2].metric("share", f"{len(unused) / n_merges:.1%}")
    st.caption(
        "A merged token can go unused because later merges always absorb it into longer tokens, or because "
        "the text differs from what the tokenizer was trained on."
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Never produced** (by rank)")
        show_table(unused_table(picked, unused), height=360)
        if len(unused) > MAX_TABLE_ROWS:
            st.caption(f"First {MAX_TABLE_ROWS:,} of {len(unused):,}.")
    with right:
        st.markdown("**Most used**")
        top = sorted(usage.items(), key=lambda item: -item[1])[:50]
        rows = [{"token": shown(picked.vocab[i]), "id": i, "uses": c} for i, c in top]
        show_table(pd.DataFrame(rows, columns=["token", "id", "uses"]), height=360)


def pick_tokenizer() -> Picked | None:
    """The tokenizer picker; None (after saying why) when the tokenizer cannot be shown."""
    choices, external = tokenizers.with_merges(tokenizers.available_tokenizers())
    state.keep_widget_state(restore_only=["forest.tokenizer", "forest.mode", "forest.seg_text"])
    if external:  # WordPiece, Unigram, SentencePiece files: no merges to draw
        st.caption("Not offered here: " + md(", ".join(external)) + ": external tokenizers have no merge list (see Tokenize and Compare for them).")
    default = st.session_state.get(state.LAST_TRAINED) or tokenizers.DEFAULT_KEY
    choice = tokenizer_picker("Tokenizer", choices, key="forest.tokenizer", default=default)
    try:
        tokenizer = choice.get()
    except ValueError as exc:
        st.error(f"{md(choice.label)} could not be loaded: {md(exc)}")
        return None
    picked = Picked(choice, tokenizer, forest_of(choice.fingerprint, tokenizer))
    if not picked.forest.records:
        st.warning(f"{md(choice.label)} has no merges: every token is a single byte (or a special token).")
        return None
    return picked


def main() -> None:
    page_header(
        "Merge forest",
        "Every merged token is the root of a binary tree of earlier merges down to single bytes; together they "
        "form the merge forest.",
    )
    picked = pick_tokenizer()
    if picked is None:
        return
    tabs = st.tabs(["Find a token", "First k merges", "Forest overview", "Unused tokens"])
    for tab, draw in zip(tabs, [token_tab, segmentation_tab, overview_tab, unused_tab]):
        with tab:
            draw(picked)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
