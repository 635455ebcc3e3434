"""Inputs are checked where they are typed, and every library message the app shows is written for a
person (AppTest): Train's vocabulary size says the range it accepts and what it trains to, a size too
small for the special tokens says so under the field and keeps Train disabled, an empty custom regex is
named as such; a typed tokenizer name that the library would change or refuse says so under the field
(Train, Library's rename); the Import says what a file is in sentences, without SentencePiece's source
positions; an empty text file in a corpus is called empty, not "1 row(s) skipped"."""

from __future__ import annotations

import re

import pytest
from apptest_support import opened, run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.workspace.library_folder import LibraryFolder
from pages._ui import names
from pages._ui.messages import in_words
from pages._ui.uploads import Upload, skipped_rows_message

TRAIN = "pages/train.py"
LIBRARY = "pages/library.py"


def shown(at: AppTest) -> list[str]:
    """Every message and caption on the page."""
    return [*texts(at.error), *texts(at.warning), *texts(at.info), *texts(at.success), *texts(at.caption)]


def assert_written_for_a_person(messages: list[str]) -> None:
    for message in messages:
        assert not re.search(r"\bNone\b", message), message
        assert ".." not in message.replace("...", "").replace("…", ""), message
        assert not re.search(r"\w [a-z][^.]*[a-z] [A-Z][a-z]+ (should|takes|is)\b", message), message
        assert not re.search(r"\.(cc|cpp)\(\d+\)|INTERNAL", message), message


@pytest.fixture
def train(workspace_dir) -> AppTest:
    at = opened(TRAIN, timeout=180)
    at.text_area(key="train.paste").set_value("the cat sat on the mat, the dog sat on the log. " * 20)
    return run(at)


def test_vocabulary_size_says_its_range_and_what_it_trains_to(train):
    vocab = train.number_input(key="train.vocab_size")
    assert (vocab.min, vocab.max) == (257, 1_114_112)  # the field refuses 10, 0, -5 and 300,000,000
    assert "From 257" in vocab.help and "1,114,112" in vocab.help
    assert any(
        c.startswith(
            "Trains up to 1,000 ids: 256 bytes, 0 special token(s) and up to 744 merges. Accepted: 257 to 1,114,112"
        )
        for c in texts(train.caption)
    )
    assert not train.button(key="train.go").disabled


def test_a_size_too_small_for_the_special_tokens_is_said_under_the_field(train):
    train.number_input(key="train.vocab_size").set_value(260)
    train.text_area(key="train.specials").set_value("<|a|>, <|b|>, <|c|>, <|d|>")
    at = run(train)
    assert any(
        e.startswith("With 4 special tokens the vocabulary needs at least 261 ids") and "raise it to 261" in e
        for e in texts(at.error)
    ), texts(at.error)
    assert at.button(key="train.go").disabled
    at.number_input(key="train.vocab_size").set_value(261)
    at = run(at)
    assert not any("special tokens the vocabulary needs" in e for e in texts(at.error))
    assert not at.button(key="train.go").disabled


def test_an_empty_custom_regex_is_named_in_the_pages_words(train):
    train.selectbox(key="train.pattern").set_value("custom")
    run(train)
    train.text_input(key="train.custom_regex").set_value("")
    at = run(train)
    assert "The custom regex is empty: type one, or pick a preset." in texts(at.error)
    assert at.button(key="train.go").disabled
    assert_written_for_a_person(shown(at))


def test_a_typed_name_says_what_the_library_makes_of_it(train):
    train.text_input(key="train.name").set_value("../evil")
    at = run(train)
    assert any("It will be saved as **\\_evil**" in w for w in texts(at.warning)), texts(at.warning)
    at.text_input(key="train.name").set_value("///")
    at = run(at)
    assert any("cannot name a tokenizer" in e for e in texts(at.error))
    assert at.button(key="train.go").disabled
    at.text_input(key="train.name").set_value("")
    at = run(at)
    assert any(c.startswith("Left empty, it will be named **pasted-**") for c in texts(at.caption))
    assert not at.button(key="train.go").disabled


def test_renaming_in_the_library_says_the_name_before_and_needs_one(workspace_dir):
    LibraryFolder(workspace_dir).save(bpe_core.train(["ab ab ab"], 260, min_frequency=1), "alpha")
    at = opened(LIBRARY, timeout=180)
    at.text_input(key="library.new_name").set_value("../evil")
    at = run(at)
    assert any("It will be saved as **\\_evil**" in w for w in texts(at.warning))
    at.text_input(key="library.new_name").set_value("")
    at.button(key="library.rename").click()
    at = run(at)
    assert any("Type the new name of **alpha** first" in e for e in texts(at.error)), texts(at.error)
    assert LibraryFolder(workspace_dir).names() == ["alpha"]


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("empty.json", b"", "empty.json is empty: not a tokenizer file. The Import takes"),
        ("notes.json", b"hello world", "The Import takes a tokenizer saved by this workbench"),
        ("broken.model", b"\x80\x81 not a model", "broken.model is not a SentencePiece model"),
    ],
)
def test_the_import_refuses_a_file_in_sentences(workspace_dir, name, data, says):
    at = opened(LIBRARY, timeout=180)
    at.file_uploader(key="library.upload").set_value((name, data, "application/octet-stream"))
    at = run(at)
    errors = [e for e in texts(at.error) if e.startswith("Could not load")]
    assert len(errors) == 1 and says in errors[0].replace("\\", ""), errors
    assert_written_for_a_person(errors)


def test_an_empty_text_file_in_a_corpus_is_called_empty():
    message = skipped_rows_message(Upload("id", "empty.txt", (), ("empty.txt is empty",), bad_rows=0))
    assert message == "empty.txt is empty: it adds nothing to the corpus. Remove it, or upload the file with its text."
    one = skipped_rows_message(
        Upload("id", "c.jsonl", ("a",), ("c.jsonl line 2: no text",), bad_rows=1, row_unit="line")
    )
    assert one.startswith("c.jsonl: 1 line skipped")


def test_library_messages_in_words():
    assert in_words(ValueError("pattern is empty: pass a regex, a preset name such as 'gpt2', or None")) == (
        "pattern is empty: pass a regex, a preset name such as 'gpt2'."
    )
    assert in_words("done.") == "done." and in_words("done") == "done."
    spm = "x.model is not a SentencePiece model: INTERNAL: src/sentencepiece_processor.cc(109) [proto->Parse()]"
    assert in_words(spm) == "x.model is not a SentencePiece model."


def test_name_notes():
    assert names.name_note("my-bpe") is None and names.name_note("  my-bpe ") is None and names.name_note("") is None
    assert names.name_note("../evil").saved_as == "_evil"
    assert names.name_note("a/b.json").saved_as == "a_b"
    refused = names.name_note("...")
    assert refused is not None and not refused.usable and refused.kind == "error"
