"""Patterns that can match the empty string anywhere are refused, with a message that says why and
what to write; every pattern accepted never matches the empty string at any position of any text
(hypothesis: patterns built from atoms, assertions and quantifiers, against random texts); lone
surrogates in special tokens are refused naming the token, however they are given."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.pretokenization.empty_matches import without_assertions
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretrained import model_specials


@pytest.mark.parametrize(
    "pattern", [r"\b", r"(?=a)", r"(?<=x)", r"a|\b", r"\w+|(?=\s)", r"\s+|(?<=a)\B", r"a$|\b", r"\b(?:a)?"]
)
def test_patterns_that_can_match_nothing_somewhere_are_refused(pattern):
    with pytest.raises(BpeError, match=r"can match the empty string at some places .* consume at least one character"):
        bpe_core.train("ab ab a b", 270, pattern=pattern)


def test_the_cli_refuses_them_too(tmp_path, capsys):
    from bpe_core.cli.main import main

    (tmp_path / "c.txt").write_text("ab ab", encoding="utf-8")
    assert (
        main(
            [
                "train",
                str(tmp_path / "c.txt"),
                "--vocab-size",
                "270",
                "--pattern",
                r"\b",
                "-o",
                str(tmp_path / "t.json"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("error: pre-tokenization regex") and "empty string" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "pattern",
    [
        r"\b\w+\b",
        r"\s+(?!\S)|\S+",
        r"[$^]+",
        r"a(?=b)",
        r"(?<=a)b",
        r"\p{L}+|[^\p{L}]",
        model_specials.LLAMA3_PATTERN,
        model_specials.QWEN35_PATTERN,
        model_specials.LLAMA4_PATTERN,
    ],
)
def test_patterns_that_always_consume_are_kept(pattern):
    PreTokenizer.build(pattern)


def test_assertions_are_taken_as_true_and_nothing_else_changes():
    assert without_assertions(r"\b\w+(?=[$^])|^x$") == r"(?:)\w+(?:)|(?:)x(?:)"
    assert without_assertions(r"[\]\b^]a\\b") == r"[\]\b^]a\\b"  # in a set and escaped: not assertions
    assert without_assertions(r"(?<=(a|b))c(?!(d))") == "(?:)c(?:)"


ATOMS = ["a", "b", r"\w", r"\s", "[ab]", ".", r"\b", r"\B", "^", "$", "(?=a)", "(?!b)", "(?<=a)", "(?<! )"]
QUANTIFIERS = ["", "", "?", "*", "+", "{0,2}", "{1,2}"]
piece = st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)).map(lambda p: "".join(p))
branch = st.lists(piece, min_size=1, max_size=3).map("".join)
patterns = st.lists(branch, min_size=1, max_size=3).map("|".join)


@given(pattern=patterns, text=st.text(alphabet="ab \n", max_size=12))
def test_an_accepted_pattern_never_matches_the_empty_string(pattern, text):
    try:
        PreTokenizer.build(pattern)
    except BpeError:
        return
    compiled = regex.compile(pattern)
    for position in range(len(text) + 1):
        found = compiled.match(text, position)
        assert found is None or found.end() > position, (pattern, text, position)


@given(st.text(min_size=1, max_size=6), st.integers(0, 5), st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"]))
def test_lone_surrogates_in_special_tokens_are_refused_naming_the_token(text, where, surrogate):
    token = text[:where] + surrogate + text[where:]
    byte_vocab = {i: bytes([i]) for i in range(256)}
    calls = (
        lambda: bpe_core.train("ab ab", 300, special_tokens=[token]),
        lambda: bpe_core.Tokenizer(byte_vocab, [], special_tokens=[token]),
        lambda: bpe_core.Tokenizer(byte_vocab, [], special_tokens={token: 256}),
    )
    for call in calls:
        with pytest.raises(BpeError, match="lone surrogate") as caught:
            call()
        assert repr(token) in str(caught.value)
