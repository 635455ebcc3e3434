"""Train: pick a corpus, look at it, choose settings, train with live progress, inspect and keep."""

from __future__ import annotations

import hashlib
import time

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import bpe_core
from bpe_core.pretokenize import PreTokenizer

from pages import _common as ui

PATTERN_OPTIONS = {
    "gpt2": "GPT-2 preset",
    "cl100k": "cl100k preset (GPT-3.5/4)",
    "o200k": "o200k preset (GPT-4o)",
    "custom": "Custom regex",
    "none": "None (each document is one piece)",
}
RESULT_KEY = "train.result_key"
# Every file uploaded in this session, so that leaving the page (which empties the uploader) loses
# nothing: file_id -> (file name, documents, warnings, error).
UPLOADED = "train.uploaded"
IN_CORPUS = "train.uploads_in_corpus"  # file_ids in the corpus when this page last ran

ui.keep_widget_state(
    {
        "train.name": "my-bpe",
        "train.vocab_size": 1000,
        "train.min_frequency": 2,
        "train.custom_regex": r"\s?\w+|\s+|[^\w\s]+",
        "train.tie_break": "lexicographic",
        "train.pattern": "gpt2",
        "train.specials": "",
        "train.paste": "",
        "train.samples": [],
    }
)
ui.page_header(
    "Train a tokenizer",
    "Upload a corpus or pick built-in samples, check its statistics, choose the settings and train. "
    "A failed training leaves every existing tokenizer as it was.",
)

# ------------------------------------------------------------------------------------------------
# 1. corpus

st.header("1 · Corpus", divider="gray")
limit = ui.upload_limit_mb()
uploads = st.file_uploader(
    f"Corpus files: plain text, Markdown, source code, or JSONL with a \"text\" field (UTF-8, up to {limit} MB each)",
    accept_multiple_files=True,
    key="train.uploads",
    help="Each file is one document; each line of a .jsonl file is one document. "
    f"The upload limit ({limit} MB per file) is server.maxUploadSize in .streamlit/config.toml.",
)
samples = ui.sample_texts()
sample_labels = {s.id: f"{s.label} ({len(s.text):,} chars)" for s in samples}
chosen_samples = st.multiselect(
    "Built-in samples",
    list(sample_labels),
    format_func=lambda sid: sample_labels[sid],
    key="train.samples",
    help="Texts that ship with the project; each is one document.",
)
pasted = st.text_area("Or paste text (one document)", key="train.paste", height=100)

uploaded = st.session_state.setdefault(UPLOADED, {})
in_uploader = []
for upload in uploads or []:
    if upload.file_id not in uploaded:
        try:
            docs, warnings = ui.documents_from_upload(upload.name, upload.getvalue())
            uploaded[upload.file_id] = (upload.name, docs, warnings, None)
        except ValueError as exc:
            uploaded[upload.file_id] = (upload.name, [], [], str(exc))
    in_uploader.append(upload.file_id)
earlier = [file_id for file_id in uploaded if file_id not in in_uploader and not uploaded[file_id][3]]
if ui.arrived_from_another_page():
    # Back from another page: the uploader is empty again, so what was in the corpus comes back here.
    st.session_state["train.earlier"] = [f for f in st.session_state.get(IN_CORPUS, []) if f in earlier]
else:
    st.session_state["train.earlier"] = [f for f in st.session_state.get("train.earlier", []) if f in earlier]
chosen_earlier = []
if earlier:
    chosen_earlier = st.multiselect(
        "Files uploaded earlier in this session",
        earlier,
        format_func=lambda file_id: uploaded[file_id][0],
        key="train.earlier",
        help="Kept while this browser tab is open, so leaving the page loses no upload. "
        "Reloading the tab forgets them.",
    )
st.session_state[IN_CORPUS] = [*chosen_earlier, *in_uploader]

documents: list[str] = []
sources: list[dict] = []
signature = hashlib.sha256()
for file_id in st.session_state[IN_CORPUS]:
    file_name, docs, warnings, error = uploaded[file_id]
    if error:
        st.error(f"Skipped {file_name}: {error}")
        continue
    if warnings:
        shown = "\n".join(f"- {w}" for w in warnings[:5])
        more = f"\n- … and {len(warnings) - 5} more" if len(warnings) > 5 else ""
        st.warning(f"{file_name}: {len(warnings)} line(s) skipped\n{shown}{more}")
    documents.extend(docs)
    sources.append({"source": file_name, "documents": len(docs), "characters": sum(map(len, docs))})
    signature.update(f"file:{file_id}".encode())
for sample in samples:
    if sample.id in chosen_samples:
        documents.append(sample.text)
        sources.append({"source": f"sample: {sample.label}", "documents": 1, "characters": len(sample.text)})
        signature.update(f"sample:{sample.id}".encode())
if pasted.strip():
    documents.append(pasted)
    sources.append({"source": "pasted text", "documents": 1, "characters": len(pasted)})
    signature.update(b"paste:" + pasted.encode("utf-8", "replace"))
corpus_signature = signature.hexdigest()
corpus_label = ", ".join(s["source"] for s in sources[:4]) + (f" and {len(sources) - 4} more" if len(sources) > 4 else "")

# ------------------------------------------------------------------------------------------------
# 2. settings

st.header("2 · Settings", divider="gray")
left, right = st.columns(2)
with left:
    name = st.text_input("Tokenizer name", key="train.name", max_chars=80)
    vocab_size = st.number_input(
        "Vocabulary size (256 bytes + special tokens + merges)",
        min_value=1,
        max_value=1_000_000,
        step=100,
        key="train.vocab_size",
    )
    min_frequency = st.number_input(
        "Minimum pair frequency (stop when the best pair is rarer)",
        min_value=0,
        max_value=1_000_000,
        key="train.min_frequency",
    )
    tie_break = st.radio(
        "Tie rule (pairs with equal counts)",
        ["lexicographic", "first"],
        horizontal=True,
        key="train.tie_break",
        help="lexicographic: the greatest (left bytes, right bytes) pair wins. first: the pair met first in the corpus wins.",
    )
    specials_text = st.text_area(
        "Special tokens (separated by commas or new lines)",
        key="train.specials",
        placeholder="<|endoftext|>",
        height=80,
    )
with right:
    pattern_choice = st.selectbox(
        "Pre-tokenization",
        list(PATTERN_OPTIONS),
        format_func=PATTERN_OPTIONS.get,
        key="train.pattern",
        help="Text is split into pieces with this regex before BPE; merges never cross pieces.",
    )
    pattern: str | None
    if pattern_choice == "custom":
        pattern = st.text_input(
            "Custom regex (Python 'regex' module syntax)",
            key="train.custom_regex",
        )
    elif pattern_choice == "none":
        pattern = None
    else:
        pattern = pattern_choice
    if st.session_state.get("train.preview_for") != corpus_signature:  # follow the corpus as it changes
        st.session_state["train.preview_for"] = corpus_signature
        st.session_state["train.preview_text"] = (documents[0] if documents else ui.sample_text(300))[:300]
    preview_text = st.text_area("Preview text (how the pattern splits it)", key="train.preview_text", height=90)
    pattern_error = None
    try:
        pretokenizer = PreTokenizer.build(pattern)
        pieces = pretokenizer.pieces(preview_text[:2000])
    except ValueError as exc:
        pattern_error = str(exc)
        st.error(f"Invalid pre-tokenization regex: {exc}")
    else:
        st.caption(f"How the preview splits into {len(pieces)} pre-tokens (· is a space, ↵ a newline):")
        ui.show_html(ui.pieces_html(pieces))

special_tokens = ui.parse_special_tokens(specials_text)

# ------------------------------------------------------------------------------------------------
# corpus statistics (need the pre-tokenizer)


@st.cache_data(show_spinner="Counting pre-tokens…", max_entries=8)
def corpus_statistics(signature: str, pattern: str | None, specials: tuple[str, ...], _documents: list[str]):
    counts = bpe_core.count_words(_documents, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials)
    stats = counts.stats
    return {
        "documents": stats.documents,
        "characters": stats.characters,
        "bytes": sum(len(d.encode("utf-8", "replace")) for d in _documents),
        "pre-tokens": stats.pretokens,
        "unique pre-tokens": len(counts.counts),
        "special tokens cut out": stats.special_tokens_cut,
    }


with st.container():
    st.subheader("Corpus statistics")
    if not documents:
        st.info("No corpus yet: upload files, pick built-in samples or paste text above.")
    elif pattern_error:
        st.warning("Fix the pre-tokenization regex to see pre-token counts.")
    else:
        try:
            stats = corpus_statistics(corpus_signature, pattern, tuple(special_tokens), documents)
        except ValueError as exc:
            st.error(str(exc))
        else:
            columns = st.columns(5)
            for column, label in zip(columns, ["documents", "characters", "bytes", "pre-tokens", "unique pre-tokens"]):
                column.metric(label, f"{stats[label]:,}")
            if stats["special tokens cut out"]:
                st.caption(f"{stats['special tokens cut out']:,} special-token occurrences are cut out before counting.")
            with st.expander("Sources"):
                st.dataframe(pd.DataFrame(sources), hide_index=True)

# ------------------------------------------------------------------------------------------------
# 3. training


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "…"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def make_progress(bar):
    state = {"phase": None, "started": time.perf_counter(), "last": 0.0}
    labels = {"count": "Counting pre-tokens", "merge": "Learning merges"}
    weights = {"count": (0.0, 0.2), "merge": (0.2, 1.0)}

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if phase != state["phase"]:
            state.update(phase=phase, started=now)
        if now - state["last"] < 0.1 and done < total:
            return
        state["last"] = now
        fraction = done / total if total else 0.0
        elapsed = now - state["started"]
        eta = elapsed * (total - done) / done if done and total else None
        low, high = weights.get(phase, (0.0, 1.0))
        unit = "merges" if phase == "merge" else ("documents" if phase == "count" and total < 10**6 else "")
        amount = f"{done:,}/{total:,} {unit}".strip() if total else f"{done:,}"
        bar.progress(
            min(1.0, low + (high - low) * fraction),
            text=f"{labels.get(phase, phase)}: {amount} · {format_seconds(elapsed)} elapsed · ETA {format_seconds(eta)}",
        )

    return progress


st.header("3 · Train", divider="gray")
can_train = bool(documents) and not pattern_error
if st.button("Train", type="primary", disabled=not can_train, key="train.go"):
    bar = st.progress(0.0, text="Starting…")
    try:
        tokenizer = bpe_core.train(
            documents,
            int(vocab_size),
            min_frequency=int(min_frequency),
            pattern=pattern,
            special_tokens=special_tokens,
            tie_break=tie_break,
            progress=make_progress(bar),
            name=name.strip() or "my-bpe",
        )
    except (ValueError, TypeError) as exc:
        bar.empty()
        st.error(f"Training failed: {exc}")
    else:
        bar.progress(1.0, text=f"Done in {format_seconds(tokenizer.training.get('seconds'))}.")
        key = ui.add_session_tokenizer(tokenizer, (corpus_label, documents))
        st.session_state[RESULT_KEY] = key
        st.session_state["train.save_name"] = tokenizer.name
elif not can_train:
    st.caption("Add a corpus (and fix the regex, if any) to enable training.")

# ------------------------------------------------------------------------------------------------
# 4. results

choices = ui.available_tokenizers()
result_key = st.session_state.get(RESULT_KEY)
if result_key in choices:
    choice = choices[result_key]
    tokenizer = choice.get()
    training = tokenizer.training or {}
    st.header(f"4 · Result: {tokenizer.name}", divider="gray")
    corpus = training.get("corpus", {})
    after = list(training.get("tokens_after_merge", []))
    characters = corpus.get("characters", 0)
    columns = st.columns(5)
    columns[0].metric("merges learned", f"{training.get('merges_learned', len(tokenizer.merges)):,}")
    columns[1].metric("vocabulary", f"{tokenizer.vocab_size:,}")
    columns[2].metric("training time", format_seconds(training.get("seconds")))
    columns[3].metric("chars / token", ui.fmt_ratio(characters, after[-1]) if after else "—")
    columns[4].metric("bytes / token", ui.fmt_ratio(corpus.get("bytes", 0), after[-1]) if after else "—")
    st.caption(f"Stopped because: **{training.get('stop_reason', 'unknown')}**.")
    settings = training.get("settings", {})
    with st.expander("Settings and corpus"):
        table = {**{f"setting: {k}": str(v) for k, v in settings.items()}, **{f"corpus: {k}": f"{v:,}" if isinstance(v, int) else str(v) for k, v in corpus.items()}}
        st.dataframe(pd.DataFrame({"field": list(table), "value": list(table.values())}), hide_index=True)

    if after and characters:
        merges_axis = list(range(0, len(after) + 1))
        tokens = [corpus.get("bytes", 0)] + after
        ratio = [characters / t if t else None for t in tokens]
        figure = go.Figure(go.Scatter(x=merges_axis, y=ratio, mode="lines", name="chars/token"))
        figure.update_layout(
            title="Compression as merges accrue",
            xaxis_title="merges learned",
            yaxis_title="characters per token (training corpus)",
            height=330,
            margin=dict(l=10, r=10, t=40, b=10),
        )
        st.plotly_chart(figure, key="train.curve")
    else:
        st.info("No merges were learned, so there is no compression curve.")

    if tokenizer.merges:
        n = len(tokenizer.merges)
        first = ui.merges_table(tokenizer, range(min(15, n)))
        last = ui.merges_table(tokenizer, range(max(15, n - 15), n))
        left, right = st.columns(2)
        with left:
            st.markdown("**First merges**")
            st.dataframe(first, hide_index=True)
        with right:
            st.markdown("**Last merges**")
            if len(last):
                st.dataframe(last, hide_index=True)
            else:
                st.caption("All merges are shown on the left.")

    st.subheader("Keep it")
    if choice.kind == "session":
        st.warning("Not saved yet: unsaved tokenizers disappear when the page is reloaded.")
    else:
        st.success(f"Saved in the library as **{choice.key.removeprefix('lib:')}**.")
    if "train.save_name" not in st.session_state:
        st.session_state["train.save_name"] = tokenizer.name
    save_cols = st.columns([3, 1, 1], vertical_alignment="bottom")
    save_name = save_cols[0].text_input("Library name", key="train.save_name")
    overwrite = save_cols[1].checkbox("Overwrite", key="train.overwrite")
    if save_cols[2].button("Save to library", key="train.save"):
        try:
            new_key = ui.save_to_library(result_key, tokenizer, save_name, overwrite=overwrite)
        except ValueError as exc:
            st.error(f"Could not save: {exc}")
        else:
            st.session_state[RESULT_KEY] = new_key
            ui.flash("success", f"Saved **{new_key[4:]}** to the library ({ui.workspace().folder}).")
            st.rerun()
    ui.download_buttons(choice.fingerprint, tokenizer, "train")
elif result_key:
    st.session_state.pop(RESULT_KEY, None)

with st.expander("Load a tokenizer file into the library"):
    ui.tokenizer_upload_section("train.tokenizer_upload")
