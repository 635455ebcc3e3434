"""The Extend page's result: what the extension buys on the language's held-out sentences (metric cards,
one plain sentence, the premium over English as a curve over the tokens added, a sentence as token
strips before and after), what it costs (embedding rows, tokens the held-out text never uses), what it
did to other text, the new tokens (legible, each one's merge tree a click away in the Merge forest), and
the three files to take to the model. Every number comes from ``bpe_core``
(``analysis.extension``, the extended tokenizer's ``training["extension"]``); this module draws.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.extension import ExtensionReport
from bpe_core.workspace.extension_files import base_tokenizer_json, extension_files
from pages._extend.inputs import names
from pages._extend.run import Extended
from pages._ui import charts, tokenizers
from pages._ui.messages import stopped_in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import render_tokens_html, token_quote
from pages._ui.widgets import show_table

K_SENTENCE = "extend.sentence"
K_TOKEN = "extend.token"
#: The new tokens listed in the table (the first ones: the most frequent pairs come first).
LISTED = 2000
FILES = {
    "bpe_core": (".json", "application/json", "bpe_core JSON"),
    "huggingface": (".tokenizer.json", "application/json", "tokenizer.json (HF)"),
    "tiktoken": (".tiktoken", "text/plain", ".tiktoken"),
}


def summary_sentence(report: ExtensionReport, base_label: str, language: str) -> str:
    """One plain sentence of what the extension buys (Markdown, names escaped)."""
    before, after = report.before, report.after
    if before.premium is None or after.premium is None:
        return (
            f"On the held-out {md(language)} sentences, {md(base_label)} needs {before.tokens:,} tokens; "
            f"extended, {after.tokens:,}."
        )
    return (
        f"On {report.characters:,} characters of held-out {md(language)}, **{md(base_label)}** needs "
        f"**{before.premium:.2f}×** English's tokens; with {report.added:,} new tokens, "
        f"**{after.premium:.2f}×**. The curve flattens from about {report.flattens_at():,} new tokens "
        "(within 1% of the end)."
    )


def metrics(report: ExtensionReport) -> None:
    before, after = report.before, report.after
    columns = st.columns(5)
    span = f"ids {report.new_ids[0]:,}–{report.new_ids[-1]:,}" if report.new_ids else "no new id"
    columns[0].metric("New tokens", f"{report.added:,}", help=span)  # plain: a number
    columns[1].metric(
        "Embedding rows",
        f"{report.embedding_rows:,}",
        help="Rows to add to the model's embedding (and output) matrix, the gap before a chosen first id included.",
    )
    if before.premium is not None and after.premium is not None:
        columns[2].metric(
            "Premium over English",
            f"{after.premium:.2f}×",
            f"{after.premium - before.premium:+.2f}×",
            delta_color="inverse",
        )
    if before.tokens_per_character is not None and after.tokens_per_character is not None:
        delta = after.tokens_per_character - before.tokens_per_character
        columns[3].metric(
            "Tokens per character", f"{after.tokens_per_character:.3f}", f"{delta:+.3f}", delta_color="inverse"
        )
    columns[4].metric(
        "Unused on held-out",
        f"{len(report.unused):,}",
        help="New tokens the held-out sentences never use: rows the model will see little of.",
    )


def other_text(extended: Tokenizer) -> None:
    """What the extension did to the built-in samples in other scripts (its record)."""
    extension = extended.training.get("extension")
    record = extension.get("other_text") if isinstance(extension, dict) else None
    if not isinstance(record, dict):
        return
    scripts = ", ".join(record.get("scripts", [])) or "the corpus's scripts"
    samples, changed = record.get("samples", 0), record.get("pretokens_changed")
    if changed == 0 and not record.get("changed_samples"):
        st.success(
            f"Text in other scripts encodes exactly as before: none of the {samples:,} built-in samples without "
            f"{md(scripts)} (20 languages, code, data) changed."
        )
        return
    listed = ", ".join(record.get("changed_samples", [])[:8])
    pretokens = record.get("pretokens", 0)
    amount = f"{changed:,} of {pretokens:,} pre-tokens" if changed is not None else "their tokens"
    st.warning(
        f"New tokens reach text in other scripts: in the {samples:,} built-in samples without {md(scripts)}, "
        + md(f"{amount} changed (samples: {listed or 'none'}).")
        + " Restrict the new tokens to the language's scripts to keep other text as it was."
    )


def curve(report: ExtensionReport) -> None:
    rows = report.rows()
    premium = all(row["premium"] is not None for row in rows)
    figure = charts.line(
        [row["added"] for row in rows],
        [row["premium"] if premium else row["tokens_per_character"] for row in rows],
        name="premium" if premium else "tokens per character",
        title="Premium over English as tokens are added" if premium else "Tokens per character as tokens are added",
        x_title="new tokens",
        y_title="premium over English (held-out)" if premium else "tokens per character (held-out)",
        height=330,
        markers=True,
    )
    figure.add_vline(x=report.flattens_at(), line_dash="dot", line_color="#868e96")
    st.plotly_chart(figure, key="extend.curve")


def strips(result: Extended, base: Tokenizer, extended: Tokenizer) -> None:
    """One held-out sentence as the base cuts it and as the extension does."""
    sentences = result.heldout
    index = st.selectbox(
        "Held-out sentence",
        list(range(len(sentences))),
        format_func=lambda i: f"{i + 1}. {sentences[i][:90]}",
        key=K_SENTENCE,
    )
    text = sentences[int(index or 0)]
    named = (("before", base, result.inputs.base.label), ("after", extended, extended.name))
    for label, tokenizer, name in named:
        infos = tokenizer.encode_with_details(text, disallowed_special=())
        st.markdown(f"**{label}**: {len(infos):,} tokens ({md(name)})")  # plain: before, after
        st.html(render_tokens_html(text, infos, rank_of=tokenizers.rank_function(tokenizer)))


def new_tokens(result: Extended, extended: Tokenizer) -> None:
    """The new tokens, legible, how often the held-out text uses each; one's merge tree a click away."""
    report = result.report
    used: dict[int, int] = {}
    for ids in extended.encode_ordinary_batch(list(result.heldout), workers=1):
        for token_id in ids:
            used[token_id] = used.get(token_id, 0) + 1
    listed = report.new_ids[:LISTED]
    frame = pd.DataFrame(
        {
            "id": listed,
            "token": [token_quote(extended.vocab[i]) for i in listed],
            "bytes": [len(extended.vocab[i]) for i in listed],
            "held-out uses": [used.get(i, 0) for i in listed],
        }
    )
    show_table(frame, height=300)
    if len(report.new_ids) > LISTED:
        st.caption(f"The first {LISTED:,} of {len(report.new_ids):,} new tokens, in the order they were learned.")
    if not listed:
        return
    columns = st.columns([2, 3], vertical_alignment="bottom")
    chosen = columns[0].selectbox(
        "A new token", listed, format_func=lambda i: f"{i} {token_quote(extended.vocab[i])}", key=K_TOKEN
    )
    columns[1].page_link(
        "pages/merge_forest.py",
        label="Open its merge tree in the Merge forest",
        icon=":material/account_tree:",
        query_params={"tokenizer": result.extended_key, "token": str(chosen)},
    )


def downloads(result: Extended, base: Tokenizer, extended: Tokenizer) -> None:
    base_json = base_tokenizer_json(result.base_key) if result.inputs.base.kind == "built-in" else None
    files = files_of(f"{result.digest}:{extended.name}", base, extended, base_json)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in extended.name).strip("_") or "extended"
    for column, (fmt, (suffix, mime, label)) in zip(st.columns(len(FILES)), FILES.items(), strict=True):
        text, note = files[fmt]
        with column:
            if text is None:
                st.button(f"⬇ {label}", disabled=True, key=f"extend.dl.{fmt}")  # plain: FILES
                st.caption(f"Not available: {md(note)}")
            else:
                st.download_button(
                    f"⬇ {label}",  # plain: FILES
                    data=text.encode("utf-8"),
                    file_name=stem + suffix,
                    mime=mime,
                    key=f"extend.dl.{fmt}",
                    help=md(note),
                )


@st.cache_data(show_spinner="Writing the files…", max_entries=4)
def files_of(key: str, _base: Tokenizer, _extended: Tokenizer, _base_json: dict | None) -> dict:
    return extension_files(_base, _extended, base_json=_base_json)


def show_result(result: Extended, base: Tokenizer, extended: Tokenizer) -> None:
    st.header(f"Result: {md(extended.name)}", divider="gray")
    language = names()[result.inputs.language]
    st.markdown(summary_sentence(result.report, result.inputs.base.label, language))  # plain: escaped where made
    metrics(result.report)
    training = extended.training
    reason = str(training.get("stop_reason", ""))
    st.caption(f"Training ended: {md(stopped_in_words(reason))}. Corpus: {md(result.inputs.corpus_label)}.")
    other_text(extended)
    curve(result.report)
    strips(result, base, extended)
    st.subheader("The new tokens")
    new_tokens(result, extended)
    st.subheader("Take it to the model")
    st.caption(
        "The model's embedding matrix grows by the rows above; a common start for a new row is the mean of the "
        "rows of the tokens the base splits it into (see the documentation's Extending a tokenizer)."
    )
    downloads(result, base, extended)
