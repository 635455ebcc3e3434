"""Bytes that several characters share are named by what they can be part of, never after one of the
characters (``e0 a4`` begins every Devanagari letter: ⟨Devanagari 1–2/3⟩, not ⟨न 1–2/3⟩); bytes that
are always part of one character are named after it; and the note that reads such a name is said
only when a view shows one, about the name it shows (Step through: tests/app/test_step_through_labels.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_core.display import glyphs
from bpe_core.display.pieces import labels_among, piece_note


def _bytes_of(word: str) -> list[bytes]:
    return [bytes([b]) for b in word.encode()]


def test_bytes_shared_by_many_letters_are_named_by_their_script():
    words = [_bytes_of("नमस्ते"), _bytes_of("दुनिया")]
    assert labels_among([b"\xe0\xa4"], words) == ["⟨Devanagari 1–2/3⟩"]
    assert labels_among([b"\xe0", b"\xa4"], words) == ["⟨Devanagari 1/3⟩", "⟨Devanagari 2/3⟩"]


def test_bytes_always_in_one_character_are_named_after_it():
    words = [_bytes_of("你好"), _bytes_of("你们")]
    assert labels_among([b"\xe4\xbd"], words) == ["⟨你 1–2/3⟩"]  # e4 bd begins 你 only, here
    assert labels_among([b"\xe4", b"\xbd"], words) == ["⟨你 1/3⟩", "⟨你 2/3⟩"]
    assert labels_among(["你".encode()], words) == ["你"]  # whole characters need no context
    assert labels_among([b"\xe4\xbd"], []) == ["⟨CJK 1–2/3⟩"]  # seen nowhere: what its bytes can be


def test_bytes_inside_a_longer_symbol_are_not_an_occurrence():
    word = ["नम".encode()[:4], "नम".encode()[4:]]  # e0 a4 a8 e0 | a4 ae: e0 a4 of म is not a symbol pair here
    assert labels_among([b"\xe0\xa4"], [word, [b"\xe0\xa4", b"\xa8"]]) == ["⟨न 1–2/3⟩"]


@given(st.lists(st.text(alphabet="नमस्तेदुनियाहि ", min_size=1, max_size=8), min_size=1, max_size=6))
def test_a_name_after_one_character_is_true_of_every_occurrence(texts):
    words = [_bytes_of(text) for text in texts]
    for pair in {(w[i], w[i + 1]) for w in words for i in range(len(w) - 1)}:
        shown = labels_among(list(pair), words)
        occurrences = {
            tuple(glyphs.labels_in(list(w))[i : i + 2])
            for w in words
            for i in range(len(w) - 1)
            if (w[i], w[i + 1]) == pair
        }
        if len(occurrences) == 1:
            assert tuple(shown) == occurrences.pop()
        else:
            assert tuple(shown) == tuple(glyphs.labels_in(list(pair)))


def test_the_note_reads_the_first_name_shown_and_only_then():
    assert piece_note(["‘l’ + ‘o’", "‘␣’ + ‘t’"]) is None
    assert (
        piece_note(["‘␣’ + ‘⟨Devanagari 1/3⟩’"])
        == "⟨Devanagari 1/3⟩ is byte 1 of the 3 bytes of a Devanagari character."
    )
    assert piece_note(["⟨你 1–2/3⟩"]) == "⟨你 1–2/3⟩ is bytes 1 to 2 of the 3 bytes of 你."
    assert piece_note(["⟨emoji 1–3/4⟩"]) == "⟨emoji 1–3/4⟩ is bytes 1 to 3 of the 4 bytes of an emoji character."
    assert piece_note(["⟨ا\u200e 1/2⟩"]) == "⟨ا\u200e 1/2⟩ is byte 1 of the 2 bytes of ا."
