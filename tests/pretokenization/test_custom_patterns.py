"""Custom patterns at any size: they stream in bounded memory and linear time, exactly, and
their time guard is a budget per unit of input shared by all the documents of one operation.

The streaming rule (``bpe_core.pretokenization.custom_patterns``): a piece is settled once ``CUSTOM_MARGIN``
characters follow it. The property tests shrink the margin to a few characters so that random texts
of a few dozen characters cross it many times, with patterns whose matches are decided within that
margin (the rule's stated condition).
"""

from __future__ import annotations

import re
from collections import Counter
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.pretokenization import custom_patterns
from bpe_core.pretokenization.custom_patterns import RegexBudget, stream_custom
from bpe_core.pretokenization.pretokenizer import PreTokenizer, stream_pieces
from bpe_core.pretokenization.special_tokens import special_token_regex, split_on_special_tokens
from bpe_core.training.counting import count_files, count_words

#: ``\S+|\s+`` and friends, a line pattern (``[^\n]*\n?`` itself matches the empty string, which
#: bpe_core refuses), a look-ahead and a look-behind of bounded reach, leftmost-first alternatives,
#: and a capturing group (scanned with ``finditer`` rather than ``findall``).
PATTERNS = [
    r"\S+|\s+",
    r"\w+|\W",
    r".",
    r"[^\n]+\n?|\n",
    r"\d(?=\d\d)|\w+|\s+",
    r"(?<=a)b+|[a-z]+",
    r"ab|a|x$",
    r"(ab)+|\w+|\W",
]
SMALL_MARGIN = 6
ALPHABET = "ab x\n12!é<>s"


def whole_text_pieces(pattern: str, text: str, specials=()) -> list[tuple[str, bool]]:
    pretokenizer = PreTokenizer.build(pattern)
    return [
        (piece, is_special)
        for segment, is_special in split_on_special_tokens(text, special_token_regex(specials))
        for piece in ([segment] if is_special else pretokenizer.pieces(segment))
    ]


def chunked(text: str, cuts: list[int]) -> list[str]:
    cuts = sorted({min(cut, len(text)) for cut in cuts})
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def small_margin():
    return patch.object(custom_patterns, "CUSTOM_MARGIN", SMALL_MARGIN)


texts = st.text(alphabet=ALPHABET, max_size=120)
cut_lists = st.lists(st.integers(min_value=0, max_value=120), max_size=12)


@given(pattern=st.sampled_from(PATTERNS), text=texts, cuts=cut_lists, with_specials=st.booleans())
def test_streamed_pieces_are_the_whole_texts_pieces(pattern, text, cuts, with_specials):
    specials = ("<s>", "<s>x") if with_specials else ()
    with small_margin():
        streamed = list(
            stream_pieces(
                chunked(text, cuts), PreTokenizer.build(pattern), special_token_regex(specials), guard=4 * with_specials
            )
        )
    assert streamed == whole_text_pieces(pattern, text, specials)


@given(pattern=st.sampled_from(PATTERNS), documents=st.lists(texts, max_size=4))
def test_counts_are_findall_over_each_whole_text(pattern, documents):
    """Training's counts with a custom pattern: the pieces of ``findall`` (the pattern, then a
    catch-all for what it leaves) over each whole document, in order of first appearance."""
    compiled = re.compile(f"(?:{pattern})|[\\s\\S]")
    expected: Counter = Counter()
    for document in documents:
        expected.update(match.group() for match in compiled.finditer(document) if match.group())
    with small_margin():
        counted = count_words(documents, pretokenizer=PreTokenizer.build(pattern)).counts
    assert list(counted.items()) == list(expected.items())


@given(pattern=st.sampled_from(PATTERNS), text=texts)
def test_counting_files_streams_them_exactly(tmp_path_factory, pattern, text):
    path = tmp_path_factory.mktemp("corpus") / "one.txt"
    path.write_text(text, encoding="utf-8", newline="")
    with small_margin(), patch("bpe_core.corpora.text_files.FILE_BLOCK_BYTES", 7):
        counted = count_files([path], pretokenizer=PreTokenizer.build(pattern)).counts
    assert counted == count_words([text], pretokenizer=PreTokenizer.build(pattern)).counts


@given(text=texts, cuts=cut_lists)
def test_encode_iterable_with_a_custom_pattern_is_encode_of_the_joined_text(text, cuts):
    tokenizer = bpe_core.train("ab ab abab x12 x12", 262, pattern=r"\w+|\W", min_frequency=1)
    with small_margin():
        assert list(tokenizer.encode_iterable(chunked(text, cuts))) == tokenizer.encode(text)


def test_the_margin_is_what_makes_it_exact(monkeypatch):
    """Without the margin, a piece at the end of a chunk is taken before the text that decides it:
    the rule's condition is real, and the tests above would see it broken."""
    text, chunks = "ab" * 10 + " x", ["ab" * 5, "ab" * 5 + " x"]
    pieces = list(stream_pieces(chunks, PreTokenizer.build(r"\S+|\s+")))
    assert pieces == [("ab" * 10, False), (" ", False), ("x", False)]
    monkeypatch.setattr(custom_patterns, "CUSTOM_MARGIN", 0)
    assert list(stream_pieces(chunks, PreTokenizer.build(r"\S+|\s+")))[0] == ("ab" * 5, False)
    assert whole_text_pieces(r"\S+|\s+", text)[0] == ("ab" * 10, False)


# ------------------------------------------------------------------------------------------------
# Linear time and bounded memory, measured in characters scanned rather than in seconds.


class ScanCounter:
    """A compiled pattern that counts the characters each scan may look at."""

    def __init__(self, pattern: str) -> None:
        self.compiled = PreTokenizer.build(pattern).compiled
        self.groups = self.compiled.groups
        self.scanned = 0
        self.longest_text = 0

    def _count(self, text, pos, endpos) -> None:
        self.scanned += endpos - pos
        self.longest_text = max(self.longest_text, len(text))

    def findall(self, text, pos, endpos, timeout=None):
        self._count(text, pos, endpos)
        return self.compiled.findall(text, pos, endpos, timeout=timeout)

    def finditer(self, text, pos, endpos, timeout=None):
        self._count(text, pos, endpos)
        return self.compiled.finditer(text, pos, endpos, timeout=timeout)


def stream(pattern: str, chunks) -> tuple[ScanCounter, Counter]:
    counter = ScanCounter(pattern)
    budget = RegexBudget(pattern)
    pieces = Counter(piece for piece, _ in stream_custom(chunks, counter, None, guard=0, check=None, budget=budget))
    return counter, pieces


@pytest.mark.parametrize("as_one_string", [False, True], ids=["50 chunks", "one string"])
def test_a_50_mb_stream_is_scanned_about_once_in_bounded_memory(as_one_string):
    """50 MB in blocks of 1 MB, or as one string (a training document), of words of a few thousand
    characters, so that it runs in about a second: each block is scanned once, plus the margin, and
    no scan sees much more than one block."""
    block = ("x" * 4999 + " ") * 200
    counter, pieces = stream(r"\S+|\s+", [block * 50] if as_one_string else (block for _ in range(50)))
    assert pieces == Counter({"x" * 4999: 50 * 200, " ": 50 * 200})
    assert counter.scanned <= 1.2 * 50 * len(block)
    # One block, the margin held unsettled, as much again of look-behind room, a piece cut short.
    assert counter.longest_text <= custom_patterns.SCAN_CHARS + 2 * custom_patterns.CUSTOM_MARGIN + 5000


def test_a_50_mb_piece_is_held_whole_but_scanned_a_bounded_number_of_times():
    chunk = "a" * 1_000_000
    counter, pieces = stream(r"\S+|\s+", [*(chunk for _ in range(50)), " end"])
    assert pieces == Counter({"a" * 50_000_000: 1, " ": 1, "end": 1})
    assert counter.scanned <= 4 * 50_000_000  # the held text is scanned again only once it has doubled


# ------------------------------------------------------------------------------------------------
# The time budget: per unit of input, across all the documents of one operation.


def test_the_budget_grows_with_the_input_and_is_shared():
    budget = RegexBudget("x+", base_seconds=5, seconds_per_mb=2)
    assert budget.remaining() == 5
    budget.grant(50_000_000)
    assert budget.allowed == pytest.approx(105)
    budget.spent = 104.5
    assert budget.remaining() == pytest.approx(0.5)
    with pytest.raises(ValueError, match="must be a number of seconds"):
        RegexBudget("x+", base_seconds=-1)


def test_a_catastrophic_pattern_on_many_small_documents_fails_once_the_budget_is_used():
    """Each document alone would stay under any per-call limit; together they use up the budget,
    and counting stops with an error naming the pattern and the fix, long before the last one."""
    pattern = r"(a|a)+b"
    given = []

    def documents():
        for number in range(1000):
            given.append(number)
            yield "a" * 14

    budget = RegexBudget(pattern, base_seconds=0.3, seconds_per_mb=0)
    with pytest.raises(ValueError) as caught:
        count_words(documents(), pretokenizer=PreTokenizer.build(pattern), regex_budget=budget)
    message = str(caught.value)
    assert repr(pattern) in message and "catastrophic backtracking" in message and "(a+)+" in message
    assert len(given) < 1000
    assert budget.spent < 0.3 + 1.0  # stopped within the budget and about one document's time


def test_train_files_gives_the_same_error(tmp_path, monkeypatch):
    monkeypatch.setattr("bpe_core.pretokenization.pretokenizer.REGEX_TIMEOUT_SECONDS", 0.2)
    paths = []
    for number in range(40):
        path = tmp_path / f"{number}.txt"
        # 18 characters: about 0.1 s of backtracking each, warm (with 14 the 40 files took 0.18 s in all
        # once the regex engine was warm, so the budget was not always spent).
        path.write_text("a" * 18, encoding="utf-8")
        paths.append(path)
    with pytest.raises(ValueError, match="ran out of time"):
        bpe_core.train_files(paths, 300, pattern=r"(a|a)+b")


def test_count_files_takes_a_budget(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("a" * 14, encoding="utf-8")
    with pytest.raises(ValueError, match="ran out of time"):
        count_files([path], pretokenizer=PreTokenizer.build(r"(a|a)+b"), regex_budget=RegexBudget("p", base_seconds=0))
