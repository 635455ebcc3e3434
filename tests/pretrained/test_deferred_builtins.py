"""A built-in of a rank file loaded with an empty cache (pretrained.model_cache.ranks_tokenizer): it
encodes at once by tiktoken's rule on the ranks (bpe.rank_pieces), with the ids of the tokenizer
built with every check; its merges come on first use, once however many threads ask together, and
equal the checked ones; a damaged or foreign cache is proved again and rewritten; it pickles before
and after its merges are known; the load-time checks refuse what they refuse."""

from __future__ import annotations

import hashlib
import pickle
import random
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.bpe.rank_pieces import RankPieceEncoder, WholeTokens, join_by_rank
from bpe_core.errors import BpeError
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.pretrained import catalogue, model_cache
from bpe_core.tokenizer import Tokenizer

BYTES = {bytes([b]): b for b in range(256)}
# Merges, late merges ("ab" ranked after "abc") and a whole-word token ("pqrp" with "pq" "r" "p" stuck).
RANKS = BYTES | {
    b"abc": 256,
    b"ab": 257,
    b"ca": 258,
    b"abca": 259,
    b"xyz": 260,
    b"xy": 261,
    b"pq": 262,
    b"pqrp": 263,
    b"aa": 264,
    b"aaaa": 265,
    b"  ": 266,
}
SPECIALS = {"<|end|>": 300}
DATA = b"the pinned file the ranks came from"
TEXTS = st.text(alphabet="abcxyzpqr <|end>\u00e9", max_size=60)


def deferred(folder, ranks=RANKS, specials=SPECIALS) -> Tokenizer:
    return model_cache.ranks_tokenizer(folder, DATA, dict(ranks), special_tokens=specials, pattern=None, name="ranks")


def checked(ranks=RANKS, specials=SPECIALS) -> Tokenizer:
    return Tokenizer.from_ranks(ranks, special_tokens=specials, pattern=None, name="ranks")


def same_merges(ours: Tokenizer, reference: Tokenizer) -> None:
    assert ours.merges == reference.merges
    assert ours._late_merges == reference._late_merges
    assert ours.whole_word_tokens == reference.whole_word_tokens
    assert [ours.merge_rank_of(i) for i in ours.vocab] == [reference.merge_rank_of(i) for i in reference.vocab]
    assert ours._model.tables() == reference._model.tables()
    assert repr(ours) == repr(reference)


def test_it_encodes_before_its_merges_are_known_and_then_has_the_checked_ones(tmp_path):
    ours, reference = deferred(tmp_path), checked()
    assert reference._late_merges and reference.whole_word_tokens
    for text in ["abcabca pqrp pqrpq xyzxy", "aaaaaaa" * 30, " " * 200, "abc<|end|>ab\u00e9"]:
        assert ours.encode(text, allowed_special="all", engine="python") == reference.encode(
            text, allowed_special="all", engine="python"
        )
    assert not list(tmp_path.iterdir())  # encoding needed no merges: nothing proved, nothing written
    same_merges(ours, reference)
    assert [p.suffix for p in tmp_path.iterdir()] == [".tables"]
    assert ours.to_json() == reference.to_json()


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_ids_equal_the_checked_tokenizers_on_any_text(text):
    ours, reference = deferred(None), checked()
    for engine in ("python", "tiktoken"):
        assert ours.encode(text, allowed_special="all", engine=engine) == reference.encode(
            text, allowed_special="all", engine=engine
        )
    assert ours.encode_ordinary(text * 7, engine="python") == reference.encode_ordinary(text * 7, engine="python")


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=200).map(lambda b: bytes(x % 6 + 97 for x in b)))
def test_the_piece_encoder_is_tiktokens_rule_on_short_and_long_pieces(piece):
    reference = checked()
    ours = RankPieceEncoder(RANKS, range(256), reference._model._rule_parts)
    expected = (RANKS[piece],) if piece in RANKS else reference._model.piece_encoder.encode(piece)
    assert ours.encode(piece) == expected
    assert tuple(reference.to_tiktoken()._encode_single_piece(piece)) == expected


def test_the_loop_and_the_heap_join_alike_on_long_runs():
    ranks = BYTES | {b"aa": 256, b"ab": 257, b"aaa": 258, b"ba": 259, b"aaaa": 260, b"aab": 261}
    expected = checked(ranks, {})._model.piece_encoder
    rng = random.Random(7)
    for _ in range(300):
        piece = bytes(rng.choice(b"ab") for _ in range(rng.randint(65, 200)))  # past LONG_PIECE: the heap
        assert tuple(join_by_rank(piece, ranks)) == expected.encode(piece)
        for part in (piece[k : k + 60] for k in range(0, len(piece), 60)):  # the loop
            assert tuple(join_by_rank(part, ranks)) == expected.encode(part)


def test_many_threads_asking_for_merges_at_once_prove_them_once(tmp_path, monkeypatch):
    calls = []
    real = model_cache.rank_structure
    started = threading.Event()

    def counted(ranks):
        calls.append(1)
        started.set()
        threading.Event().wait(0.2)  # the others ask while this one is proving
        return real(ranks)

    monkeypatch.setattr(model_cache, "rank_structure", counted)
    ours = deferred(tmp_path)
    questions = [
        lambda t: t.merges,
        lambda t: t._late_merges,
        lambda t: t.whole_word_tokens,
        lambda t: t.merge_rank_of(264),
        lambda t: t.encode("abcabca pqrp"),
        repr,
    ]
    barrier = threading.Barrier(4 * len(questions))
    seen: dict[int, object] = {}

    def ask(number: int) -> None:
        barrier.wait()
        seen[number] = questions[number % len(questions)](ours)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4 * len(questions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1] and len(seen) == len(threads)
    reference = checked()
    assert [seen[i] for i in range(len(threads))] == [question(reference) for question in questions] * 4
    same_merges(ours, reference)


def test_cached_tables_are_used_and_damaged_or_foreign_ones_proved_again(tmp_path, monkeypatch):
    assert deferred(tmp_path).merges
    (written,) = tmp_path.iterdir()
    good = written.read_bytes()
    monkeypatch.setattr(model_cache, "rank_structure", lambda ranks: pytest.fail("proved again despite tables"))
    same_merges(deferred(tmp_path), checked())
    monkeypatch.undo()
    proved = []
    real = model_cache.rank_structure
    monkeypatch.setattr(model_cache, "rank_structure", lambda ranks: proved.append(1) or real(ranks))
    for damaged in (good[:-7], good[:-1] + bytes([good[-1] ^ 1]), b"not tables at all"):
        written.write_bytes(damaged)
        same_merges(deferred(tmp_path), checked())
        assert written.read_bytes() == good  # rewritten
    other = checked({**RANKS, b"zz": 299})._model.tables()  # other ranks' tables under this file's SHA-256
    written.write_bytes(model_cache.tables_to_bytes(other, hashlib.sha256(DATA).digest()))
    same_merges(deferred(tmp_path), checked())
    assert proved == [1, 1, 1, 1]


def test_no_folder_and_an_unwritable_one_only_cost_the_proof(tmp_path):
    same_merges(deferred(None), checked())
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    same_merges(deferred(blocker / "tables"), checked())


def test_it_pickles_before_and_after_its_merges_are_known(tmp_path):
    ours = deferred(tmp_path)
    again = pickle.loads(pickle.dumps(ours))
    assert again.encode("abcabca pqrp") == checked().encode("abcabca pqrp")
    same_merges(again, checked())
    assert ours.merges
    same_merges(pickle.loads(pickle.dumps(ours)), checked())


@pytest.mark.parametrize(
    ("ranks", "specials", "message"),
    [
        ({k: v for k, v in RANKS.items() if k != b"q"}, {}, "single byte b'q'"),
        ({**RANKS, b"": 299}, {}, "empty token"),
        ({**RANKS, b"zz": 256}, {}, "share a rank"),
        (RANKS, {"<x>": 256}, "has id 256"),
    ],
)
def test_the_load_time_checks_refuse_bad_ranks_and_special_ids(ranks, specials, message):
    with pytest.raises(BpeError, match=message):
        deferred(None, ranks, specials)


def test_whole_tokens_look_pieces_up_as_text():
    whole = WholeTokens({b"ab": 7, b"\xff": 8, "é".encode(): 9})
    assert whole.get("ab") == (7,) and whole["é"] == (9,) and whole.get("zz") is None and whole.get("\ud800") is None
    assert dict(whole) == {"ab": (7,), "é": (9,)} and len(whole) == 2
    with pytest.raises(KeyError):
        whole["zz"]


@pytest.mark.parametrize("name", ["cl100k", "llama3", "qwen3.5"])
def test_a_built_in_with_an_empty_cache_is_the_checked_one(tmp_path, monkeypatch, name):
    """cl100k (a merge list), Llama 3 and Qwen 3.5 (late merges and whole-word tokens): loaded with an
    empty cache, equal to ``Tokenizer.from_ranks`` of the same file on ids (both engines), every
    token's own bytes, merges, late merges and whole-word tokens; their tables then serve the next load."""
    if not catalogue.is_installed(name):
        pytest.skip(f"{name}'s package is not installed")
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    builtin = catalogue.BUILTINS[name]
    data = catalogue.builtin_file(name)
    cold = builtin.build(data)
    ranks = parse_tiktoken_ranks(data.decode("ascii"))
    reference = Tokenizer.from_ranks(ranks, special_tokens=cold.special_tokens, pattern=cold.pattern, name=name)
    text = (
        "Hello world, việc 1234567 <|endoftext|>   spaces\n\n"
        + "x" * 90
        + " naïve 你好世界 🙂 "
        + "=" * 300
        + bpe_core.__doc__
    )
    for engine in ("python", "auto"):
        assert cold.encode(text, allowed_special="all", engine=engine) == reference.encode(
            text, allowed_special="all", engine="python"
        )
    pieces, expected = cold._model.piece_encoder, reference._model.piece_encoder
    rng = random.Random(name)
    tokens = list(ranks)
    for _ in range(3000):
        piece = b"".join(rng.choice(tokens) for _ in range(rng.randint(1, 4)))[rng.randint(0, 3) :] or b"a"
        assert pieces.encode(piece) == ((ranks[piece],) if piece in ranks else expected.encode(piece))
    assert not (tmp_path / "rank-structures").exists()  # nothing above needed the merges
    assert (cold.merges, cold._late_merges, cold.whole_word_tokens) == (
        reference.merges,
        reference._late_merges,
        reference.whole_word_tokens,
    )
    warm = builtin.build(data)
    assert (warm.merges, warm._late_merges) == (reference.merges, reference._late_merges)


def test_gpt2_keeps_no_tables_and_proves_which_tokens_encode_whole_on_first_use(tmp_path, monkeypatch):
    """GPT-2 is read from its two files on every load (quicker than tables), its merges checked at
    once; the proof of the tokens that encode to themselves waits for the first piece looked up whole."""
    if not catalogue.is_installed("gpt2"):
        pytest.skip("gpt2's package is not installed")
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    ours = catalogue.BUILTINS["gpt2"].build(catalogue.builtin_file("gpt2"))
    assert "self_encoding" not in vars(ours._model)  # not proved yet
    text = "Hello world, việc 1234567 <|endoftext|>   spaces\n\n naïve 你好世界 🙂 " + bpe_core.__doc__
    reference = Tokenizer(dict(ours.vocab), ours.merges, special_tokens=ours.special_tokens, pattern="gpt2")
    assert ours.encode(text, allowed_special="all", engine="python") == reference.encode(
        text, allowed_special="all", engine="python"
    )
    assert ours._model.self_encoding == reference._model.self_encoding and ours.tokens_encode_to_themselves
    assert not list(tmp_path.iterdir())
