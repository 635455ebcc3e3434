"""UI helpers shared by every page of the BPE workbench.

What lives here: the registry of tokenizers a session can use (the default tokenizer trained on the
built-in samples, GPT-2, cl100k, the workspace library, tokenizers trained in this session), cached
loading, corpus reading from uploads, HTML rendering of token spans (always escaped), and small
formatting helpers. No BPE algorithm lives here: every computation is a call into ``bpe_core``.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

import bpe_core
from bpe_core import Tokenizer, interop, serialization, token_display
from bpe_core.workspace import Workspace, describe_age

# ------------------------------------------------------------------------------------------------
# limits and constants

#: Characters of text rendered as coloured spans (statistics use up to MAX_STATS_CHARS).
MAX_RENDER_CHARS = 20_000
#: Characters of text encoded for statistics (token counts, usage counts).
MAX_STATS_CHARS = 2_000_000
#: Text longer than this is not written into the page URL.
MAX_URL_TEXT = 2_000
#: Merges of the default tokenizer and the size of its training text.
DEFAULT_MERGES = 500
DEFAULT_CORPUS_CHARS = 60_000
DEFAULT_KEY = "default"

# Session-state keys shared by pages.
SESSION_TOKENIZERS = "wb.session_tokenizers"  # name -> SessionTokenizer
CORPORA = "wb.corpora"  # tokenizer key -> (label, list of texts)
PROCESSED_UPLOADS = "wb.processed_uploads"  # file ids of tokenizer files already imported
FLASH = "wb.flash"  # messages to show after a rerun
_PAGE_NOW = "wb.page_now"  # title of the page this run draws
_PAGE_BEFORE = "wb.page_before"  # title of the page the previous run drew
LAST_TRAINED = "wb.last_trained"  # key of the tokenizer trained last in this session
STARTED = "wb.started"  # set on a session's first page run

FALLBACK_SAMPLE = (
    "Byte pair encoding (BPE) starts from the 256 possible bytes and repeatedly merges the most "
    "frequent adjacent pair of tokens into a new token. After a few hundred merges, common words "
    "such as the, and, of, token and merge become single tokens, while rare words are still spelled "
    "out from smaller pieces, so any text, in any language, can be encoded without unknown tokens. "
    "The tokenizer that results is simply the list of merges in the order they were learned: to "
    "encode new text, split it into pre-tokens with a regular expression, turn each pre-token into "
    "bytes, and apply the learned merges, lowest rank first, until no merge applies. Decoding is "
    "the reverse: concatenate the bytes of the tokens and read them as UTF-8 text. Compression is "
    "usually measured in characters per token; more merges give longer tokens and shorter "
    "sequences, at the cost of a larger vocabulary for the model to learn."
)


# ------------------------------------------------------------------------------------------------
# page setup


def _leave_legacy_pages_mode() -> None:
    """Run pages through app.py's st.navigation even on a server's very first session.

    Until some session has run st.navigation, Streamlit treats the ``pages/`` folder as an old-style
    multipage app, so the first session opened on a page URL (e.g. a shared /tokenize_text link)
    would run that page file alone, without app.py's navigation and layout. Switching the flag off and
    rerunning makes Streamlit run app.py, whose st.navigation resolves the same URL (the page hashes
    agree because every page's URL is its file name). Acts only on a session's first run, before
    any widget event.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a future Streamlit without the flag: nothing to do
        return
    if st.session_state.get(STARTED):
        return  # only a session's first run (no widget event can be lost by the rerun)
    st.session_state[STARTED] = True
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


def page_header(title: str, caption: str | None = None) -> None:
    """Title, caption and any flash message left by the previous run."""
    _leave_legacy_pages_mode()
    sync_kept_state()
    st.session_state[_PAGE_BEFORE] = st.session_state.get(_PAGE_NOW)
    st.session_state[_PAGE_NOW] = title
    st.title(title)
    if caption:
        st.caption(caption)
    for kind, message in st.session_state.pop(FLASH, []):
        getattr(st, kind)(message)


def arrived_from_another_page() -> bool:
    """Whether this run follows a run of another page (or is the session's first), not a rerun of
    this one. Call after ``page_header``."""
    return st.session_state.get(_PAGE_BEFORE) != st.session_state.get(_PAGE_NOW)


def flash(kind: str, message: str) -> None:
    """Queue ``st.<kind>(message)`` for the next run (survives ``st.rerun``)."""
    st.session_state.setdefault(FLASH, []).append((kind, message))


_KEPT = "wb.kept"  # widget key -> last value, so page widgets survive visits to other pages


def sync_kept_state() -> None:
    """Copy the current values of every kept widget to the shadow store.

    Runs at the start of every run (app.py and page_header): when the user leaves a page, its widget
    values are still in session state at the start of that run, and are saved before Streamlit drops them.
    """
    kept = st.session_state.setdefault(_KEPT, {})
    for key in list(kept):
        if key in st.session_state:
            kept[key] = st.session_state[key]


def keep_widget_state(defaults: dict | None = None, restore_only: Sequence[str] = ()) -> None:
    """Make a page's widgets remember their values across page switches.

    Streamlit forgets the state of widgets that were not drawn in a run, so leaving a page resets
    it. Call this at the top of the page (before the widgets): missing values are restored from the
    shadow store that ``sync_kept_state`` fills. ``defaults`` also gives first-time values (create
    those widgets without ``value=``/``index=``); keys in ``restore_only`` get no default.
    """
    kept = st.session_state.setdefault(_KEPT, {})
    for key in [*(defaults or {}), *restore_only]:
        if key in st.session_state:
            kept[key] = st.session_state[key]
        elif key in kept and kept[key] is not _UNSET:
            st.session_state[key] = kept[key]
        elif defaults and key in defaults:
            st.session_state[key] = defaults[key]
        kept.setdefault(key, _UNSET)


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()


def workspace() -> Workspace:
    """The tokenizer library (folder from $BPE_WORKBENCH_DIR or the per-user default)."""
    return Workspace()


def upload_limit_mb() -> int:
    try:
        return int(st.get_option("server.maxUploadSize"))
    except Exception:  # option missing in exotic setups: Streamlit's default
        return 200


# ------------------------------------------------------------------------------------------------
# built-in sample text


@dataclass(frozen=True)
class SampleText:
    id: str
    label: str
    text: str
    kind: str = "prose"


@st.cache_data(show_spinner=False)
def sample_texts() -> list[SampleText]:
    """The built-in samples (bpe_core.samples when available, else one English paragraph)."""
    try:
        from bpe_core.samples import load_samples  # provided by the samples module when present
    except ImportError:
        load_samples = None
    samples: list[SampleText] = []
    if load_samples is not None:
        try:
            for sample in load_samples():
                text = getattr(sample, "text", "")
                if isinstance(text, str) and text:
                    samples.append(
                        SampleText(
                            id=str(getattr(sample, "id", len(samples))),
                            label=str(getattr(sample, "label", getattr(sample, "id", "sample"))),
                            text=text,
                            kind=str(getattr(sample, "kind", "prose")),
                        )
                    )
        except Exception:  # a broken samples module must not take the app down
            samples = []
    if not samples:
        samples = [SampleText("en-bpe", "English: about BPE (built in)", FALLBACK_SAMPLE)]
    return samples


def default_corpus() -> tuple[str, list[str]]:
    """The text the default tokenizer is trained on: (description, documents)."""
    documents: list[str] = []
    total = 0
    for sample in sample_texts():
        if total >= DEFAULT_CORPUS_CHARS:
            break
        text = sample.text[: DEFAULT_CORPUS_CHARS - total]
        documents.append(text)
        total += len(text)
    label = f"built-in samples ({len(documents)} document(s), {total:,} characters)"
    return label, documents


def sample_text(max_chars: int = 3_000) -> str:
    """A stretch of built-in sample text for previews."""
    return "\n\n".join(s.text for s in sample_texts())[:max_chars]


# ------------------------------------------------------------------------------------------------
# tokenizers


@st.cache_resource(show_spinner="Training the default tokenizer on the built-in samples…")
def default_tokenizer() -> Tokenizer:
    _, documents = default_corpus()
    return bpe_core.train(documents, 256 + DEFAULT_MERGES, min_frequency=2, pattern="gpt2", name="sample-bpe")


@st.cache_resource(show_spinner="Loading GPT-2…")
def gpt2_tokenizer() -> Tokenizer:
    return bpe_core.gpt2()


@st.cache_resource(show_spinner=False)
def cl100k_is_available() -> bool:
    return bpe_core.cl100k_available()


@st.cache_resource(show_spinner="Loading cl100k…")
def cl100k_tokenizer() -> Tokenizer:
    return bpe_core.cl100k()


@st.cache_resource(show_spinner=False, max_entries=64)
def _library_file(root: str, name: str, modified_ns: int, size: int) -> tuple[Tokenizer | None, str | None, dict]:
    """Load one library file; keyed on its modification time so edits are picked up."""
    ws = Workspace(root)
    for entry in ws.entries():
        if entry.name == name:
            checked, tokenizer = ws.check(entry)
            return tokenizer, checked.error, {"vocab_size": checked.vocab_size, "merges": checked.merges}
    return None, f"{name!r} vanished from the library", {}


@dataclass
class SessionTokenizer:
    """A tokenizer trained in this browser session and not (yet) saved to the library."""

    tokenizer: Tokenizer
    uid: str
    created: float = field(default_factory=time.time)


@dataclass(frozen=True)
class TokenizerChoice:
    """One tokenizer the user can pick.

    ``key`` is stable across reruns and goes into URLs (``default``, ``gpt2``, ``cl100k``,
    ``lib:<name>``, ``new:<name>``); ``fingerprint`` changes whenever the tokenizer does, so cached
    results keyed on it are never stale.
    """

    key: str
    label: str
    kind: str
    fingerprint: str
    loader: Callable[[], Tokenizer] = field(repr=False, compare=False)
    note: str = ""

    def get(self) -> Tokenizer:
        return self.loader()


@dataclass
class LibraryProblem:
    name: str
    path: str
    error: str


def _session_tokenizers() -> dict[str, SessionTokenizer]:
    return st.session_state.setdefault(SESSION_TOKENIZERS, {})


def library_choices() -> tuple[list[TokenizerChoice], list[LibraryProblem]]:
    """Tokenizers in the workspace library, and the files that could not be read."""
    ws = workspace()
    choices: list[TokenizerChoice] = []
    problems: list[LibraryProblem] = []
    try:
        entries = ws.entries()
    except ValueError as exc:
        return [], [LibraryProblem("(library)", str(ws.folder), str(exc))]
    for entry in entries:
        tokenizer, error, info = _library_file(str(ws.root), entry.name, entry.modified_ns, entry.size)
        if tokenizer is None:
            problems.append(LibraryProblem(entry.name, str(entry.path), error or "unreadable"))
            continue
        choices.append(
            TokenizerChoice(
                key=f"lib:{entry.name}",
                label=f"📁 {entry.name}",
                kind="library",
                fingerprint=f"lib:{ws.root}:{entry.name}:{entry.modified_ns}:{entry.size}",
                loader=lambda tokenizer=tokenizer: tokenizer,
                note=f"saved {describe_age(entry.modified)}",
            )
        )
    return choices, problems


def available_tokenizers() -> dict[str, TokenizerChoice]:
    """Every tokenizer usable right now, in display order: default, GPT-2, cl100k, session, library."""
    choices: dict[str, TokenizerChoice] = {}
    choices[DEFAULT_KEY] = TokenizerChoice(
        key=DEFAULT_KEY,
        label="sample-bpe (default)",
        kind="built-in",
        fingerprint=DEFAULT_KEY,
        loader=default_tokenizer,
        note=f"{DEFAULT_MERGES} merges trained on the built-in samples when the app starts",
    )
    choices["gpt2"] = TokenizerChoice("gpt2", "gpt2", "built-in", "gpt2", gpt2_tokenizer, "GPT-2, 50,000 merges")
    if cl100k_is_available():
        choices["cl100k"] = TokenizerChoice(
            "cl100k", "cl100k", "built-in", "cl100k", cl100k_tokenizer, "GPT-3.5/GPT-4 cl100k_base"
        )
    for name, held in _session_tokenizers().items():
        key = f"new:{name}"
        choices[key] = TokenizerChoice(
            key=key,
            label=f"✱ {name} (unsaved)",
            kind="session",
            fingerprint=f"new:{name}:{held.uid}",
            loader=lambda held=held: held.tokenizer,
            note="trained in this session, not saved",
        )
    library, _ = library_choices()
    for choice in library:
        choices[choice.key] = choice
    return choices


def add_session_tokenizer(tokenizer: Tokenizer, corpus: tuple[str, list[str]] | None) -> str:
    """Register a freshly trained tokenizer for this session; returns its key."""
    held = SessionTokenizer(tokenizer, uid=f"{time.time_ns():x}")
    _session_tokenizers()[tokenizer.name] = held
    key = f"new:{tokenizer.name}"
    st.session_state[LAST_TRAINED] = key
    if corpus is not None:
        st.session_state.setdefault(CORPORA, {})[key] = corpus
    return key


def save_to_library(key: str, tokenizer: Tokenizer, name: str, *, overwrite: bool = False) -> str:
    """Save to the workspace; a session tokenizer moves to the library. Returns the library key.
    ValueError (bad name, name taken, disk problem) propagates for the caller to show."""
    entry = workspace().save(tokenizer, name, overwrite=overwrite)
    new_key = f"lib:{entry.name}"
    corpora = st.session_state.setdefault(CORPORA, {})
    if key in corpora:
        corpora[new_key] = corpora[key]
    if key.startswith("new:"):
        _session_tokenizers().pop(key[4:], None)
    if st.session_state.get(LAST_TRAINED) == key:
        st.session_state[LAST_TRAINED] = new_key
    return new_key


def corpus_for(key: str) -> tuple[str, list[str]] | None:
    """The training text of a tokenizer if this session has it."""
    if key == DEFAULT_KEY:
        return default_corpus()
    return st.session_state.get(CORPORA, {}).get(key)


def tokenizer_picker(
    label: str,
    choices: dict[str, TokenizerChoice],
    *,
    key: str,
    default: str | None = None,
    help: str | None = None,
) -> TokenizerChoice:
    """A selectbox over ``choices`` remembering its selection by tokenizer key."""
    keys = list(choices)
    if st.session_state.get(key) not in keys:
        st.session_state[key] = default if default in keys else keys[0]
    chosen = st.selectbox(label, keys, format_func=lambda k: choices[k].label, key=key, help=help)
    return choices[chosen]


def ensure_option(key: str, options: Sequence, default=None) -> None:
    """Give a selectbox its initial value, or reset it when it is no longer among ``options``.
    Call before the widget, and create the widget without ``index``."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else (options[0] if options else None)


def summary_row(choice: TokenizerChoice, tokenizer: Tokenizer) -> dict:
    return {
        "tokenizer": choice.label,
        "kind": choice.kind,
        "vocab size": tokenizer.vocab_size,
        "merges": len(tokenizer.merges),
        "pattern": tokenizer.pattern_name or ("none" if tokenizer.pattern is None else "custom"),
        "special tokens": ", ".join(tokenizer.special_tokens) or "—",
        "note": choice.note,
    }


# ------------------------------------------------------------------------------------------------
# reading uploads


def decode_upload(name: str, data: bytes) -> str:
    """Decode an uploaded file as strict UTF-8; ValueError naming the file and byte offset."""
    if b"\x00" in data[:8192]:
        raise ValueError(
            f"{name} looks like a binary file (it contains NUL bytes): upload UTF-8 text "
            "(.txt, .md, source code or JSONL)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        snippet = data[exc.start : exc.start + 4]
        raise ValueError(
            f"{name} is not valid UTF-8: byte {snippet[:1]!r} at offset {exc.start:,} cannot be decoded "
            f"(next bytes {snippet!r}). Re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8) "
            "or remove the binary data."
        ) from None
    return text.removeprefix("\ufeff")


def documents_from_upload(name: str, data: bytes) -> tuple[list[str], list[str]]:
    """The documents in one uploaded corpus file and warnings about skipped parts.

    A ``.jsonl`` file gives one document per line (its ``"text"`` field); any other file is one
    document. ValueError for undecodable files or a JSONL file with no usable line.
    """
    text = decode_upload(name, data)
    if not name.lower().endswith((".jsonl", ".ndjson")):
        return ([text] if text else []), ([] if text else [f"{name} is empty"])
    documents: list[str] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{name} line {number}: not valid JSON ({exc.msg})")
            continue
        value = record.get("text") if isinstance(record, dict) else None
        if not isinstance(value, str):
            problems.append(f'{name} line {number}: no string "text" field')
            continue
        documents.append(value)
    if not documents:
        detail = f" ({problems[0]})" if problems else ""
        raise ValueError(f'{name} has no JSON line with a string "text" field{detail}')
    return documents, problems


def tokenizer_from_upload(name: str, data: bytes) -> Tokenizer:
    """Parse an uploaded tokenizer file, recognised by content: bpe_core JSON, Hugging Face
    ``tokenizer.json`` or a ``.tiktoken`` rank file (which gets the GPT-2 pattern)."""
    try:
        tokenizer = interop.loads_any(data, source=name)
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ValueError(f"{name} is not a usable tokenizer file: {exc}") from None
    stem = Path(name).name
    for suffix in (".json", ".tiktoken", ".tokenizer"):
        stem = stem.removesuffix(suffix)
    if tokenizer.name in ("", "tokenizer", "huggingface") or tokenizer.name == Path(name).stem:
        tokenizer.name = stem or "uploaded"
    return tokenizer


def tokenizer_upload_section(widget_key: str) -> None:
    """File uploader that imports tokenizer files into the library (each file once)."""
    files = st.file_uploader(
        "Load tokenizer files (bpe_core JSON, Hugging Face tokenizer.json, or .tiktoken)",
        type=["json", "tiktoken"],
        accept_multiple_files=True,
        key=widget_key,
        help=f"Up to {upload_limit_mb()} MB per file. Imported tokenizers are saved to the library. "
        ".tiktoken files hold no pattern or special tokens: they get the GPT-2 pattern.",
    )
    done: set = st.session_state.setdefault(PROCESSED_UPLOADS, set())
    for upload in files or []:
        marker = (widget_key, upload.file_id)
        if marker in done:
            continue
        done.add(marker)
        try:
            tokenizer = tokenizer_from_upload(upload.name, upload.getvalue())
            ws = workspace()
            name = ws.unique_name(tokenizer.name or Path(upload.name).stem)
            ws.save(tokenizer, name)
        except ValueError as exc:
            st.error(f"Could not load {upload.name}: {exc}")
            continue
        st.success(
            f"Loaded {upload.name} into the library as **{name}** "
            f"({tokenizer.vocab_size:,} ids, {len(tokenizer.merges):,} merges)."
        )


# ------------------------------------------------------------------------------------------------
# downloads


@st.cache_data(show_spinner=False, max_entries=16)
def export_files(fingerprint: str, _tokenizer: Tokenizer) -> dict[str, tuple[bytes | None, str]]:
    """The tokenizer in three formats: name -> (data or None, note)."""
    out: dict[str, tuple[bytes | None, str]] = {}
    out["bpe_core"] = (serialization.dumps(_tokenizer).encode("utf-8"), "bpe_core JSON (lossless)")
    try:
        hf = interop.to_huggingface_dict(_tokenizer)
        out["huggingface"] = (json.dumps(hf, ensure_ascii=False).encode("utf-8"), "Hugging Face tokenizer.json")
    except ValueError as exc:
        out["huggingface"] = (None, str(exc))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tokenizer.tiktoken")
        try:
            bpe_core.save_tiktoken(_tokenizer, path)
            out["tiktoken"] = (Path(path).read_bytes(), ".tiktoken ranks (pattern and special tokens not included)")
        except ValueError as exc:
            out["tiktoken"] = (None, str(exc))
    return out


def download_buttons(fingerprint: str, tokenizer: Tokenizer, key_prefix: str) -> None:
    files = export_files(fingerprint, tokenizer)
    base = re.sub(r"[^\w.-]+", "_", tokenizer.name).strip("_") or "tokenizer"
    columns = st.columns(3)
    specs = [
        ("bpe_core", f"{base}.json", "application/json", "bpe_core JSON"),
        ("huggingface", f"{base}.tokenizer.json", "application/json", "tokenizer.json (HF)"),
        ("tiktoken", f"{base}.tiktoken", "text/plain", ".tiktoken"),
    ]
    for column, (fmt, filename, mime, label) in zip(columns, specs):
        data, note = files[fmt]
        with column:
            if data is None:
                st.button(f"⬇ {label}", disabled=True, key=f"{key_prefix}.dl.{fmt}", help=note)
                st.caption(f"Not available: {note}")
            else:
                st.download_button(
                    f"⬇ {label}", data=data, file_name=filename, mime=mime, key=f"{key_prefix}.dl.{fmt}", help=note
                )


# ------------------------------------------------------------------------------------------------
# encoding and rendering


@dataclass(frozen=True)
class Encoded:
    """Tokens of (the rendered part of) a text for one tokenizer, with statistics on the full text."""

    infos: list
    ids_total: int
    chars: int
    bytes: int
    stats_truncated: bool


def encode_kwargs(treat_special: bool) -> dict:
    return {"allowed_special": "all"} if treat_special else {"disallowed_special": ()}


@st.cache_resource(show_spinner=False, max_entries=48)
def encode_text(fingerprint: str, text: str, treat_special: bool, _tokenizer: Tokenizer) -> Encoded:
    """Token details for the first MAX_RENDER_CHARS characters, counts for up to MAX_STATS_CHARS.

    A resource cache (no copy per rerun): callers must not modify the result."""
    kwargs = encode_kwargs(treat_special)
    shown = text[:MAX_RENDER_CHARS]
    infos = _tokenizer.encode_with_details(shown, **kwargs)
    stats_text = text[:MAX_STATS_CHARS]
    if len(stats_text) == len(shown):
        total = len(infos)
    else:
        total = len(_tokenizer.encode(stats_text, **kwargs))
    return Encoded(
        infos=infos,
        ids_total=total,
        chars=len(stats_text),
        bytes=len(stats_text.encode("utf-8", "replace")),
        stats_truncated=len(text) > len(stats_text),
    )


def cut_positions(infos: Sequence) -> set[int]:
    """Character offsets where tokens start (text start excluded): where the tokenizer cuts."""
    return {info.start for info in infos if info.start > 0}


_WHITESPACE_VISIBLE = {" ": "·", "\t": "→\t", "\r": "␍", "\n": "↵\n"}


def visible_whitespace(text: str) -> str:
    return "".join(_WHITESPACE_VISIBLE.get(ch, ch) for ch in text)


def token_title(info, rank: int | None) -> str:
    """Hover text: id, how the token was made (merge rank, byte or special) and its bytes in hex."""
    if info.special:
        origin = "special token"
    elif rank is None:
        origin = "single byte"
    else:
        origin = f"merge rank {rank}"
    hex_bytes = info.bytes.hex(" ")
    if len(hex_bytes) > 120:
        hex_bytes = hex_bytes[:117] + "…"
    return f"id {info.id} · {origin} · bytes {hex_bytes}"


TOKEN_CSS = """
<style>
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem;
  line-height: 1.9; white-space: pre-wrap; word-break: break-word; padding: 0.5rem;
  border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; max-height: 32rem; overflow-y: auto; }
.bpe-tokens .t { border-radius: 3px; padding: 1px 0; margin-right: 1px; color: #1a1a1a; }
.bpe-tokens .c0 { background: #ffd8a8; } .bpe-tokens .c1 { background: #a5d8ff; }
.bpe-tokens .c2 { background: #b2f2bb; } .bpe-tokens .c3 { background: #fcc2d7; }
.bpe-tokens .c4 { background: #d0bfff; } .bpe-tokens .c5 { background: #ffec99; }
.bpe-tokens .p { outline: 1px dashed #c92a2a; font-size: 0.8rem; }
.bpe-tokens .s { background: #343a40; color: #fff; font-weight: 600; }
.bpe-tokens .x { box-shadow: -3px 0 0 0 #e03131; }
.bpe-tokens .w { color: #868e96; }
.bpe-cuts { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem;
  line-height: 2.1; white-space: pre-wrap; word-break: break-word; padding: 0.5rem;
  border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; max-height: 20rem; overflow-y: auto; }
.bpe-cuts .both { border-left: 1px solid #adb5bd; }
.bpe-cuts .a { border-left: 3px solid #1971c2; background: #d0ebff; }
.bpe-cuts .b { border-left: 3px solid #e8590c; background: #ffe8cc; }
.bpe-legend span { padding: 0 0.4rem; border-radius: 3px; margin-right: 0.6rem; }
</style>
"""


def render_tokens_html(
    text: str,
    infos: Sequence,
    *,
    rank_of: Callable[[int], int | None],
    show_whitespace: bool = False,
    marked: set[int] | None = None,
) -> str:
    """Coloured spans, one per token, with a hover title; every piece of user text is escaped.

    Tokens holding only part of a UTF-8 character show their bytes (``token_display``); ``marked``
    holds cut positions to highlight (a red bar before the token).
    """
    parts = [TOKEN_CSS, '<div class="bpe-tokens">']
    append = parts.append
    escape = html.escape
    for index, info in enumerate(infos):
        classes = ["t", f"c{index % 6}"]
        if info.special:
            classes.append("s")
            shown = text[info.start : info.end]
        elif info.partial:
            classes.append("p")
            shown = token_display(info.bytes)
        else:
            shown = text[info.start : info.end]
            if show_whitespace:
                shown = visible_whitespace(shown)
        if marked and info.start in marked:
            classes.append("x")
        rank = None if info.special else rank_of(info.id)
        append(
            f'<span class="{" ".join(classes)}" title="{escape(token_title(info, rank), quote=True)}">'
            f"{escape(shown, quote=False)}</span>"
        )
    append("</div>")
    return "".join(parts)


def render_cuts_html(text: str, cuts_a: set[int], cuts_b: set[int]) -> str:
    """The text once, split at every cut of either tokenizer; a piece starting at a cut only the
    first (second) tokenizer makes is blue (orange); cuts both make are thin grey lines."""
    positions = sorted({0, len(text)} | cuts_a | cuts_b)
    parts = [TOKEN_CSS, '<div class="bpe-cuts">']
    for start, end in zip(positions, positions[1:]):
        in_a, in_b = start in cuts_a, start in cuts_b
        css = "a" if in_a and not in_b else "b" if in_b and not in_a else "both" if start else ""
        parts.append(f'<span class="{css}">{html.escape(text[start:end], quote=False)}</span>')
    parts.append("</div>")
    return "".join(parts)


def pieces_html(pieces: Sequence[str], show_whitespace: bool = True) -> str:
    """Pre-tokenization pieces as alternating coloured spans (for regex previews)."""
    parts = [TOKEN_CSS, '<div class="bpe-tokens">']
    for index, piece in enumerate(pieces):
        shown = visible_whitespace(piece) if show_whitespace else piece
        parts.append(
            f'<span class="t c{index % 6}" title="{html.escape(repr(piece), quote=True)}">'
            f"{html.escape(shown, quote=False)}</span>"
        )
    parts.append("</div>")
    return "".join(parts)


@st.cache_resource(show_spinner=False, max_entries=48)
def tokens_html_cached(
    fingerprint: str,
    reference_fingerprint: str | None,
    text: str,
    treat_special: bool,
    show_whitespace: bool,
    _tokenizer: Tokenizer,
    _encoded: Encoded,
    _reference: Encoded | None,
) -> str:
    """``render_tokens_html`` for an encoded text, cached (marks cuts missing from the reference)."""
    marked = None
    if _reference is not None:
        marked = cut_positions(_encoded.infos) - cut_positions(_reference.infos)
    return render_tokens_html(
        text[:MAX_RENDER_CHARS],
        _encoded.infos,
        rank_of=_tokenizer.merge_rank_of,
        show_whitespace=show_whitespace,
        marked=marked,
    )


def show_html(markup: str) -> None:
    st.html(markup)


# ------------------------------------------------------------------------------------------------
# small helpers


def parse_ids(text: str) -> list[int]:
    """Token ids from '1, 2, 3', '[1 2 3]' or one per line; ValueError naming the first bad entry."""
    cleaned = text.strip().strip("[]()")
    if not cleaned:
        return []
    ids: list[int] = []
    for part in re.split(r"[\s,;]+", cleaned):
        if not part:
            continue
        if not re.fullmatch(r"\d+", part):
            raise ValueError(f"{part!r} is not a token id: ids are non-negative integers such as 15496")
        ids.append(int(part))
    return ids


def parse_special_tokens(text: str) -> list[str]:
    """Special tokens from comma- or newline-separated text (blanks ignored, order kept)."""
    tokens: list[str] = []
    for part in re.split(r"[,\n]", text or ""):
        token = part.strip()
        if token and token not in tokens:
            tokens.append(token)
    return tokens


def merges_table(tokenizer: Tokenizer, ranks: Iterable[int]) -> pd.DataFrame:
    """Rows for the given merge ranks: rank, left, right, new token, id, count."""
    records = tokenizer.merge_records
    vocab = tokenizer.vocab
    rows = []
    for rank in ranks:
        if 0 <= rank < len(records):
            r = records[rank]
            rows.append(
                {
                    "rank": r.rank,
                    "left": token_display(vocab[r.left]),
                    "right": token_display(vocab[r.right]),
                    "new token": token_display(vocab[r.id]),
                    "id": r.id,
                    "count": r.count,
                }
            )
    return pd.DataFrame(rows, columns=["rank", "left", "right", "new token", "id", "count"])


def fmt_ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}" if denominator else "—"
