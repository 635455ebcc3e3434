"""An extended tokenizer taken to the model: its ``tokenizer.json`` gives the same ids in HF
``tokenizers`` (tiktoken's rule written as late merges and ``ignore_merges``, read back on that rule),
a base read from a ``tokenizer.json`` keeps that file's own parts with the new tokens added, the
``.tiktoken`` ranks give the same ids in tiktoken, and bpe_core's JSON keeps everything."""

from __future__ import annotations

import functools
import json

import pytest
import tiktoken
from tokenizers import Tokenizer as HFTokenizer

import bpe_core
from bpe_core import BpeError, Tokenizer
from bpe_core.corpora.samples import load_samples, parallel_text
from bpe_core.formats.huggingface import from_huggingface_dict, to_huggingface_dict
from bpe_core.formats.huggingface_extension import extended_tokenizer_json
from bpe_core.formats.tiktoken_file import dumps_tiktoken, parse_tiktoken_ranks
from bpe_core.pretrained.catalogue import builtin_file

HINDI = parallel_text(split="train", languages=["hin"])["hin"]
TEXTS = [s.text for s in load_samples()] + parallel_text(split="heldout", languages=["hin"])["hin"]


@functools.cache
def extended(name: str) -> tuple[Tokenizer, Tokenizer]:
    base = bpe_core.load(name)
    return base, bpe_core.extend(base, HINDI, add=300, scripts="Devanagari", min_frequency=1)


def hf_ids(data: dict, texts: list[str], *, specials: bool = False) -> list[list[int]]:
    hf = HFTokenizer.from_str(json.dumps(data))
    return [encoding.ids for encoding in hf.encode_batch(texts, add_special_tokens=specials)]


@pytest.mark.parametrize("name", ["gpt2", "llama3", "qwen", "deepseek"])
def test_the_tokenizer_json_gives_the_same_ids_in_hf_tokenizers(name):
    base, ext = extended(name)
    texts = TEXTS + [base.decode([i]) for i in base.whole_word_tokens[:300]]
    data = to_huggingface_dict(ext)
    assert hf_ids(data, texts) == ext.encode_ordinary_batch(texts)
    back = from_huggingface_dict(json.loads(json.dumps(data)), name="back")
    assert back.rule == ext.rule and dict(back.vocab) == dict(ext.vocab)
    assert back.encode_ordinary_batch(texts) == ext.encode_ordinary_batch(texts)


@pytest.mark.parametrize("name", ["llama3", "qwen3.5"])
def test_tiktokens_rule_bases_themselves_now_export_exactly(name):
    base = bpe_core.load(name)
    texts = TEXTS + [base.decode([i]) for i in base.whole_word_tokens]
    data = to_huggingface_dict(base)
    assert data["model"]["ignore_merges"] is True
    assert hf_ids(data, texts) == base.encode_ordinary_batch(texts)
    assert from_huggingface_dict(data).whole_word_tokens == base.whole_word_tokens


def test_a_base_read_from_a_tokenizer_json_keeps_its_own_file():
    base, ext = extended("deepseek")
    original = json.loads(builtin_file("deepseek"))
    data = extended_tokenizer_json(original, base, ext)
    for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder", "added_tokens"):
        assert data[part] == original[part], part
    assert {k: v for k, v in data["model"].items() if k not in ("vocab", "merges")} == {
        k: v for k, v in original["model"].items() if k not in ("vocab", "merges")
    }
    assert data["model"]["merges"][: len(original["model"]["merges"])] == original["model"]["merges"]
    assert len(data["model"]["vocab"]) == len(original["model"]["vocab"]) + 300
    assert hf_ids(data, TEXTS) == ext.encode_ordinary_batch(TEXTS)
    # The post-processor still adds the beginning-of-sentence token as the model's own file does.
    # The file's own post-processor runs as before: on text of other scripts the ids are the original's.
    english = [s.text for s in load_samples() if s.id in ("eng", "python", "zho")]
    assert hf_ids(data, english, specials=True) == hf_ids(original, english, specials=True)
    assert original["model"]["merges"] != data["model"]["merges"]  # the original was not changed in place


def test_the_file_must_be_the_bases_own():
    base, ext = extended("deepseek")
    with pytest.raises(BpeError, match="give the file"):
        extended_tokenizer_json(to_huggingface_dict(bpe_core.load("gpt2")), base, ext)
    with pytest.raises(BpeError, match="no 'vocab'"):
        extended_tokenizer_json({"model": {}}, base, ext)
    llama, llama_ext = extended("llama3")
    with pytest.raises(BpeError, match="tiktoken's rule"):
        extended_tokenizer_json(to_huggingface_dict(llama), llama, llama_ext)


@pytest.mark.parametrize("name", ["gpt2", "llama3", "cl100k"])
def test_the_tiktoken_ranks_give_the_same_ids_in_tiktoken(name):
    base, ext = extended(name)
    ranks = parse_tiktoken_ranks(dumps_tiktoken(ext))
    assert all(ranks[token] == i for i, token in base.vocab.items() if i not in base.special_tokens.values())
    encoding = tiktoken.Encoding(
        "extended", pat_str=ext.pretokenizer.full_source, mergeable_ranks=ranks, special_tokens=ext.special_tokens
    )
    assert encoding.encode_ordinary_batch(TEXTS) == ext.encode_ordinary_batch(TEXTS)


def test_a_pipeline_cannot_be_a_tiktoken_file_and_says_why():
    _, ext = extended("qwen")
    with pytest.raises(BpeError, match="one regex cannot express"):
        dumps_tiktoken(ext)


@pytest.mark.parametrize("name", ["gpt2", "llama3"])
def test_bpe_cores_json_keeps_the_extension(name):
    _, ext = extended(name)
    back = Tokenizer.from_json(ext.to_json())
    assert back.rule == ext.rule and dict(back.vocab) == dict(ext.vocab) and back.merges == ext.merges
    assert back.training["extension"] == ext.training["extension"]
    assert back.encode_ordinary_batch(TEXTS) == ext.encode_ordinary_batch(TEXTS)
