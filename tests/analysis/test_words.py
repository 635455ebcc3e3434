"""bpe_core.analysis.words: the fast word count and split share (``word_metrics``, ``class_image``) against a
plain reference written here: one character at a time, token spans from a set of byte offsets."""

import random
import re
import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis import metrics
from bpe_core.analysis.fairness import clean_text
from bpe_core.analysis.words import class_image, word_metrics, word_spans


def reference_words(text: str) -> list[tuple[int, int]]:
    """Character spans of the words, one character at a time (no regex)."""

    def punct(ch):
        return unicodedata.category(ch).startswith("P")

    spans, index = [], 0
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        start = index
        while index < len(text) and not text[index].isspace():
            index += 1
        lo, hi = start, index
        while lo < hi and punct(text[lo]):
            lo += 1
        while hi > lo and punct(text[hi - 1]):
            hi -= 1
        if hi > lo:
            spans.append((lo, hi))
    return spans


def reference_metrics(text: str, token_bytes) -> tuple[int, float | None]:
    """(words, split_share): a word is split when a token ends strictly inside its bytes."""
    spans = reference_words(text)
    encoded = text.encode("utf-8")
    if not spans:
        return 0, None
    if token_bytes is None or b"".join(token_bytes) != encoded:
        return len(spans), None
    byte_at = [0]
    for ch in text:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    ends, position = set(), 0
    for token in token_bytes:
        position += len(token)
        ends.add(position)
    split = sum(any(b in ends for b in range(byte_at[s] + 1, byte_at[e])) for s, e in spans)
    return len(spans), split / len(spans)


# letters, digits, marks, emoji, symbols, ASCII and Unicode spaces and punctuation, lone surrogates
ALPHABET = list(
    "abcXYZ019éßжدह中ि\u0301\u0308🙂👍🏽$+<^|~"
    " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2003\u2028\u2029\u202f\u3000"
    ".,!?'\"()-_[]{}@#%&*/:;\\—–“”«»¿¡。、「」؟،・‐‽\ud800\udfff"
)
texts = st.text(alphabet=st.sampled_from(ALPHABET), max_size=60)


def tiling(encoded: bytes, rng: random.Random) -> list[bytes]:
    """``encoded`` cut at random byte offsets (mid-character too), as a byte-level tokenizer may."""
    cuts = sorted({0, len(encoded), *(rng.randrange(len(encoded) + 1) for _ in range(len(encoded) // 2))})
    return [encoded[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def with_empty_tokens(tokens: list[bytes], rng: random.Random) -> list[bytes]:
    """``tokens`` with empty ones slipped in (first, last, between)."""
    out = []
    for token in tokens:
        out.extend([b""] * rng.randrange(2))
        out.append(token)
    return out + [b""] * rng.randrange(2)


@settings(max_examples=500, deadline=None)
@given(texts, st.integers(0, 2**32 - 1), st.sampled_from(["tiles", "empty", "none", "wrong", "0xff"]))
def test_word_metrics_match_the_reference(raw, seed, mode):
    text = clean_text(raw)
    encoded = text.encode("utf-8")
    rng = random.Random(seed)
    token_bytes = {
        "tiles": lambda: tiling(encoded, rng),
        "empty": lambda: with_empty_tokens(tiling(encoded, rng), rng),
        "none": lambda: None,
        "wrong": lambda: [encoded + b"x"],
        "0xff": lambda: [encoded[:1], b"\xff", encoded[1:]],  # the separator byte inside a token
    }[mode]()
    assert word_metrics(text, encoded, token_bytes) == reference_metrics(text, token_bytes)
    assert word_spans(text) == reference_words(text)


@settings(max_examples=100, deadline=None)
@given(texts)
def test_measure_split_share_per_character_tokens(raw):
    # one token per UTF-8 byte: every word of two or more bytes is split
    text = clean_text(raw)

    class Bytes:
        vocab_size = 256

        def encode_ordinary(self, t):
            return list(t.encode("utf-8"))

        def decode_single_token_bytes(self, i):
            return bytes([i])

    words, share = reference_metrics(text, [bytes([b]) for b in text.encode("utf-8")])
    m = metrics.measure(Bytes(), raw)
    assert (m.words, m.split_share) == (words, share)


def test_class_image_of_every_code_point():
    # every character's bytes get its class: white space as re's \s sees it (str.isspace), Unicode
    # punctuation, anything else; the image keeps the UTF-8 length
    chars = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    spaces = set(re.findall(r"\s", chars))
    assert spaces == {ch for ch in chars if ch.isspace()}
    expected = b"".join(
        (b" " if ch in spaces else b"!" if unicodedata.category(ch).startswith("P") else b"a") * len(ch.encode("utf-8"))
        for ch in chars
    )
    assert class_image(chars) == expected


def test_measure_a_long_text_whole():
    # more than 200,000 characters of several scripts, GPT-2's own tokens: the same words and split
    # share as the reference, and every character counted
    text = (open_sample_text() * 60)[:250_000]
    tokenizer = bpe_core.load("gpt2")
    m = metrics.measure(tokenizer, text)
    ids = tokenizer.encode_ordinary(text)
    assert m.characters == 250_000 and m.tokens == len(ids)
    assert (m.words, m.split_share) == reference_metrics(text, tokenizer.decode_tokens_bytes(ids))
    assert m.words > 30_000 and 0 < m.split_share < 1


def open_sample_text() -> str:
    from bpe_core.corpora.samples import load_samples

    return "\n".join(s.text for s in load_samples())


def test_tokens_that_are_not_bytes_give_no_split_share():
    # a tokenizer answering with str pieces: words are still counted, no byte spans are known
    assert word_metrics("ab cd", b"ab cd", ["ab", " ", "cd"]) == (2, None)
    assert word_metrics("ab cd", b"ab cd", [bytearray(b"ab "), memoryview(b"cd")]) == (2, 0.0)
