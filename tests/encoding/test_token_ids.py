"""Hostile ids: every public method that takes token ids refuses what is not an id with an error
naming it, never decodes it as some other id and never lets a bare KeyError or a crash through. An
id is an ``int`` (numpy's integers too) other than bool; a value of another type is tiktoken's
``TypeError`` (the caller's mistake), an integer that is no id a ``BpeError`` (bad input) and
tiktoken's ``KeyError``.
"""

from __future__ import annotations

import array
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.bpe.token_ids import MAX_TOKEN_ID, TokenIdTypeError, UnknownTokenError


@pytest.fixture(scope="module")
def tok():
    tok = bpe_core.train(["ab ab abc abc <|end|>"], 260, min_frequency=1, special_tokens=["<|end|>"])
    assert tok.max_token_value == 259 and tok.vocab_size == 260
    return tok


#: Values equal to a real id (1) that are not ids, and the type the error must name.
NOT_IDS = [
    (1.0, "float"),
    (True, "bool"),
    (False, "bool"),
    (np.True_, "bool"),
    (np.float64(1.0), "float64"),
    (Decimal(1), "Decimal"),
    (Fraction(1), "Fraction"),
    ("1", "str"),
    (None, "NoneType"),
    (b"a", "bytes"),
    ([1], "list"),
]
#: Integers that are not ids of the tokenizer (it has 0..259).
UNKNOWN_IDS = [260, 10**6, MAX_TOKEN_ID + 1, 10**30, -1, -(10**30)]


def id_calls(tok, bad):
    """Every public way of handing ``bad`` to the tokenizer as an id."""
    return {
        "decode": lambda: tok.decode([97, bad]),
        "decode_bytes": lambda: tok.decode_bytes([97, bad]),
        "decode generator": lambda: tok.decode(i for i in [97, bad]),
        "decode tuple": lambda: tok.decode((97, bad)),
        "decode_tokens_bytes": lambda: tok.decode_tokens_bytes([97, bad]),
        "decode_with_offsets": lambda: tok.decode_with_offsets([97, bad]),
        "decode_batch": lambda: tok.decode_batch([[97], [97, bad]]),
        "decode_bytes_batch": lambda: tok.decode_bytes_batch([[97, bad]]),
        "decode_single_token_bytes": lambda: tok.decode_single_token_bytes(bad),
        "token_bytes": lambda: tok.decode_single_token_bytes(bad),
        "merge_rank_of": lambda: tok.merge_rank_of(bad),
    }


@pytest.mark.parametrize("bad, type_name", NOT_IDS)
def test_a_value_that_is_not_an_integer_is_never_taken_for_an_id(tok, bad, type_name):
    for what, call in id_calls(tok, bad).items():
        with pytest.raises(TokenIdTypeError) as caught:
            call()
        # a caller mistake, not bad input
        assert isinstance(caught.value, TypeError) and not isinstance(caught.value, ValueError), what
        assert f"unknown token id {bad!r}" in str(caught.value) and f"not {type_name}" in str(caught.value), what
    for check in (tok.is_special_token,):
        with pytest.raises(TypeError, match=f"not {type_name}"):
            check(bad)


@pytest.mark.parametrize("bad", UNKNOWN_IDS)
def test_an_unknown_integer_is_a_value_error_naming_it_for_every_method(tok, bad):
    for what, call in id_calls(tok, bad).items():
        with pytest.raises(UnknownTokenError, match=f"unknown token id {bad}") as caught:
            call()
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, KeyError), what
        assert "0..259" in str(caught.value), what
    assert tok.is_special_token(bad) is False and tok.is_special_token(bad) is False


def test_the_error_names_the_position_of_the_bad_id(tok):
    with pytest.raises(UnknownTokenError, match="unknown token id 999 at position 2: "):
        tok.decode(iter([97, 98, 999, 97]))
    with pytest.raises(TokenIdTypeError, match="unknown token id 1.0 at position 1: .*int\\(x\\)"):
        tok.decode([97, 1.0])


def test_ids_outside_the_format_say_where_ids_end(tok):
    for bad in (-1, MAX_TOKEN_ID + 1):
        with pytest.raises(ValueError, match=f"never negative nor above {MAX_TOKEN_ID}"):
            tok.decode([bad])


def test_a_generator_with_an_unknown_id_is_a_value_error_not_a_bare_key_error(tok):
    # The old decode read a generator twice, so its error path saw an empty iterator and re-raised
    # the bare KeyError.
    with pytest.raises(ValueError, match="unknown token id 5000 at position 1"):
        tok.decode(x for x in [97, 5000])


@pytest.mark.parametrize("not_a_list", ["ab", b"ab", bytearray(b"ab"), memoryview(b"ab"), 97, None])
def test_text_bytes_and_single_values_are_not_lists_of_ids(tok, not_a_list):
    with pytest.raises(TypeError, match="ids"):
        tok.decode(not_a_list)


def test_integer_sequences_of_any_kind_decode_alike(tok):
    ids = tok.encode("abc ab <|end|>", allowed_special="all")
    expected = "abc ab <|end|>"
    for form in (
        ids,
        tuple(ids),
        iter(ids),
        array.array("q", ids),
        np.array(ids),
        np.array(ids, dtype=np.uint32),
        [np.int64(i) for i in ids],
    ):
        assert tok.decode(form) == expected
        assert tok.decode_tokens_bytes(form if not hasattr(form, "__next__") else iter(ids)) == [
            tok.decode_single_token_bytes(i) for i in ids
        ]
    assert tok.decode_single_token_bytes(np.int32(ids[0])) == tok.decode_single_token_bytes(ids[0])
    assert tok.decode(np.array([], dtype=np.int64)) == tok.decode([]) == ""
    with pytest.raises(TypeError, match="not float"):
        tok.decode(np.array(ids, dtype=np.float64))
    with pytest.raises(TypeError, match="not bool"):
        tok.decode(np.array([True, False]))


def test_token_id_refuses_what_is_not_text_or_bytes(tok):
    # bytes(5) would have been five zero bytes
    with pytest.raises(TypeError, match="str or bytes"):
        tok.encode_single_token(5)
    with pytest.raises(KeyError, match="not a token") as caught:
        tok.encode_single_token("zzz")
    assert isinstance(caught.value, ValueError)
    assert tok.encode_single_token(bytearray(b"ab")) == tok.encode_single_token("ab")


def test_the_constructor_refuses_ids_no_format_can_hold():
    vocab = {i: bytes([i]) for i in range(256)}
    with pytest.raises(ValueError, match="from 0 to 4,294,967,295"):
        bpe_core.Tokenizer({**vocab, 10**30: b"ab"}, [])
    with pytest.raises(ValueError, match="from 0 to 4,294,967,295"):
        bpe_core.Tokenizer(vocab, [], special_tokens={"<s>": MAX_TOKEN_ID + 1})
    sparse = bpe_core.Tokenizer({**vocab, MAX_TOKEN_ID: b"ab"}, [(b"a", b"b")])
    assert sparse.decode([MAX_TOKEN_ID, 97]) == "aba" and sparse.n_vocab == MAX_TOKEN_ID + 1


@given(data=st.data())
def test_one_bad_value_anywhere_is_found_and_named(tok, data):
    ids = data.draw(st.lists(st.integers(0, 259), max_size=30))
    position = data.draw(st.integers(0, len(ids)))
    bad = data.draw(st.sampled_from([True, False, 1.0, 0.0, 260, -1, 10**20, "0", None]))
    hostile = ids[:position] + [bad] + ids[position:]
    expected = TypeError if type(bad) is not int else bpe_core.BpeError
    with pytest.raises(expected, match=f" at position {position}: "):
        tok.decode(hostile)
    with pytest.raises(expected, match=f" at position {position}: "):
        tok.decode_tokens_bytes(iter(hostile))
    assert tok.decode_bytes(ids) == b"".join(tok.decode_single_token_bytes(i) for i in ids)
