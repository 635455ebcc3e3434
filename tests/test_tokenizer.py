"""Encoding and decoding: round trips, the naive encoder, specials, details, encode_iterable."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive_bpe import naive_encode_word, pretokenize

import bpe_core
from bpe_core import Tokenizer

CORPUS = (
    "The quick brown fox jumps over the lazy dog. It's 2024 and    spaces\n\n\tand tabs!\n"
    "Ünïcödé wörds, 東京タワー, emoji 🚀🚀 and numbers 1234567890.\n"
) * 20


@pytest.fixture(scope="module")
def trained():
    return bpe_core.train(CORPUS, 400, special_tokens=["<|endoftext|>", "<|end|>"], min_frequency=1)


@given(text=st.text())
def test_decode_encode_roundtrip_any_string(trained, text):
    assert trained.decode(trained.encode_ordinary(text)) == text


@given(text=st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=200))
def test_encoding_equals_the_seed_priority_algorithm(trained, text):
    expected = []
    for piece in pretokenize(text, trained.pattern):
        expected.extend(trained.encode_single_token(t) for t in naive_encode_word(piece.encode(), trained.merges))
    assert trained.encode_ordinary(text) == expected


def test_long_runs_use_the_heap_path_and_agree_with_rescanning(trained):
    for text in [" " * 500, "1" * 333, "ab" * 400, "aaaa" * 100 + "b", "é" * 300]:
        ids = trained.encode_ordinary(text)
        assert trained.decode(ids) == text
        slow = []
        for piece in pretokenize(text, trained.pattern):
            slow.extend(trained.encode_single_token(t) for t in naive_encode_word(piece.encode(), trained.merges))
        assert ids == slow


def test_lone_surrogates_are_replaced_not_crashing(trained):
    ids = trained.encode("a\ud800b")
    assert trained.decode(ids) == "a\ufffdb"


def test_special_tokens_follow_tiktoken_semantics(trained):
    text = "hi <|endoftext|> there"
    with pytest.raises(ValueError, match="disallowed special token"):
        trained.encode(text)
    ordinary = trained.encode(text, disallowed_special=())
    assert trained.special_tokens["<|endoftext|>"] not in ordinary
    allowed = trained.encode(text, allowed_special="all")
    assert allowed.count(trained.special_tokens["<|endoftext|>"]) == 1
    assert trained.decode(allowed) == text
    only_one = trained.encode("<|end|><|endoftext|>", allowed_special={"<|end|>"}, disallowed_special=())
    assert only_one[0] == trained.special_tokens["<|end|>"]
    with pytest.raises(ValueError, match="not special tokens"):
        trained.encode("x", allowed_special={"<|nope|>"})


def test_overlapping_special_tokens_match_longest_first(trained):
    ids = trained.encode("<|endoftext|>", allowed_special="all")
    assert ids == [trained.special_tokens["<|endoftext|>"]]
    ids = trained.encode("<|end|>", allowed_special="all")
    assert ids == [trained.special_tokens["<|end|>"]]


def test_unknown_ids_are_bpe_errors_naming_the_id(trained):
    with pytest.raises(bpe_core.BpeError, match="unknown token id 99999"):
        trained.decode([1, 2, 99999])
    with pytest.raises(bpe_core.BpeError, match="unknown token id -1"):
        trained.decode([-1])
    with pytest.raises(TypeError, match="unknown token id 'x'"):  # not an int: the caller's mistake
        trained.decode(["x"])


def test_details_cover_the_text_and_flag_partial_characters(trained):
    text = "Hi 🚀 東京 <|endoftext|>!"
    infos = trained.encode_with_details(text, allowed_special="all")
    assert [i.id for i in infos] == trained.encode(text, allowed_special="all")
    assert b"".join(i.bytes for i in infos) == text.encode()
    rocket = [i for i in infos if text[i.start : i.end] == "🚀"]
    assert rocket and all(i.partial for i in rocket) == (len(rocket) > 1)
    special = [i for i in infos if i.special]
    assert len(special) == 1 and text[special[0].start : special[0].end] == "<|endoftext|>"
    whole = [i for i in infos if not i.partial]
    assert all(text[i.start : i.end].encode() == i.bytes for i in whole)


@given(parts=st.lists(st.text(alphabet="ab <|endoftext|>\n 東", max_size=15), max_size=8))
def test_encode_iterable_equals_encode_of_joined(trained, parts):
    joined = "".join(parts)
    assert list(trained.encode_iterable(parts, allowed_special="all")) == trained.encode(joined, allowed_special="all")
    assert list(trained.encode_iterable(parts, disallowed_special=())) == trained.encode(joined, disallowed_special=())


def test_encode_iterable_detects_disallowed_special_across_chunks(trained):
    with pytest.raises(ValueError, match="disallowed special token"):
        list(trained.encode_iterable(["abc <|endo", "ftext|> d"]))


def test_encode_iterable_keeps_memory_bounded(trained):
    chunks = ("word " * 1000 for _ in range(200))  # 1 MB of text, never joined
    count = sum(1 for _ in trained.encode_iterable(chunks))
    assert count == len(trained.encode("word " * 200_000))


def test_truncated_keeps_a_prefix_of_merges(trained):
    small = trained.truncated(10)
    assert small.merges == trained.merges[:10]
    assert small.vocab_size == 256 + 2 + 10
    assert len(small.encode("the quick brown fox")) >= len(trained.encode("the quick brown fox"))


def test_constructor_validates_its_inputs():
    base = {i: bytes([i]) for i in range(256)}
    with pytest.raises(ValueError, match="all 256 bytes"):
        Tokenizer({i: bytes([i]) for i in range(255)}, [])
    with pytest.raises(ValueError, match="both have the bytes"):
        Tokenizer({**base, 256: b"a"}, [])
    with pytest.raises(ValueError, match="rank order"):
        Tokenizer({**base, 256: b"ab", 257: b"abc"}, [(b"ab", b"c"), (b"a", b"b")])
    with pytest.raises(ValueError, match="not in the vocab"):
        Tokenizer(base, [(b"a", b"b")])
    with pytest.raises(TypeError):
        Tokenizer({0: "a"}, [])
    with pytest.raises(ValueError, match="special token"):
        Tokenizer(base, [], special_tokens={"<s>": 65})


def test_special_tokens_as_list_take_vocab_ids_or_next_free():
    base = {i: bytes([i]) for i in range(256)}
    base[300] = b"<s>"
    tok = Tokenizer(base, [], special_tokens=["<s>", "</s>"])
    assert tok.special_tokens == {"<s>": 300, "</s>": 301}


def test_repr_and_properties(trained):
    text = repr(trained)
    assert f"vocab_size={trained.vocab_size}" in text and "pattern=gpt2" in text
    assert trained.pattern_name == "gpt2"
    assert trained.vocab_size == len(trained.vocab) == 256 + 2 + len(trained.merges)
    assert trained.merge_rank_of(trained.merge_records[3].id) == 3
    assert trained.merge_rank_of(65) is None
    first = trained.merge_records[0]
    vocab = trained.vocab
    line = f"{first.id}\t[{vocab[first.left].decode()}][{vocab[first.right].decode()}] -> [{vocab[first.id].decode()}]"
    assert line in trained.vocab_dump().splitlines()


@given(text=st.text(alphabet="Thequickbrownfox ,.'!0123456789", max_size=40))
def test_applied_merge_ranks_give_every_truncation(trained, text):
    for piece in {p.encode() for p in trained.pretokenizer.pieces(text)}:
        ranks = trained._applied_merge_ranks(piece)
        assert ranks == sorted(ranks)
        for k in (0, 5, 40, len(trained.merges)):
            assert len(trained.truncated(k).encode_ordinary(piece.decode())) == len(piece) - sum(r < k for r in ranks)


def test_from_ranks_takes_a_mapping_or_a_sequence_of_pairs():
    pairs = [(bytes([b]), b) for b in range(256)] + [(b"ab", 256), (b"abc", 257)]
    from_pairs = bpe_core.Tokenizer.from_ranks(pairs, pattern=None)
    from_mapping = bpe_core.Tokenizer.from_ranks(dict(pairs), pattern=None)
    assert from_pairs.encode("abcab") == from_mapping.encode("abcab") == [257, 256]
    assert from_pairs.merges == from_mapping.merges == [(b"a", b"b"), (b"ab", b"c")]
    with pytest.raises(bpe_core.BpeError, match="appears twice"):
        bpe_core.Tokenizer.from_ranks(pairs + [(b"ab", 258)])
