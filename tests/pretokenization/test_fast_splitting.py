"""GPT-2's fast pre-tokenization (standard-library `re` patterns) against the `regex` pattern."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.pretokenization import pretokenizer as pretokenize
from bpe_core.pretokenization.pretokenizer import PreTokenizer

TRICKY = "ab Z'sltvdmre 1²٣\n\r\t\u00a0\u2028\u3000\x85.,!-_/é\u0301東ß🚀\U0001f600\x0b\x1c\x1f\x00"


@pytest.fixture(scope="module")
def fast():
    patterns = pretokenize._gpt2_fast()
    assert patterns is not None, "the regex module disagrees with the fast patterns' classes"
    return patterns


@given(text=st.text(alphabet=TRICKY, max_size=80))
def test_segments_tile_the_text_and_keep_its_pieces(fast, text):
    reference = PreTokenizer.build("gpt2").compiled
    segments = fast[0].findall(text)
    assert "".join(segments) == text
    assert [p for s in segments for p in reference.findall(s)] == reference.findall(text)


@given(text=st.text(max_size=80))
def test_segments_on_any_text(fast, text):
    reference = PreTokenizer.build("gpt2").compiled
    segments = fast[0].findall(text)
    assert "".join(segments) == text
    assert [p for s in segments for p in reference.findall(s)] == reference.findall(text)


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
def test_ascii_pattern_equals_gpt2_on_ascii_text(fast, text):
    assert fast[1].findall(text) == PreTokenizer.build("gpt2").compiled.findall(text)
    assert PreTokenizer.build("gpt2").pieces(text) == PreTokenizer.build("gpt2").compiled.findall(text)


def test_only_gpt2_has_a_segment_pattern():
    assert PreTokenizer.build("gpt2").segment_pattern() is not None
    assert PreTokenizer.build("cl100k").segment_pattern() is None
    assert PreTokenizer.build(r"\w+").segment_pattern() is None
    assert PreTokenizer.build(None).segment_pattern() is None


def test_the_white_space_class_is_regex_s(fast):
    import array

    import regex

    codes = array.array("I", range(0xD800))
    codes.extend(range(0xE000, 0x110000))
    everything = codes.tobytes().decode("utf-32-le")
    assert "".join(regex.findall(r"\s", everything)) == pretokenize._WHITE_SPACE


ASCII_TRICKY = "aZ sS'tTlLvVrReEdDmM 019\n\r\t\x0b\x0c .,!-_/'\"\x1c\x1f\x00"


@pytest.mark.parametrize("alphabet", [ASCII_TRICKY, st.characters(max_codepoint=127)])
def test_cl100k_ascii_pattern_equals_cl100k_on_ascii_text(alphabet):
    reference = PreTokenizer.build("cl100k")
    fast = pretokenize._cl100k_ascii_pattern()
    assert fast is not None

    @given(text=st.text(alphabet=alphabet, max_size=120))
    def check(text):
        assert fast.findall(text) == reference.compiled.findall(text)
        assert reference.pieces(text) == reference.compiled.findall(text)

    check()


def test_cl100k_ascii_pattern_on_hand_picked_cases():
    reference = PreTokenizer.build("cl100k").compiled
    fast = pretokenize._cl100k_ascii_pattern()
    texts = ["it'S a DON'T 'll 'LL", "x  \n\n  y\r\n\t", "1234567 a1b22", "!!!\n\n", "  ", " \n", "a\n", "'", "  !x"]
    for text in texts:
        assert fast.findall(text) == reference.findall(text), text


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
def test_ascii_segment_pattern_equals_the_full_one_on_ascii_text(fast, text):
    finder = PreTokenizer.build("gpt2").segment_pattern()
    assert finder.findall(text) == fast[0].findall(text)
    assert "".join(finder.findall(text)) == text
