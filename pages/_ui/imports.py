"""Importing tokenizer files into the library (the Library page's Import, and Train's): bpe_core JSON,
Hugging Face ``tokenizer.json`` and SentencePiece ``.model`` files at once; a ``.tiktoken`` rank file,
which holds neither a pre-tokenization pattern nor special tokens, only once the user has said which
pattern it takes (preset to a model's own when its ranks are that model's). A file that is no tokenizer
is refused in plain words: what the file is, and what is expected.

Reading a file, recognising a built-in's ranks and naming the tokenizer are
``bpe_core.workspace.tokenizer_files``'; this module keeps what the user still has to decide in the
session (``state.PENDING_RANKS``), says refusals in the page's words and draws the import.
"""

from __future__ import annotations

import json

import streamlit as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.workspace import tokenizer_files

from . import builtins, state
from .messages import in_words
from .render import markdown_text as md
from .tokenizers import library, save_external

#: What the Import accepts, said to a user whose file is none of it.
EXPECTED = (
    "a tokenizer saved by this workbench or by bpe_core (.json), a Hugging Face tokenizer.json, a .tiktoken "
    "rank file (base64 token and rank on each line) or a SentencePiece .model"
)
CUSTOM = "custom"


def describe_refusal(name: str, data: bytes, error: Exception) -> str:
    """Why ``data`` (the file ``name``) cannot be imported, in plain words: what the file is and what is
    expected. A file that looks like a tokenizer of a known kind keeps the reader's own reason."""
    said = in_words(error)
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return f"{said} The Import takes {EXPECTED}."
    if isinstance(document, dict) and ("format" in document or "model" in document):
        return said  # a tokenizer file of a kind the reader knows, with the problem it names
    if isinstance(document, dict):
        keys = ", ".join(repr(key) for key in list(document)[:6]) or "none"
        what = f"a JSON object (its keys: {keys})"
    else:
        kinds: dict[type, str] = {list: "a JSON list", str: "a JSON string"}
        what = kinds.get(type(document), f"a JSON {type(document).__name__}")
    return f"{name} is {what}, not a tokenizer. The Import takes {EXPECTED}."


def tokenizer_from_upload(name: str, data: bytes) -> Tokenizer | ExternalTokenizer:
    """The tokenizer in an uploaded file, recognised by content and named once whatever its format
    (``bpe_core.workspace.tokenizer_files.from_file``; built-ins compared in the pickers' order).
    ValueError saying what is wrong in plain words."""
    try:
        return tokenizer_files.from_file(name, data, order=builtins.BUILTIN_ORDER)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ValueError(describe_refusal(name, data, exc)) from None


def _pending() -> dict[tuple[str, str], tokenizer_files.RankFile]:
    return st.session_state.setdefault(state.PENDING_RANKS, {})


def _save(tokenizer: Tokenizer | ExternalTokenizer, upload_name: str) -> str:
    if isinstance(tokenizer, ExternalTokenizer):
        return save_external(tokenizer)
    # one step, so two sessions importing one name at once get two names
    return library().save_as_new(tokenizer, tokenizer.name or tokenizer_files.name_of_file(upload_name)).name


def _announce(upload_name: str, name: str, tokenizer: Tokenizer | ExternalTokenizer) -> None:
    if isinstance(tokenizer, ExternalTokenizer):
        st.success(
            f"Loaded {md(upload_name)} into the library as the external tokenizer **{md(name)}**: "
            f"{md(tokenizer.kind)}, {tokenizer.vocab_size:,} ids. It is shown in Tokenize and Compare; "
            f"{md(tokenizer.note)}."
        )
        return
    st.success(
        f"Loaded {md(upload_name)} into the library as **{md(name)}** "
        f"({tokenizer.vocab_size:,} ids, {len(tokenizer.merges):,} merges)."
    )


def tokenizer_upload_section(widget_key: str) -> None:
    """File uploader that imports tokenizer files into the library (each file once); a rank file waits
    for its pattern (``rank_file_choices``)."""
    files = st.file_uploader(
        "Load tokenizer files (bpe_core JSON, any Hugging Face tokenizer.json, .tiktoken, SentencePiece .model)",
        type=["json", "tiktoken", "model"],
        accept_multiple_files=True,
        key=widget_key,
        help="Imported tokenizers are saved to the library. A .tiktoken file holds ranks only: you choose its "
        "pre-tokenization pattern (preset to the model's own when its ranks are a known model's). Byte-level BPE "
        "files become bpe_core tokenizers; others (WordPiece, Unigram, SentencePiece, ...) are kept as external "
        "tokenizers, run read-only by the library that implements them (tokenizers, sentencepiece).",
    )
    done: set = st.session_state.setdefault(state.IMPORTED_FILES, set())
    for upload in files or []:
        marker = (widget_key, upload.file_id)
        if marker in done:
            continue
        done.add(marker)
        data = upload.getvalue()
        try:
            if tokenizer_files.is_rank_file(upload.name, data):
                _pending()[marker] = tokenizer_files.read_rank_file(upload.name, data, order=builtins.BUILTIN_ORDER)
                continue
            tokenizer = tokenizer_from_upload(upload.name, data)
            name = _save(tokenizer, upload.name)
        except (ValueError, OSError) as exc:
            st.error(f"Could not load {md(upload.name)}: {md(in_words(exc))}")  # exc: a sentence already
            continue
        _announce(upload.name, name, tokenizer)
    for marker, rank_file in list(_pending().items()):
        if marker[0] == widget_key:
            rank_file_choices(marker, rank_file)


def pattern_options(model: str | None) -> dict[str, str]:
    """The patterns a rank file may take: the model's own (when its ranks are a built-in's), the presets,
    and a regex of the user's. Key -> label."""
    options = {}
    if model:
        options[f"model:{model}"] = f"{catalogue.BUILTINS[model].label}'s own (its pattern and special tokens)"
    options.update({preset: f"{preset} preset" for preset in bpe_core.PRESETS})
    options[CUSTOM] = "a regex of my own"
    return options


def rank_file_choices(marker: tuple[str, str], rank_file: tokenizer_files.RankFile) -> None:
    """Ask which pattern ``rank_file`` takes, then import it."""
    key = f"{marker[0]}.ranks.{marker[1]}"
    model = rank_file.model if rank_file.model and catalogue.is_installed(rank_file.model) else None
    with st.container(border=True):
        label = catalogue.BUILTINS[rank_file.model].label if rank_file.model else ""
        st.markdown(
            f"**{md(rank_file.name)}** holds {len(rank_file.ranks):,} ranks and no pre-tokenization pattern or special "
            "tokens."
            + (f" Its ranks are **{md(label)}**'s." if label else "")
            + " Which pattern splits text before its merges?"
        )
        options = pattern_options(model)
        choice = str(st.selectbox("Pattern", list(options), format_func=lambda k: options[k], key=f"{key}.pattern"))
        regex = st.text_input("Regex (Python `regex` syntax)", key=f"{key}.regex") if choice == CUSTOM else ""
        if not st.button(f"Import {md(rank_file.name)}", key=f"{key}.go", type="primary"):
            return
    try:
        tokenizer = ranks_tokenizer(rank_file, choice, regex)
        name = _save(tokenizer, rank_file.name)
    except (ValueError, OSError) as exc:
        st.error(f"Could not load {md(rank_file.name)}: {md(in_words(exc))}")
        return
    _pending().pop(marker, None)
    _announce(rank_file.name, name, tokenizer)


def ranks_tokenizer(rank_file: tokenizer_files.RankFile, choice: str, regex: str) -> Tokenizer:
    """The tokenizer of ``rank_file`` with the pattern ``choice`` (a key of ``pattern_options``; a
    model's own is its pattern and special tokens), its merges recovered once per file."""
    if choice == CUSTOM and not regex.strip():
        raise ValueError("type the regex that splits text before the merges, or pick a preset")
    pattern = None if choice.startswith("model:") else regex if choice == CUSTOM else choice
    with st.spinner(f"Recovering the merges of {len(rank_file.ranks):,} ranks…"):
        return tokenizer_files.from_rank_file(rank_file, pattern=pattern)
