"""Picky BPE tokenizers in files: bpe_core's JSON (version 3, with removed tokens and events) round
trips them with the same ids, older readers say to upgrade, bad event rows are named, and the
rank-based formats (Hugging Face tokenizer.json, GPT-2's files, .tiktoken) refuse them."""

from __future__ import annotations

import json

import pytest

from bpe_core import Tokenizer
from bpe_core.errors import BpeError
from bpe_core.formats import bpe_json, gpt2_files, huggingface, tiktoken_file
from bpe_core.training.picky import train_picky

HUG = " hug" * 20 + " chug" + " ug" * 3
TEXT = " hugug chug hhug ugh hug"


@pytest.fixture(scope="module")
def hug() -> Tokenizer:
    return train_picky([HUG], 270, threshold=0.9, min_frequency=1)


def test_json_round_trip(hug, tmp_path):
    document = json.loads(hug.to_json())
    assert document["version"] == 3 and document["rule"] == "picky" and document["merges"] == []
    assert [entry["text"] for entry in document["removed_tokens"]] == ["ug", "hug", "chug"]
    assert min(entry["id"] for entry in document["removed_tokens"]) == max(hug.vocab) + 1
    ug, hug_id = (entry["id"] for entry in document["removed_tokens"][:2])
    assert document["events"][3] == ["remove", hug_id, [ord("h"), ug]]
    hug.save(tmp_path / "picky.json")
    loaded = Tokenizer.from_json((tmp_path / "picky.json").read_text(encoding="utf-8"))
    assert loaded.rule == "picky" and loaded.picky_events == hug.picky_events
    assert loaded.encode(TEXT) == hug.encode(TEXT) and dict(loaded.vocab) == dict(hug.vocab)
    assert loaded.training["picky"] == hug.training["picky"]


def test_older_readers_are_told_to_upgrade(hug, monkeypatch):
    monkeypatch.setattr(bpe_json, "VERSION", 2)
    with pytest.raises(BpeError, match="version 3 was written by a newer bpe_core; upgrade"):
        Tokenizer.from_json(hug.to_json())


def test_plain_tokenizers_keep_their_versions():
    plain = train_picky([HUG], 260, threshold=1.0, min_frequency=1)
    assert json.loads(plain.to_json())["version"] == 1


def edited(hug: Tokenizer, change) -> str:
    document = json.loads(hug.to_json())
    change(document)
    return json.dumps(document)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["events"].__setitem__(0, ["merge", 117, 103]), "event 0: a merge is"),
        (lambda d: d["events"].__setitem__(0, ["merge", 117, 104, d["removed_tokens"][0]["id"]]), "event 0: the parts"),
        (lambda d: d["events"].__setitem__(0, ["merge", 117, 99999, 103]), "event 0: id 99999"),
        (lambda d: d["events"].__setitem__(3, ["remove", 256, 3]), "event 3: a removal"),
        (lambda d: d["events"].__setitem__(1, ["split", 1, [2]]), "event 1 must be"),
        (lambda d: d["removed_tokens"].append({"id": 100, "text": "x"}), "the id of a vocab entry"),
        (lambda d: d["removed_tokens"].append({"id": 9999, "text": "a"}), "also in the vocab"),
        (lambda d: d.__setitem__("version", 2), "is version 3"),
        (lambda d: d.__setitem__("event_fields", ["kind"]), "event_fields"),
        (lambda d: d.pop("events"), "'events' list"),
        (lambda d: d["events"].pop(1), "event 1"),  # the next merge then uses a token not made yet
    ],
)
def test_bad_event_files_are_named(hug, change, message):
    with pytest.raises(BpeError, match=message):
        Tokenizer.from_json(edited(hug, change), source="picky.json")


def test_rank_based_formats_refuse_it(hug, tmp_path):
    writers = (
        lambda: huggingface.to_huggingface_dict(hug),
        lambda: huggingface.save_huggingface(hug, tmp_path / "t.json"),
        lambda: gpt2_files.save_gpt2_files(hug, tmp_path / "gpt2"),
        lambda: tiktoken_file.dumps_tiktoken(hug),
        lambda: tiktoken_file.save_tiktoken(hug, tmp_path / "t.tiktoken"),
    )
    for write in writers:
        with pytest.raises(BpeError, match="Picky BPE removes tokens.*Save it with Tokenizer.save"):
            write()
    assert not any(tmp_path.iterdir())  # nothing half-written
