"""Compare: what each tokenizer costs each language and each kind of code.

Pick tokenizers and samples (built-in parallel translations, code and data, or your own files); see
characters per token, the token premium against a reference language, a heatmap, the full table
with a CSV download, compression against vocabulary size, and a shortcut that trains a tokenizer on
a chosen mix and sets it against GPT-2. Every number comes from ``bpe_core.metrics``.
"""

from __future__ import annotations

import hashlib
import html
import re
import time
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import bpe_core
from bpe_core import metrics
from bpe_core.samples import REFERENCE_ID, load_samples

from pages import _common as ui

started = time.perf_counter()

# Session-state and widget keys of this page (all prefixed "cmp.").
K_TOKENIZERS = "cmp.tokenizers"
K_SOURCE = "cmp.source"
K_SAMPLES = "cmp.samples"
K_UPLOADS = "cmp.uploads"
K_UNSPACED = "cmp.unspaced"
K_REFERENCE = "cmp.reference"
K_HEAT_METRIC = "cmp.heat_metric"
K_CURVE_TOKENIZER = "cmp.curve_tokenizer"
K_CURVE_LOG = "cmp.curve_log"
K_TRAIN_SAMPLES = "cmp.train.samples"
K_TRAIN_FILES = "cmp.train.use_files"
K_TRAIN_VOCAB = "cmp.train.vocab"
K_TRAIN_NAME = "cmp.train.name"
K_TRAIN_GO = "cmp.train.go"
UPLOAD_CACHE = "cmp.upload_cache"  # file_id -> (text or None, error or None, sha256 of the text)
PENDING_SELECT = "cmp.pending_select"  # tokenizer keys to add to the selection on the next run
TRAIN_RESULT = "cmp.train.result"  # key of the tokenizer trained here last
TRAIN_MESSAGE = "cmp.train.message"  # what the last training did, shown once under the button
TRAIN_INFO = "cmp.train.info"  # tokenizer key -> ids/labels of the samples it was trained on

SOURCE_BUILTIN = "Built-in samples"
SOURCE_FILES = "My files"
MAX_TOKENIZERS = 6
#: Characters of each uploaded file that are measured (BPE encoding is pure Python).
MAX_FILE_CHARS = 200_000
#: Up to this many merges the curve has a point at every vocabulary size; above it, CURVE_STEPS points.
CURVE_EVERY_SIZE_UP_TO = 2_000
CURVE_STEPS = 300
DEFAULT_TRAIN_MIX = ["eng", "hin", "mya"]
BUILTIN_NAMES = {ui.DEFAULT_KEY: "sample-bpe", "gpt2": "GPT-2", "cl100k": "cl100k"}
METRIC_LABELS = {
    "tokens": "tokens",
    "chars_per_token": "characters per token",
    "bytes_per_token": "bytes per token",
    "bytes_per_char": "UTF-8 bytes per character",
    "premium": "token premium (× reference)",
    "fertility": "tokens per word (fertility)",
    "split_share": "share of words split into several tokens",
    "renyi_efficiency": "Rényi efficiency (α = 2.5)",
}
#: Metrics where a higher value is better for the user of the tokenizer (greener in the heatmap).
HIGHER_IS_BETTER = {"chars_per_token", "bytes_per_token", "renyi_efficiency"}
TABLE_COLUMNS = [
    "tokenizer", "label", "kind", "script", "characters", "bytes", "tokens", "chars_per_token",
    "bytes_per_token", "bytes_per_char", "premium", "reference", "words", "fertility", "split_share",
    "unique_tokens", "renyi_efficiency", "vocab_size", "sample",
]  # fmt: skip
SUMMARY_CSS = (
    "<style>.cmp-summary p{margin:0.15rem 0;font-size:0.95rem}"
    ".cmp-summary{border-left:3px solid #4c6ef5;padding:0.2rem 0.7rem;margin:0.2rem 0 0.8rem}</style>"
)

ui.page_header(
    "Compare tokenizers across languages and code",
    "The same message costs a different number of tokens in every language. Pick tokenizers and samples "
    "(built-in parallel translations of one passage, programs, data, or your own files) and see the cost: "
    "characters per token (higher is better) and the token premium, i.e. how many times more tokens a text "
    "needs than the same text in the reference language (1.0 is parity).",
)


# ------------------------------------------------------------------------------------------------
# helpers (presentation only: every number comes from bpe_core.metrics)


def md(text: object) -> str:
    """User text (file or tokenizer names, messages quoting them) for Markdown: punctuation escaped."""
    return re.sub(r"([\\`*_\[\]<>#|~:$&])", r"\\\1", str(text))


def plot_text(text: str) -> str:
    """User text for plotly, which reads a few HTML tags in labels: escape them."""
    return html.escape(text, quote=False)


def show_sentences(lines: Sequence[str], empty: str | None = None) -> None:
    """Plain sentences under a chart (escaped: labels may come from file names)."""
    if not lines:
        if empty:
            st.caption(empty)
        return
    body = "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in lines)
    st.html(f'{SUMMARY_CSS}<div class="cmp-summary">{body}</div>')


def summary_lines(rows: list[dict], names: Sequence[str], metric: str) -> list[str]:
    lines = []
    for name in names:
        try:
            lines.append(metrics.summary_sentence(rows, name, metric))
        except ValueError:  # nothing to say for this tokenizer (e.g. no premium for code)
            pass
    return lines


def display_names(keys: Sequence[str], choices: dict[str, ui.TokenizerChoice]) -> dict[str, str]:
    """Short, unique names for the chosen tokenizers (used in charts, table and sentences)."""
    names = {}
    for key in keys:
        if key in BUILTIN_NAMES:
            names[key] = BUILTIN_NAMES[key]
        elif key.startswith(("new:", "lib:")):
            names[key] = key[4:]
        else:
            names[key] = choices[key].label
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    for key, name in names.items():
        if counts[name] > 1:
            names[key] = choices[key].label
    return names


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@st.cache_data(show_spinner="Measuring…", max_entries=32)
def compare_rows(
    tokenizer_key: tuple[tuple[str, str], ...],
    sample_key: tuple,
    reference: str | None,
    _tokenizers: dict,
    _samples: list,
) -> list[dict]:
    """``metrics.compare`` cached on tokenizer fingerprints and sample digests."""
    return metrics.compare(_tokenizers, _samples, reference)


@st.cache_data(show_spinner="Replaying the merges…", max_entries=16)
def curve_rows(
    fingerprint: str, sample_key: tuple, points: tuple[int, ...] | None, _tokenizer, _texts: dict
) -> list[dict]:
    """``metrics.compression_by_vocab_size`` cached on the tokenizer fingerprint and sample digests."""
    if points is None:
        return metrics.compression_by_vocab_size(_tokenizer, _texts, CURVE_STEPS, spacing="log")
    return metrics.compression_by_vocab_size(_tokenizer, _texts, merges=list(points))


def load_tokenizers(keys: Sequence[str], choices: dict[str, ui.TokenizerChoice]) -> dict[str, object]:
    """key -> tokenizer for the keys that load; an error for each one that does not."""
    loaded = {}
    for key in keys:
        try:
            loaded[key] = choices[key].get()
        except ValueError as exc:
            st.error(f"{md(choices[key].label)} could not be loaded and is left out: {md(exc)}")
    return loaded


def bar_figure(frame: pd.DataFrame, metric: str, names: Sequence[str], order: Sequence[str], title: str) -> go.Figure:
    figure = go.Figure()
    for name in names:
        part = frame[frame["tokenizer"] == name].set_index("label").reindex(order)
        figure.add_bar(
            name=plot_text(name),
            x=[plot_text(label) for label in order],
            y=part[metric].tolist(),
            hovertemplate="%{x}: %{y:.2f}<extra>" + plot_text(name) + "</extra>",
        )
    figure.update_layout(
        barmode="group",
        title=plot_text(title),
        yaxis_title=METRIC_LABELS[metric],
        height=430,
        margin=dict(l=10, r=10, t=50, b=10),
        legend_title_text="tokenizer",
    )
    return figure


def add_parity_line(figure: go.Figure, reference_label: str) -> None:
    """The dashed line at premium 1.0, named in the legend (an annotation would hide behind bars)."""
    figure.add_hline(y=1.0, line_dash="dash", line_color="#495057", line_width=2)
    figure.add_scatter(
        x=[None],
        y=[None],
        mode="lines",
        line=dict(dash="dash", color="#495057", width=2),
        name=plot_text(f"parity (1.0 = {reference_label})"),
        hoverinfo="skip",
    )


def make_progress(bar):
    state = {"last": 0.0, "started": time.perf_counter()}
    labels = {"count": "Counting pre-tokens", "merge": "Learning merges"}
    weights = {"count": (0.0, 0.2), "merge": (0.2, 1.0)}

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - state["last"] < 0.1 and done < total:
            return
        state["last"] = now
        low, high = weights.get(phase, (0.0, 1.0))
        fraction = done / total if total else 0.0
        bar.progress(
            min(1.0, low + (high - low) * fraction),
            text=f"{labels.get(phase, phase)}: {done:,}/{total:,} · {now - state['started']:.1f} s",
        )

    return progress


def set_samples(ids: list[str]) -> None:
    st.session_state[K_SAMPLES] = ids


# ------------------------------------------------------------------------------------------------
# inputs

choices = ui.available_tokenizers()
builtin = load_samples()
by_id = {s.id: s for s in builtin}
natural_ids = [s.id for s in builtin if s.kind == "natural"]
code_ids = [s.id for s in builtin if s.kind != "natural"]

if K_TOKENIZERS not in st.session_state:
    defaults = [st.session_state.get(ui.LAST_TRAINED), ui.DEFAULT_KEY, "gpt2", "cl100k"]
    st.session_state[K_TOKENIZERS] = list(dict.fromkeys(k for k in defaults if k in choices))[:MAX_TOKENIZERS]
else:  # drop tokenizers deleted since (e.g. on the Library page)
    st.session_state[K_TOKENIZERS] = [k for k in st.session_state[K_TOKENIZERS] if k in choices]
pending = st.session_state.pop(PENDING_SELECT, None)
if pending:  # a tokenizer trained below: put it first, next to GPT-2
    wanted = [k for k in pending if k in choices]
    rest = [k for k in st.session_state[K_TOKENIZERS] if k not in wanted]
    st.session_state[K_TOKENIZERS] = (wanted + rest)[:MAX_TOKENIZERS]
    if wanted:
        st.session_state[K_CURVE_TOKENIZER] = wanted[0]  # show the new tokenizer's curve
if K_SAMPLES not in st.session_state:
    st.session_state[K_SAMPLES] = list(natural_ids)

left, right = st.columns([2, 3], gap="large")
with left:
    selected = st.multiselect(
        "Tokenizers",
        list(choices),
        format_func=lambda k: choices[k].label,
        key=K_TOKENIZERS,
        max_selections=MAX_TOKENIZERS,
        help="The default tokenizer, GPT-2, cl100k, tokenizers trained in this session (✱) and your library (📁).",
    )
    st.caption(
        "Train your own on the Train page, or with **Train to see the difference** at the bottom of this page."
    )
with right:
    source = st.radio("Samples", [SOURCE_BUILTIN, SOURCE_FILES], horizontal=True, key=K_SOURCE)

samples: list = []  # Sample objects or (label, text, spaced) tuples, as metrics.compare takes them
sample_key: list[tuple] = []
texts_for_curve: dict[str, str] = {}
reference: str | None = None
reference_label = ""
file_labels: list[str] = []
file_texts: dict[str, str] = {}

with right:
    if source == SOURCE_BUILTIN:
        chosen = st.multiselect(
            "Built-in samples",
            [s.id for s in builtin],
            format_func=lambda sid: f"{by_id[sid].label} · {by_id[sid].kind}",
            key=K_SAMPLES,
            help="21 languages translating the same passage (parallel text), one program in 7 languages, "
            "a JSON and a Markdown document.",
        )
        presets = st.columns(4)
        presets[0].button("All languages", key="cmp.preset.languages", on_click=set_samples, args=(natural_ids,))
        presets[1].button("All code and data", key="cmp.preset.code", on_click=set_samples, args=(code_ids,))
        presets[2].button(
            "Everything", key="cmp.preset.all", on_click=set_samples, args=([s.id for s in builtin],)
        )
        presets[3].button("Clear", key="cmp.preset.clear", on_click=set_samples, args=([],))
        for sid in chosen:
            sample = by_id[sid]
            samples.append(sample)
            sample_key.append((sample.id, sample.label, sample.kind, sample.spaced, text_digest(sample.text)))
            texts_for_curve[sample.label] = sample.text
        if any(by_id[sid].kind == "natural" for sid in chosen):
            ui.ensure_option(K_REFERENCE, natural_ids, REFERENCE_ID)
            reference = st.selectbox(
                "Reference for the premium",
                natural_ids,
                format_func=lambda sid: by_id[sid].label,
                key=K_REFERENCE,
                help="The premium of a language is its token count divided by the reference's token count "
                "for the same passage. It need not be among the chosen samples.",
            )
            reference_label = by_id[reference].label
    else:
        uploads = st.file_uploader(
            f"Your files: one per language or program, UTF-8 text (up to {ui.upload_limit_mb()} MB each); "
            "the file name is the label",
            accept_multiple_files=True,
            key=K_UPLOADS,
            help="For a fair premium, upload translations of the same text, one language per file.",
        )
        cache = st.session_state.setdefault(UPLOAD_CACHE, {})
        current = {u.file_id for u in uploads or []}
        for stale in [fid for fid in cache if fid not in current]:
            del cache[stale]
        for upload in uploads or []:
            if upload.file_id not in cache:
                try:
                    text = ui.decode_upload(upload.name, upload.getvalue())
                    cache[upload.file_id] = (text, None, text_digest(text))
                except ValueError as exc:
                    cache[upload.file_id] = (None, str(exc), "")
            text, error, digest = cache[upload.file_id]
            if error:
                st.error(f"Skipped {md(upload.name)}: {md(error)}")
                continue
            if not text.strip():
                st.warning(f"Skipped {md(upload.name)}: the file is empty.")
                continue
            label = upload.name
            number = 2
            while label in file_texts:
                label = f"{upload.name} ({number})"
                number += 1
            if len(text) > MAX_FILE_CHARS:
                st.warning(
                    f"{md(upload.name)} has {len(text):,} characters: the first {MAX_FILE_CHARS:,} are measured."
                )
                text = text[:MAX_FILE_CHARS]
                digest = text_digest(text)
            file_texts[label] = text
            sample_key.append((label, digest))
        file_labels = list(file_texts)
        if file_labels:
            st.session_state[K_UNSPACED] = [v for v in st.session_state.get(K_UNSPACED, []) if v in file_labels]
            unspaced = st.multiselect(
                "Files written without spaces between words (e.g. Chinese, Japanese, Thai, Burmese)",
                file_labels,
                key=K_UNSPACED,
                help="Word-based metrics (tokens per word, split words) are left empty for these.",
            )
            for label in file_labels:
                samples.append((label, file_texts[label], label not in unspaced))
                texts_for_curve[label] = file_texts[label]
            guess = next(
                (
                    label
                    for label in file_labels
                    if re.sub(r"\..*$", "", label).lower() in ("en", "eng", "english")
                ),
                file_labels[0],
            )
            ui.ensure_option(K_REFERENCE, file_labels, guess)
            reference = st.selectbox(
                "Reference for the premium (one of your files)",
                file_labels,
                key=K_REFERENCE,
                help="Each file's premium is its token count divided by this file's token count.",
            )
            reference_label = reference
            sample_key = [(label, label not in unspaced, digest) for (label, digest) in sample_key]

# ------------------------------------------------------------------------------------------------
# the comparison


def show_comparison() -> tuple[list[dict], dict[str, str], dict[str, object]] | None:
    """Charts, sentences and table for the chosen tokenizers and samples; (rows, display names,
    loaded tokenizers) by tokenizer key, or None when there is nothing to compare."""
    if not selected:
        st.info("Pick at least one tokenizer.")
        return None
    if not samples:
        if source == SOURCE_FILES:
            st.info("Upload one or more UTF-8 text files (one per language or program) to compare them.")
        else:
            st.info("Pick at least one sample, e.g. with **All languages**.")
        return None
    loaded = load_tokenizers(selected, choices)
    if not loaded:
        return None
    names = display_names(list(loaded), choices)
    tokenizers = {names[k]: tok for k, tok in loaded.items()}
    key = tuple((names[k], choices[k].fingerprint) for k in loaded)
    try:
        rows = compare_rows(key, tuple(sample_key), reference, tokenizers, samples)
    except (ValueError, TypeError) as exc:
        st.error(f"Could not compare: {md(exc)}")
        return None
    frame = pd.DataFrame(rows)
    order = list(dict.fromkeys(frame["label"]))
    tokenizer_names = list(tokenizers)

    st.subheader("Characters per token", divider="gray")
    st.plotly_chart(
        bar_figure(frame, "chars_per_token", tokenizer_names, order, "Characters per token (higher: fewer tokens)"),
        key="cmp.chart.cpt",
    )
    show_sentences(summary_lines(rows, tokenizer_names, "chars_per_token"))

    st.subheader(f"Token premium against {md(reference_label) or 'the reference'}", divider="gray")
    premium = frame[frame["premium"].notna()]
    if premium.empty:
        st.info(
            "No premium to show: it compares translations of the same passage, so it needs natural-language "
            "samples (built in) or your own files. Code and data samples are not parallel text."
        )
    else:
        # dearest first: samples ordered by their mean premium over the chosen tokenizers
        means = premium.groupby("label", sort=False)["premium"].mean()
        premium_order = means.sort_values(ascending=False).index.tolist()
        figure = bar_figure(
            premium, "premium", tokenizer_names, premium_order, f"Tokens needed relative to {reference_label}"
        )
        add_parity_line(figure, reference_label)
        st.plotly_chart(figure, key="cmp.chart.premium")
        st.caption(
            "Samples are sorted from the dearest to the cheapest (mean premium over the chosen tokenizers). "
            f"Bars above the dashed parity line cost more tokens than {md(reference_label)}."
        )
        show_sentences(summary_lines(rows, tokenizer_names, "premium"))

    st.subheader("Heatmap", divider="gray")
    available = [m for m in metrics.METRIC_NAMES if frame[m].notna().any()]
    ui.ensure_option(K_HEAT_METRIC, available, "premium" if "premium" in available else "chars_per_token")
    metric = st.selectbox("Metric", available, format_func=METRIC_LABELS.get, key=K_HEAT_METRIC)
    grid = frame.pivot(index="label", columns="tokenizer", values=metric).reindex(index=order, columns=tokenizer_names)
    values = grid.astype(float)
    heat = go.Figure(
        go.Heatmap(
            z=values.values.tolist(),
            x=[plot_text(n) for n in tokenizer_names],
            y=[plot_text(label) for label in order],
            text=[["" if pd.isna(v) else f"{v:.2f}" for v in row] for row in values.values],
            texttemplate="%{text}",
            colorscale="RdYlGn" if metric in HIGHER_IS_BETTER else "RdYlGn_r",
            colorbar_title=plot_text(METRIC_LABELS[metric]),
            hovertemplate="%{y} · %{x}: %{z:.3f}<extra></extra>",
        )
    )
    heat.update_layout(
        title=METRIC_LABELS[metric],
        height=max(300, 26 * len(order) + 120),
        margin=dict(l=10, r=10, t=50, b=10),
        yaxis_autorange="reversed",
    )
    st.plotly_chart(heat, key="cmp.chart.heat")
    better = "greener is better" if metric in HIGHER_IS_BETTER else "redder costs more"
    st.caption(f"Rows are samples, columns tokenizers; {better}. Empty cells have no value (e.g. no premium for code).")
    show_sentences(summary_lines(rows, tokenizer_names, metric))

    st.subheader("Full table", divider="gray")
    table = frame[[c for c in TABLE_COLUMNS if c in frame.columns]]
    st.dataframe(
        table,
        hide_index=True,
        key="cmp.table",
        column_config={
            "label": "sample",
            "sample": "sample id",
            "chars_per_token": st.column_config.NumberColumn("chars/token", format="%.2f"),
            "bytes_per_token": st.column_config.NumberColumn("bytes/token", format="%.2f"),
            "bytes_per_char": st.column_config.NumberColumn("bytes/char", format="%.2f"),
            "premium": st.column_config.NumberColumn("premium", format="%.2f"),
            "fertility": st.column_config.NumberColumn("tokens/word", format="%.2f"),
            "split_share": st.column_config.NumberColumn("split words", format="%.2f"),
            "renyi_efficiency": st.column_config.NumberColumn("Rényi eff.", format="%.3f"),
        },
    )
    st.download_button(
        "⬇ Table as CSV",
        data=table.to_csv(index=False).encode("utf-8"),
        file_name="tokenizer-comparison.csv",
        mime="text/csv",
        key="cmp.csv",
    )
    with st.expander("What the columns mean"):
        st.markdown(
            "- **chars/token**: characters ÷ tokens; higher means the tokenizer packs more text into a token.\n"
            "- **bytes/char**: UTF-8 bytes per character, a property of the script (English 1, Hindi ≈ 2.7).\n"
            "- **premium**: tokens ÷ the reference's tokens over the same passage (Petrov et al. 2023).\n"
            "- **tokens/word** (fertility) and **split words**: per whitespace-separated word; empty for "
            "languages written without spaces.\n"
            "- **Rényi efficiency**: how evenly the text uses the vocabulary (Zouhar et al. 2023)."
        )
    return rows, names, loaded


result = show_comparison()

# ------------------------------------------------------------------------------------------------
# compression against vocabulary size

st.subheader("Compression against vocabulary size", divider="gray")
st.caption(
    "BPE's merges form prefixes: the first k merges are the tokenizer of size 256 + special tokens + k. "
    "Each line is one sample: how many characters fit into a token as the vocabulary grows. A line that "
    "stays flat is a text the merges never learned to shorten."
)
loaded_for_curve = result[2] if result is not None else {}
curve_keys = [k for k, tok in loaded_for_curve.items() if len(tok.merges) > 0]
if result is None:
    st.info("Pick tokenizers and samples above to see how compression grows with the vocabulary.")
elif not curve_keys:
    st.info("None of the chosen tokenizers has merges: train one (below or on the Train page) to see its curve.")
else:
    names = result[1]
    preferred = st.session_state.get(TRAIN_RESULT) or st.session_state.get(ui.LAST_TRAINED)
    ui.ensure_option(
        K_CURVE_TOKENIZER, curve_keys, preferred if preferred in curve_keys else ui.DEFAULT_KEY
    )
    columns = st.columns([2, 1], vertical_alignment="bottom")
    curve_key = columns[0].selectbox(
        "Tokenizer (one with merges)", curve_keys, format_func=lambda k: names[k], key=K_CURVE_TOKENIZER
    )
    log_axis = columns[1].toggle("Logarithmic vocabulary axis", key=K_CURVE_LOG)
    tokenizer = loaded_for_curve[curve_key]
    total = len(tokenizer.merges)
    points = tuple(range(total + 1)) if total <= CURVE_EVERY_SIZE_UP_TO else None
    try:
        curve = curve_rows(choices[curve_key].fingerprint, tuple(sample_key), points, tokenizer, texts_for_curve)
    except (ValueError, TypeError) as exc:
        st.error(f"Could not compute the curve: {md(exc)}")
    else:
        figure = go.Figure()
        for label in texts_for_curve:
            part = [r for r in curve if r["text"] == label]
            figure.add_scatter(
                x=[r["vocab_size"] for r in part],
                y=[r["chars_per_token"] for r in part],
                mode="lines",
                name=plot_text(label),
                hovertemplate="vocab %{x:,}: %{y:.2f} chars/token<extra>" + plot_text(label) + "</extra>",
            )
        figure.update_layout(
            title=plot_text(f"{names[curve_key]}: characters per token by vocabulary size"),
            xaxis_title="vocabulary size (256 bytes + special tokens + first k merges)",
            yaxis_title="characters per token",
            xaxis_type="log" if log_axis else "linear",
            height=450,
            margin=dict(l=10, r=10, t=50, b=10),
        )
        st.plotly_chart(figure, key="cmp.chart.curve")
        final = [r for r in curve if r["merges"] == total]
        as_rows = [
            {"tokenizer": names[curve_key], "label": r["text"], "chars_per_token": r["chars_per_token"]} for r in final
        ]
        lines = []
        try:
            sentence = metrics.summary_sentence(as_rows, names[curve_key], "chars_per_token")
            lines.append(f"At its full vocabulary of {tokenizer.vocab_size:,} ids ({total:,} merges): {sentence}")
        except ValueError:
            pass
        sizes = len({r["merges"] for r in curve})
        detail = "every vocabulary size" if points is not None else f"{sizes} vocabulary sizes"
        show_sentences(lines)
        st.caption(f"Computed at {detail} from 256 + special tokens to {tokenizer.vocab_size:,}.")

# ------------------------------------------------------------------------------------------------
# train to see the difference

st.subheader("Train to see the difference", divider="gray")
st.caption(
    "Train a small tokenizer on a mix of languages or programs and set it against GPT-2: the languages it "
    "was trained on get cheaper. Try the default mix, then train again without Burmese."
)
mix_cols = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
if K_TRAIN_SAMPLES not in st.session_state:
    st.session_state[K_TRAIN_SAMPLES] = list(DEFAULT_TRAIN_MIX)
train_ids = mix_cols[0].multiselect(
    "Train on these built-in samples",
    [s.id for s in builtin],
    format_func=lambda sid: by_id[sid].label,
    key=K_TRAIN_SAMPLES,
)
train_vocab = mix_cols[1].number_input(
    "Vocabulary size", min_value=257, max_value=50_000, value=1000, step=100, key=K_TRAIN_VOCAB,
    help="256 bytes + merges. A small corpus may stop earlier: pairs seen only once are not merged.",
)  # fmt: skip
auto_name = "mix-" + "-".join(train_ids[:4]) + ("-more" if len(train_ids) > 4 else "") + f"-{int(train_vocab)}"
train_name = mix_cols[2].text_input("Name", key=K_TRAIN_NAME, placeholder=auto_name, max_chars=80)
use_files = False
if file_labels:
    use_files = st.toggle(f"Also train on my {len(file_labels)} uploaded file(s)", key=K_TRAIN_FILES)
documents = [by_id[sid].text for sid in train_ids]
trained_on = [by_id[sid].label for sid in train_ids]
if use_files:
    documents += [file_texts[label] for label in file_labels]
    trained_on += file_labels
clicked = mix_cols[3].button("Train", type="primary", key=K_TRAIN_GO, disabled=not documents)
if not documents:
    st.caption("Pick at least one sample (or upload files) to train on.")
if clicked and documents:
    name = (train_name or "").strip() or auto_name
    base, number = name, 2
    while f"new:{name}" in choices or f"lib:{name}" in choices:
        name = f"{base}-{number}"
        number += 1
    bar = st.progress(0.0, text="Starting…")
    try:
        tokenizer = bpe_core.train(
            documents, int(train_vocab), min_frequency=2, pattern="gpt2", progress=make_progress(bar), name=name
        )
    except (ValueError, TypeError) as exc:
        bar.empty()
        st.error(f"Training failed: {md(exc)}")
    else:
        label = ", ".join(trained_on[:4]) + (f" and {len(trained_on) - 4} more" if len(trained_on) > 4 else "")
        key = ui.add_session_tokenizer(tokenizer, (label, documents))
        st.session_state[TRAIN_RESULT] = key
        st.session_state.setdefault(TRAIN_INFO, {})[key] = trained_on
        st.session_state[PENDING_SELECT] = [key, "gpt2"]
        training = tokenizer.training or {}
        stopped = training.get("stop_reason")
        st.session_state[TRAIN_MESSAGE] = (
            f"Trained **{md(name)}** on {md(label)}: {len(tokenizer.merges):,} merges, vocabulary "
            f"{tokenizer.vocab_size:,}" + (f" (stopped because: {md(stopped)})" if stopped else "") + ". "
            "It is unsaved (keep it from the Train page) and now first in the comparison above."
        )
        st.rerun()

message = st.session_state.pop(TRAIN_MESSAGE, None)
if message:
    st.success(message)

result_key = st.session_state.get(TRAIN_RESULT)
if result_key and result_key not in choices:  # deleted or renamed since
    st.session_state.pop(TRAIN_RESULT, None)
    result_key = None
if result_key:
    versus = [result_key, "gpt2"]
    loaded = load_tokenizers(versus, choices)
    head_samples = samples or [by_id[sid] for sid in natural_ids]
    head_key = tuple(sample_key) if samples else tuple(("builtin", sid) for sid in natural_ids)
    head_reference = reference if samples else REFERENCE_ID
    head_reference_label = reference_label if samples else by_id[REFERENCE_ID].label
    if len(loaded) == 2:
        names = {result_key: result_key[4:], "gpt2": "GPT-2"}
        if names[result_key] == "GPT-2":
            names[result_key] = choices[result_key].label
        tokenizers = {names[k]: loaded[k] for k in versus}
        trained_labels = set(st.session_state.get(TRAIN_INFO, {}).get(result_key, []))
        st.html(f"<p><b>{html.escape(names[result_key], quote=False)}</b> against GPT-2</p>")
        try:
            rows = compare_rows(
                tuple((names[k], choices[k].fingerprint) for k in versus),
                head_key,
                head_reference,
                tokenizers,
                head_samples,
            )
        except (ValueError, TypeError) as exc:
            st.error(f"Could not compare: {md(exc)}")
        else:
            frame = pd.DataFrame(rows)
            has_premium = frame["premium"].notna().any()
            metric = "premium" if has_premium else "chars_per_token"
            order = list(dict.fromkeys(frame["label"]))
            frame = frame.assign(label=[f"★ {v}" if v in trained_labels else v for v in frame["label"]])
            order = [f"★ {v}" if v in trained_labels else v for v in order]
            title = (
                f"Token premium against {head_reference_label}" if has_premium else "Characters per token"
            )
            figure = bar_figure(frame[frame[metric].notna()], metric, list(tokenizers), order, title)
            if has_premium:
                add_parity_line(figure, head_reference_label)
            st.plotly_chart(figure, key="cmp.chart.versus")
            st.caption("★ marks the samples the tokenizer was trained on.")
            show_sentences(summary_lines(rows, list(tokenizers), metric))
            table = (
                frame.pivot(index="label", columns="tokenizer", values="tokens")
                .reindex(index=order, columns=list(tokenizers))
                .reset_index()
            )
            with st.expander("Tokens per sample"):
                st.dataframe(table, hide_index=True, key="cmp.versus_table")

st.caption(f"Server time for this view: {(time.perf_counter() - started) * 1000:,.0f} ms.")
