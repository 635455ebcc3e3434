"""The Train page's corpus: uploaded files (each structured one read from its own text field), files
uploaded earlier in the session, built-in samples and pasted text, gathered into a ``Corpus`` with a
signature that changes with it and a few words for the name of what is trained on it. Draws the
corpus inputs; reading files is ``pages._ui.uploads``'."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from bpe_core.corpora.corpus_bytes import chosen_field
from bpe_core.corpora.samples import load_samples
from bpe_core.workspace.documents import name_hint
from pages._ui import state
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.uploads import Upload, file_uploader, session_uploads, skipped_rows_message, upload_limit_mb

UPLOADER = "train.uploads"
EARLIER = "train.earlier"


@dataclass
class Corpus:
    """The documents to train on, where they came from, and a signature that changes with them."""

    documents: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # a short word for each source, for a tokenizer's name
    _digest: Any = field(default_factory=hashlib.sha256, repr=False)  # a hashlib object

    def add(self, source: str, documents: list[str], marker: bytes, hint: str) -> None:
        self.documents.extend(documents)
        self.sources.append({"source": source, "documents": len(documents), "characters": sum(map(len, documents))})
        self.hints.append(hint)
        self._digest.update(marker)

    @property
    def name_hint(self) -> str:
        """What the corpus is, in a few words for a name: its sources' hints (three at most)."""
        return "-".join(self.hints[:3]) + (f"-and-{len(self.hints) - 3}-more" if len(self.hints) > 3 else "")

    @property
    def signature(self) -> str:
        return self._digest.hexdigest()

    @property
    def label(self) -> str:
        names = [s["source"] for s in self.sources]
        return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def earlier_uploads(in_uploader: list[str]) -> list[str]:
    """The multiselect of readable files uploaded earlier in this session; returns the chosen file_ids."""
    uploaded = session_uploads(UPLOADER)
    earlier = [file_id for file_id, upload in uploaded.items() if file_id not in in_uploader and not upload.error]
    if state.arrived_from_another_page():
        # Back from another page: the uploader is empty again, so what was in the corpus comes back here.
        st.session_state[EARLIER] = [f for f in st.session_state.get(state.TRAIN_IN_CORPUS, []) if f in earlier]
    else:
        st.session_state[EARLIER] = [f for f in st.session_state.get(EARLIER, []) if f in earlier]
    if not earlier:
        return []
    return st.multiselect(
        "Files uploaded earlier in this session",
        earlier,
        format_func=lambda file_id: uploaded[file_id].name,
        key=EARLIER,
        help="Kept while this browser tab is open, so leaving the page loses no upload. "
        "Reloading the tab forgets them.",
    )


def add_upload(corpus: Corpus, upload: Upload) -> None:
    if upload.error:
        st.error(f"Skipped {md(upload.name)}: {md(in_words(upload.error))}")
        return
    if upload.warnings:
        st.warning(skipped_rows_message(upload))  # plain: escaped by skipped_rows_message
    field = f":{upload.text_field}" if upload.data else ""  # the rows change with the text field
    corpus.add(upload.name, list(upload.documents), f"file:{upload.file_id}{field}".encode(), name_hint(upload.name))


def field_key(file_id: str) -> str:
    return f"train.field.{file_id}"


def field_of_file(file_id: str, fields) -> str:
    """The field a structured file is read with: the one chosen for it, else ``chosen_field``'s guess."""
    return chosen_field(fields, st.session_state.get(field_key(file_id)))


def text_field_choices(uploads: list[Upload]) -> None:
    """For each structured file, which field its text is read from: said when the file has one, chosen
    in a box when it has several (each file its own: a JSONL's ``content`` and a Parquet's ``text`` train
    together)."""
    for upload in uploads:
        if len(upload.fields) == 1:
            st.caption(f"{md(upload.name)}: the text is in the field **{md(upload.fields[0])}**.")
        elif len(upload.fields) > 1:
            key = field_key(upload.file_id)
            state.ensure_option(key, list(upload.fields), upload.text_field)
            st.selectbox(
                f"{md(upload.name)} has several fields with text: which one to train on?",
                list(upload.fields),
                key=key,
                help="The fields are listed from the one with the most text (in the first rows) down.",
            )


def corpus_section() -> Corpus:
    st.header("1 · Corpus", divider="gray")
    limit = upload_limit_mb()
    uploads = file_uploader(
        "Corpus files: plain text, Markdown, source code; JSONL, JSON arrays or Parquet with a text field; "
        f".gz or .zst compressed (UTF-8, up to {limit:,} MB each)",
        UPLOADER,
        help="A text file is one document; each row of a .jsonl/.ndjson, .json (an array) or .parquet file is "
        "one document: the field that holds its text, found in each file (you choose when a file has several). "
        "Rows without text are skipped and reported. "
        f"The upload limit ({limit:,} MB per file) is server.maxUploadSize in .streamlit/config.toml.",
        split_jsonl=True,
        remember_removed=True,
        text_field=field_of_file,
    )
    text_field_choices(uploads)
    samples = load_samples()
    sample_labels = {s.id: f"{s.label} ({len(s.text):,} chars)" for s in samples}
    chosen_samples = st.multiselect(
        "Built-in samples",
        list(sample_labels),
        format_func=lambda sid: sample_labels[sid],
        key="train.samples",
        help="Texts that ship with the project; each is one document.",
    )
    pasted = st.text_area("Or paste text (one document)", key="train.paste", height=100)
    in_uploader = [upload.file_id for upload in uploads]
    st.session_state[state.TRAIN_IN_CORPUS] = [*earlier_uploads(in_uploader), *in_uploader]

    corpus = Corpus()
    uploaded = session_uploads(UPLOADER)
    for file_id in st.session_state[state.TRAIN_IN_CORPUS]:
        add_upload(corpus, uploaded[file_id])
    for sample in samples:
        if sample.id in chosen_samples:
            corpus.add(f"sample: {sample.label}", [sample.text], f"sample:{sample.id}".encode(), sample.id)
    if pasted.strip():
        corpus.add("pasted text", [pasted], b"paste:" + pasted.encode("utf-8", "replace"), "pasted")
    return corpus
