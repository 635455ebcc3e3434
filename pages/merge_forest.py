"""Merge forest: how a token was built, what it builds, segmentation with the first k merges, an
overview of the whole forest, and tokens that encoding never produces."""

from __future__ import annotations

import collections
from dataclasses import dataclass

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from bpe_core import Tokenizer, token_display

from pages import _common as ui

MAX_TREE_NODES = 255
MAX_TABLE_ROWS = 1_000


@dataclass(frozen=True)
class Forest:
    """Indexes over a tokenizer's merge records (computed once per tokenizer)."""

    records: list
    made_by: dict  # token id -> MergeRecord that made it
    used_in: dict  # token id -> ranks of the merges that use it as a part
    depth: dict  # token id -> height of its derivation tree (bytes: 0)
    length: dict  # token id -> bytes


@st.cache_resource(show_spinner="Indexing merges…", max_entries=8)
def forest_of(fingerprint: str, _tokenizer: Tokenizer) -> Forest:
    records = _tokenizer.merge_records
    vocab = _tokenizer.vocab
    made_by = {r.id: r for r in records}
    used_in: dict[int, list[int]] = collections.defaultdict(list)
    depth: dict[int, int] = {}
    for r in records:
        used_in[r.left].append(r.rank)
        if r.right != r.left:
            used_in[r.right].append(r.rank)
        depth[r.id] = 1 + max(depth.get(r.left, 0), depth.get(r.right, 0))
    length = {token_id: len(token) for token_id, token in vocab.items()}
    return Forest(records, made_by, dict(used_in), depth, length)


@st.cache_resource(show_spinner="Building the truncated tokenizer…", max_entries=16)
def truncated(fingerprint: str, k: int, _tokenizer: Tokenizer) -> Tokenizer:
    return _tokenizer.truncated(k)


@st.cache_data(show_spinner="Counting token usage…", max_entries=16)
def usage_counts(fingerprint: str, text_signature: str, _tokenizer: Tokenizer, _texts: list[str]) -> dict[int, int]:
    counts: collections.Counter = collections.Counter()
    budget = ui.MAX_STATS_CHARS
    for text in _texts:
        if budget <= 0:
            break
        counts.update(_tokenizer.encode(text[:budget], disallowed_special=()))
        budget -= len(text)
    return dict(counts)


def shown(token: bytes) -> str:
    return token_display(token).replace(" ", "␣")


def dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


DEPTH_COLOURS = ["#e9ecef", "#d0ebff", "#a5d8ff", "#74c0fc", "#4dabf7", "#339af0", "#228be6", "#1c7ed6"]


def derivation_dot(tokenizer: Tokenizer, forest: Forest, token_id: int) -> tuple[str, bool]:
    """DOT source of the derivation tree of ``token_id`` (root on top, bytes at the bottom)."""
    vocab = tokenizer.vocab
    lines = [
        "digraph derivation {",
        'graph [ordering=out, nodesep=0.15, ranksep=0.35, bgcolor="transparent"];',
        'node [shape=box, style="rounded,filled", fontname="monospace", fontsize=11, color="#495057"];',
        'edge [arrowhead=none, color="#868e96"];',
    ]
    counter = 0
    clipped = False

    def add(tid: int) -> str:
        nonlocal counter, clipped
        node = f"n{counter}"
        counter += 1
        record = forest.made_by.get(tid)
        label = dot_escape(shown(vocab[tid]))
        if record is None:
            label += f"\\nbyte {vocab[tid].hex()} · id {tid}"
            colour = "#fff3bf"
        else:
            label += f"\\nid {tid} · rank {record.rank}"
            if record.count is not None:
                label += f"\\ncount {record.count:,}"
            colour = DEPTH_COLOURS[min(forest.depth[tid], len(DEPTH_COLOURS) - 1)]
        lines.append(f'{node} [label="{label}", fillcolor="{colour}"];')
        if record is not None:
            if counter + 2 > MAX_TREE_NODES:
                clipped = True
            else:
                left = add(record.left)
                right = add(record.right)
                lines.append(f"{node} -> {left};")
                lines.append(f"{node} -> {right};")
        return node

    add(token_id)
    lines.append("}")
    return "\n".join(lines), clipped


ui.page_header(
    "Merge forest",
    "Every merged token is the root of a binary tree of earlier merges down to single bytes; together they form "
    "the merge forest.",
)

choices = ui.available_tokenizers()
ui.keep_widget_state(restore_only=["forest.tokenizer", "forest.mode", "forest.seg_text"])
choice = ui.tokenizer_picker(
    "Tokenizer", choices, key="forest.tokenizer", default=st.session_state.get(ui.LAST_TRAINED) or ui.DEFAULT_KEY
)
try:
    tokenizer = choice.get()
except ValueError as exc:
    st.error(f"{choice.label} could not be loaded: {exc}")
    st.stop()
forest = forest_of(choice.fingerprint, tokenizer)
vocab = tokenizer.vocab
n_merges = len(forest.records)
if not n_merges:
    st.warning(f"{choice.label} has no merges: every token is a single byte (or a special token).")
    st.stop()

tab_token, tab_slider, tab_overview, tab_unused = st.tabs(
    ["Find a token", "First k merges", "Forest overview", "Unused tokens"]
)

# ------------------------------------------------------------------------------------------------
# a token's derivation

with tab_token:
    # Widgets whose range depends on the tokenizer get one key per tokenizer (and a default value):
    # each tokenizer keeps its own choices. The default token is the deepest of the first 2,000 merges.
    early = forest.records[: min(n_merges, 2_000)]
    deepest = max(early, key=lambda r: (forest.depth[r.id], -r.rank))
    mode = st.radio("Find by", ["text", "id"], horizontal=True, key="forest.mode")
    token_id: int | None = None
    if mode == "text":
        query = st.text_input(
            "Token text (a leading space matters: ' the' and 'the' are different tokens)",
            value=token_display(vocab[deepest.id]),
            key=f"forest.query:{choice.key}",
        )
        if query:
            try:
                token_id = tokenizer.token_id(query)
            except ValueError:
                pieces = tokenizer.encode(query, disallowed_special=())
                merged = list(dict.fromkeys(i for i in pieces if i in forest.made_by))
                st.info(
                    f"{query!r} is not a single token of {choice.label}; it encodes as "
                    + " · ".join(repr(token_display(vocab[i])) for i in pieces[:40])
                    + ("…" if len(pieces) > 40 else "")
                )
                if merged:
                    ui.ensure_option("forest.pick", merged)
                    token_id = st.selectbox(
                        "Pick one of its merged tokens",
                        merged,
                        format_func=lambda i: f"{token_display(vocab[i])!r} (id {i})",
                        key="forest.pick",
                    )
    else:
        chosen = st.number_input(
            "Token id", min_value=0, max_value=max(vocab), value=deepest.id, step=1, key=f"forest.id:{choice.key}"
        )
        try:
            tokenizer.token_bytes(int(chosen))
            token_id = int(chosen)
        except ValueError as exc:
            st.error(str(exc))

    if token_id is not None:
        token = vocab[token_id]
        record = forest.made_by.get(token_id)
        st.subheader(f"{token_display(token)!r}", anchor=False)
        columns = st.columns(4)
        columns[0].metric("id", token_id)
        columns[1].metric("bytes", len(token))
        columns[2].metric("merge rank", record.rank if record else "—")
        columns[3].metric("tree depth", forest.depth.get(token_id, 0))
        if tokenizer.is_special(token_id):
            st.info("A special token: added whole, never built by merges.")
        elif record is None:
            st.info("A single byte: a leaf of the forest, not built by any merge.")
        else:
            count = f", seen {record.count:,} times when it was chosen" if record.count is not None else ""
            st.markdown(
                f"Made by merge **{record.rank}**: {shown(vocab[record.left])!r} (id {record.left}) + "
                f"{shown(vocab[record.right])!r} (id {record.right}){count}."
            )
            dot, clipped = derivation_dot(tokenizer, forest, token_id)
            st.graphviz_chart(dot)
            if clipped:
                st.caption(f"The tree is cut at {MAX_TREE_NODES} nodes.")
        users = forest.used_in.get(token_id, [])
        st.markdown(f"**Tokens built from it**: {len(users):,}")
        if users:
            st.dataframe(ui.merges_table(tokenizer, users[:MAX_TABLE_ROWS]), hide_index=True, height=240)
            if len(users) > MAX_TABLE_ROWS:
                st.caption(f"First {MAX_TABLE_ROWS:,} of {len(users):,}.")

# ------------------------------------------------------------------------------------------------
# segmentation with the first k merges

with tab_slider:
    if "forest.seg_text" not in st.session_state:
        st.session_state["forest.seg_text"] = ui.sample_text(400)
    seg_text = st.text_area("Text", key="forest.seg_text", height=110)
    k = st.slider("Merges applied (k)", 0, n_merges, value=min(n_merges, 50), key=f"forest.k:{choice.key}")
    seg_show = seg_text[:5_000]
    if len(seg_text) > 5_000:
        st.caption("Only the first 5,000 characters are used here.")
    if seg_show:
        try:
            partial = truncated(choice.fingerprint, int(k), tokenizer)
            infos = partial.encode_with_details(seg_show, disallowed_special=())
            full = ui.encode_text(choice.fingerprint, seg_show, False, tokenizer)
        except ValueError as exc:
            st.error(str(exc))
        else:
            columns = st.columns(3)
            columns[0].metric(f"tokens with {k:,} merges", f"{len(infos):,}")
            columns[1].metric(f"tokens with all {n_merges:,}", f"{full.ids_total:,}")
            columns[2].metric("bytes (k = 0)", f"{len(seg_show.encode('utf-8', 'replace')):,}")
            if k:
                last = forest.records[int(k) - 1]
                st.caption(
                    f"Merge {k - 1} (the last applied) makes {shown(vocab[last.id])!r} from "
                    f"{shown(vocab[last.left])!r} + {shown(vocab[last.right])!r}."
                )
            ui.show_html(ui.render_tokens_html(seg_show, infos, rank_of=partial.merge_rank_of))
    else:
        st.info("Type some text to watch its segmentation.")

# ------------------------------------------------------------------------------------------------
# overview

with tab_overview:
    depths = list(forest.depth.values())
    lengths = [forest.length[r.id] for r in forest.records]
    longest = max(forest.records, key=lambda r: (forest.length[r.id], -r.rank))
    columns = st.columns(4)
    columns[0].metric("merges", f"{n_merges:,}")
    columns[1].metric("deepest tree", max(depths))
    columns[2].metric("mean depth", f"{sum(depths) / len(depths):.2f}")
    columns[3].metric("longest token (bytes)", forest.length[longest.id])
    left, right = st.columns(2)
    depth_counts = collections.Counter(depths)
    with left:
        figure = px.bar(
            x=sorted(depth_counts), y=[depth_counts[d] for d in sorted(depth_counts)],
            labels={"x": "derivation tree depth", "y": "merged tokens"}, title="Depth distribution",
        )
        figure.update_layout(height=300, margin=dict(l=10, r=10, t=40, b=10))
        st.plotly_chart(figure, key="forest.depths")
    length_counts = collections.Counter(lengths)
    with right:
        figure = px.bar(
            x=sorted(length_counts), y=[length_counts[d] for d in sorted(length_counts)],
            labels={"x": "token length (bytes)", "y": "merged tokens"}, title="Token length distribution",
        )
        figure.update_layout(height=300, margin=dict(l=10, r=10, t=40, b=10))
        st.plotly_chart(figure, key="forest.lengths")

    st.markdown("**The first merges as a hierarchy**: each token sits under its left part (so *the* sits under *th*).")
    subset_max = min(n_merges, 3_000)
    subset = st.slider(
        "Merges in the plot",
        min_value=1,
        max_value=max(subset_max, 2),
        value=min(subset_max, 300),
        key=f"forest.subset:{choice.key}",
    )
    ids, labels, parents, hover = [], [], [], []
    roots: dict[int, None] = {}
    for r in forest.records[:subset]:
        if r.left not in forest.made_by:
            roots.setdefault(r.left, None)
    for byte_id in roots:
        ids.append(str(byte_id))
        labels.append(shown(vocab[byte_id]))
        parents.append("")
        hover.append(f"byte {vocab[byte_id].hex()} · id {byte_id}")
    for r in forest.records[:subset]:
        ids.append(str(r.id))
        labels.append(shown(vocab[r.id]))
        parents.append(str(r.left))
        count = f" · count {r.count:,}" if r.count is not None else ""
        hover.append(f"rank {r.rank} · id {r.id} · {shown(vocab[r.left])!r} + {shown(vocab[r.right])!r}{count}")
    figure = go.Figure(
        go.Sunburst(ids=ids, labels=labels, parents=parents, hovertext=hover, hoverinfo="text", maxdepth=3)
    )
    figure.update_layout(height=560, margin=dict(l=10, r=10, t=10, b=10))
    st.plotly_chart(figure, key="forest.sunburst")
    st.caption("Click a segment to zoom into it; click the centre to zoom out.")

# ------------------------------------------------------------------------------------------------
# tokens never produced

with tab_unused:
    corpus = ui.corpus_for(choice.key)
    if corpus is not None:
        corpus_label, texts = corpus
        st.markdown(f"Encoding the tokenizer's own training text: **{corpus_label}**.")
    else:
        corpus_label, texts = ui.default_corpus()
        st.markdown(
            f"The training text of **{choice.label}** is not available in this session, so the check uses "
            f"**{corpus_label}** instead."
        )
    total_chars = sum(map(len, texts))
    if total_chars > ui.MAX_STATS_CHARS:
        st.caption(f"Only the first {ui.MAX_STATS_CHARS:,} of {total_chars:,} characters are encoded.")
    try:
        usage = usage_counts(choice.fingerprint, f"{choice.key}|{corpus_label}|{total_chars}", tokenizer, texts)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()
    unused = [r for r in forest.records if r.id not in usage]
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
        table = pd.DataFrame(
            [
                {
                    "rank": r.rank,
                    "token": shown(vocab[r.id]),
                    "id": r.id,
                    "bytes": forest.length[r.id],
                    "training count": r.count,
                    "built into": len(forest.used_in.get(r.id, [])),
                }
                for r in unused[:MAX_TABLE_ROWS]
            ],
            columns=["rank", "token", "id", "bytes", "training count", "built into"],
        )
        st.dataframe(table, hide_index=True, height=360)
        if len(unused) > MAX_TABLE_ROWS:
            st.caption(f"First {MAX_TABLE_ROWS:,} of {len(unused):,}.")
    with right:
        st.markdown("**Most used**")
        top = sorted(usage.items(), key=lambda item: -item[1])[:50]
        st.dataframe(
            pd.DataFrame(
                [{"token": shown(vocab[i]), "id": i, "uses": c} for i, c in top],
                columns=["token", "id", "uses"],
            ),
            hide_index=True,
            height=360,
        )
