"""Step through: BPE training on a tiny input, one merge at a time (byte-level or textbook </w>)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.display import glyphs
from bpe_core.display.pieces import labels_among, piece_note
from bpe_core.training._educational import TextbookResult, TraceResult, trace_training, train_textbook
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from pages._ui import charts, state
from pages._ui.render import markdown_text as md
from pages._ui.render import render_tokens_html, symbol_text, token_quote, words_html
from pages._ui.widgets import page_header, show_table

MODES = {
    "bytes": "Byte-level, GPT-2 pre-tokenization",
    "stream": "Byte-level, one byte stream (no pre-tokenization)",
    "textbook": "Textbook: characters + </w> (Sennrich)",
}


class Example(TypedDict):
    """A ready-made input: what the Example box shows, and the text and settings it puts in place."""

    label: str
    text: str
    per_line: bool
    mode: str
    probe: str


EXAMPLES: dict[str, Example] = {
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
MAX_WORDS_SHOWN = 200
EXAMPLE = "steps.example"


@dataclass(frozen=True)
class Trace:
    """A training run on the input, step by step, in either mode's terms."""

    textbook: bool
    result: TextbookResult | TraceResult
    initial: list  # (symbols, frequency) of every unique word before any merge
    steps: list
    stop_reason: str

    def words_after(self, step) -> list:
        """(symbols, frequency) of every unique word after ``step``."""
        return step.words if self.textbook else [(w.symbols, w.freq) for w in step.words]

    def words_before(self, index: int) -> list:
        """(symbols, frequency) of every unique word before the merge ``steps[index]``."""
        return self.initial if index == 0 else self.words_after(self.steps[index - 1])


def apply_example() -> None:
    example = EXAMPLES[st.session_state[EXAMPLE]]
    if st.session_state[EXAMPLE] != "custom":
        st.session_state["steps.text"] = example["text"]
    st.session_state["steps.per_line"] = example["per_line"]
    st.session_state["steps.mode"] = example["mode"]
    st.session_state["steps.probe"] = example["probe"]
    st.session_state[state.STEPS_POSITION] = 0


def own_text() -> None:
    """Input box callback: text typed over an example is the user's own, and the Example box says so
    (keeping the text and the mode as they are)."""
    chosen = st.session_state.get(EXAMPLE)
    if chosen in EXAMPLES and chosen != "custom" and st.session_state.get("steps.text") != EXAMPLES[chosen]["text"]:
        st.session_state[EXAMPLE] = "custom"


def go_to(position: int) -> None:
    st.session_state[state.STEPS_POSITION] = position


@st.cache_data(show_spinner=False, max_entries=32)
def byte_trace(documents: tuple[str, ...], num_merges: int, pattern: str | None, tie_break: str) -> TraceResult:
    return trace_training(list(documents), num_merges, pattern=pattern, tie_break=tie_break, min_frequency=1, top=10)


@st.cache_data(show_spinner=False, max_entries=32)
def textbook_trace(documents: tuple[str, ...], num_merges: int) -> TextbookResult:
    return train_textbook(list(documents), num_merges, top=10)


def trace_of(documents: tuple[str, ...], num_merges: int, mode: str, tie_break: str) -> Trace:
    if mode == "textbook":
        textbook = textbook_trace(documents, num_merges)
        stop = "no pair left to merge" if len(textbook.steps) < num_merges else "reached the number of merges"
        return Trace(True, textbook, list(textbook.initial), textbook.steps, stop)
    result = byte_trace(documents, num_merges, "gpt2" if mode == "bytes" else None, tie_break)
    return Trace(False, result, [(w.symbols, w.freq) for w in result.initial], result.steps, result.stop_reason)


TIE_HELP = "  \n".join(f"{name}: {rule}." for name, rule in TIE_RULES.items())


def read_inputs() -> tuple[str, int, tuple[str, ...], str]:
    """Draw the inputs: (mode, merges, documents, tie rule)."""
    top = st.columns([3, 3, 1])
    top[0].selectbox(
        "Example", list(EXAMPLES), format_func=lambda k: EXAMPLES[k]["label"], key=EXAMPLE, on_change=apply_example
    )
    mode = top[1].selectbox("Mode", list(MODES), format_func=MODES.__getitem__, key="steps.mode")
    num_merges = top[2].number_input("Merges", min_value=1, max_value=300, key="steps.merges")
    text = st.text_area("Input", key="steps.text", height=90, max_chars=MAX_INPUT_CHARS, on_change=own_text)
    options = st.columns(3)
    per_line = options[0].checkbox("One document per line", key="steps.per_line")
    tie_break = "first"
    if mode != "textbook":
        tie_break = options[1].radio("Tie rule", list(TIE_BREAKS), horizontal=True, key="steps.tie", help=TIE_HELP)
    if per_line:
        documents = tuple(line for line in text.splitlines() if line.strip())
    else:
        documents = (text,) if text.strip() else ()
    return mode, int(num_merges), documents, tie_break


def current_position(signature: tuple, steps: int) -> int:
    """The merge to show: back to the start when the input changed, always within 0..steps."""
    if st.session_state.get(state.STEPS_SIGNATURE) != signature:
        st.session_state[state.STEPS_SIGNATURE] = signature
        st.session_state[state.STEPS_POSITION] = 0
    position = min(max(0, int(st.session_state.get(state.STEPS_POSITION, 0))), steps)
    st.session_state[state.STEPS_POSITION] = position
    return position


def navigation(position: int, steps: int) -> None:
    nav = st.columns([1, 1, 1, 1, 4])
    buttons = [
        ("Start", ":material/first_page:", "steps.start", 0, position == 0),
        ("Back", ":material/chevron_left:", "steps.back", position - 1, position == 0),
        ("Next", ":material/chevron_right:", "steps.next", position + 1, position >= steps),
        ("End", ":material/last_page:", "steps.end", steps, position >= steps),
    ]
    for column, (label, icon, key, target, disabled) in zip(nav, buttons, strict=False):
        column.button(
            label,  # plain: the buttons above
            icon=icon,
            key=key,
            on_click=go_to,
            args=(target,),
            disabled=disabled,
            type="primary" if key == "steps.next" else "secondary",
        )
    nav[4].progress(position / steps if steps else 1.0, text=f"{position:,} of {steps:,} merges applied")


def pair_text(pair: tuple, words: list | None = None) -> str:
    """A pair of symbols in prose, each written knowing the other and, with ``words``, where the pair
    stands in them: ‘⟨你 1/3⟩’ + ‘⟨你 2/3⟩’ when it is always in 你, ‘⟨Devanagari 1/3⟩’ + ‘⟨Devanagari 2/3⟩’
    when several letters share its bytes (``pieces.labels_among``), ‘l’ + ‘o’ for textbook symbols."""
    left, right = pair
    if isinstance(left, bytes) and isinstance(right, bytes):
        shown = labels_among([left, right], (word for word, _ in words or ()))
        return f"{glyphs.quote(shown[0])} + {glyphs.quote(shown[1])}"
    return f"{token_quote(left)} + {token_quote(right)}"


def new_text(token: bytes | str, words: list) -> str:
    """The merged symbol as it stands in the words after the merge (⟨你 1–2/3⟩ when it is always part of
    你), or as its bytes can be part of (⟨Devanagari 1–2/3⟩)."""
    if isinstance(token, bytes):
        return labels_among([token], (word for word, _ in words))[0]
    return symbol_text(token)


def step_heading(trace: Trace, step, tie_break: str) -> None:
    """The merge's title (its rank, counted from 0 as on every page), and why this pair won."""
    before = trace.words_before(step.number - 1)
    if trace.textbook:
        new_label, id_text = token_quote(step.merged), ""
    else:
        new_label = glyphs.quote(new_text(step.new_token, trace.words_after(step)))
        id_text = f" (new id {step.new_id:d})"
    pair = pair_text(step.pair, before)
    st.subheader(f"Merge rank {step.number - 1:,}: {md(pair)} → {md(new_label)}{md(id_text)}")
    tied = sum(1 for pair, count in step.top_pairs if count == step.count and pair != step.pair)
    rule = TIE_RULES["first" if trace.textbook else tie_break]
    tie_note = f"; {tied:,} other pair(s) tie with it, and ties go to {rule}" if tied else ""
    st.caption(f"The pair occurs {step.count:,} time(s), the highest count{md(tie_note)}.")


def pair_counts(title: str, step, words: list) -> None:
    st.markdown(f"**{title}**")  # plain: the titles are written in this page
    if step is None:
        st.caption("No pairs left.")
        return
    rows = [
        {"pair": pair_text((a, b), words), "count": count, "chosen": "✔" if (a, b) == step.pair else ""}
        for (a, b), count in step.top_pairs
    ]
    show_table(pd.DataFrame(rows))
    note = piece_note(row["pair"] for row in rows)  # only when a pair names part of a character
    st.caption(
        f"The ten most frequent pairs; a pair's count is weighted by how often its word occurs. {md(note or '')}"
    )


def show_step(trace: Trace, position: int, tie_break: str) -> None:
    """The merge at ``position`` (or the start), the pair counts behind it and the words after it."""
    if position == 0:
        words, highlight = trace.initial, None
        st.subheader("Start: every word split into " + ("characters + </w>" if trace.textbook else "bytes"))
        counts_step = trace.steps[0] if trace.steps else None
        counts_title, counted = "Pair counts now (the top pair is merged next)", trace.initial
    else:
        step = trace.steps[position - 1]
        words = trace.words_after(step)
        highlight = step.merged if trace.textbook else step.new_token
        step_heading(trace, step, tie_break)
        counts_step, counts_title = step, "Pair counts before this merge"
        counted = trace.words_before(position - 1)
    left, right = st.columns([2, 3])
    with left:
        pair_counts(counts_title, counts_step, counted)
    with right:
        when = "before any merge" if position == 0 else "after this merge"
        st.markdown(f"**Sequence {when}** (unique words, ×frequency)")  # plain: `when` is one of two phrases
        st.html(words_html(words[:MAX_WORDS_SHOWN], highlight))
        if len(words) > MAX_WORDS_SHOWN:
            st.caption(f"First {MAX_WORDS_SHOWN:,} of {len(words):,} unique words.")
        token_total = sum(len(symbols) * freq for symbols, freq in words)
        initial_total = sum(len(symbols) * freq for symbols, freq in trace.initial)
        st.caption(f"{token_total:,} symbols in all (started with {initial_total:,}).")


def show_history(trace: Trace, position: int) -> None:
    """The merges so far, and the symbol count after each merge."""
    below = st.columns(2)
    with below[0]:
        st.markdown(f"**Merges so far** ({position:,})")
        rows = [
            {
                "rank": s.number - 1,
                "pair": pair_text(s.pair, trace.words_before(s.number - 1)),
                "new token": new_text(s.merged if trace.textbook else s.new_token, trace.words_after(s)),
                "count": s.count,
            }
            for s in trace.steps[:position]
        ]
        show_table(pd.DataFrame(rows, columns=["rank", "pair", "new token", "count"]), height=250)
        if position == len(trace.steps):
            st.caption(f"Training stopped: {md(trace.stop_reason)}.")
    with below[1]:
        totals = [sum(len(s) * f for s, f in words) for words in [trace.initial, *map(trace.words_after, trace.steps)]]
        figure = charts.line(
            range(len(totals)),
            totals,
            name="symbols",
            title="Symbols in the corpus after each merge",
            x_title="merges",
            y_title="symbols",
            height=280,
            markers=True,
            top=30,
        )
        with charts.PLOTLY_LOCK:
            figure.add_vline(x=position, line_dash="dot", line_color="#e8590c")
        st.plotly_chart(figure, key="steps.curve", config=charts.plot_config("symbols-after-each-merge"))


def show_probe(trace: Trace, position: int, mode: str) -> None:
    """Encode the user's text with the first ``position`` merges."""
    st.markdown(f"**Encode with the first {position:,} merge(s)**")
    probe = st.text_input("Text to encode", key="steps.probe")
    if not probe.strip():
        return
    steps = trace.steps[:position]
    if isinstance(trace.result, TextbookResult):
        partial = TextbookResult(trace.result.initial, steps)
        rows = [f"{word:>12}  →  {' '.join(partial.encode_word(word))}" for word in probe.split()]
        st.code("\n".join(rows), language=None)
        return
    vocab = {i: bytes([i]) for i in range(256)} | {s.new_id: s.new_token for s in steps}
    try:
        tokenizer = Tokenizer(vocab, [s.pair for s in steps], pattern="gpt2" if mode == "bytes" else None)
        infos = tokenizer.encode_with_details(probe)
    except ValueError as exc:
        st.error(md(exc))
        return
    st.html(render_tokens_html(probe, infos, rank_of=tokenizer.merge_rank_of, show_whitespace=True))
    st.caption(f"{len(infos):,} token(s); ids: {md([i.id for i in infos])}")


def main() -> None:
    state.keep_widget_state(
        {"steps.merges": 10, "steps.tie": "first"},
        restore_only=[EXAMPLE, "steps.text", "steps.per_line", "steps.mode", "steps.probe"],
    )
    if EXAMPLE not in st.session_state:
        st.session_state[EXAMPLE] = "low-lower"
        apply_example()
    page_header(
        "Step through training",
        "Watch BPE learn on a tiny input: count adjacent pairs, merge the most frequent one, repeat. "
        "Use Next and Back to move one merge at a time.",
    )
    mode, num_merges, documents, tie_break = read_inputs()
    if not documents:
        st.info("Type some input (or pick an example) to step through.")
        return
    try:
        trace = trace_of(documents, num_merges, mode, tie_break)
    except ValueError as exc:
        st.error(md(exc))
        return
    position = current_position((documents, num_merges, mode, tie_break), len(trace.steps))
    navigation(position, len(trace.steps))
    if not trace.steps:
        st.warning(f"No merge is possible on this input ({md(trace.stop_reason)}).")
    show_step(trace, position, tie_break)
    show_history(trace, position)
    show_probe(trace, position, mode)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
