"""Step through names its pairs and merged symbols among the words of the run: bytes every Devanagari
letter shares are ⟨Devanagari 1–2/3⟩, never named after one letter (⟨न 1–2/3⟩), and the note reading
such a name (⟨你 1–2/3⟩ is bytes 1 to 2...) is shown only when a pair in the table names a piece, never
on the English examples."""

from __future__ import annotations

import pytest
from apptest_support import APP, run
from streamlit.testing.v1 import AppTest

STEPS = "pages/step_through.py"


@pytest.fixture
def steps(workspace_dir):
    at = run(AppTest.from_file(APP, default_timeout=180))
    at.switch_page(STEPS)
    return run(at)


def _captions(at: AppTest) -> str:
    return " ".join(str(caption.value) for caption in at.caption)


def _to_merge(at: AppTest, example: str, *, text: str | None = None, merges: int = 1) -> AppTest:
    at.selectbox(key="steps.example").set_value(example)
    run(at)
    if text is not None:
        at.selectbox(key="steps.mode").set_value("bytes")
        at.text_area(key="steps.text").set_value(text)
        run(at)
    for _ in range(merges):
        at.button(key="steps.next").click()
        run(at)
    return at


@pytest.mark.parametrize("example", ["low-lower", "ab-abc"])
def test_english_examples_say_nothing_about_pieces_of_characters(steps, example):
    steps.selectbox(key="steps.example").set_value(example)
    run(steps)
    for _ in range(3):
        assert "⟨" not in _captions(steps) and "bytes of" not in _captions(steps)
        steps.button(key="steps.next").click()
        run(steps)


def test_a_hindi_merge_of_shared_bytes_is_named_by_its_script_and_explained(steps):
    _to_merge(steps, "custom", text="नमस्ते दुनिया नमस्ते हिन्दी", merges=1)
    heading = [str(h.value) for h in steps.subheader if str(h.value).startswith("Merge rank 0")][0]
    assert heading == ("Merge rank 0: ‘⟨Devanagari 1/3⟩’ + ‘⟨Devanagari 2/3⟩’ → ‘⟨Devanagari 1–2/3⟩’ (new id 256)")
    assert "⟨न" not in heading
    assert "is byte 1 of the 3 bytes of a Devanagari character." in _captions(steps)
