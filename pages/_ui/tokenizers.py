"""The tokenizers a session can pick: trained in this session, saved in the library folder, external
ones (tokenizer files bpe_core reads but does not run, kept in the library folder's ``external``
subfolder: ``bpe_core.workspace.external_files``), models in the local Hugging Face cache (``hub_models``),
built in (today's models, GPT-2, cl100k) and the example sample-bpe.

Each is a ``TokenizerChoice`` with a stable key (it goes into URLs), a fingerprint that changes
whenever the tokenizer does, and what a picker shows (label and number of ids, known without loading
it: a built-in's from ``bpe_core.pretrained.catalogue``). Built-ins are loaded once per server
(``bpe_core.workspace.shared_builtins``: one load however many sessions ask at once), those the pages
open with in a background thread started with the server (``builtins.warm_up``); across restarts
bpe_core's own disk cache makes the load short. The example sample-bpe is trained on the first
``DEFAULT_CORPUS_CHARS`` characters of the built-in samples (``default_corpus``). This module draws
nothing: pickers are in ``widgets``, tables in ``tables``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import streamlit as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.analysis.picky_removals import merge_steps
from bpe_core.corpora.samples import sample_documents
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.workspace import external_files
from bpe_core.workspace.library_folder import LibraryFolder, describe_age
from bpe_core.workspace.names import numbered
from bpe_core.workspace.shared_builtins import builtin_tokenizer
from bpe_core.workspace.shared_builtins import not_installed_notes as not_installed_notes  # the pages' one import

from . import hub_models, state
from .builtins import OPENING, installed_builtins
from .render import token_quote

#: Merges of the example tokenizer (sample-bpe), trained on the built-in samples when first picked.
DEFAULT_MERGES = 500
#: Characters of built-in text the example tokenizer is trained on.
DEFAULT_CORPUS_CHARS = 60_000
DEFAULT_KEY = "default"
EXAMPLE_LABEL = "sample-bpe (example)"


def default_corpus() -> tuple[str, list[str]]:
    """The text the example tokenizer is trained on: (description, documents)."""
    documents = sample_documents(DEFAULT_CORPUS_CHARS)
    total = sum(map(len, documents))
    return f"built-in samples ({len(documents)} document(s), {total:,} characters)", documents


@st.cache_resource(show_spinner="Training the example tokenizer on the built-in samples…")
def default_tokenizer() -> Tokenizer:
    _, documents = default_corpus()
    return bpe_core.train(documents, 256 + DEFAULT_MERGES, min_frequency=2, pattern="gpt2", name="sample-bpe")


@st.cache_resource(show_spinner=False, max_entries=64)
def _library_file(root: str, name: str, modified_ns: int, size: int) -> tuple[Tokenizer | None, str | None]:
    """Load one library file; keyed on its modification time and size so edits are picked up."""
    ws = LibraryFolder(root)
    for entry in ws.entries():
        if entry.name == name:
            checked, tokenizer = ws.check(entry)
            return tokenizer, checked.error
    return None, f"{name!r} vanished from the library"


# ------------------------------------------------------------------------------------------------
# external tokenizers: files bpe_core reads but does not run, kept in the library folder's "external"
# subfolder (bpe_core.workspace.external_files).


def external_folder() -> Path:
    return external_files.folder(library())


@st.cache_resource(show_spinner=False, max_entries=32)
def _external_file(path: str, modified_ns: int, size: int) -> tuple[ExternalTokenizer | Tokenizer | None, str | None]:
    """Load one external file; keyed on its modification time and size so edits are picked up."""
    try:
        return external_files.load(path), None
    except (ValueError, TypeError) as exc:
        return None, str(exc)


def external_choices() -> tuple[list[TokenizerChoice], list[LibraryProblem]]:
    """The external tokenizers in the library, and the files that could not be read."""
    choices: list[TokenizerChoice] = []
    problems: list[LibraryProblem] = []
    for path in external_files.paths(library()):
        try:
            info = path.stat()
        except OSError:  # removed meanwhile
            continue
        tokenizer, error = _external_file(str(path), info.st_mtime_ns, info.st_size)
        if tokenizer is None:
            problems.append(LibraryProblem(path.stem, str(path), error or "unreadable"))
            continue
        kind = getattr(tokenizer, "kind", "byte-level BPE")
        choices.append(
            TokenizerChoice(
                key=f"ext:{path.stem}",
                label=f"🔌 {path.stem} (external)",
                kind="external",
                fingerprint=f"ext:{path}:{info.st_mtime_ns}:{info.st_size}",
                loader=_loaded(tokenizer),
                note=kind,
                vocab_size=tokenizer.vocab_size,
            )
        )
    return choices, problems


def save_external(tokenizer: ExternalTokenizer) -> str:
    """Keep an external tokenizer's original file in the library; returns the name it got."""
    return external_files.keep(library(), tokenizer)


def delete_external(name: str) -> None:
    """Delete the external tokenizer listed as ``name`` (its file's stem)."""
    external_files.delete(library(), name)


def library() -> LibraryFolder:
    """The tokenizer library (folder from $BPE_WORKBENCH_DIR or the per-user default)."""
    return LibraryFolder()


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
    ``lib:<name>``, ``new:<name>``, ``ext:<name>``); ``fingerprint`` changes whenever the tokenizer does, so cached
    results keyed on it are never stale.
    """

    key: str
    label: str
    kind: str
    fingerprint: str
    loader: Callable[[], Tokenizer] = field(repr=False, compare=False)
    note: str = ""
    vocab_size: int | None = None  # known without loading it (catalogue, library file, session)

    def get(self) -> Tokenizer:
        return self.loader()

    @property
    def option(self) -> str:
        """How pickers show it: its label and number of ids ("Qwen 3.5 / 3.6 · 248,077")."""
        return f"{self.label} · {self.vocab_size:,}" if self.vocab_size else self.label


def _loaded(tokenizer: Tokenizer | ExternalTokenizer) -> Callable[[], Tokenizer]:
    """The loader of a tokenizer already in memory. An ``ExternalTokenizer`` stands in for a ``Tokenizer``:
    it has the part of the API every page uses, and pages that need merges leave it out (``with_merges``)."""
    loaded = cast(Tokenizer, tokenizer)
    return lambda: loaded


def _held(held: SessionTokenizer) -> Callable[[], Tokenizer]:
    """The loader of a tokenizer trained in this session."""
    return lambda: held.tokenizer


@dataclass
class LibraryProblem:
    name: str
    path: str
    error: str


def own_tokenizer_names() -> list[str]:
    """The labels of the user's tokenizers (this session's, the library's, external ones) without
    loading any: the files' names only."""
    names = [f"✱ {name} (unsaved)" for name in _session_tokenizers()]
    try:
        names += [f"📁 {entry.name}" for entry in library().entries()]
    except ValueError:
        pass  # the Library page says what is wrong with the folder
    names += sorted(f"🔌 {path.stem} (external)" for path in external_files.paths(library()))
    return names


def _session_tokenizers() -> dict[str, SessionTokenizer]:
    return st.session_state.setdefault(state.SESSION_TOKENIZERS, {})


def library_choices() -> tuple[list[TokenizerChoice], list[LibraryProblem]]:
    """Tokenizers in the library folder, and the files that could not be read."""
    ws = library()
    choices: list[TokenizerChoice] = []
    problems: list[LibraryProblem] = []
    try:
        entries = ws.entries()
    except ValueError as exc:
        return [], [LibraryProblem("(library)", str(ws.folder), str(exc))]
    for entry in entries:
        tokenizer, error = _library_file(str(ws.root), entry.name, entry.modified_ns, entry.size)
        if tokenizer is None:
            problems.append(LibraryProblem(entry.name, str(entry.path), error or "unreadable"))
            continue
        choices.append(
            TokenizerChoice(
                key=f"lib:{entry.name}",
                label=f"📁 {entry.name}",
                kind="library",
                fingerprint=f"lib:{ws.root}:{entry.name}:{entry.modified_ns}:{entry.size}",
                loader=_loaded(tokenizer),
                note=f"saved {describe_age(entry.modified)}",
                vocab_size=tokenizer.vocab_size,
            )
        )
    return choices, problems


def _builtin_choices() -> list[TokenizerChoice]:
    """The installed built-ins (nothing loaded: what they are comes from the catalogue)."""
    choices = []
    for name, status in installed_builtins().items():
        about = status.about
        note = f"{about.models}; {about.licence}" if about else status.note
        loader = functools.partial(builtin_tokenizer, name)
        choices.append(
            TokenizerChoice(name, status.label, "built-in", name, loader, note, about.vocab_size if about else None)
        )
    return choices


def _hub_choices() -> list[TokenizerChoice]:
    """The models in the local Hugging Face cache (``hub_models``; nothing loaded until one is used)."""
    return [
        TokenizerChoice(
            f"{hub_models.KEY_PREFIX}{model.name}",
            f"🤗 {model.name}",
            "hub",
            f"hf:{model.name}:{model.commit}:{model.file}",
            hub_models.loader(model),
            f"Hugging Face cache: {model.file} at commit {model.commit[:12]}",
        )
        for model in hub_models.cached_models()
    ]


def example_choice() -> TokenizerChoice:
    """sample-bpe: an example trained on the built-in samples (when first picked), not a default."""
    return TokenizerChoice(
        DEFAULT_KEY,
        EXAMPLE_LABEL,
        "built-in",
        DEFAULT_KEY,
        default_tokenizer,
        f"an example: {DEFAULT_MERGES} merges trained on the built-in samples",
        256 + DEFAULT_MERGES,
    )


def available_tokenizers() -> dict[str, TokenizerChoice]:
    """Every tokenizer usable right now, in the pickers' order: the user's own first (trained in this
    session, saved in the library, external files, models in the Hugging Face cache), so that none is
    out of sight at the end of a long list; then the built-ins, today's models first; the example last."""
    choices: dict[str, TokenizerChoice] = {}
    for name, held in _session_tokenizers().items():
        key = f"new:{name}"
        choices[key] = TokenizerChoice(
            key=key,
            label=f"✱ {name} (unsaved)",
            kind="session",
            fingerprint=f"new:{name}:{held.uid}",
            loader=_held(held),
            note="trained in this session, not saved",
            vocab_size=held.tokenizer.vocab_size,
        )
    library, _ = library_choices()
    for choice in library:
        choices[choice.key] = choice
    for choice in external_choices()[0]:
        choices[choice.key] = choice
    for choice in _hub_choices():
        choices[choice.key] = choice
    for choice in _builtin_choices():
        choices[choice.key] = choice
    choices[DEFAULT_KEY] = example_choice()
    return choices


def rank_function(tokenizer: Tokenizer) -> Callable[[int], int | None]:
    """A token id -> the rank of the merge that made it (None for bytes and special tokens), for the
    token panels' hover text. A Picky BPE tokenizer has no ranked merges: its tokens get the merge step
    (from 0) that last made them (``bpe_core.analysis.picky_removals.merge_steps``)."""
    if getattr(tokenizer, "rule", "bpe") != "picky":
        return tokenizer.merge_rank_of
    steps, vocab = merge_steps(tokenizer), tokenizer.vocab
    return lambda token_id: steps.get(vocab[token_id])


def unmerged_note(tokenizer: Tokenizer, token_id: int, token: bytes) -> str:
    """Why a token that is neither special nor made by a merge exists (plain text): a single byte,
    a late merge or a whole-word token (tiktoken's rule; see ``bpe_core.bpe.ranks``)."""
    late = {left + right: (left, right) for left, right in getattr(tokenizer, "late_merges", [])}
    if token in late:
        left, right = (token_quote(part) for part in late[token])
        return (
            f"A late merge: {left} + {right} join into it only after one of them was made by a higher-ranked "
            "merge (tiktoken's rule: a pair's priority is the rank of the bytes it makes), so it has no place "
            "in the merge list and no tree here."
        )
    if token_id in set(getattr(tokenizer, "whole_word_tokens", [])):
        return (
            "A whole-word token: no merge builds it. tiktoken's rule looks a whole pre-token up first, so this "
            "token appears only when a whole pre-token equals it (e.g. a word with its leading space)."
        )
    return "A single byte: a leaf of the forest, not built by any merge."


def with_merges(choices: dict[str, TokenizerChoice]) -> tuple[dict[str, TokenizerChoice], list[str]]:
    """The choices that have merges to explore, and the labels of the external ones left out."""
    kept = {key: hub_models.needing_merges(choice) for key, choice in choices.items() if choice.kind != "external"}
    return kept, [choice.label for choice in choices.values() if choice.kind == "external"]


def unused_name(name: str, choices: dict[str, TokenizerChoice]) -> str:
    """``name``, or ``name 2``, ``name 3``… (``numbered_name``) so that no session or library tokenizer
    has it yet."""
    return numbered_name(name, {key[4:] for key in choices if key.startswith(("new:", "lib:"))})


def add_session_tokenizer(tokenizer: Tokenizer, corpus: tuple[str, list[str]] | None) -> str:
    """Register a freshly trained tokenizer for this session; returns its key."""
    held = SessionTokenizer(tokenizer, uid=f"{time.time_ns():x}")
    tokenizer.name = numbered_name(tokenizer.name or "my-bpe", _session_tokenizers())
    _session_tokenizers()[tokenizer.name] = held
    key = f"new:{tokenizer.name}"
    st.session_state[state.LAST_TRAINED] = key
    if corpus is not None:
        st.session_state.setdefault(state.CORPORA, {})[key] = corpus
    return key


def numbered_name(name: str, taken) -> str:
    """``name``, or ``name 2``, ``name 3``… the first not in ``taken``: the library's one convention for
    a name already used (``bpe_core.workspace.names.numbered``; training again with the same name keeps
    the earlier tokenizer).

    >>> numbered_name("my-bpe", {"my-bpe": 1, "my-bpe 2": 2})
    'my-bpe 3'
    """
    return next(candidate for candidate in numbered(name) if candidate not in taken)


def discard_session_tokenizer(key: str) -> None:
    """Forget an unsaved tokenizer of this session (``new:<name>``), and what this session kept about it."""
    if not key.startswith("new:"):
        raise ValueError(f"{key!r} is not an unsaved tokenizer of this session: only those can be discarded")
    _session_tokenizers().pop(key[4:], None)
    st.session_state.get(state.CORPORA, {}).pop(key, None)
    for pointer in (state.LAST_TRAINED, state.TRAIN_RESULT, state.CMP_TRAIN_RESULT):
        if st.session_state.get(pointer) == key:
            st.session_state.pop(pointer, None)


def save_to_library(key: str, tokenizer: Tokenizer, name: str, *, overwrite: bool = False) -> str:
    """Save to the library folder; a session tokenizer moves to the library. Returns the library key.
    ValueError (bad name, name taken, disk problem) propagates for the caller to show."""
    entry = library().save(tokenizer, name, overwrite=overwrite)
    new_key = f"lib:{entry.name}"
    corpora = st.session_state.setdefault(state.CORPORA, {})
    if key in corpora:
        corpora[new_key] = corpora[key]
    if key.startswith("new:"):
        _session_tokenizers().pop(key[4:], None)
    for pointer in (state.LAST_TRAINED, state.TRAIN_RESULT, state.CMP_TRAIN_RESULT):
        if st.session_state.get(pointer) == key:
            st.session_state[pointer] = new_key
    return new_key


def corpus_for(key: str) -> tuple[str, list[str]] | None:
    """The training text of a tokenizer if this session has it."""
    if key == DEFAULT_KEY:
        return default_corpus()
    return st.session_state.get(state.CORPORA, {}).get(key)


def preferred_keys(choices: dict[str, TokenizerChoice], limit: int) -> list[str]:
    """The tokenizers a page opens with: the one trained last in this session, then today's models
    (``OPENING``, those installed); the example only when none of them is."""
    wanted = [st.session_state.get(state.LAST_TRAINED), *OPENING]
    keys = list(dict.fromkeys(k for k in wanted if k in choices))[:limit]
    return keys or [DEFAULT_KEY]
