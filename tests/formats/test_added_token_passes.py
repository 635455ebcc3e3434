"""Added tokens of a tokenizer.json, normalized and not: HF tokenizers finds the normalized=false ones
first, then the normalized=true ones in the gaps; bpe_core finds the leftmost longest of all at once.
A file is imported exactly when the two cannot differ (hypothesis: random added tokens and flags,
ids held against tokenizers on random texts) and refused, naming the two tokens, when they can."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.formats.huggingface import from_huggingface_dict, to_huggingface_dict

tokenizers = pytest.importorskip("tokenizers")

# Added tokens of two characters or more from ALPHABET never have the bytes of a token of BASE (its
# merges join only "a", "b" and spaces), so each keeps an id of its own in the file's vocab.
ALPHABET = "<x>|"
BASE = bpe_core.train("ab ba aab abba", 262, min_frequency=1)


def _file(specials: dict[str, bool]) -> dict:
    """``BASE`` exported with ``specials`` as added tokens, each normalized or not as given."""
    ids = {token: 1000 + number for number, token in enumerate(specials)}
    tokenizer = bpe_core.Tokenizer(BASE.vocab, BASE.merges, special_tokens=ids, pattern=BASE.pattern)
    data = to_huggingface_dict(tokenizer)
    for entry in data["added_tokens"]:
        entry["normalized"] = specials[entry["content"]]
    return data


@given(
    specials=st.dictionaries(st.text(ALPHABET, min_size=2, max_size=4), st.booleans(), min_size=1, max_size=4),
    texts=st.lists(st.text(ALPHABET + " ab", max_size=16), min_size=1, max_size=8),
)
def test_imported_files_split_added_tokens_as_tokenizers_does(specials, texts):
    data = _file(specials)
    try:
        ours = from_huggingface_dict(data)
    except BpeError as refused:
        assert "HF matches the normalized=false tokens first" in str(refused)
        return
    theirs = tokenizers.Tokenizer.from_str(json.dumps(data))
    for text in [*texts, "".join(specials), " ".join(specials)]:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize(
    "normalized, raw, refused",
    [
        ("<x", "x>", True),  # the normalized token starts first and overlaps: HF takes x>, one pass <x
        ("<xx>", "xx", True),  # it holds the raw one
        ("x>", "<x", False),  # the raw token starts first: both take it
        ("xx", "<xx>", False),  # the raw token holds it: both take the raw one
        ("｜DSML｜", "<｜/table>｜", False),  # DeepSeek V4's pair
    ],
)
def test_only_pairs_the_two_rules_can_split_differently_are_refused(normalized, raw, refused):
    data = _file({normalized: True, raw: False})
    if refused:
        with pytest.raises(BpeError, match=f"added token {normalized!r} \\(normalized=true\\) can start before"):
            from_huggingface_dict(data)
    else:
        assert set(from_huggingface_dict(data).special_tokens) == {normalized, raw}
