"""The tie rules: merge for merge with Hugging Face's BpeTrainer and rustbpe on real corpora (code,
English prose, multilingual text); every rule against a naive trainer written here; the first-seen
rule's kept positions on long raw streams against the naive loop that rescans every step."""

from __future__ import annotations

import functools
import json
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive_bpe import GPT2, naive_learn_merges, naive_train, pretokenize

import bpe_core
from bpe_core.bpe.fast import merges_from_ranks
from bpe_core.corpora.samples import load_samples
from bpe_core.formats.bytelevel import byte_to_unicode, printable_to_bytes
from bpe_core.formats.huggingface import oniguruma_pattern
from bpe_core.pretokenization.pretokenizer import GPT2_PATTERN
from bpe_core.training import engine
from bpe_core.training._educational import trace_training
from bpe_core.training.engine import STOP_MIN_FREQUENCY
from bpe_core.training.pairs import id_string
from bpe_core.training.tie_rules import (
    LONG_WORD,
    TIE_BREAKS,
    TIE_RULES,
    byte_level_key,
    huggingface_byte_ids,
    parity_rule,
    symbol_key,
)

CORPUS_BYTES = 250_000


@functools.cache
def corpus(kind: str) -> tuple[str, ...]:
    """Real text found offline: the standard library's top-level modules (code), the Python
    documentation text of pydoc_data (English prose), the built-in parallel passages (21 languages)."""
    if kind == "multilingual":
        return tuple(sample.text for sample in load_samples("natural"))
    if kind == "code":
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        texts = (path.read_text(encoding="utf-8") for path in sorted(stdlib.glob("*.py")))
    else:
        topics = pytest.importorskip("pydoc_data.topics").topics
        texts = (topics[name] for name in sorted(topics))
    documents, size = [], 0
    for text in texts:
        if size >= CORPUS_BYTES:
            break
        documents.append(text)
        size += len(text.encode("utf-8"))
    return tuple(documents)


def huggingface_merges(documents, vocab_size: int, *, min_frequency: int, special_tokens=()) -> list:
    """Hugging Face's BpeTrainer with GPT-2's pattern (as bpe_core exports it) and the full byte
    alphabet; the merges as byte pairs."""
    tokenizers = pytest.importorskip("tokenizers")
    pre = tokenizers.pre_tokenizers
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = pre.Sequence(
        [
            pre.Split(tokenizers.Regex(oniguruma_pattern(GPT2_PATTERN)), behavior="isolated"),
            pre.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        initial_alphabet=pre.ByteLevel.alphabet(),
        special_tokens=list(special_tokens),
        show_progress=False,
    )
    tok.train_from_iterator(list(documents), trainer=trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = (merge if isinstance(merge, list) else merge.split(" ") for merge in merges)
    return [(printable_to_bytes(left), printable_to_bytes(right)) for left, right in pairs]


def rustbpe_ranks(documents, vocab_size: int) -> dict[bytes, int]:
    rustbpe = pytest.importorskip("rustbpe")
    tok = rustbpe.Tokenizer()
    tok.train_from_iterator(iter(documents), vocab_size, pattern=GPT2_PATTERN)
    return {bytes(token): rank for token, rank in tok.get_mergeable_ranks()}


# ------------------------------------------------------------------------------------------------
# the real tools


@pytest.mark.parametrize("vocab_size", [1000, 5000])
@pytest.mark.parametrize("kind", ["code", "prose", "multilingual"])
def test_huggingface_rule_gives_bpetrainers_merges(kind, vocab_size):
    documents = corpus(kind)
    expected = huggingface_merges(documents, vocab_size, min_frequency=2)
    tok = bpe_core.train(documents, vocab_size, min_frequency=2, tie_break="huggingface")
    assert len(expected) > 600
    assert tok.merges == expected
    # Ties matter here: bpe_core's default rule leaves Hugging Face's merges.
    assert bpe_core.train(documents, vocab_size, min_frequency=2).merges != expected


def test_huggingface_rule_counts_special_tokens_and_stops_like_min_frequency():
    documents = corpus("multilingual")
    specials = ["<|endoftext|>", "<|pad|>"]  # not in the text: Hugging Face trains on their text
    expected = huggingface_merges(documents, 3000, min_frequency=5, special_tokens=specials)
    tok = bpe_core.train(documents, 3000, min_frequency=5, tie_break="huggingface", special_tokens=specials)
    assert tok.merges == expected
    assert tok.training["stop_reason"] == STOP_MIN_FREQUENCY  # 3000 is not reached
    full = huggingface_merges(documents, 1000, min_frequency=0, special_tokens=specials)
    ours = bpe_core.train(documents, 1000, min_frequency=0, tie_break="huggingface", special_tokens=specials)
    assert full == ours.merges
    assert len(full) == 1000 - 256 - len(specials)


@pytest.mark.parametrize("vocab_size", [1000, 5000])
@pytest.mark.parametrize("kind", ["code", "prose", "multilingual"])
def test_rustbpe_rule_gives_rustbpes_tokens_and_merges(kind, vocab_size):
    documents = corpus(kind)
    ranks = rustbpe_ranks(documents, vocab_size)
    # rustbpe has no min_frequency: it merges down to pairs seen once.
    tok = bpe_core.train(documents, vocab_size, min_frequency=1, tie_break="rustbpe")
    assert len(tok.merges) == vocab_size - 256 == len(ranks) - 256
    assert [left + right for left, right in tok.merges] == sorted(ranks, key=ranks.get)[256:]
    assert merges_from_ranks(ranks) == tok.merges  # rustbpe exposes ranks; its pairs, recovered
    assert bpe_core.train(documents, vocab_size, min_frequency=1).merges != tok.merges


# ------------------------------------------------------------------------------------------------
# the rules themselves


def test_each_rule_picks_its_own_pair_among_four_ties():
    # Four pairs, each once: (x, y) (y, " ") (" ", !) (!, a).
    expected = {
        "first": (b"x", b"y"),  # met first
        "lexicographic": (b"y", b" "),  # greatest bytes
        "rustbpe": (b" ", b"!"),  # smallest byte values: 0x20, 0x21
        "huggingface": (b"!", b"a"),  # "!" is id 0 in GPT-2's alphabet, " " is 220
    }
    assert set(expected) == set(TIE_BREAKS) == set(TIE_RULES)
    for rule, pair in expected.items():
        assert bpe_core.train("xy !a", 257, pattern=None, min_frequency=1, tie_break=rule).merges == [pair]
        assert trace_training("xy !a", 1, pattern=None, tie_break=rule).merges == [pair]


def test_huggingface_byte_ids_follow_gpt2s_alphabet():
    ids = huggingface_byte_ids()
    assert sorted(ids) == list(range(256))
    table = byte_to_unicode()
    assert sorted(range(256), key=ids.__getitem__) == sorted(range(256), key=table.__getitem__)
    assert ids[ord("!")] == 0 and ids[ord("ÿ")] == 187 and ids[0] == 188 and ids[ord(" ")] == 220


def test_unknown_rule_error_names_every_rule():
    with pytest.raises(ValueError, match="rustbpe") as info:
        bpe_core.train("ab", 300, tie_break="hf")
    assert all(rule in str(info.value) for rule in TIE_BREAKS)
    with pytest.raises(ValueError, match="huggingface"):
        trace_training("ab", 3, tie_break="smallest")


def naive_ranked_train(documents, num_merges, *, rule, pattern, min_frequency=1):
    """Recount every pair each step; among the best, the smallest (left id, right id), single bytes
    numbered as the tool numbers them and merged tokens by creation."""
    byte_ids = huggingface_byte_ids() if rule == "huggingface" else range(256)
    made: dict[bytes, int] = {}
    words: dict[tuple[bytes, ...], int] = {}
    for document in documents:
        for piece in pretokenize(document, pattern):
            key = tuple(bytes([b]) for b in piece.encode("utf-8"))
            words[key] = words.get(key, 0) + 1

    def number(symbol: bytes) -> int:
        return byte_ids[symbol[0]] if len(symbol) == 1 else made[symbol]

    merges = []
    while len(merges) < num_merges:
        counts: dict[tuple[bytes, bytes], int] = {}
        for symbols, freq in words.items():
            for pair in zip(symbols, symbols[1:], strict=False):
                counts[pair] = counts.get(pair, 0) + freq
        if not counts or max(counts.values()) < min_frequency:
            break
        best = min(counts, key=lambda pair: (-counts[pair], number(pair[0]), number(pair[1])))
        made[best[0] + best[1]] = 256 + len(made)
        merges.append(best)
        words = {tuple(merge_pair(symbols, best)): freq for symbols, freq in words.items()}
    return merges


def merge_pair(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


@pytest.mark.parametrize("rule", ["huggingface", "rustbpe"])
@given(
    documents=st.lists(st.text(alphabet="ab! \n\x00é", max_size=40), min_size=1, max_size=5),
    merges=st.integers(0, 25),
    min_frequency=st.integers(1, 3),
    raw=st.booleans(),
)
def test_id_rules_match_the_naive_trainer(rule, documents, merges, min_frequency, raw):
    pattern = None if raw else "gpt2"
    expected = naive_ranked_train(
        documents, merges, rule=rule, pattern=None if raw else GPT2, min_frequency=min_frequency
    )
    tok = bpe_core.train(documents, 256 + merges, pattern=pattern, min_frequency=min_frequency, tie_break=rule)
    assert tok.merges == expected
    traced = trace_training(documents, merges, pattern=pattern, tie_break=rule, min_frequency=min_frequency)
    assert traced.merges == expected


# ------------------------------------------------------------------------------------------------
# the first-seen rule on long words

long_streams = st.lists(st.text(alphabet="aabcde", min_size=LONG_WORD, max_size=4 * LONG_WORD), min_size=1, max_size=3)


@given(documents=long_streams, merges=st.integers(0, 120))
def test_first_rule_on_long_raw_streams_matches_the_naive_trainer(documents, merges):
    expected = naive_train(documents, merges, pattern=None, tie_break="first")
    tok = bpe_core.train(documents, 256 + merges, pattern=None, min_frequency=1, tie_break="first")
    assert tok.merges == expected


@given(
    words=st.lists(st.text(alphabet="aabbc", max_size=3 * LONG_WORD), min_size=1, max_size=8),
    freqs=st.lists(st.integers(1, 3), min_size=8, max_size=8),
    num_merges=st.integers(0, 50),
    min_frequency=st.integers(0, 3),
)
def test_first_rule_on_long_and_short_words_matches_the_naive_loop(words, freqs, num_merges, min_frequency):
    # Long and short words side by side: first occurrences move between words and within long ones.
    freqs = freqs[: len(words)]
    id_lists = [list(w.encode()) for w in words]
    settings = dict(next_id=256, num_merges=num_merges, min_frequency=min_frequency, tie_break="first")
    expected = naive_learn_merges(id_lists, freqs, {i: bytes([i]) for i in range(256)}, **settings)
    strings = [id_string(ids) for ids in id_lists]
    byte_tokens = {i: bytes([i]) for i in range(256)}
    merges, reason = engine.learn_merges(strings, freqs, token_bytes=byte_tokens, **settings)
    got = [(m.left, m.right, m.id, m.count, m.tokens_after) for m in merges]
    assert (got, reason, strings) == (expected[0], expected[1], [id_string(w) for w in expected[2]])


def test_first_rule_on_a_long_multilingual_stream_matches_the_naive_trainer():
    # Multi-byte characters and many ties among pairs seen once or twice, in one 2 KB word.
    text = "\n".join(sample.text[:100] for sample in load_samples("natural"))
    expected = naive_train([text], 150, pattern=None, tie_break="first")
    assert bpe_core.train(text, 256 + 150, pattern=None, min_frequency=1, tie_break="first").merges == expected


# ------------------------------------------------------------------------------------------------
# ParityBpeTrainer's rule (the huggingface rule of parity-aware training)

symbols = st.binary(min_size=1, max_size=4)


@given(a=symbols, b=symbols, c=symbols, d=symbols)
def test_byte_level_key_orders_pairs_as_the_greatest_byte_level_strings(a, b, c, d):
    # ParityBpeTrainer keeps (left string, right string) of GPT-2's byte-level characters and takes
    # the greatest; the concatenated keys must put that pair first (smallest).
    table = byte_to_unicode()

    def printed(token):
        return "".join(table[byte] for byte in token)

    def key(left, right):
        return byte_level_key(left) + byte_level_key(right)

    first, second = (printed(a), printed(b)), (printed(c), printed(d))
    assert (key(a, b) < key(c, d)) == (first > second)
    assert (key(a, b) == key(c, d)) == (first == second)
    assert symbol_key(parity_rule("huggingface"), 300, a) == byte_level_key(a)
    assert parity_rule("first") == "first"
