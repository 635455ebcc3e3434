"""bpe_core.analysis.heldout: the held-out split is deterministic, disjoint and covers the corpus; tiny corpora
get a message saying what to do; the held-out measures equal a direct computation."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis.heldout import DOCUMENT_SPLIT_FROM, HeldOutSplit, choose_heldout, heldout_measures, split_heldout
from bpe_core.corpora.samples import load_samples, parallel_text
from bpe_core.pretrained.package_files import gpt2_encoding

LINE = re.compile(r"[^\n]*\n|[^\n]+")


def lines_of(documents: list[str]) -> Counter:
    return Counter(line for document in documents for line in LINE.findall(document))


def many_documents(n: int = 300) -> list[str]:
    return [f"document number {i} says {'ab' * (i % 7)} hello\n" for i in range(n)]


# --------------------------------------------------------------------------------------------------
# the split


def test_a_line_split_is_disjoint_and_covers_every_line():
    docs = [s.text for s in load_samples()]
    split = split_heldout(docs, fraction=0.2, seed=3)
    assert split.unit == "line"
    assert lines_of(split.train) + lines_of(split.heldout) == lines_of(docs)
    held, kept = set(lines_of(split.heldout)), set(lines_of(split.train))
    assert not held & kept  # no held-out line appears verbatim in the training part
    assert split.heldout_units == sum(lines_of(split.heldout).values())
    assert 0.15 * split.units <= split.heldout_units <= round(0.2 * split.units)
    assert split.train_characters + split.heldout_characters == sum(map(len, docs))


def test_a_document_split_holds_out_whole_documents():
    docs = many_documents()
    split = split_heldout(docs, fraction=0.1, seed=0)
    assert split.unit == "document"
    assert sorted(split.train + split.heldout) == sorted(docs)
    assert not set(split.train) & set(split.heldout)
    assert split.heldout_units == len(split.heldout) == 30
    assert split.units == 300
    # the order of the corpus is kept on both sides
    assert split.train == [d for d in docs if d in set(split.train)]


def test_the_unit_follows_the_number_of_documents_unless_forced():
    assert split_heldout(many_documents(DOCUMENT_SPLIT_FROM - 1)).unit == "line"
    assert split_heldout(many_documents(DOCUMENT_SPLIT_FROM)).unit == "document"
    assert split_heldout(many_documents(DOCUMENT_SPLIT_FROM), by="line").unit == "line"
    assert split_heldout(many_documents(20), by="document").unit == "document"


def test_the_split_is_deterministic_and_moves_with_the_seed():
    docs = [s.text for s in load_samples("natural")]
    first = split_heldout(docs, fraction=0.1, seed=7)
    again = split_heldout(list(docs), fraction=0.1, seed=7)
    assert first == again
    other = split_heldout(docs, fraction=0.1, seed=8)
    assert other.heldout != first.heldout


def test_the_chosen_lines_do_not_depend_on_the_order_of_the_corpus():
    """A line is chosen by a keyed hash of its text, so reordering the corpus holds out the same lines."""
    sentences = parallel_text(split="all", languages=["eng"])["eng"]
    forward = split_heldout(["\n".join(sentences) + "\n"], fraction=0.25, seed=1)
    backward = split_heldout(["\n".join(reversed(sentences)) + "\n"], fraction=0.25, seed=1)
    assert lines_of(forward.heldout) == lines_of(backward.heldout)
    assert forward.heldout_units == 30


def test_runs_of_lines_are_kept_whole_and_never_joined_across_a_cut():
    split = split_heldout(["one\ntwo\nthree\nfour\n"], fraction=0.25, seed=0)
    assert split.heldout == ["one\n"]
    assert split.train == ["two\nthree\nfour\n"]
    assert split.describe() == "1 of 4 lines held out (4 of 19 characters, 21.1%), seed 0."


def test_identical_lines_land_on_one_side_and_blank_lines_stay_in_training():
    docs = ["same\nsame\n\n   \nother\nthird\nfourth\nsame\n"]
    split = split_heldout(docs, fraction=0.5, seed=0)
    held, kept = lines_of(split.heldout), lines_of(split.train)
    assert not set(held) & set(kept)
    assert held["same\n"] in (0, 3)
    assert "\n" not in held and "   \n" not in held
    assert split.units == 6


def test_a_single_string_is_one_document():
    assert split_heldout("a\nb\nc\nd\n", fraction=0.5) == split_heldout(["a\nb\nc\nd\n"], fraction=0.5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \n\u00e9\u0915", max_size=30), min_size=1, max_size=12),
    st.floats(min_value=0.05, max_value=0.9),
    st.integers(min_value=0, max_value=2**70),
)
def test_every_split_that_succeeds_is_disjoint_and_complete(docs, fraction, seed):
    try:
        split = split_heldout(docs, fraction=fraction, seed=seed)
    except ValueError as exc:
        assert "held-out split" in str(exc)  # says what to do
        return
    assert lines_of(split.train) + lines_of(split.heldout) == lines_of(docs)
    assert not set(lines_of(split.train)) & set(lines_of(split.heldout))
    assert split.heldout and all(part.strip() for part in split.heldout)
    assert any(part.strip() for part in split.train)


# --------------------------------------------------------------------------------------------------
# tiny corpora and bad arguments


def test_a_corpus_too_small_to_hold_anything_out_says_what_to_do():
    with pytest.raises(ValueError, match="held-out part would be empty") as caught:
        split_heldout(["one line\nanother\n"], fraction=0.1)
    assert "raise the held-out share" in str(caught.value)
    with pytest.raises(ValueError, match="held-out part would be empty"):
        split_heldout(["", "   \n"], fraction=0.5)


def test_a_corpus_that_would_be_all_held_out_says_what_to_do():
    with pytest.raises(ValueError, match="training part would be empty"):
        split_heldout(["only line"], fraction=0.9)
    with pytest.raises(ValueError, match="training part would be empty"):
        split_heldout(["same\nsame\nsame\n"], fraction=0.5)  # identical lines stay together


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"fraction": 0}, ValueError, "between 0 and 1"),
        ({"fraction": 1.0}, ValueError, "between 0 and 1"),
        ({"fraction": True}, ValueError, "between 0 and 1"),
        ({"fraction": "0.1"}, ValueError, "between 0 and 1"),
        ({"seed": -1}, ValueError, "whole number"),
        ({"seed": 1.5}, ValueError, "whole number"),
        ({"by": "word"}, ValueError, "auto, document, line"),
    ],
)
def test_bad_arguments_are_named(arguments, error, words):
    with pytest.raises(error, match=words):
        split_heldout(["a\nb\nc\n"], **arguments)


def test_documents_that_are_not_text_are_a_type_error():
    with pytest.raises(TypeError, match="document 1 is a bytes"):
        split_heldout(["a\n", b"b\n"])


def test_choose_heldout_takes_at_most_the_share_unless_one_group_is_larger():
    units = [f"u{i}" for i in range(10)]
    assert len(choose_heldout(units, 0.3, 0)) == 3
    assert choose_heldout(units, 0.01, 0) == set()
    assert choose_heldout(["x", "x", "y", "y"], 0.25, 0) in ({"x"}, {"y"})


# --------------------------------------------------------------------------------------------------
# measuring


def test_heldout_measures_equal_a_direct_computation():
    split = split_heldout([s.text for s in load_samples("natural")], fraction=0.2, seed=0)
    trained = bpe_core.train(split.train, 600, pattern="gpt2")
    gpt2 = bpe_core.load("gpt2")
    found = {m.tokenizer: m for m in heldout_measures({"mine": trained, "GPT-2": gpt2}, split.heldout)}
    assert list(found) == ["mine", "GPT-2"]
    characters = sum(map(len, split.heldout))
    size = sum(len(t.encode("utf-8")) for t in split.heldout)
    for name, tokenizer in (("mine", trained), ("GPT-2", gpt2)):
        tokens = sum(len(tokenizer.encode_ordinary(t, engine="python")) for t in split.heldout)
        row = found[name]
        assert (row.characters, row.bytes, row.tokens) == (characters, size, tokens)
        assert row.chars_per_token == pytest.approx(characters / tokens)
        assert row.bytes_per_token == pytest.approx(size / tokens)
        assert row.tokens_per_1000_chars == pytest.approx(1000 * tokens / characters)


def test_heldout_measures_take_tiktoken_encodings_and_refuse_one_string():
    encoding = gpt2_encoding()
    [row] = heldout_measures({"tiktoken": encoding}, ["Hello world", "again"])
    assert row.tokens == len(encoding.encode_ordinary("Hello world")) + len(encoding.encode_ordinary("again"))
    with pytest.raises(TypeError, match="not one str"):
        heldout_measures({"tiktoken": encoding}, "Hello world")
    [empty] = heldout_measures({"tiktoken": encoding}, [])
    assert empty.chars_per_token is None and empty.tokens_per_1000_chars is None


def test_heldout_measures_clean_each_text_once_with_the_same_numbers(monkeypatch):
    import bpe_core.analysis.heldout as heldout
    from bpe_core.analysis.fairness import clean_text

    texts = ["Hello \ud800 world", "plain text", "\udfff"]  # lone surrogates: measured as U+FFFD
    tokenizers = {
        "mine": bpe_core.train(["Hello world plain text"] * 3, 270),
        "GPT-2": bpe_core.load("gpt2"),
        "tiktoken": gpt2_encoding(),
    }
    cleaned = [t.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd") for t in texts]
    calls = []
    monkeypatch.setattr(heldout, "clean_text", lambda text: calls.append(text) or clean_text(text))
    found = heldout_measures(tokenizers, texts)
    assert len(calls) == len(texts)  # once per text, not once per tokenizer
    characters, size = sum(map(len, cleaned)), sum(len(t.encode("utf-8")) for t in cleaned)
    for row, (name, tokenizer) in zip(found, tokenizers.items(), strict=True):
        tokens = sum(len(tokenizer.encode_ordinary(t)) for t in cleaned)
        assert (row.tokenizer, row.characters, row.bytes, row.tokens) == (name, characters, size, tokens)
        assert row.tokens_per_1000_chars == pytest.approx(1000 * tokens / characters)


def test_the_split_record_is_frozen():
    split = split_heldout(["a\nb\nc\nd\n"], fraction=0.5)
    assert isinstance(split, HeldOutSplit)
    with pytest.raises(AttributeError):
        split.seed = 3  # type: ignore[misc]


# --------------------------------------------------------------------------------------------------
# in-sample: how much of a text was in the training text


def test_overlap_shares_count_the_lines_seen_in_training():
    from bpe_core.analysis.heldout import overlap_shares

    natural = {s.label: s.text for s in load_samples("natural")}
    training = [natural["English"], "unrelated text that is long enough\n"]
    shares = overlap_shares(training, {"English": natural["English"], "German": natural["German"]})
    assert shares == {"English": 1.0, "German": 0.0}
    half = "\n".join(natural["English"].splitlines()[:4])
    assert overlap_shares([half], {"English": natural["English"]})["English"] == pytest.approx(0.5)


def test_overlap_shares_ignore_short_common_lines_and_whitespace():
    from bpe_core.analysis.heldout import overlap_shares

    program = "def count(words):\n    return len(words)\n}\n"
    other = "}\n  def count(words):  \n"  # the same long line with other indentation, and a '}'
    assert overlap_shares([other], {"program": program}) == {"program": 0.5}
    assert overlap_shares(["}\n"], {"short": "}\n)"}) == {"short": 0.5}  # only short lines: all count
    assert overlap_shares([], {"empty": ""}) == {"empty": 0.0}
    assert overlap_shares(["x"], {}) == {}


def test_overlap_shares_of_the_held_out_parallel_sentences_are_zero_for_the_training_lines():
    from bpe_core.analysis.heldout import overlap_shares

    train = parallel_text(split="train", languages=["eng", "hin"])
    held = parallel_text(split="heldout", languages=["eng", "hin"])
    documents = [line for lines in train.values() for line in lines]
    texts = {lang: "\n".join(lines) for lang, lines in held.items()}
    assert overlap_shares(documents, texts) == {"eng": 0.0, "hin": 0.0}
