"""SuperBPE: the recipes' regexes against the reference's Hugging Face pre-tokenizers, the two-stage
trainer against a naive one written plainly here, the word cap and the ": " rule, encoding against
rank-order BPE and against ``tokenizers`` (bpe_core's export and the paper's own pre-tokenizer),
training from files and count shards, extending GPT-2, and bad settings."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from itertools import pairwise

import pytest
import regex
from hypothesis import example, given
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import pre_tokenizers as hf_pre

import bpe_core
from bpe_core import parallel
from bpe_core.bpe.reference import merge
from bpe_core.errors import BpeError
from bpe_core.formats.huggingface import to_huggingface_dict
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.count_shards import read_count_shards, shard_settings, write_count_shards
from bpe_core.training.counting import count_words
from bpe_core.training.picky import train_picky
from bpe_core.training.superbpe import (
    RECIPES,
    SuperBPERecipe,
    extend_tokenizer,
    superword_allowed,
    superwords_from_counts,
    train_superbpe,
    train_superbpe_files,
    transition_merges,
    word_count,
)
from bpe_core.training.tie_rules import huggingface_byte_ids

# ---------------------------------------------------------------------------------------------------
# the reference's pre-tokenizers (PythonNut/superbpe), as Hugging Face runs them on one line

_PAPER_STAGE1 = r"(?=(\d{3})+(?!\d))| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
_NOV_STAGE1 = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?"
    r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)
REFERENCE = {
    ("paper", 1): [hf_pre.Digits(individual_digits=False), hf_pre.Split(Regex(_PAPER_STAGE1), "isolated")],
    ("paper", 2): [hf_pre.Digits(individual_digits=False), hf_pre.Split(Regex(r"(?=(\d{3})+(?!\d))"), "isolated")],
    ("2025-11", 1): [hf_pre.Split(Regex(_NOV_STAGE1), "isolated")],
    ("2025-11", 2): [hf_pre.Split(Regex(r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"), "isolated")],
}
_LINE = regex.compile(r"[^\n]*\n|[^\n]+")
ALPHABET = "abcXY  \t\n\r,.!?:;/-$'0123456789١½é中\u0301\u00a0😀"


def reference_pieces(recipe: str, stage: int, text: str, *, by_line: bool = True) -> list[str]:
    splitter = hf_pre.Sequence(REFERENCE[recipe, stage])
    lines = _LINE.findall(text) if by_line else [text] if text else []
    return [piece for line in lines for piece, _ in splitter.pre_tokenize_str(line)]


@pytest.mark.parametrize("recipe, stage", list(REFERENCE))
@given(text=st.text(ALPHABET, max_size=40))
@example(text="By the way, I paid $1234567 ... ok?!  Next:\n\nline two   x\n")
def test_the_recipes_split_each_line_as_the_reference(recipe, stage, text):
    pattern = getattr(RECIPES[recipe], f"stage{stage}_pattern")
    assert PreTokenizer.build(pattern).pieces(text) == reference_pieces(recipe, stage, text)


def test_the_notes_fixtures():
    line = "By the way, I paid $1234567 ... ok?!  Next:"
    assert PreTokenizer.build(RECIPES["paper"].stage2_pattern).pieces(line) == [
        "By the way, I paid $",
        "1",
        "234",
        "567",
        " ... ok?!  Next:",
    ]
    assert PreTokenizer.build(RECIPES["2025-11"].stage2_pattern).pieces(line) == [
        "By the way, I paid $",
        "123",
        "456",
        "7",
        " ...",
        " ok",
        "?!",
        " ",
        " Next:",
    ]


def test_word_count_and_the_rules():
    assert [word_count(t) for t in (b" of the", b", I am", b"  ", b"abc", b"a\tb c")] == [2, 3, 0, 1, 2]
    assert superword_allowed(b" a b c d") and not superword_allowed(b" a b c d e")
    assert not superword_allowed(b"x: y") and superword_allowed(b"x:y") and superword_allowed(b"a b c d e", None)


# ---------------------------------------------------------------------------------------------------
# the naive two-stage trainer


def naive_merges(words: Counter, merges: list, vocab: set, num: int, min_frequency: int, allowed, ties: str) -> Counter:
    """Greedy BPE recounted at every step; ties to the smallest pair of Hugging Face ids (bytes in GPT-2's
    byte-alphabet order, merged tokens by creation), or the greatest pair of bytes (``ties="lexicographic"``).
    A pair whose token exists or is not allowed is skipped for good. Appends to ``merges`` and ``vocab``;
    returns the words merged."""
    byte_ids = huggingface_byte_ids()
    ids = {bytes([b]): byte_ids[b] for b in range(256)}
    ids |= {left + right: 256 + n for n, (left, right) in enumerate(merges)}
    skipped: set = set()
    for _ in range(num):
        counts: Counter = Counter()
        for word, freq in words.items():
            for pair in pairwise(word):
                if pair not in skipped:
                    counts[pair] += freq
        while counts:
            if ties == "huggingface":
                best = min(counts, key=lambda p: (-counts[p], ids[p[0]], ids[p[1]]))
            else:
                best = max(counts, key=lambda p: (counts[p], p))
            if best[0] + best[1] in vocab or not allowed(best[0] + best[1]):
                skipped.add(best)
                del counts[best]
            else:
                break
        if not counts or counts[best] < max(min_frequency, 1):
            break
        made = best[0] + best[1]
        ids[made] = 256 + len(merges)
        merges.append(best)
        vocab.add(made)
        words = Counter({tuple(merge(list(word), best, made)): freq for word, freq in words.items()})
    return words


def naive_encode(piece: bytes, merges: list) -> list[bytes]:
    """Each inherited merge applied in rank order to every occurrence: the reference's replay."""
    symbols = [bytes([b]) for b in piece]
    for left, right in merges:
        symbols = merge(symbols, (left, right), left + right)
    return symbols


def naive_superbpe(documents, vocab_size, inherited, recipe="paper", min_frequency=1, ties="huggingface"):
    merges: list = []
    vocab = {bytes([b]) for b in range(256)}
    stage1 = Counter(tuple(bytes([b]) for b in p.encode()) for d in documents for p in reference_pieces(recipe, 1, d))
    naive_merges(stage1, merges, vocab, inherited, min_frequency, lambda token: True, ties)
    stage2 = Counter(tuple(naive_encode(p.encode(), merges)) for d in documents for p in reference_pieces(recipe, 2, d))
    naive_merges(stage2, merges, vocab, vocab_size - 256 - len(merges), min_frequency, superword_allowed, ties)
    return merges


documents = st.lists(st.text("ab c:\n.1", min_size=1, max_size=30), min_size=1, max_size=5)


@given(
    documents,
    st.integers(0, 12),
    st.integers(0, 14),
    st.sampled_from(["paper", "2025-11"]),
    st.integers(1, 2),
    st.sampled_from(["huggingface", "lexicographic"]),
)
@example(["the cat: the cat sat. the cat\nthe cat"], 4, 10, "paper", 1, "huggingface")
def test_training_equals_the_naive_trainer(docs, inherited, new, recipe, min_frequency, ties):
    tokenizer = train_superbpe(
        docs, 256 + inherited + new, transition=inherited, recipe=recipe, min_frequency=min_frequency, tie_break=ties
    )
    assert tokenizer.merges == naive_superbpe(docs, 256 + inherited + new, inherited, recipe, min_frequency, ties)
    assert tokenizer.pattern == RECIPES[recipe].stage2_pattern


def test_stage_one_is_bpe_core_train_on_the_stage_one_pattern():
    docs = ["the cat sat on the mat.\nthe dog sat on the log, 12345 times.\n" * 3, "a cat: a mat\n"]
    tokenizer = train_superbpe(docs, 256 + 40, transition=20, min_frequency=1)
    plain = bpe_core.train(
        docs, 256 + 20, pattern=RECIPES["paper"].stage1_pattern, min_frequency=1, tie_break="huggingface"
    )
    assert tokenizer.merges[:20] == plain.merges
    assert tokenizer.training["superbpe"]["inherited_merges"] == 20
    assert len(tokenizer.training["tokens_after_merge"]) == len(tokenizer.merges)


def test_the_word_cap_and_the_colon_rule_skip_merges():
    """The most frequent stage-2 pairs would make a 5-word token and tokens holding ": "; they are skipped
    for good and the next pairs are merged instead."""
    docs = ["a b c d e\n" * 9 + "key: val\n" * 9]
    tokenizer = train_superbpe(docs, 256 + 40, transition=0, min_frequency=1)
    tokens = [left + right for left, right in tokenizer.merges]
    assert b"a b c d " in tokens and b"key:" in tokens and b" val\n" in tokens  # "a b c d e\n", "key: val\n" refused
    assert all(word_count(t) <= 4 and b": " not in t for t in tokens)
    assert tokenizer.training["superbpe"]["forbidden_pairs"] > 0
    unlimited = RECIPES["paper"].__class__(
        "open", RECIPES["paper"].stage1_pattern, RECIPES["paper"].stage2_pattern, max_words=None, forbidden=()
    )
    free = train_superbpe(docs, 256 + 40, transition=0, min_frequency=1, recipe=unlimited)
    assert b"a b c d e\n" in [left + right for left, right in free.merges]


# ---------------------------------------------------------------------------------------------------
# encoding


@pytest.fixture(scope="module")
def trained():
    text = (
        "By the way, I am a fan of the Milky Way. It is 1,234,567 light years away, or so they say.\n"
        "key: value\n    return self.value  # the value\n\n"
    ) * 12
    return train_superbpe(
        [text, "Of the people, by the people, for the people.\n" * 5], 256 + 160, transition=0.6, min_frequency=1
    )


held_out = st.text("abyeht ,.:\n1234567890 Wa", max_size=60)


@given(held_out)
@example("By the way, I am a fan of the Milky Way.\n\n12345 of the people")
def test_encoding_is_rank_order_bpe_on_the_stage_two_pieces(trained, text):
    expected = [piece for p in reference_pieces("paper", 2, text) for piece in naive_rank_encode(p.encode(), trained)]
    assert [trained.vocab[i] for i in trained.encode_ordinary(text)] == expected


def naive_rank_encode(piece: bytes, tokenizer) -> list[bytes]:
    rank = {pair: r for r, pair in enumerate(tokenizer.merges)}
    symbols = [bytes([b]) for b in piece]
    while True:
        found = [(rank[pair], pair) for pair in pairwise(symbols) if pair in rank]
        if not found:
            return symbols
        _, best = min(found)
        symbols = merge(symbols, best, best[0] + best[1])


def test_no_token_continues_past_a_newline(trained):
    assert all(b"\n" not in token[:-1] for token in trained.vocab.values())


def hugging_face(tokenizer, pre_tokenizer=None) -> HFTokenizer:
    data = to_huggingface_dict(tokenizer)
    if pre_tokenizer is not None:
        data["pre_tokenizer"] = json.loads(pre_tokenizer.__getstate__())
    return HFTokenizer.from_str(json.dumps(data))


@given(held_out)
@example("By the way, I am a fan of the Milky Way.\n\nkey: value 1234567")
def test_tokenizers_gives_the_same_ids(trained, text):
    """bpe_core's export, and the reference's own pre-tokenizer on the whole text (no reading by line)."""
    exported = hugging_face(trained)
    paper = hugging_face(
        trained, hf_pre.Sequence([*REFERENCE["paper", 2], hf_pre.ByteLevel(add_prefix_space=False, use_regex=False)])
    )
    ids = trained.encode_ordinary(text)
    assert exported.encode(text, add_special_tokens=False).ids == ids
    assert paper.encode(text, add_special_tokens=False).ids == ids


def test_a_pattern_hugging_face_reads_otherwise_is_not_exported():
    recipe = SuperBPERecipe("words", r"\w+|\W", r"[^\n]+\n?|\n")
    tokenizer = train_superbpe(["a cat, a hat\n" * 4], 270, transition=5, recipe=recipe, min_frequency=1)
    assert tokenizer.encode("a cat") and tokenizer.pattern == recipe.stage2_pattern
    words = replace(recipe, stage2_pattern=r"\w+|\W")
    tokenizer = train_superbpe(["a cat, a hat\n" * 4], 270, transition=5, recipe=words, min_frequency=1)
    with pytest.raises(BpeError, match="escape \\\\w.*HF tokenizers would split text differently"):
        to_huggingface_dict(tokenizer)


def test_superwords_appear(trained):
    pieces = [trained.decode([i]) for i in trained.encode("By the way, I am a fan of the Milky Way.")]
    assert any(word_count(piece.encode()) >= 2 for piece in pieces)


# ---------------------------------------------------------------------------------------------------
# files, count shards, extending a tokenizer


def test_stage_1_in_a_process_of_its_own_gives_the_same_tokenizer_and_reports_its_progress(tmp_path, monkeypatch):
    """Past ``SEPARATE_STAGE1_BYTES`` (here 0) stage 1 trains in a child process: the same tokenizer as
    in this process (``workers=1``), its progress reported here as it comes, in order."""
    corpus = tmp_path / "corpus.txt"
    words = "the cat sat on a mat of people by wooden ships and iron men".split()
    lines = (" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(6)) + ".\n" for i in range(300))
    corpus.write_text("".join(lines), encoding="utf-8")
    here = train_superbpe_files(str(corpus), 256 + 60, transition=30, min_frequency=1, workers=1)
    monkeypatch.setattr("bpe_core.training.superbpe.SEPARATE_STAGE1_BYTES", 0)
    started: list[int] = []
    monkeypatch.setattr("bpe_core.parallel.Worker.__init__", _counting(parallel.Worker.__init__, started))
    reports: list[tuple] = []
    child = train_superbpe_files(
        str(corpus), 256 + 60, transition=30, min_frequency=1, progress=lambda *report: reports.append(report)
    )
    assert started, "stage 1 ran in this process"
    assert (child.merges, child.vocab) == (here.merges, here.vocab)
    assert child.training["superbpe"]["inherited_merges"] == here.training["superbpe"]["inherited_merges"] > 0
    merges = [done for phase, done, _ in reports if phase == "merge"]
    assert merges == sorted(merges) and merges[0] == 0 and merges[-1] == len(child.merges), (merges, len(child.merges))
    assert any(phase == "count" for phase, _, _ in reports[: reports.index(("merge", 0, 60))])


def _counting(function, calls):
    def counted(*args, **kwargs):
        calls.append(1)
        return function(*args, **kwargs)

    return counted


def test_files_and_count_shards_give_the_same_tokenizer(tmp_path):
    docs = ["the cat sat on the mat.\n" * 4, "of the people, by the people\n" * 3, "x: 1234567\n"]
    for number, doc in enumerate(docs):
        (tmp_path / f"{number}.txt").write_text(doc, encoding="utf-8")
    expected = train_superbpe(docs, 256 + 50, transition=25, min_frequency=1)
    paths = sorted(map(str, tmp_path.glob("*.txt")))
    from_files = train_superbpe_files(paths, 256 + 50, transition=25, min_frequency=1)
    assert from_files.merges == expected.merges
    stage1 = expected.truncated(25)
    pattern = RECIPES["paper"].stage2_pattern
    counts = count_words(docs, pretokenizer=PreTokenizer.build(pattern))
    write_count_shards(counts, tmp_path / "shards", settings=shard_settings(pattern=pattern), rows_per_shard=3)
    shards, _ = read_count_shards(tmp_path / "shards")
    assert superwords_from_counts(stage1, shards, 256 + 50, min_frequency=1).merges == expected.merges


def test_extending_gpt2_keeps_its_ids():
    gpt2 = bpe_core.load("gpt2")
    text = [
        "By the way, I am a fan of the Milky Way.\nOf the people, by the people, for the people.\n" * 9,
        "In the middle of the night, at the end of the day, the way of the world.\n" * 9,
    ]
    extended = extend_tokenizer(gpt2, text, gpt2.vocab_size + 20, min_frequency=1)
    assert extended.vocab_size == gpt2.vocab_size + 20 and extended.special_tokens == gpt2.special_tokens
    assert all(extended.vocab[i] == token for i, token in gpt2.vocab.items())
    assert extended.merges[: len(gpt2.merges)] == gpt2.merges
    assert min(i for i in extended.vocab if i not in gpt2.vocab) == max(gpt2.vocab) + 1
    ids = extended.encode_ordinary("By the way, I am a fan of the Milky Way.")
    assert len(ids) < len(gpt2.encode_ordinary("By the way, I am a fan of the Milky Way.")) and max(ids) > 50256
    for piece in reference_pieces("paper", 2, "By the way, I am a fan of 12345 people.\n"):
        tokens = [extended.vocab[i] for i in extended.encode_ordinary(piece)]
        assert tokens == naive_rank_encode(piece.encode(), extended)
    first = extend_tokenizer(gpt2, text, 256 + 1 + 100 + 5, inherit=100, min_frequency=1)
    assert first.merges[:100] == gpt2.merges[:100] and len(first.merges) == 105


def test_bad_settings():
    with pytest.raises(BpeError, match="recipe"):
        train_superbpe(["a"], 300, recipe="nope")
    with pytest.raises(BpeError, match="share"):
        train_superbpe(["a"], 300, transition=1.5)
    with pytest.raises(BpeError, match="does not fit"):
        train_superbpe(["a"], 300, transition=100)
    with pytest.raises(TypeError):
        train_superbpe(["a"], 300, transition="0.8")  # type: ignore[arg-type]
    with pytest.raises(BpeError, match="twice"):
        train_superbpe(iter(["a"]), 300)  # type: ignore[arg-type]
    with pytest.raises(BpeError, match="vocab_size"):
        train_superbpe(["a"], 100)
    with pytest.raises(BpeError, match="below"):
        extend_tokenizer(bpe_core.load("gpt2"), ["a"], 1000)
    picky = train_picky([" hug" * 20 + " chug" + " ug" * 3], 270, threshold=0.9, min_frequency=1)
    with pytest.raises(BpeError, match="merges alone"):
        extend_tokenizer(picky, ["a"], 300)
    assert transition_merges(0.8, 1000) == 544 and transition_merges(0.1, 1000) == 0 and transition_merges(0, 300) == 0


# ---------------------------------------------------------------------------------------------------
# the "2025-11" recipe against the reference's pre-tokenizer on whole texts


@pytest.fixture(scope="module")
def trained_2025_11():
    text = (
        "int f(int x) {\n    return g(x);\n}\n/* the end of f */\ncall(a, b);\n\n/* next: 12345 */\n"
        "By the way, I am a fan of the Milky Way... ok?!  Yes.\n"
    ) * 12
    return train_superbpe([text], 256 + 160, transition=0.6, recipe="2025-11", min_frequency=1)


def reference_2025_11(tokenizer) -> HFTokenizer:
    return hugging_face(
        tokenizer,
        hf_pre.Sequence([*REFERENCE["2025-11", 2], hf_pre.ByteLevel(add_prefix_space=False, use_regex=False)]),
    )


@given(st.text("abyeht ,.:;!?'(){}*=\n1234567890 Wa", max_size=60))
@example("call(a, b);\n\n\n{x};\n  y\n")
def test_2025_11_gives_the_references_ids_on_whole_texts_without_slash_or_carriage_return(trained_2025_11, text):
    """The reference's stage-2 pre-tokenizer on the whole text lets a symbol run take the newlines after
    it (``[\\r\\n/]*``); bpe_core's pattern cuts at the first one. Without ``/`` and ``\\r`` that joins
    only newlines to the run, and no token continues past a newline, so the ids are the same."""
    ids = trained_2025_11.encode_ordinary(text)
    assert reference_2025_11(trained_2025_11).encode(text, add_special_tokens=False).ids == ids


def test_2025_11_differs_where_a_symbol_run_at_a_line_end_takes_the_next_lines_slash(trained_2025_11):
    """``);\\n/*``: the reference's whole-text piece ``);\\n/`` leaves ``*`` to the next piece; read by line (as both
    train), ``/*`` starts the next line's piece and is one token here."""
    text = "call(a, b);\n/* next */\n"
    ids = trained_2025_11.encode_ordinary(text)
    pieces = [trained_2025_11.decode([i]) for i in ids]
    assert "/*" in pieces
    reference = reference_2025_11(trained_2025_11)
    assert reference.encode(text, add_special_tokens=False).ids != ids
    by_line = [i for line in _LINE.findall(text) for i in reference.encode(line, add_special_tokens=False).ids]
    assert by_line == ids
    assert reference_pieces("2025-11", 2, text, by_line=False)[:3] == ["call(a, b", ");\n/", "* next"]
