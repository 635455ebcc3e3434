"""The Tokenizer's composition: a ``Codec`` (model, pre-tokenizer, special tokens, engines) does the
work; ``TiktokenEncoding`` is tiktoken's surface over any codec, on its own; a ``Tokenizer`` is that
surface with bpe_core's views and files, and its copies keep names of their own."""

from __future__ import annotations

import copy

import pytest

import bpe_core
from bpe_core.encoding.codec import Codec
from bpe_core.encoding.tiktoken_surface import TiktokenEncoding

TEXTS = ["hello world", "a<|endoftext|>b", "héllo wörld ☃ 日本語 🚀", "  x\n\n"]


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


def test_the_tiktoken_surface_works_over_a_codec_alone(gpt2):
    surface = TiktokenEncoding(gpt2.codec)
    for text in TEXTS:
        assert surface.encode(text, allowed_special="all") == gpt2.encode(text, allowed_special="all")
        ids = gpt2.encode(text, disallowed_special=())
        assert surface.decode(ids) == gpt2.decode(ids) == text
        assert surface.decode_with_offsets(ids) == gpt2.decode_with_offsets(ids)
        assert surface.encode_with_unstable(text, disallowed_special=()) == gpt2.encode_with_unstable(
            text, disallowed_special=()
        )
    assert (surface.n_vocab, surface.eot_token, surface.name) == (50257, 50256, "gpt2")
    with pytest.raises(ValueError, match="disallowed special token"):
        surface.encode("<|endoftext|>")


def test_a_tokenizer_is_the_surface_over_its_codec_and_nothing_is_mixed_in(gpt2):
    assert bpe_core.Tokenizer.__mro__ == (bpe_core.Tokenizer, TiktokenEncoding, object)
    assert isinstance(gpt2.codec, Codec) and gpt2.codec.model.merge_count == len(gpt2.merges)


def test_a_codec_rebuilt_from_its_parts_encodes_the_same(gpt2):
    again = Codec.rebuilt(gpt2.codec.parts())
    for text in TEXTS:
        specials = {"allowed_special": "all", "disallowed_special": ()}
        assert again.encode(text, **specials) == gpt2.codec.encode(text, **specials)


def test_a_shallow_copy_renamed_leaves_the_original_named_as_it_was(gpt2):
    twin = copy.copy(gpt2)
    twin.name = "renamed"
    assert (gpt2.name, twin.name) == ("gpt2", "renamed")
    assert twin.encode("hello world") == gpt2.encode("hello world")
    with pytest.raises(KeyError, match="'renamed'"):
        twin.decode_single_token_bytes(10**6)
    with pytest.raises(KeyError, match="'gpt2'"):
        gpt2.decode_single_token_bytes(10**6)


def test_special_tokens_are_found_only_where_they_can_be():
    tokenizer = bpe_core.train(["ab ab ab"], vocab_size=258, min_frequency=1, special_tokens=["<x>", "[y]"])
    table = tokenizer.codec.specials
    assert not table.may_occur_in("ab ab") and table.may_occur_in("a<b") and table.may_occur_in("[")
    x, y = tokenizer.special_tokens["<x>"], tokenizer.special_tokens["[y]"]
    assert tokenizer.encode("a<x>b[y]", allowed_special="all")[1::2] == [x, y]
    with pytest.raises(ValueError, match=r"\[y\]"):
        tokenizer.encode("ab [y]")
    # a disallowed string that is no special token is still found, whatever it starts with
    with pytest.raises(ValueError, match="zz"):
        tokenizer.encode("a zz", disallowed_special={"zz"})
