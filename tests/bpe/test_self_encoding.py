"""Whole-piece lookup: a piece that is a token encoding to itself skips BPE. The proof of which tokens
do (``bpe.self_encoding_ids``) against plain BPE, derived tokenizers that inherit the proof, and
encoding that stays exact when some tokens do not encode to themselves."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bpe import naive_encode_word

import bpe_core
from bpe_core import Tokenizer
from bpe_core.bpe.fast import self_encoding_ids
from bpe_core.bpe.reference import encode_reference


def _ranks_and_bytes(tok):
    ranks = {(r.left, r.right): (r.rank, r.id) for r in tok.merge_records}
    return ranks, [tok.encode_single_token(bytes([b])) for b in range(256)]


def _ordinary_ids(tok):
    return {token_id for token_id in tok.vocab if not tok.is_special_token(token_id)}


def _encodes_to_itself(tok):
    """Token ids whose bytes plain BPE turns into exactly that token (no proof involved)."""
    ranks, byte_ids = _ranks_and_bytes(tok)
    return {
        token_id
        for token_id in _ordinary_ids(tok)
        if encode_reference([byte_ids[b] for b in tok.decode_single_token_bytes(token_id)], ranks) == [token_id]
    }


def _proved(tok):
    return self_encoding_ids(*_ranks_and_bytes(tok))


def _from_merges(merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return Tokenizer(vocab, merges, pattern=None)


# (a, b) outranks (b, c), so "abc" becomes [ab, c] and the token "abc" = a + bc is never reached.
UNREACHED = [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")]


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_every_gpt2_and_cl100k_token_encodes_to_itself(name):
    tok = bpe_core.load(name)
    everything = _ordinary_ids(tok)
    assert _encodes_to_itself(tok) == everything
    assert _proved(tok) == everything
    assert tok.tokens_encode_to_themselves


def test_a_token_that_does_not_encode_to_itself_is_not_looked_up_whole():
    tok = _from_merges(UNREACHED)
    abc = tok.encode_single_token(b"abc")
    assert abc not in _proved(tok)
    assert not tok.tokens_encode_to_themselves
    whole = tok._text_encoder.whole_pieces
    assert "abc" not in whole and "ab" in whole
    assert tok.encode_ordinary("abc") == [tok.encode_single_token(b"ab"), tok.encode_single_token(b"c")]
    assert tok.decode_bytes(tok.encode("xabcx")) == b"xabcx"


def test_to_tiktoken_refuses_a_token_that_does_not_encode_to_itself():
    with pytest.raises(ValueError, match=r"token 258 \(b'abc'\) does not encode to itself"):
        _from_merges(UNREACHED).to_tiktoken()


@st.composite
def merge_lists(draw):
    """Valid merge lists over a tiny alphabet: each merge joins two earlier tokens."""
    tokens = [b"a", b"b", b"c"]
    merges = []
    for _ in range(draw(st.integers(0, 30))):
        left = draw(st.sampled_from(tokens))
        right = draw(st.sampled_from(tokens))
        if left + right not in tokens:
            merges.append((left, right))
            tokens.append(left + right)
    return merges


@settings(max_examples=300)
@given(merges=merge_lists(), text=st.text(alphabet="abc", max_size=40))
def test_proof_equals_the_merge_loop_and_encoding_stays_exact(merges, text):
    tok = _from_merges(merges)
    assert _proved(tok) == _encodes_to_itself(tok)
    expected = [tok.encode_single_token(t) for t in naive_encode_word(text.encode(), merges)] if text else []
    assert tok.encode_ordinary(text) == expected


def test_random_merge_lists_do_hold_tokens_that_do_not_encode_to_themselves():
    # Without this, the property test above could pass with a proof that always says yes.
    @given(merges=merge_lists())
    def count(merges):
        tok = _from_merges(merges)
        found.append(len(_encodes_to_itself(tok)) < len(_ordinary_ids(tok)))

    found = []
    settings(max_examples=200)(count)()
    assert any(found)


@settings(max_examples=150)
@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(
    corpus=st.lists(st.text(alphabet="aab c\n", max_size=25), min_size=1, max_size=6),
    extra=st.integers(1, 40),
    pattern=st.sampled_from(["gpt2", None]),
)
def test_every_trained_token_encodes_to_itself(tie_break, corpus, extra, pattern):
    # Each merge joins two symbols whose bytes evolved on their own, as they do in the token alone.
    tok = bpe_core.train(corpus, 256 + extra, min_frequency=1, tie_break=tie_break, pattern=pattern)
    assert tok.tokens_encode_to_themselves
    assert _encodes_to_itself(tok) == _ordinary_ids(tok)
    truncated = tok.truncated(len(tok.merges) // 2)  # inherits the proof instead of redoing it
    assert truncated.tokens_encode_to_themselves
    assert _encodes_to_itself(truncated) == _ordinary_ids(truncated) == _proved(truncated)


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_ascii_piece_path_equals_segment_path(gpt2, text):
    by_pieces = gpt2.encode_ordinary(text)  # ASCII: piece by piece
    encoder = gpt2._text_encoder
    assert by_pieces == encoder._encode_segments(encoder._segment_pattern.findall(text))
    assert by_pieces == encoder._encode_pieces(gpt2.pretokenizer.pieces(text))
