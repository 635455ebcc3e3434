"""The Train page's corpus formats: Parquet, JSON arrays, JSONL and compressed uploads with a text-field
box and the bad-row report, and the progress text in bytes. (Training through the files a corpus is
written as equals ``bpe_core.train`` on its documents: tests/workspace/test_corpus_as_files.py.)"""

from __future__ import annotations

import gzip
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
from apptest_support import run, texts

import bpe_core

TRAIN = "pages/train.py"
DOCS = [f"row {i}: the cat sat on the mat, the dog sat on the log {i % 7}" for i in range(40)]


def go(at, page):
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def parquet_bytes(columns: dict) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink, row_group_size=7)
    return sink.getvalue()


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_parquet_json_and_compressed_uploads_are_documents(app):
    go(app, TRAIN)
    files = [
        ("a.parquet", parquet_bytes({"body": DOCS[:20], "n": list(range(20))}), "application/octet-stream"),
        ("b.json.gz", gzip.compress(json.dumps([{"body": d} for d in DOCS[20:30]]).encode()), "application/gzip"),
        (
            "c.jsonl",
            "\n".join(json.dumps({"body": d}) for d in DOCS[30:]).encode() + b'\n{"body": null}',
            "application/json",
        ),
    ]
    app.file_uploader(key="train.uploads").set_value(files)
    run(app)
    assert not app.error  # the one field with text is found in each file
    assert any("a.parquet: the text is in the field **body**" in c for c in texts(app.caption))
    assert metrics(app)["documents"] == f"{len(DOCS):,}"
    assert any("c.jsonl: 1 line skipped" in w and "line 11" in w and "null" in w for w in texts(app.warning))
    app.number_input(key="train.vocab_size").set_value(300)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    tokenizer = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    assert tokenizer.merges == bpe_core.train(DOCS, 300).merges
    assert tokenizer.training["corpus"]["documents"] == len(DOCS)


def test_each_file_has_its_own_text_field(app):
    """A JSONL with ``content`` and a Parquet with ``text`` train together, each read from its own field."""
    go(app, TRAIN)
    files = [
        (
            "shakes.jsonl",
            "\n".join(json.dumps({"id": i, "content": d}) for i, d in enumerate(DOCS[:25])).encode(),
            "application/json",
        ),
        ("shakes.parquet", parquet_bytes({"id": list(range(15)), "text": DOCS[25:]}), "application/octet-stream"),
    ]
    app.file_uploader(key="train.uploads").set_value(files)
    run(app)
    assert not app.error and metrics(app)["documents"] == f"{len(DOCS):,}"
    shown = texts(app.caption)
    assert any("shakes.jsonl: the text is in the field **content**" in c for c in shown)
    assert any("shakes.parquet: the text is in the field **text**" in c for c in shown)


def test_a_file_with_several_text_fields_asks_which(app):
    go(app, TRAIN)
    data = parquet_bytes({"title": [d[:6] for d in DOCS[:5]], "text": DOCS[:5], "other": DOCS[5:10]})
    app.file_uploader(key="train.uploads").set_value(("t.parquet", data, "application/octet-stream"))
    run(app)
    (box,) = [b for b in app.selectbox if b.key.startswith("train.field.")]
    assert box.value == "text" and set(box.options) == {"title", "text", "other"}
    assert metrics(app)["documents"] == "5" and app.text_area(key="train.preview_text").value.startswith(DOCS[0][:20])
    box.set_value("other")
    run(app)  # the file is read again from the field chosen
    assert app.text_area(key="train.preview_text").value.startswith(DOCS[5][:20])


def test_a_file_without_text_says_so_in_plain_words(app):
    go(app, TRAIN)
    app.file_uploader(key="train.uploads").set_value(
        ("numbers.parquet", parquet_bytes({"id": [1, 2, 3]}), "application/octet-stream")
    )
    run(app)
    (error,) = [e.replace("\\", "") for e in texts(app.error)]  # as shown: Markdown escapes removed
    assert "numbers.parquet holds no text: none of its columns (id) holds strings" in error
    assert "bpe-upload" not in error and "/tmp" not in error
    assert "text_field" not in error and "--text-field" not in error


def test_the_bad_row_report_is_escaped(app):
    go(app, TRAIN)
    hostile = "[x](https://e.x/) **b** <b>z</b>"
    rows = [json.dumps({"text": "fine text here"}), json.dumps({hostile: 1})]
    app.file_uploader(key="train.uploads").set_value((f"{hostile}.jsonl", "\n".join(rows).encode(), "application/json"))
    run(app)
    warning = next(w for w in app.warning if "skipped" in str(w.value))
    assert "](https://" not in str(warning.value) and "<b>" not in str(warning.value)


def test_the_progress_text_counts_bytes():
    from pages._ui.widgets import ByteProgress

    shown = []

    class Bar:
        def progress(self, fraction, text):
            shown.append((fraction, text))

    ticks = iter(range(100))
    progress = ByteProgress(Bar(), clock=lambda: next(ticks))
    progress("count", 0, 5_000_000)
    progress("count", 2_500_000, 5_000_000)
    progress("merge", 10, 100)
    assert "2.5 MB of 5.0 MB read" in shown[1][1] and 0 < shown[1][0] < shown[2][0]
    assert "merges" in shown[2][1]
