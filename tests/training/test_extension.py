"""``bpe_core.extend``: the new merges are the textbook loop continued from the base's own encoding
(BPE's rule and tiktoken's, refusals included), every id, merge and special token of the base is kept,
new ids come where asked, and bad settings are one clear error each."""

from __future__ import annotations

import gzip
import json

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import BpeError, Tokenizer
from bpe_core.corpora.samples import parallel_text
from bpe_core.training.picky import train_picky
from bpe_core.training.superbpe import RECIPES, extend_tokenizer
from tests.support.naive_bpe import GPT2, naive_continue, naive_encode_word, naive_tiktoken_encode_word, pretokenize

ALPHABET = "abc αβγ  \n"
texts_of = st.lists(st.text(ALPHABET, min_size=1, max_size=30), min_size=1, max_size=6)


def piece_counts(texts: list[str], pattern: str | None = GPT2) -> dict[bytes, int]:
    counts: dict[bytes, int] = {}
    for text in texts:
        for piece in pretokenize(text, pattern):
            counts[piece.encode()] = counts.get(piece.encode(), 0) + 1
    return counts


def new_tokens(base: Tokenizer, extended: Tokenizer) -> list[bytes]:
    return [extended.vocab[i] for i in sorted(set(extended.vocab) - set(base.vocab))]


def greek_only(token: bytes) -> bool:
    """The script rule written out: whole characters, each Greek or shared (Common, Inherited), one Greek."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    shared = [bool(regex.match(r"\p{Script=Common}|\p{Script=Inherited}", c)) for c in text]
    greek = [bool(regex.match(r"\p{Script=Greek}", c)) for c in text]
    return all(g or s for g, s in zip(greek, shared, strict=True)) and any(greek)


@given(base_texts=texts_of, texts=texts_of, inherited=st.integers(0, 12), add=st.integers(1, 15))
@settings(max_examples=60, deadline=None)
def test_the_new_merges_continue_the_textbook_loop_from_the_bases_merges(base_texts, texts, inherited, add):
    base = bpe_core.train(base_texts, 256 + inherited, min_frequency=1, tie_break="lexicographic")
    extended = bpe_core.extend(base, texts, add=add, min_frequency=1, tie_break="lexicographic")
    vocab = set(base.vocab.values())
    expected = naive_continue(
        piece_counts(texts), lambda piece: naive_encode_word(piece, base.merges), add, existing=vocab
    )
    assert extended.merges[len(base.merges) :] == expected
    assert new_tokens(base, extended) == [a + b for a, b in expected]
    assert extended.training["merges_learned"] == len(expected)


@given(base_texts=texts_of, texts=texts_of, add=st.integers(1, 15))
@settings(max_examples=40, deadline=None)
def test_scripts_refuse_pairs_for_good_as_the_textbook_loop_does(base_texts, texts, add):
    base = bpe_core.train(base_texts, 262, min_frequency=1, tie_break="lexicographic")
    extended = bpe_core.extend(base, texts, add=add, min_frequency=1, tie_break="lexicographic", scripts="Greek")
    expected = naive_continue(
        piece_counts(texts),
        lambda piece: naive_encode_word(piece, base.merges),
        add,
        existing=set(base.vocab.values()),
        refuse=lambda token: not greek_only(token),
    )
    assert new_tokens(base, extended) == [a + b for a, b in expected]
    assert all(greek_only(token) for token in new_tokens(base, extended))


@st.composite
def tiktoken_ranks(draw) -> dict[bytes, int]:
    """The 256 bytes, then tokens over "abc " ranked in any order: late merges and whole-word tokens
    (tiktoken's rule) are common among them."""
    words = draw(st.lists(st.text("abc ", min_size=2, max_size=6).map(str.encode), max_size=25))
    extra = list(dict.fromkeys(w for w in words if len(w) > 1))
    order = draw(st.permutations(range(len(extra))))
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update((extra[i], 256 + rank) for rank, i in enumerate(order))
    return ranks


@given(ranks=tiktoken_ranks(), texts=st.lists(st.text("abc d", min_size=1, max_size=25), min_size=1, max_size=5))
@settings(max_examples=80, deadline=None)
def test_tiktoken_rule_bases_continue_from_their_own_encoding(ranks, texts):
    base = Tokenizer.from_ranks(ranks, pattern=None, special_tokens={"<|s|>": 900})
    extended = bpe_core.extend(base, texts, add=6, min_frequency=1, tie_break="lexicographic")
    expected = naive_continue(
        piece_counts(texts, None), lambda piece: naive_tiktoken_encode_word(piece, ranks), 6, existing=set(ranks)
    )
    assert new_tokens(base, extended) == [a + b for a, b in expected]
    assert extended.rule == ("tiktoken" if base.whole_word_tokens or base._late_merges else "bpe")
    assert all(extended.vocab[i] == token for i, token in base.vocab.items())
    assert extended.special_tokens == {"<|s|>": 900}
    assert sorted(set(extended.vocab) - set(base.vocab)) == list(range(901, 901 + len(expected)))


@given(
    base_texts=texts_of,
    texts=texts_of,
    specials=st.lists(st.sampled_from(["<|end|>", "<|pad|>", "<s>"]), unique=True),
    gap=st.one_of(st.none(), st.integers(0, 40)),
)
@settings(max_examples=50, deadline=None)
def test_every_id_merge_and_special_token_of_the_base_is_kept(base_texts, texts, specials, gap):
    base = bpe_core.train(base_texts, 256 + len(specials) + 8, min_frequency=1, special_tokens=specials)
    highest = max(base.vocab)
    first_id = None if gap is None else highest + 1 + gap
    extended = bpe_core.extend(base, texts, add=10, min_frequency=1, first_id=first_id)
    assert all(extended.vocab[i] == token for i, token in base.vocab.items())
    assert extended.merges[: len(base.merges)] == base.merges
    assert extended.special_tokens == base.special_tokens
    added = extended.training["merges_learned"]
    start = highest + 1 if first_id is None else first_id
    assert sorted(set(extended.vocab) - set(base.vocab)) == list(range(start, start + added))
    assert extended.training["extension"]["first_id"] == (start if added else None)
    for text in texts + base_texts:
        assert extended.decode(extended.encode(text)) == text


def test_llama3s_reserved_special_tokens_come_before_the_new_ids():
    llama3 = bpe_core.load("llama3")
    hindi = parallel_text(split="train", languages=["hin"])["hin"]
    extended = bpe_core.extend(llama3, hindi, add=20, scripts="Devanagari", min_frequency=1)
    assert extended.rule == "tiktoken"  # its ranks hold late merges and whole-word tokens, kept
    assert min(set(extended.vocab) - set(llama3.vocab)) == 128256
    assert extended.special_tokens == llama3.special_tokens
    assert extended.merges[: len(llama3.merges)] == llama3.merges
    assert set(extended.whole_word_tokens) >= set(llama3.whole_word_tokens)
    for token_id in llama3.whole_word_tokens[:50]:
        text = llama3.decode([token_id])
        assert extended.encode(text) == [token_id]


def test_a_cancelled_extension_keeps_the_merges_made_so_far():
    base = bpe_core.load("gpt2")
    texts = ["ἀρχὴ ἥμισυ παντός. " * 30, "γνῶθι σεαυτόν. " * 30]
    asked: list[int] = []
    part = bpe_core.extend(base, texts, add=30, min_frequency=1, cancel=lambda: asked.append(1) or len(asked) > 5)
    whole = bpe_core.extend(base, texts, add=30, min_frequency=1)
    assert part.training["stop_reason"] == "cancelled" and part.training["merges_learned"] == 5
    assert part.merges == whole.merges[: len(base.merges) + 5]


def test_superwords_are_superbpes_stage_two_on_the_base():
    gpt2 = bpe_core.load("gpt2")
    text = ["By the way, I am a fan of the Milky Way.\nOf the people, by the people, for the people.\n" * 9]
    ours = bpe_core.extend(gpt2, text, add=20, superwords=True, min_frequency=1)
    theirs = extend_tokenizer(gpt2, text, gpt2.vocab_size + 20, min_frequency=1)
    assert ours.merges == theirs.merges and ours.vocab == theirs.vocab
    assert ours.pattern == RECIPES["paper"].stage2_pattern
    assert ours.training["extension"]["other_text"]["pretokens_changed"] is None  # another pre-tokenization


@given(
    base_texts=texts_of,
    texts=st.lists(st.text("ab c.\n", min_size=1, max_size=40), min_size=1, max_size=6),
    add=st.integers(1, 20),
    rule=st.sampled_from(["huggingface", "lexicographic", "rustbpe"]),
)
@settings(max_examples=60, deadline=None)
def test_superwords_tracking_few_pairs_gives_the_merges_of_tracking_every_pair(base_texts, texts, add, rule):
    from bpe_core.training import extension

    base = bpe_core.train(base_texts, 262, min_frequency=1)
    results = []
    for per_merge in (1, 10**6):  # 1: the tracked pairs run out often and are counted again
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(extension, "TRACKED_PER_MERGE", per_merge)
            extended = bpe_core.extend(base, texts, add=add, superwords=True, min_frequency=1, tie_break=rule)
        results.append((extended.merges, extended.training["tokens_after_merge"], extended.training["stop_reason"]))
    assert results[0] == results[1]


def test_files_are_read_as_train_files_reads_them(tmp_path):
    rows = [{"text": "ὦ ξεῖν᾽, ἀγγέλλειν Λακεδαιμονίοις " * 3}, {"text": "ὅτι τῇδε κείμεθα " * 4}, {"other": 1}]
    with gzip.open(tmp_path / "greek.jsonl.gz", "wt", encoding="utf-8") as out:
        out.write("\n".join(json.dumps(row) for row in rows))
    base = bpe_core.load("gpt2")
    from_files = bpe_core.extend(base, files=[tmp_path / "*.gz"], add=12, min_frequency=1)
    from_texts = bpe_core.extend(base, [row["text"] for row in rows[:2]], add=12, min_frequency=1)
    assert from_files.merges == from_texts.merges
    assert from_files.training["corpus"]["bad_rows"] == 1


def test_a_multi_stage_pre_tokenizer_counts_whole_documents(tmp_path):
    qwen = bpe_core.load("qwen")
    (tmp_path / "a.txt").write_text("नमस्ते दुनिया। " * 10 + "<|endoftext|>" + "नमस्ते भारत। " * 10, encoding="utf-8")
    from_files = bpe_core.extend(qwen, files=tmp_path, add=8, min_frequency=1)
    from_texts = bpe_core.extend(qwen, ["नमस्ते दुनिया। " * 10, "नमस्ते भारत। " * 10], add=8, min_frequency=1)
    assert from_files.vocab == from_texts.vocab
    assert from_files.training["corpus"]["special_tokens_cut"] == 1


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"add": 0}, BpeError, "at least 1"),
        ({"add": 2_000_000}, BpeError, "from 1 to"),
        ({"add": "5"}, TypeError, "integer"),
        ({"add": 5, "first_id": 100}, BpeError, "first_id >= 50,256"),
        ({"add": 5, "first_id": 50256}, BpeError, "uses already"),
        ({"add": 5, "scripts": "Devangari"}, BpeError, "unknown script"),
        ({"add": 5, "scripts": "Common"}, BpeError, "shared by every language"),
        ({"add": 5, "scripts": []}, BpeError, "at least one"),
        ({"add": 5, "scripts": "Latin", "superwords": True}, BpeError, "cannot go together"),
        ({"add": 5, "tie_break": "random"}, BpeError, "tie_break"),
        ({"add": 5, "min_frequency": -1}, BpeError, "min_frequency"),
        ({"add": 5, "recipe": "nope", "superwords": True}, BpeError, "recipe"),
    ],
)
def test_bad_settings_are_one_clear_error_each(options, error, match):
    with pytest.raises(error, match=match):
        bpe_core.extend(bpe_core.load("gpt2"), ["a b c"], **options)


def test_a_corpus_is_texts_or_files_and_the_base_a_bpe_tokenizer(tmp_path):
    gpt2 = bpe_core.load("gpt2")
    with pytest.raises(BpeError, match="not both"):
        bpe_core.extend(gpt2, ["a"], files=[tmp_path], add=3)
    with pytest.raises(BpeError, match="give a corpus"):
        bpe_core.extend(gpt2, add=3)
    with pytest.raises(TypeError, match="not bytes"):
        bpe_core.extend(gpt2, b"abc", add=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bpe_core Tokenizer"):
        bpe_core.extend("gpt2", ["a"], add=3)  # type: ignore[arg-type]
    picky = train_picky([" hug" * 20 + " chug" + " ug" * 3], 270, threshold=0.9, min_frequency=1)
    with pytest.raises(BpeError, match="Picky BPE"):
        bpe_core.extend(picky, ["a"], add=3)
