"""Step through: BPE training on a tiny input, one merge at a time (byte-level or textbook </w>)."""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bpe_core import Tokenizer, token_display
from bpe_core.textbook import TextbookResult, train_textbook
from bpe_core.trace import trace_training

from pages import _common as ui

MODES = {
    "bytes": "Byte-level, GPT-2 pre-tokenization",
    "stream": "Byte-level, one byte stream (no pre-tokenization)",
    "textbook": "Textbook: characters + </w> (Sennrich)",
}
EXAMPLES = {
    "low-lower": {
        "label": "low lower newer wider (the textbook trace)",
        "text": "low low low low low lower newer newer newer newer wider",
        "per_line": False,
        "mode": "textbook",
        "probe": "slow slower lowest xyz",
    },
    "ab-abc": {
        "label": 'Two documents: "ab ab ab ab" and "abc abc"',
        "text": "ab ab ab ab\nabc abc",
        "per_line": True,
        "mode": "bytes",
        "probe": "abc ab abab",
    },
    "unicode": {
        "label": "A short paragraph on bytes and Unicode",
        "text": (
            "Text is stored as UTF-8 bytes: a plain letter takes one byte, é takes two, 你 takes three and "
            "🙂 takes four. Byte pair encoding does not care. It starts from the bytes, finds the pair that "
            "occurs most often, replaces it with a new token, and repeats; so the pairs that are common in "
            "the text, like th, he, in and er, become tokens first."
        ),
        "per_line": False,
        "mode": "stream",
        "probe": "the other 你好 🙂",
    },
    "custom": {"label": "Your own text", "text": "", "per_line": False, "mode": "bytes", "probe": ""},
}
MAX_INPUT_CHARS = 20_000


def apply_example() -> None:
    example = EXAMPLES[st.session_state["steps.example"]]
    if st.session_state["steps.example"] != "custom":
        st.session_state["steps.text"] = example["text"]
    st.session_state["steps.per_line"] = example["per_line"]
    st.session_state["steps.mode"] = example["mode"]
    st.session_state["steps.probe"] = example["probe"]
    st.session_state["steps.pos"] = 0


def go_to(position: int) -> None:
    st.session_state["steps.pos"] = position


ui.keep_widget_state(
    {"steps.merges": 10, "steps.tie": "first"},
    restore_only=["steps.example", "steps.text", "steps.per_line", "steps.mode", "steps.probe"],
)
if "steps.example" not in st.session_state:
    st.session_state["steps.example"] = "low-lower"
    apply_example()


@st.cache_data(show_spinner=False, max_entries=32)
def byte_trace(documents: tuple[str, ...], num_merges: int, pattern: str | None, tie_break: str):
    return trace_training(list(documents), num_merges, pattern=pattern, tie_break=tie_break, min_frequency=1, top=10)


@st.cache_data(show_spinner=False, max_entries=32)
def textbook_trace(documents: tuple[str, ...], num_merges: int):
    return train_textbook(list(documents), num_merges, top=10)


def symbol_text(symbol) -> str:
    if isinstance(symbol, bytes):
        return token_display(symbol).replace(" ", "␣")
    return symbol


def words_html(words, highlight) -> str:
    """Each unique word as boxed symbols with its frequency; the newly merged symbol highlighted."""
    parts = [
        "<style>.bpe-words{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.95rem;line-height:2.3;}"
        ".bpe-words .sym{border:1px solid #adb5bd;border-radius:4px;padding:1px 5px;margin-right:2px;background:#f8f9fa;color:#212529;}"
        ".bpe-words .new{background:#ffd43b;border-color:#f08c00;font-weight:700;}"
        ".bpe-words .freq{color:#868e96;margin-left:6px;margin-right:18px;}</style>",
        '<div class="bpe-words">',
    ]
    for symbols, freq in words:
        parts.append("<div>")
        for symbol in symbols:
            css = "sym new" if highlight is not None and symbol == highlight else "sym"
            parts.append(f'<span class="{css}">{html.escape(symbol_text(symbol), quote=False)}</span>')
        parts.append(f'<span class="freq">×{freq}</span></div>')
    parts.append("</div>")
    return "".join(parts)


ui.page_header(
    "Step through training",
    "Watch BPE learn on a tiny input: count adjacent pairs, merge the most frequent one, repeat. "
    "Use Next and Back to move one merge at a time.",
)

top = st.columns([3, 3, 1])
top[0].selectbox(
    "Example",
    list(EXAMPLES),
    format_func=lambda k: EXAMPLES[k]["label"],
    key="steps.example",
    on_change=apply_example,
)
mode = top[1].selectbox("Mode", list(MODES), format_func=MODES.get, key="steps.mode")
num_merges = top[2].number_input("Merges", min_value=1, max_value=300, key="steps.merges")
text = st.text_area("Input", key="steps.text", height=90, max_chars=MAX_INPUT_CHARS)
options = st.columns(3)
per_line = options[0].checkbox("One document per line", key="steps.per_line")
tie_break = "first"
if mode != "textbook":
    tie_break = options[1].radio(
        "Tie rule", ["first", "lexicographic"], horizontal=True, key="steps.tie",
        help="first: the pair met first wins (the seeds' naive algorithm). lexicographic: the greatest pair wins.",
    )

documents = tuple(line for line in text.splitlines() if line.strip()) if per_line else ((text,) if text.strip() else ())
if not documents:
    st.info("Type some input (or pick an example) to step through.")
    st.stop()

try:
    if mode == "textbook":
        result = textbook_trace(documents, int(num_merges))
        initial = [(symbols, freq) for symbols, freq in result.initial]
        steps = result.steps
        stop_reason = "no pair left to merge" if len(steps) < num_merges else "reached the number of merges"
    else:
        result = byte_trace(documents, int(num_merges), "gpt2" if mode == "bytes" else None, tie_break)
        initial = [(w.symbols, w.freq) for w in result.initial]
        steps = result.steps
        stop_reason = result.stop_reason
except ValueError as exc:
    st.error(str(exc))
    st.stop()

signature = (documents, int(num_merges), mode, tie_break)
if st.session_state.get("steps.signature") != signature:
    st.session_state["steps.signature"] = signature
    st.session_state["steps.pos"] = 0
position = min(max(0, int(st.session_state.get("steps.pos", 0))), len(steps))
st.session_state["steps.pos"] = position

# ------------------------------------------------------------------------------------------------
# navigation

nav = st.columns([1, 1, 1, 1, 4])
nav[0].button("Start", icon=":material/first_page:", key="steps.start", on_click=go_to, args=(0,), disabled=position == 0)
nav[1].button(
    "Back", icon=":material/chevron_left:", key="steps.back", on_click=go_to, args=(position - 1,), disabled=position == 0
)
nav[2].button(
    "Next",
    icon=":material/chevron_right:",
    key="steps.next",
    on_click=go_to,
    args=(position + 1,),
    disabled=position >= len(steps),
    type="primary",
)
nav[3].button(
    "End", icon=":material/last_page:", key="steps.end", on_click=go_to, args=(len(steps),), disabled=position >= len(steps)
)
nav[4].progress(position / len(steps) if steps else 1.0, text=f"Merge {position} of {len(steps)}")

if not steps:
    st.warning(f"No merge is possible on this input ({stop_reason}).")

if position == 0:
    words = initial
    highlight = None
    st.subheader("Start: every word split into " + ("characters + </w>" if mode == "textbook" else "bytes"))
    counts_step = steps[0] if steps else None
    counts_title = "Pair counts now (the top pair is merged next)"
else:
    step = steps[position - 1]
    if mode == "textbook":
        words = step.words
        highlight = step.merged
        new_label = step.merged
        id_text = ""
    else:
        words = [(w.symbols, w.freq) for w in step.words]
        highlight = step.new_token
        new_label = symbol_text(step.new_token)
        id_text = f" (new id {step.new_id})"
    left_part, right_part = (symbol_text(p) for p in step.pair)
    st.subheader(f"Merge {step.number}: {left_part!r} + {right_part!r} → {new_label!r}{id_text}")
    tied = sum(1 for pair, count in step.top_pairs if count == step.count and pair != step.pair)
    rule = "the pair met first" if mode == "textbook" or tie_break == "first" else "the greatest pair"
    tie_note = f"; {tied} other pair(s) tie with it, and ties go to {rule}" if tied else ""
    st.caption(f"The pair occurs {step.count:,} time(s), the highest count{tie_note}.")
    counts_step = step
    counts_title = "Pair counts before this merge"

left, right = st.columns([2, 3])
with left:
    st.markdown(f"**{counts_title}**")
    if counts_step is not None:
        rows = [
            {
                "pair": f"{symbol_text(a)!r} + {symbol_text(b)!r}",
                "count": count,
                "chosen": "✔" if (a, b) == counts_step.pair else "",
            }
            for (a, b), count in counts_step.top_pairs
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        st.caption("The ten most frequent pairs; a pair's count is weighted by how often its word occurs.")
    else:
        st.caption("No pairs left.")
with right:
    st.markdown("**Sequence " + ("before any merge**" if position == 0 else "after this merge**") + " (unique words, ×frequency)")
    shown_words = words[:200]
    ui.show_html(words_html(shown_words, highlight))
    if len(words) > 200:
        st.caption(f"First 200 of {len(words):,} unique words.")
    token_total = sum(len(symbols) * freq for symbols, freq in words)
    initial_total = sum(len(symbols) * freq for symbols, freq in initial)
    st.caption(f"{token_total:,} symbols in all (started with {initial_total:,}).")

# ------------------------------------------------------------------------------------------------
# merges so far, the token count curve, and encoding with the merges so far

below = st.columns(2)
with below[0]:
    st.markdown(f"**Merges so far** ({position})")
    merges_rows = [
        {
            "#": s.number,
            "pair": f"{symbol_text(s.pair[0])!r} + {symbol_text(s.pair[1])!r}",
            "new token": symbol_text(s.merged if mode == "textbook" else s.new_token),
            "count": s.count,
        }
        for s in steps[:position]
    ]
    st.dataframe(pd.DataFrame(merges_rows, columns=["#", "pair", "new token", "count"]), hide_index=True, height=250)
    if position == len(steps):
        st.caption(f"Training stopped: {stop_reason}.")
with below[1]:
    totals = [sum(len(s) * f for s, f in initial)] + [
        sum(len(symbols) * freq for symbols, freq in (s.words if mode == "textbook" else [(w.symbols, w.freq) for w in s.words]))
        for s in steps
    ]
    figure = go.Figure(go.Scatter(x=list(range(len(totals))), y=totals, mode="lines+markers", name="symbols"))
    figure.add_vline(x=position, line_dash="dot", line_color="#e8590c")
    figure.update_layout(
        height=280, margin=dict(l=10, r=10, t=30, b=10), title="Symbols in the corpus after each merge",
        xaxis_title="merges", yaxis_title="symbols",
    )
    st.plotly_chart(figure, key="steps.curve")

st.markdown(f"**Encode with the first {position} merge(s)**")
probe = st.text_input("Text to encode", key="steps.probe")
if probe.strip():
    if mode == "textbook":
        partial = TextbookResult(result.initial, steps[:position])
        pieces = [" ".join(partial.encode_word(word)) for word in probe.split()]
        st.code("\n".join(f"{word:>12}  →  {encoded}" for word, encoded in zip(probe.split(), pieces)), language=None)
    else:
        vocab = {i: bytes([i]) for i in range(256)}
        for s in steps[:position]:
            vocab[s.new_id] = s.new_token
        try:
            partial_tokenizer = Tokenizer(vocab, [s.pair for s in steps[:position]], pattern="gpt2" if mode == "bytes" else None)
            infos = partial_tokenizer.encode_with_details(probe)
        except ValueError as exc:
            st.error(str(exc))
        else:
            ui.show_html(ui.render_tokens_html(probe, infos, rank_of=partial_tokenizer.merge_rank_of, show_whitespace=True))
            st.caption(f"{len(infos)} token(s); ids: {[i.id for i in infos]}")
