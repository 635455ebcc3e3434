"""New tokens only where asked: with ``scripts``, text with none of those scripts encodes exactly as
before (random text, code, data and the 20 other languages of the built-in samples), on bases of every
kind (BPE's rule, tiktoken's rule with late merges and whole-word tokens, a multi-stage pre-tokenizer);
without it, ``training["extension"]["other_text"]`` says how much other text changed."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.corpora.samples import load_samples, parallel_text
from bpe_core.training.scripts import ScriptRule, dominant_scripts

HINDI = parallel_text(split="train", languages=["hin"])["hin"]
DEVANAGARI = ScriptRule("Devanagari")


@functools.cache
def extended(name: str):
    """``name`` extended by up to 400 Devanagari tokens on the built-in Hindi text (pairs seen once too)."""
    base = bpe_core.load(name)
    return base, bpe_core.extend(base, HINDI, add=400, scripts="Devanagari", min_frequency=1)


BASES = ["gpt2", "llama3", "qwen", "deepseek"]  # BPE; tiktoken's rule with late merges; a pipeline; BPE from HF


@pytest.mark.parametrize("name", BASES)
def test_the_extension_adds_only_devanagari_tokens(name):
    base, ext = extended(name)
    new = [ext.vocab[i] for i in set(ext.vocab) - set(base.vocab)]
    assert len(new) >= 100
    assert all(DEVANAGARI.allows(token) for token in new)
    heldout = parallel_text(split="heldout", languages=["hin"])["hin"]
    assert sum(map(len, ext.encode_ordinary_batch(heldout))) < sum(map(len, base.encode_ordinary_batch(heldout)))


@pytest.mark.parametrize("name", BASES)
def test_every_other_built_in_sample_encodes_exactly_as_before(name):
    base, ext = extended(name)
    others = [sample for sample in load_samples() if not DEVANAGARI.in_text(sample.text)]
    assert {s.kind for s in others} == {"natural", "code", "data"} and len(others) == len(load_samples()) - 1
    assert len([s for s in others if s.kind == "natural"]) == 20
    for sample in others:
        assert ext.encode_ordinary(sample.text) == base.encode_ordinary(sample.text), sample.id
    record = ext.training["extension"]["other_text"]
    assert record["changed_samples"] == [] and record["pretokens_changed"] == 0 and record["samples"] == len(others)


#: Characters whose UTF-8 shares bytes with Devanagari's (E0 A4 xx, E0 A5 xx): the same continuation
#: bytes under other lead bytes (Limbu, arrows, CJK), and Bengali, which starts with E0 A6.
NEIGHBOURS = "".join(
    chr(0x0900 + offset + block) for block in (0x1000, 0x2000, 0x5000, 0xA000) for offset in (0x28, 0x2E, 0x3E, 0x4D)
)
NEIGHBOURS += "নমস্তে ⤨ ᤨ 中文 ﻿"


@pytest.mark.parametrize("name", BASES)
@given(
    text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=60) | st.text(NEIGHBOURS + " a1", max_size=40)
)
@settings(max_examples=150, deadline=None)
def test_random_text_without_devanagari_encodes_exactly_as_before(name, text):
    if DEVANAGARI.in_text(text):
        return
    base, ext = extended(name)
    assert ext.encode_ordinary(text) == base.encode_ordinary(text)


@pytest.mark.parametrize("name", ["gpt2", "llama3"])
def test_in_mixed_text_only_the_devanagari_pre_tokens_change(name):
    base, ext = extended(name)
    text = "The word नमस्ते means hello; print('नमस्ते दुनिया') # 42 ⤨"
    for piece in base.pretokenizer.pieces(text):
        if not DEVANAGARI.in_text(piece):
            assert ext.encode_ordinary(piece) == base.encode_ordinary(piece), piece
    assert len(ext.encode_ordinary(text)) <= len(base.encode_ordinary(text))  # Llama 3 has these words whole


def test_without_scripts_the_record_says_how_much_other_text_changed():
    gpt2 = bpe_core.load("gpt2")
    english = parallel_text(split="train", languages=["eng"])["eng"]
    corpus = HINDI * 4 + english[:12]  # Hindi, with a little English beside it
    assert dominant_scripts(Counter(corpus)) == ("Devanagari",)
    free = bpe_core.extend(gpt2, corpus, add=600, min_frequency=1)
    kept = bpe_core.extend(gpt2, corpus, add=600, min_frequency=1, scripts="Devanagari")
    changed = free.training["extension"]["other_text"]
    assert changed["scripts"] == ["Devanagari"] and changed["samples"] == len(load_samples()) - 1
    # Tokens straddling Devanagari characters (a vowel sign's last bytes and the next lead byte) are bytes
    # Bengali's characters hold too: without the option, the Bengali sample changed.
    assert changed["pretokens_changed"] > 0 and "ben" in changed["changed_samples"]
    assert changed["tokens_after"] != changed["tokens_before"]
    kept_record = kept.training["extension"]["other_text"]
    assert kept_record["pretokens_changed"] == 0 and kept_record["changed_samples"] == []
    assert kept_record["tokens_after"] == kept_record["tokens_before"] == changed["tokens_before"]


def test_the_script_rule_on_spaces_marks_and_byte_pieces():
    rule = ScriptRule(["Devanagari"])
    assert rule.allows(" नमस्ते".encode()) and rule.allows("नमस्ते।".encode()) and rule.allows("१२३".encode())
    assert rule.allows("क\u200dष".encode())  # a zero-width joiner (Inherited) inside a word
    assert not rule.allows(b"  ") and not rule.allows("।।".encode()) and not rule.allows(b"the")
    assert not rule.allows("न".encode()[:2]) and not rule.allows("न".encode()[1:])
    assert not rule.allows("नa".encode()) and not rule.allows("নম".encode())  # Latin, Bengali
    assert ScriptRule(["han", "Hiragana", "Han"]).scripts == ("han", "Hiragana")


INSTALLED = [status.name for status in bpe_core.available() if status.installed]


@pytest.mark.parametrize("name", INSTALLED)
def test_every_built_in_extends_keeping_its_ids_and_other_text(name):
    """Every installed built-in (each a byte-level BPE) extends: its ids, merges and special tokens
    kept, the new ids right after the highest in use, Hindi cheaper, English and code as before."""
    base = bpe_core.load(name)
    extended = bpe_core.extend(base, HINDI, add=40, scripts="Devanagari", min_frequency=1)
    assert all(extended.vocab[i] == token for i, token in base.vocab.items())
    assert extended.special_tokens == base.special_tokens
    assert extended.merges[: len(base.merges)] == base.merges
    first = max([*base.vocab, *base.special_tokens.values()]) + 1
    assert sorted(set(extended.vocab) - set(base.vocab)) == list(range(first, first + 40))
    heldout = parallel_text(split="heldout", languages=["hin"])["hin"]
    assert sum(map(len, extended.encode_ordinary_batch(heldout))) < sum(map(len, base.encode_ordinary_batch(heldout)))
    others = [sample.text for sample in load_samples() if sample.id in ("eng", "python", "zho", "ara")]
    assert len(others) == 4 and extended.encode_ordinary_batch(others) == base.encode_ordinary_batch(others)
