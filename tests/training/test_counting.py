"""Counting split into tasks and worker processes: safe cuts, and the same counts however the work is
split (order of first appearance included, which the "first" tie rule relies on)."""

from collections import Counter

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import bpe_core
import bpe_core.pretokenization.special_tokens
from bpe_core import parallel
from bpe_core.corpora import text_files as corpus_module
from bpe_core.pretokenization.pretokenizer import PRESETS, PreTokenizer, safe_cut_regex
from bpe_core.training import counting
from bpe_core.training.counting import WordCounts, count_stream, count_words

# Letters, marks, digits (also non-ASCII ones), apostrophes, every kind of space and newline.
TRICKY = "ab Z'sltvdmre 1²٣\n\r\t\u00a0\u2028\u3000.,!-_/é\u0301東ß🚀\x0b\x1c"
texts = st.text(alphabet=TRICKY, max_size=60)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@given(text=texts)
def test_cutting_at_a_safe_cut_never_changes_the_pieces(preset, text):
    pre = PreTokenizer.build(preset)
    whole = pre.pieces(text)
    for match in safe_cut_regex(pre.source).finditer(text):
        cut = match.start()
        assert pre.pieces(text[:cut]) + pre.pieces(text[cut:]) == whole, (text, cut)


def test_custom_patterns_and_no_pattern_have_no_safe_cut():
    assert safe_cut_regex(None) is None
    assert safe_cut_regex(r"\w+") is None


def _count(monkeypatch, documents, workers, pattern="gpt2", specials=(), task_chars=7):
    monkeypatch.setattr(counting, "TASK_CHARS", task_chars)
    return count_words(documents, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials, workers=workers)


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k", r"[a-z]+", None])
@given(
    documents=st.lists(st.text(alphabet=TRICKY + "<|>", max_size=80), min_size=1, max_size=5),
    task_chars=st.integers(1, 40),
)
def test_split_counting_equals_whole_counting(pattern, documents, task_chars):
    specials = ["<|x|>", "|>"]
    pre = PreTokenizer.build(pattern)
    expected = counting.WordCounts()
    for document in documents:  # the plain definition: split at specials, pre-tokenize each segment
        expected.stats.documents += 1
        for segment, is_special in bpe_core.pretokenization.special_tokens.split_on_special_tokens(
            document, bpe_core.pretokenization.special_tokens.special_token_regex(specials)
        ):
            if is_special:
                expected.stats.special_tokens_cut += 1
            else:
                pieces = pre.pieces(segment)
                expected.stats.characters += len(segment)
                expected.stats.pretokens += len(pieces)
                expected.counts.update(pieces)
    with pytest.MonkeyPatch.context() as monkeypatch:
        got = _count(monkeypatch, documents, 1, pattern, specials, task_chars)
    assert list(got.counts.items()) == list(expected.counts.items())
    assert got.stats == expected.stats


# \x1c-\x1f: spaces to str.isspace, not to GPT-2's \s.
ASCII_CODE = "ab Z'sltvdmre 19\n\r\t\x0b\x0c\x1c\x1f.,!-_/()"


@given(texts=st.lists(st.text(alphabet=ASCII_CODE, max_size=120) | st.text(alphabet=TRICKY, max_size=30), max_size=6))
@example(texts=["a\n", "\n x"])  # a text ending in white space, then one starting with it
def test_counting_one_task_equals_the_pieces_of_each_text(texts):
    """``count_texts`` (ASCII stretches for mostly-ASCII tasks, joined ASCII segments otherwise; both
    forced here) gives the same counts, in the same order of first appearance, as pre-tokenizing each
    text."""
    pre = PreTokenizer.build("gpt2")
    expected = Counter()
    for text in texts:
        expected.update(pre.pieces(text))
    for extra_bytes in (-1.0, 10.0):  # never / always "mostly ASCII"
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(counting, "MOSTLY_ASCII_EXTRA_BYTES", extra_bytes)
            counts, pretokens = counting.count_texts(pre, texts)
        assert list(counts.items()) == list(expected.items()), extra_bytes
        assert pretokens == expected.total()


SPRINKLED = st.lists(
    st.text(alphabet=ASCII_CODE, max_size=40) | st.sampled_from(list(TRICKY) + ["\ud800", "\x85 ", "é "]), max_size=40
).map("".join)


@given(text=SPRINKLED)
@example(text="ab  \u00e9 cd")  # a space run before the non-ASCII character
@example(text="x\U0001f680 y")  # no cut right after an astral character
def test_ascii_stretches_tile_the_text_at_safe_cuts(text):
    pre = PreTokenizer.build("gpt2")
    stretches = list(counting.ascii_stretches(text))
    assert "".join(stretch for stretch, _ in stretches) == text
    assert all(stretch.isascii() for stretch, is_ascii in stretches if is_ascii)
    assert [piece for stretch, _ in stretches for piece in pre.pieces(stretch)] == pre.pieces(text)


CORPUS = [
    "def f(x):\n    return x**2  # it's 2024\n\n\n\tif x != None:\n        pass\n" * 30,
    "Ünïcödé wörds, 東京タワー, emoji 🚀🚀 and numbers 1234567890. <|endoftext|> more\n" * 30,
    "   \n\n  trailing   ",
    "",
]


@pytest.mark.parametrize("pattern", ["gpt2", r"\S+|\s+"])
def test_worker_processes_count_exactly_like_this_process(monkeypatch, pattern):
    specials = ["<|endoftext|>"]
    alone = _count(monkeypatch, CORPUS, 1, pattern, specials, task_chars=100)
    pooled = _count(monkeypatch, CORPUS, 2, pattern, specials, task_chars=100)
    assert list(pooled.counts.items()) == list(alone.counts.items())
    assert pooled.stats == alone.stats


def test_automatic_workers_count_beside_this_process_exactly_like_it(monkeypatch):
    # workers=None on 2 CPUs: one worker process, and this process counts tasks beside it.
    monkeypatch.setattr(counting, "PARALLEL_MIN_CHARS", 0)
    monkeypatch.setattr(counting, "available_cpus", lambda: 2)
    pools = []
    real = counting._count_in_workers

    def recorded(tasks, pretokenizer, count, result, *, share=False):
        pools.append((count, share))
        real(tasks, pretokenizer, count, result, share=share)

    monkeypatch.setattr(counting, "_count_in_workers", recorded)
    specials = ["<|endoftext|>"]
    alone = _count(monkeypatch, CORPUS, 1, "gpt2", specials, task_chars=100)
    shared = _count(monkeypatch, CORPUS, None, "gpt2", specials, task_chars=100)
    assert pools == [(1, True)]
    assert list(shared.counts.items()) == list(alone.counts.items())
    assert shared.stats == alone.stats


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
def test_training_does_not_depend_on_how_counting_was_split(monkeypatch, tie_break):
    monkeypatch.setattr(counting, "TASK_CHARS", 64)
    one = bpe_core.train(CORPUS, 400, tie_break=tie_break, special_tokens=["<|endoftext|>"], workers=1)
    two = bpe_core.train(CORPUS, 400, tie_break=tie_break, special_tokens=["<|endoftext|>"], workers=2)
    monkeypatch.setattr(counting, "TASK_CHARS", 1 << 20)
    whole = bpe_core.train(CORPUS, 400, tie_break=tie_break, special_tokens=["<|endoftext|>"], workers=1)
    assert one.merges == two.merges == whole.merges
    assert one.vocab == two.vocab == whole.vocab
    assert one.training["corpus"] == two.training["corpus"] == whole.training["corpus"]


def test_train_files_in_tiny_blocks_and_tasks_with_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_module, "FILE_BLOCK_BYTES", 5)
    monkeypatch.setattr(counting, "TASK_CHARS", 9)
    paths = []
    for i, text in enumerate(CORPUS):
        path = tmp_path / f"doc{i}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    expected = bpe_core.train(CORPUS, 350, special_tokens=["<|endoftext|>"], workers=1)
    for workers in (1, 2):
        got = bpe_core.train_files(paths, 350, special_tokens=["<|endoftext|>"], workers=workers)
        assert got.merges == expected.merges
        assert got.training["corpus"] == expected.training["corpus"]


def test_dead_workers_fall_back_to_counting_here(monkeypatch):
    monkeypatch.setattr(parallel, "_WORKER_CODE", "import sys; sys.exit(3)")
    alone = _count(monkeypatch, CORPUS, 1, task_chars=50)
    fallen_back = _count(monkeypatch, CORPUS, 2, task_chars=50)
    assert list(fallen_back.counts.items()) == list(alone.counts.items())
    assert fallen_back.stats == alone.stats


def test_an_error_in_a_worker_is_raised_here():
    worker = parallel.Worker()
    try:
        worker.send((counting.count_texts, PreTokenizer.build, "(unclosed"))
        worker.send(["text"])
        with pytest.raises(ValueError, match="invalid pre-tokenization regex"):
            worker.receive()
    finally:
        worker.close()


def test_small_inputs_stay_in_this_process(monkeypatch):
    def no_workers(*args, **kwargs):
        raise AssertionError("workers started for a small input")

    monkeypatch.setattr(counting, "_count_in_workers", no_workers)
    bpe_core.train("a small corpus " * 100, 300)  # workers=None: automatic


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_bad_workers_is_a_value_error(workers):
    with pytest.raises(ValueError, match="workers"):
        bpe_core.train("text", 300, workers=workers)


def test_documents_streamed_into_one_count_add_up_without_a_copy():
    """A corpus of one document is never copied: its counts are the result itself."""
    pretokenizer = PreTokenizer.build(r"\w+|\W")
    total = WordCounts()
    first = total.counts
    for document in ["ab ab c", "c d"]:
        assert count_stream([document], pretokenizer=pretokenizer, into=total) is total
    assert total.counts is first and total.counts == Counter({"ab": 2, " ": 3, "c": 2, "d": 1})
    assert total.stats.documents == 2 and total.stats.pretokens == 8
