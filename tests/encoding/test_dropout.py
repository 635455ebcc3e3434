"""bpe_core.encoding.dropout: BPE-dropout by Hugging Face's / YouTokenToMe's sampling procedure, seeded.

p = 0 is the tokenizer's own encode (every tokenizer kind: plain BPE, tiktoken's rule with late
merges and whole-word tokens, multi-stage pipelines), p = 1 gives bytes, the ids always decode to
what encode's decode to, and the merge loop equals a plain re-statement of the procedure."""

import inspect
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.encoding.dropout import check_dropout, dropout_details, encode_with_dropout, merge_with_dropout
from bpe_core.errors import BpeError
from bpe_core.pretokenization.stages import Pipeline, Split
from bpe_core.pretrained import catalogue

TEXT = st.text(st.characters(codec="utf-8"), max_size=60) | st.sampled_from(
    ["", " ", "hello  world\n\n", "1234567 x", "naïve café — ok?!", "日本語のテキスト", "<|endoftext|> hi", "\ud800x"]
)


class Scripted:
    """A random generator giving the listed draws, and failing when asked for one more."""

    def __init__(self, draws):
        self.draws = list(draws)
        self.used = 0

    def random(self):
        if self.used == len(self.draws):
            raise AssertionError(f"more than the {len(self.draws)} scripted draws were asked for")
        self.used += 1
        return self.draws[self.used - 1]


# a b c as ids 1 2 3; merges a b -> ab (4), b c -> bc (5), ab c -> abc (6), in that rank order
ABC_PAIRS = {(1, 2): (0, 4), (2, 3): (1, 5), (4, 3): (2, 6)}


def test_the_worked_trace_of_the_note():
    # Heap {(0, pos 0), (1, pos 1)}. Pop (0, 0): u = 0.05 < 0.1, set aside. Pop (1, 1): u = 0.5, accept:
    # (0, 0) goes back; b c -> bc, and "a bc" is no merge. Pop (0, 0): u = 0.7, accept, but the pair
    # at 0 is now a bc: stale. Heap empty: [a, bc] after exactly 3 draws.
    rng = Scripted([0.05, 0.5, 0.7])
    assert merge_with_dropout([1, 2, 3], ABC_PAIRS, dropout=0.1, rng=rng) == [1, 5]
    assert rng.used == 3
    assert merge_with_dropout([1, 2, 3], ABC_PAIRS, dropout=0, rng=Scripted([])) == [6]


def test_set_aside_candidates_are_dropped_when_the_heap_empties():
    rng = Scripted([0.0, 0.0])  # both candidates dropped: nothing merged, no third draw
    assert merge_with_dropout([1, 2, 3], ABC_PAIRS, dropout=0.5, rng=rng) == [1, 2, 3]
    assert rng.used == 2
    # a b accepted; the stale b c (rank 1) still pops before ab c (rank 2) and spends a draw
    rng = Scripted([0.9, 0.9, 0.9])
    assert merge_with_dropout([1, 2, 3], ABC_PAIRS, dropout=0.5, rng=rng) == [6]
    assert rng.used == 3 and merge_with_dropout([7], ABC_PAIRS, dropout=0.5, rng=Scripted([])) == [7]


def reference_dropout(symbols, pairs, dropout, rng):
    """The procedure re-stated plainly: candidates in a list (min by rank, then position), symbols
    as (start position, id) in a list; no linked list, no heap."""
    word = [[i, s] for i, s in enumerate(symbols)]  # [position, id]

    def candidate(index):
        found = pairs.get((word[index][1], word[index + 1][1]))
        return None if found is None else (found[0], word[index][0], found[1])

    queue = [c for c in (candidate(i) for i in range(len(word) - 1)) if c]
    aside = []
    while queue:
        top = min(queue)
        queue.remove(top)
        if dropout > 0 and rng.random() < dropout:
            aside.append(top)
            continue
        queue += aside
        aside = []
        _rank, position, new_id = top
        index = next((i for i, (p, _) in enumerate(word) if p == position), None)
        if index is None or index + 1 == len(word):
            continue
        found = pairs.get((word[index][1], word[index + 1][1]))
        if found is None or found[1] != new_id:
            continue
        word[index][1] = new_id
        del word[index + 1]
        queue += [
            c
            for c in (candidate(index - 1) if index else None, candidate(index) if index + 1 < len(word) else None)
            if c
        ]
    return [s for _, s in word]


@st.composite
def merge_tables(draw):
    """Random merges over 4 base symbols, each joining two existing symbols into a new id."""
    symbols = [0, 1, 2, 3]
    pairs = {}
    for new_id in range(4, 4 + draw(st.integers(0, 12))):
        pair = (draw(st.sampled_from(symbols)), draw(st.sampled_from(symbols)))
        if pair not in pairs:
            pairs[pair] = (len(pairs), new_id)
            symbols.append(new_id)
    return pairs


@settings(max_examples=300)
@given(
    merge_tables(),
    st.lists(st.integers(0, 3), max_size=14),
    st.sampled_from([0, 0.1, 0.5, 0.9, 1]),
    st.integers(0, 2**32),
)
def test_merge_loop_equals_the_plain_statement(pairs, symbols, dropout, seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    assert merge_with_dropout(symbols, pairs, dropout=dropout, rng=ours) == reference_dropout(
        symbols, pairs, dropout, theirs
    )
    if dropout < 1:  # (p = 1 needs no draw: every candidate would be set aside)
        assert ours.getstate() == theirs.getstate()  # the same number of draws


def test_one_merge_is_skipped_with_probability_p():
    # one candidate: it is dropped exactly when its single draw is below p
    p, n = 0.3, 4000
    skipped = sum(
        merge_with_dropout([1, 2], {(1, 2): (0, 3)}, dropout=p, rng=random.Random(s)) == [1, 2] for s in range(n)
    )
    assert abs(skipped / n - p) < 4 * math.sqrt(p * (1 - p) / n)


# --------------------------------------------------------------------------------------------------
# a tokenizer's text


def tokenizers_to_check():
    names = ["gpt2"] + [n for n in ("llama3", "qwen3.5", "deepseek") if catalogue.is_installed(n)]
    return [bpe_core.load(name) for name in names]


TOKENIZERS = tokenizers_to_check()


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.name)
@settings(max_examples=60, deadline=None)
@given(text=TEXT)
def test_dropout_zero_is_encode(tokenizer, text):
    plain = encode_with_dropout(tokenizer, text, dropout=0, disallowed_special=())
    assert plain == tokenizer.encode(text, disallowed_special=()) == tokenizer.encode_ordinary(text)
    allowed = encode_with_dropout(tokenizer, text, dropout=0.0, seed=1, allowed_special="all", disallowed_special=())
    assert allowed == tokenizer.encode(text, allowed_special="all", disallowed_special=())


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.name)
def test_dropout_zero_on_the_samples_includes_whole_word_tokens(tokenizer):
    from bpe_core.corpora.samples import load_samples

    for sample in load_samples():
        assert encode_with_dropout(tokenizer, sample.text, dropout=0) == tokenizer.encode(sample.text), sample.id
    if tokenizer.whole_word_tokens:  # looked up whole at p = 0, never built by merges at p > 0
        token = tokenizer.whole_word_tokens[0]
        piece = tokenizer.decode([token])
        assert tokenizer.encode(piece) == [token] == encode_with_dropout(tokenizer, piece, dropout=0)
        assert token not in encode_with_dropout(tokenizer, piece, dropout=1e-12, seed=0)


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.name)
@settings(max_examples=40, deadline=None)
@given(text=TEXT, seed=st.integers(0, 2**64))
def test_dropout_one_gives_bytes_and_any_p_decodes_to_the_text(tokenizer, text, seed):
    expected = tokenizer.decode_bytes(tokenizer.encode_ordinary(text))
    single = encode_with_dropout(tokenizer, text, dropout=1, seed=seed, disallowed_special=())
    assert all(len(tokenizer.decode_single_token_bytes(i)) == 1 for i in single)
    assert tokenizer.decode_bytes(single) == expected
    for p in (0.05, 0.5):
        ids = encode_with_dropout(tokenizer, text, dropout=p, seed=seed, disallowed_special=())
        assert tokenizer.decode_bytes(ids) == expected
        assert len(ids) <= len(single)


def test_the_ids_decode_to_the_text_for_lossless_pre_tokenizers():
    gpt2 = bpe_core.load("gpt2")
    text = "Each occurrence of a word is segmented afresh: unrelated, unrelated, unrelated."
    for seed in range(20):
        assert gpt2.decode(encode_with_dropout(gpt2, text, dropout=0.3, seed=seed)) == text


def test_a_normalizing_pipeline_decodes_as_encode_does():
    trained = bpe_core.train("The Quick Brown Fox jumps over the lazy dog. " * 20, 300, min_frequency=1)
    lowercasing = Pipeline([Split(r" ?\w+|\W")], normalizers=["lowercase"])
    lower = Tokenizer(dict(trained.vocab), trained.merges, pattern=lowercasing)
    text = "THE QUICK brown fox"
    assert encode_with_dropout(lower, text, dropout=0) == lower.encode(text)
    assert lower.decode(encode_with_dropout(lower, text, dropout=0.4, seed=2)) == "the quick brown fox"


def test_seeds_are_deterministic_and_differ():
    gpt2 = bpe_core.load("gpt2")
    text = "BPE-dropout stochastically corrupts the segmentation procedure of BPE. " * 3
    first = encode_with_dropout(gpt2, text, dropout=0.1, seed=42)
    assert encode_with_dropout(gpt2, text, dropout=0.1, seed=42) == first
    assert len({tuple(encode_with_dropout(gpt2, text, dropout=0.1, seed=s)) for s in range(10)}) > 5
    # repeated words are segmented afresh at each occurrence
    words = [gpt2.decode(encode_with_dropout(gpt2, " unrelated", dropout=0.5, seed=s)[:1]) for s in range(30)]
    assert len(set(words)) > 1


def test_more_dropout_more_tokens():
    gpt2 = bpe_core.load("gpt2")
    text = "Subword regularization exposes the model to many segmentations of the same word."
    mean = {
        p: sum(len(encode_with_dropout(gpt2, text, dropout=p, seed=s)) for s in range(50)) / 50
        for p in (0, 0.1, 0.5, 1)
    }
    assert mean[0] < mean[0.1] < mean[0.5] < mean[1] == len(text.encode())


def test_special_tokens_as_encode():
    gpt2 = bpe_core.load("gpt2")
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError, match="disallowed special token"):
        encode_with_dropout(gpt2, text, dropout=0.1)
    ids = encode_with_dropout(gpt2, text, dropout=1, allowed_special={"<|endoftext|>"})
    assert ids == gpt2.encode(text, allowed_special={"<|endoftext|>"})
    single_bytes = [gpt2.encode_single_token(bytes([b])) for b in text.encode()]
    assert encode_with_dropout(gpt2, text, dropout=1, disallowed_special=()) == single_bytes
    with pytest.raises(ValueError, match="not special tokens"):
        encode_with_dropout(gpt2, "x", dropout=0.1, allowed_special={"<|nope|>"})


def test_bad_arguments():
    gpt2 = bpe_core.load("gpt2")
    for bad in (-0.1, 1.5, math.nan, math.inf):
        with pytest.raises(ValueError, match="between 0 and 1"):
            encode_with_dropout(gpt2, "x", dropout=bad)
    for bad in ("0.1", True, None):
        with pytest.raises(TypeError, match="dropout must be a number"):
            encode_with_dropout(gpt2, "x", dropout=bad)
    with pytest.raises(TypeError, match="seed must be an int"):
        encode_with_dropout(gpt2, "x", dropout=0.1, seed="7")
    with pytest.raises(TypeError, match="text must be str"):
        encode_with_dropout(gpt2, b"x", dropout=0.1)
    with pytest.raises(TypeError, match="needs a bpe_core Tokenizer"):
        encode_with_dropout(object(), "x", dropout=0.1)
    with pytest.raises(TypeError):
        encode_with_dropout(gpt2, "x", 0.1)  # keyword-only
    assert check_dropout(0) == 0.0


def test_tokenizer_encode_takes_dropout_and_seed():
    gpt2 = bpe_core.load("gpt2")
    text = "unrelated tokenization of words"
    assert gpt2.encode(text, dropout=0.3, seed=7) == encode_with_dropout(gpt2, text, dropout=0.3, seed=7)
    assert gpt2.encode(text, dropout=0.0, seed=7) == gpt2.encode(text)
    samples = {tuple(gpt2.encode(text, dropout=0.5, seed=s)) for s in range(8)}
    assert len(samples) > 1 and all(gpt2.decode(list(s)) == text for s in samples)


def test_a_picky_tokenizer_is_refused_with_the_reason():
    from bpe_core.training.picky import train_picky

    picky = train_picky(["the then there the then; other others mother"] * 3, 300, threshold=0.6, min_frequency=1)
    assert picky.rule == "picky"
    with pytest.raises(BpeError, match="Picky BPE tokenizer.*does not apply"):
        picky.encode("the other", dropout=0.1, seed=1)
    assert picky.encode("the other", dropout=0) == picky.encode("the other")  # p = 0 is no dropout


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.name)
@settings(max_examples=40, deadline=None)
@given(text=TEXT, seed=st.integers(0, 2**32), dropout=st.sampled_from([0, 0.1, 0.5, 1]))
def test_the_details_are_the_sampled_ids_with_their_spans(tokenizer, text, seed, dropout):
    options = {"dropout": dropout, "seed": seed, "disallowed_special": ()}
    infos = dropout_details(tokenizer, text, **options)
    assert [i.id for i in infos] == encode_with_dropout(tokenizer, text, **options)
    if dropout == 0:
        assert infos == tokenizer.encode_with_details(text, disallowed_special=())
    assert all(0 <= i.start <= i.end <= len(text) for i in infos)
    assert [i.start for i in infos] == sorted(i.start for i in infos)


def test_the_details_follow_a_normalizing_pipeline_and_special_tokens():
    trained = bpe_core.train(
        "The Quick Brown Fox jumps over the lazy dog. " * 20, 300, min_frequency=1, special_tokens=["<|end|>"]
    )
    pipeline = Pipeline([Split(r" ?\w+|\W")], normalizers=["lowercase"])
    lower = Tokenizer(dict(trained.vocab), trained.merges, pattern=pipeline, special_tokens=trained.special_tokens)
    text = "THE QUICK brown<|end|> fox"
    for seed in range(5):
        infos = dropout_details(lower, text, dropout=0.4, seed=seed, allowed_special="all")
        assert [i.id for i in infos] == encode_with_dropout(lower, text, dropout=0.4, seed=seed, allowed_special="all")
        special = [i for i in infos if i.special]
        assert [(text[i.start : i.end], i.bytes) for i in special] == [("<|end|>", b"<|end|>")]


@pytest.mark.parametrize("function", [encode_with_dropout, dropout_details])
def test_a_misspelt_keyword_is_a_type_error_naming_it_before_any_work(function):
    """``object()`` is no tokenizer: had the function started, its TypeError would say so instead."""
    takes = "it takes: tokenizer, text, dropout, seed, allowed_special, disallowed_special"
    message = rf"^{function.__name__}\(\) got an unexpected keyword argument 'sed' \(did you mean 'seed'\?\); {takes}$"
    with pytest.raises(TypeError, match=message):
        function(object(), "some text", dropout=0.1, sed=1)


@pytest.mark.parametrize("function", [encode_with_dropout, dropout_details])
def test_the_documented_defaults_are_the_ones_used(function):
    gpt2 = bpe_core.load("gpt2")
    text = "unrelated words, rearranged"
    spelled = {"allowed_special": frozenset(), "disallowed_special": "all"}
    assert function(gpt2, text, dropout=0.4, seed=3) == function(gpt2, text, dropout=0.4, seed=3, **spelled)
    with pytest.raises(ValueError, match="disallowed special token"):  # "all" is the default
        function(gpt2, "<|endoftext|>", dropout=0.4, seed=3)
    parameters = inspect.signature(function).parameters
    assert parameters["dropout"].default is inspect.Parameter.empty  # required, by keyword
    assert {name: parameters[name].default for name in ("seed", *spelled)} == {"seed": None, **spelled}
