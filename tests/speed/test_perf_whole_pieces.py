"""Whole-piece lookup: a piece that is a token encoding to itself skips the merge loop. The proof of
which tokens do (``self_encoding_ids``) against the merge loop, the constructors that skip the proof,
and encoding that stays exact when some tokens do not encode to themselves."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.tokenizer import self_encoding_ids
from naive_bpe import naive_encode_word


def _encodes_to_itself(tok):
    """Token ids whose bytes the merge loop turns into exactly that token (no proof involved)."""
    return {token_id for token, token_id in tok._token_to_id.items() if tok._bpe(token) == (token_id,)}


def _from_merges(merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return Tokenizer(vocab, merges, pattern=None)


# (a, b) outranks (b, c), so "abc" becomes [ab, c] and the token "abc" = a + bc is never reached.
UNREACHED = [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")]


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_every_gpt2_and_cl100k_token_encodes_to_itself(name):
    # gpt2() and cl100k() skip the proof on the strength of this test.
    tok = getattr(bpe_core, name)()
    everything = set(tok._token_to_id.values())
    assert _encodes_to_itself(tok) == everything
    assert self_encoding_ids(tok._pair_rank, tok._byte_ids) == everything
    assert tok._all_tokens_self_encode


def test_a_token_that_does_not_encode_to_itself_is_not_looked_up_whole():
    tok = _from_merges(UNREACHED)
    abc = tok.token_id(b"abc")
    assert abc not in self_encoding_ids(tok._pair_rank, tok._byte_ids)
    assert not tok._all_tokens_self_encode
    assert "abc" not in tok._whole_pieces and "ab" in tok._whole_pieces
    assert tok.encode_ordinary("abc") == [tok.token_id(b"ab"), tok.token_id(b"c")]
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
    assert self_encoding_ids(tok._pair_rank, tok._byte_ids) == _encodes_to_itself(tok)
    expected = [tok.token_id(t) for t in naive_encode_word(text.encode(), merges)] if text else []
    assert tok.encode_ordinary(text) == expected


def test_random_merge_lists_do_hold_tokens_that_do_not_encode_to_themselves():
    # Without this, the property test above could pass with a proof that always says yes.
    @given(merges=merge_lists())
    def count(merges):
        tok = _from_merges(merges)
        found.append(len(_encodes_to_itself(tok)) < len(tok._token_to_id))

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
    # train() skips the proof on the strength of this property.
    tok = bpe_core.train(corpus, 256 + extra, min_frequency=1, tie_break=tie_break, pattern=pattern)
    assert tok._all_tokens_self_encode
    assert _encodes_to_itself(tok) == set(tok._token_to_id.values())
    truncated = tok.truncated(len(tok.merges) // 2)
    assert truncated._all_tokens_self_encode
    assert _encodes_to_itself(truncated) == set(truncated._token_to_id.values())


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.gpt2()


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_ascii_piece_path_equals_segment_path(gpt2, text):
    by_pieces = gpt2.encode_ordinary(text)  # ASCII: piece by piece
    assert by_pieces == gpt2._encode_segments(gpt2._segment_pattern.findall(text))
    assert by_pieces == gpt2._encode_pieces(gpt2.pretokenizer.pieces(text))
