"""Importing tokenizer files into the library (the Library page's Import, and Train's): bpe_core JSON,
Hugging Face ``tokenizer.json`` and SentencePiece ``.model`` files at once; a ``.tiktoken`` rank file,
which holds neither a pre-tokenization pattern nor special tokens, only once the user has said which
pattern it takes (preset to a model's own when its ranks are that model's: the file's SHA-256 or its
ranks equal a built-in's). A tokenizer whose ranks are a built-in's is named after it, whatever its
format (``import_name``). A file that is no tokenizer is refused in plain words: what the file is, and
what is expected.

Parsing is ``bpe_core``'s (``pretrained.external.loads_file``, ``formats.tiktoken_file``); this module
keeps what the user still has to decide in the session (``state.PENDING_RANKS``) and draws the import.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.external import ExternalTokenizer, loads_file

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
    """Parse an uploaded tokenizer file, recognised by content: bpe_core JSON, Hugging Face
    ``tokenizer.json`` or a ``.tiktoken`` rank file (GPT-2's pattern: ``RankFile`` asks for the right
    one first) become a ``Tokenizer``; other ``tokenizer.json`` files and SentencePiece ``.model`` files an
    ``ExternalTokenizer`` (``bpe_core.pretrained.external``). ValueError saying what is wrong in plain words."""
    try:
        tokenizer = loads_file(data, source=name)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ValueError(describe_refusal(name, data, exc)) from None
    model = known_model(data, tokenizer._token_to_id) if isinstance(tokenizer, Tokenizer) else None
    tokenizer.name = import_name(name, tokenizer.name, model)
    return tokenizer


#: Names a file gives its tokenizer that say nothing of it (Hugging Face's files are all tokenizer.json).
GENERIC_NAMES = ("", "tokenizer", "huggingface", "vocab", "model")


def import_name(file_name: str, recorded: str, model: str | None) -> str:
    """One name for one tokenizer whatever the format it comes in: the built-in's (``gpt2``, ``o200k``)
    when its ranks are a built-in's, else the name its file records unless generic, else the file's name.

    >>> import_name("tokenizer.json", "tokenizer", "gpt2"), import_name("o200k_base.tiktoken", "", "o200k")
    ('gpt2', 'o200k')
    >>> import_name("tokenizer.json", "my-bpe", None), import_name("my-bpe.tiktoken", "", None)
    ('my-bpe', 'my-bpe')
    """
    if model:
        return model
    if recorded.strip().lower() in GENERIC_NAMES or recorded == Path(file_name).stem:
        return stem(file_name)
    return recorded


def stem(name: str) -> str:
    base = Path(name).name
    for suffix in (".json", ".tiktoken", ".tokenizer", ".model"):
        base = base.removesuffix(suffix)
    return base or "uploaded"


@dataclass(frozen=True)
class RankFile:
    """An uploaded ``.tiktoken`` file waiting for its pattern: its ranks, and the built-in whose ranks
    they are (None if none)."""

    name: str
    ranks: dict[bytes, int]
    model: str | None
    data: bytes  # the file, whose SHA-256 keys its recovered structure on disk (catalogue.cached_structure)


def is_rank_file(name: str, data: bytes) -> bool:
    """Whether an upload is a ``.tiktoken`` rank file (by name, or by its first line)."""
    if name.endswith(".tiktoken"):
        return True
    first = data[:200].split(b"\n", 1)[0].split()
    return len(first) == 2 and first[1].isdigit() and not data.lstrip().startswith((b"{", b"["))


def known_model(data: bytes, ranks: Mapping[bytes, int]) -> str | None:
    """The built-in whose rank file ``data`` is (the pinned SHA-256), or whose ranks equal ``ranks``
    (compared with the installed built-ins of about that size only: each is loaded once per server)."""
    digest = hashlib.sha256(data).hexdigest()
    for name, builtin in catalogue.BUILTINS.items():
        if builtin.sha256 == digest:
            return name
    for name, status in builtins.installed_builtins().items():
        about = status.about
        if about and 0 <= about.vocab_size - len(ranks) <= 4096:
            try:
                if builtins.builtin_tokenizer(name)._token_to_id == ranks:
                    return name
            except ValueError:
                continue
    return None


def _pending() -> dict[tuple[str, str], RankFile]:
    return st.session_state.setdefault(state.PENDING_RANKS, {})


def _save(tokenizer: Tokenizer | ExternalTokenizer, upload_name: str) -> str:
    if isinstance(tokenizer, ExternalTokenizer):
        return save_external(tokenizer)
    # one step, so two sessions importing one name at once get two names
    return library().save_as_new(tokenizer, tokenizer.name or stem(upload_name)).name


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
            if is_rank_file(upload.name, data):
                ranks = parse_tiktoken_ranks(data.decode("ascii", "replace"), what=upload.name)
                _pending()[marker] = RankFile(upload.name, ranks, known_model(data, ranks), data)
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


def rank_file_choices(marker: tuple[str, str], rank_file: RankFile) -> None:
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


def ranks_tokenizer(rank_file: RankFile, choice: str, regex: str) -> Tokenizer:
    """The tokenizer of ``rank_file`` with the pattern ``choice`` (a key of ``pattern_options``), its
    merges recovered once per file (``catalogue.cached_structure``)."""
    if choice == CUSTOM and not regex.strip():
        raise ValueError("type the regex that splits text before the merges, or pick a preset")
    specials: dict[str, int] = {}
    pattern: object = regex if choice == CUSTOM else choice
    if choice.startswith("model:"):  # the same ranks: the model's own pattern (its stages) and special tokens
        model = bpe_core.load(choice.removeprefix("model:"))
        specials, pattern = model.special_tokens, model._pattern_argument
    with st.spinner(f"Recovering the merges of {len(rank_file.ranks):,} ranks…"):
        structure = catalogue.cached_structure(rank_file.ranks, rank_file.data)
        return Tokenizer.from_ranks(
            rank_file.ranks,
            special_tokens=specials,
            pattern=pattern,  # type: ignore[arg-type]
            name=import_name(rank_file.name, "", rank_file.model),
            structure=structure,
        )
