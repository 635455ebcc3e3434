"""The drawn window of a long text (bpe_core/workspace/window.py): its tokens are exactly the whole-text tokens
in that range, for every built-in tokenizer, whatever the window's edges cut (a character split
between tokens, a run of spaces, a special token); whole-text cuts; pages and jumps."""

from __future__ import annotations

import random

import numpy as np
import pytest

import bpe_core
from bpe_core.pretrained import catalogue
from bpe_core.workspace import window
from pages._tokenize_text import paging
from pages._ui import render

TEXT = (
    'Tokenizers cut text: "unbelievable" → un·believ·able?   Spaces     here.\n'
    "नमस्ते दुनिया, यह एक परीक्षण है। 你好世界，机器学习正在改变世界。 مرحبا بالعالم، اللغة العربية.\n"
    "def f(x):\n        return x ** 2  # 🙂👍🏽 emoji, café naïve <|endoftext|> after the special\n\n\n"
    "Ελληνικά και Русский текст, ქართული, ไทย, 한국어 문장입니다. 1234567 and 3.14159\n"
) * 4


def _names() -> list[str]:
    names = ("gpt2", "cl100k", *(e.name for e in catalogue.available()))
    return [name for name in names if catalogue.is_installed(name)]


@pytest.fixture(scope="module")
def trained():
    return bpe_core.train(TEXT, 256 + 120, min_frequency=1)


def _tokenizers(trained):
    yield "trained", trained
    for name in dict.fromkeys(_names()):
        yield name, bpe_core.load(name)


def _windows(text: str, whole_infos) -> list[tuple[int, int]]:
    """Random windows, plus windows whose edges fall inside a character split between tokens."""
    rng = random.Random(5)
    windows = [(0, len(text)), (0, 1), (len(text) - 1, len(text))]
    windows += [(a, min(len(text), a + rng.randrange(1, 400))) for a in rng.sample(range(len(text)), 40)]
    split = [info.start for info in whole_infos if info.partial][:6]
    windows += [(c, min(len(text), c + 50)) for c in split] + [(max(0, c - 50), c + 1) for c in split]
    return windows


def _check_windows(tokenizer, text: str, treat_special: bool) -> int:
    """Every window's tokens are the slice of ``encode_with_details`` they say; returns the windows checked."""
    kwargs = window.encode_kwargs(treat_special)
    full = tokenizer.encode_with_details(text, **kwargs)
    whole = window.encode_whole(tokenizer, text, treat_special)
    index = window.text_index(text)
    assert list(whole.ids) == [info.id for info in full]
    checked = 0
    for start, end in _windows(text, full):
        i0, i1 = window.token_range(whole, index, start, end)
        got = window.window_infos(tokenizer, whole, index, text, start, end)
        assert got == full[i0:i1], (start, end)
        overlapping = [k for k, info in enumerate(full) if info.end > start and info.start < end]
        assert overlapping and i0 <= overlapping[0] and overlapping[-1] < i1, (start, end)
        # widened only to whole characters: no character is shared across the window's edges
        assert i0 == 0 or full[i0 - 1].end <= full[i0].start, (start, end)
        assert i1 == len(full) or full[i1].start >= full[i1 - 1].end, (start, end)
        checked += 1
    return checked


def test_window_tokens_are_the_whole_text_tokens_for_every_builtin(trained):
    names = []
    for name, tokenizer in _tokenizers(trained):
        for treat_special in (True, False):
            assert _check_windows(tokenizer, TEXT, treat_special) > 40, name
        names.append(name)
    assert {"trained", "gpt2"} <= set(names)


def test_window_edge_inside_a_split_character_brings_all_its_pieces():
    gpt2 = bpe_core.load("gpt2")
    text = "ab 你好 cd"
    full = gpt2.encode_with_details(text)
    pieces = [info for info in full if info.partial and info.start == 3]  # '你' is two GPT-2 tokens
    assert len(pieces) == 2
    whole, index = window.encode_whole(gpt2, text, False), window.text_index(text)
    got = window.window_infos(gpt2, whole, index, text, 3, 4)  # the window is exactly '你'
    assert [info for info in got if info.start == 3] == pieces
    assert whole.byte_ends is not None  # computed from the bytes, not by encoding the slice


def test_window_with_the_native_engine(monkeypatch):
    monkeypatch.setenv("BPE_CORE_ENGINE", "auto")
    gpt2 = bpe_core.load("gpt2")
    assert _check_windows(gpt2, TEXT, True) > 40


def test_whole_text_cuts_are_the_cut_positions(trained):
    for tokenizer in (bpe_core.load("gpt2"), trained):
        whole, index = window.encode_whole(tokenizer, TEXT, True), window.text_index(TEXT)
        cuts = window.cut_chars(whole, index)
        assert cuts.tolist() == sorted(render.cut_positions(tokenizer.encode_with_details(TEXT, allowed_special="all")))


def test_pages_cover_the_text_and_end_at_lines():
    text = "".join(f"line {n} " + "x" * (n % 70) + "\n" for n in range(2_000))
    starts = window.page_starts(text, 1_000)
    assert starts[0] == 0 and starts == sorted(set(starts))
    ends = [*starts[1:], len(text)]
    assert all(0 < end - start <= 1_000 for start, end in zip(starts, ends, strict=True))
    assert all(text[end - 1] == "\n" for end in ends)
    assert window.page_starts("x" * 2_500, 1_000) == [0, 1_000, 2_000]  # no newline: cut at the size
    assert window.page_of(starts, 0) == 0 and window.page_of(starts, len(text) - 1) == len(starts) - 1
    assert window.page_of(starts, starts[3]) == 3 and window.page_of(starts, starts[3] - 1) == 2
    with pytest.raises(ValueError, match="at least one character"):
        window.page_starts("abc", 0)


def test_line_start():
    text = "a\nbc\n\nd"
    assert [paging.line_start(text, n) for n in (1, 2, 3, 4, 99)] == [0, 2, 5, 6, 6]


def test_empty_and_tiny_windows():
    gpt2 = bpe_core.load("gpt2")
    whole, index = window.encode_whole(gpt2, "", False), window.text_index("")
    assert window.window_infos(gpt2, whole, index, "", 0, 0) == []
    assert window.cut_chars(whole, index).tolist() == []
    assert np.asarray(window.page_starts("")).tolist() == [0]
