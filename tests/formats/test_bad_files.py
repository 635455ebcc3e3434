"""Hostile files for loading and the CLI: each is a ValueError saying what is wrong, never a traceback;
files saved before stay readable. (Hostile names and files in the app's tokenizer library folder are
tests/workspace/test_library_folder_hostile.py's.)"""

from __future__ import annotations

import json
import math

import pytest

import bpe_core
from bpe_core import safe_io
from bpe_core.cli import main as cli
from bpe_core.corpora.documents import DocumentReader
from bpe_core.formats import bpe_json, detect, gpt2_files, huggingface

TEXT = "low low low low low lower newer newer newer newer wider " * 20


@pytest.fixture(scope="module")
def tokenizer():
    return bpe_core.train(TEXT, 270, min_frequency=1, special_tokens=["<|end|>"])


def _document(tokenizer) -> dict:
    return json.loads(tokenizer.to_json())


def _loads(document: dict) -> bpe_core.Tokenizer:
    return bpe_core.Tokenizer.from_json(json.dumps(document), source="hostile.json")


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# -------------------------------------------------------------------------------------------------
# deep nesting: a ValueError wherever users' JSON is read


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_deeply_nested_json_is_a_value_error(depth):
    with pytest.raises(ValueError, match="nested too deeply"):
        safe_io.json_value(_nested(depth))
    with pytest.raises(ValueError, match="hostile.json is nested too deeply"):
        bpe_json.parse_json(_nested(depth), source="hostile.json")


def test_a_deeply_nested_jsonl_line_is_skipped_with_a_warning(tmp_path, capsys):
    # the reader train_files, the CLI and corpus_bytes.read_corpus_bytes (the app's uploads) all use
    lines = ['{"text": "first"}', '{"text": ' + _nested(100_000) + "}", '{"text": "third"}']
    (tmp_path / "c.jsonl").write_text("\n".join(lines), encoding="utf-8")
    reader = DocumentReader([tmp_path / "c.jsonl"])
    assert ["".join(document) for document in reader.documents()] == ["first", "third"]
    assert reader.bad_rows.count == 1
    assert [(e["row"], e["reason"]) for e in reader.bad_rows.examples] == [
        (2, "nested too deeply: arrays or objects hundreds of levels deep (a real file nests a few levels)")
    ]
    only = tmp_path / "only.jsonl"
    only.write_text('{"text": ' + _nested(100_000) + "}", encoding="utf-8")
    with pytest.raises(ValueError, match="only.jsonl has no row with text.*nested too deeply"):
        list(DocumentReader([only]).documents())
    capsys.readouterr()
    assert cli.main(["train", str(only), "--vocab-size", "300", "-o", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nested too deeply" in err and "Traceback" not in err


def test_deeply_nested_files_of_other_tools_are_value_errors(tmp_path):
    deep = tmp_path / "tokenizer.json"
    deep.write_text('{"model": ' + _nested(5_000) + "}", encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="nested too deeply"):
        huggingface.load_huggingface(deep)
    with pytest.raises(ValueError, match="nested too deeply"):
        detect.loads_any(deep.read_bytes(), source="upload.json")
    with pytest.raises(ValueError, match="nested too deeply"):
        gpt2_files.load_gpt2_files(deep, tmp_path / "merges.txt")


# -------------------------------------------------------------------------------------------------
# ids, counts, version and training metadata: bounded and typed by the format


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["vocab"].append({"id": 10**30, "text": "huge"}), "'id' must be a whole number below"),
        (lambda d: d["vocab"].append({"id": 2**32, "text": "huge"}), "'id' must be a whole number below"),
        (lambda d: d["vocab"].append({"id": -1, "text": "neg"}), "'id' must be a whole number below"),
        (lambda d: d["special_tokens"].update({"<|end|>": 10**30}), "the id must be a whole number below"),
        (lambda d: d["merges"][0].__setitem__(3, 10**30), "count must be null or an integer"),
        (lambda d: d["merges"][0].__setitem__(3, -5), "count must be null or an integer"),
        (lambda d: d.update(version=-1), "'version' must be a whole number from 1"),
        (lambda d: d.update(version=0), "'version' must be a whole number from 1"),
        (lambda d: d.update(version="1"), "'version' must be a whole number from 1"),
        (lambda d: d["training"].update(settings=5), "'training.settings' must be an object"),
        (lambda d: d["training"].update(settings={"pattern": {"deep": {}}}), "'training.settings' must be"),
        (lambda d: d["training"].update(corpus="big"), "'training.corpus' must be an object of non-negative"),
        (lambda d: d["training"]["corpus"].update(characters=-1), "'training.corpus' must be"),
        (lambda d: d["training"]["corpus"].update(bytes=2**64), "'training.corpus' must be"),
        (lambda d: d["training"].update(tokens_after_merge="abc"), "'training.tokens_after_merge' must be a list"),
        (lambda d: d["training"].update(tokens_after_merge=[1, 2.5]), "'training.tokens_after_merge' must be"),
        (lambda d: d["training"].update(merges_learned=-3), "'training.merges_learned' must be"),
        (lambda d: d["training"].update(seconds=math.nan), "'training.seconds' must be a non-negative number"),
        (lambda d: d["training"].update(seconds="fast"), "'training.seconds' must be"),
        (lambda d: d["training"].update(stop_reason=5), "'training.stop_reason' must be a string"),
        (lambda d: d["training"].update(notes=[[[[["deep"]]]]]), "'training.notes' must be plain JSON"),
        (lambda d: d.update(training=[1, 2]), "'training' must be an object or null"),
    ],
    ids=[
        "vocab id 10**30",
        "vocab id 2**32",
        "vocab id -1",
        "special id 10**30",
        "count 10**30",
        "count -5",
        "version -1",
        "version 0",
        "version as text",
        "settings 5",
        "settings nested",
        "corpus text",
        "corpus negative",
        "corpus 2**64",
        "tokens_after_merge text",
        "tokens_after_merge float",
        "merges_learned -3",
        "seconds NaN",
        "seconds text",
        "stop_reason 5",
        "unknown key deep",
        "training list",
    ],
)
def test_out_of_range_or_mistyped_fields_are_value_errors(tokenizer, edit, words):
    document = _document(tokenizer)
    edit(document)
    with pytest.raises(ValueError, match="hostile.json is not a valid bpe_core tokenizer") as caught:
        _loads(document)
    assert words in str(caught.value)


def test_what_the_format_allows_still_loads(tokenizer):
    document = _document(tokenizer)
    document["vocab"].append({"id": 2**32 - 1, "hex": "ff00ff"})  # sparse, at tiktoken's limit
    document["training"]["notes"] = {"by": "a script", "tags": ["x", 1, None]}  # unknown but plain
    document["training"]["seconds"] = 3  # an integer is a number
    loaded = _loads(document)
    assert loaded.max_token_value == 2**32 - 1
    assert loaded.training["notes"] == {"by": "a script", "tags": ["x", 1, None]}
    bare = _document(tokenizer)
    del bare["merge_fields"], bare["training"]  # written by hand or by an older bpe_core
    assert _loads(bare).training == {}
    bare["training"] = {}
    assert _loads(bare).merges == tokenizer.merges


def test_a_name_holding_a_lone_surrogate_is_a_value_error_leaving_nothing(tokenizer, tmp_path):
    odd = tokenizer.truncated(2)
    odd.name = "bad \ud800 name"
    with pytest.raises(ValueError, match="lone surrogate"):
        odd.save(tmp_path / "odd.json")
    assert list(tmp_path.iterdir()) == []


def test_a_catastrophic_split_regex_is_a_value_error_naming_it(monkeypatch):
    from bpe_core.pretokenization import custom_patterns
    from bpe_core.pretokenization.stages import Pipeline, Split

    monkeypatch.setattr(custom_patterns, "BASE_SECONDS", 0.2)
    pipeline = Pipeline([Split(r"(a|a)+b")])
    with pytest.raises(ValueError, match=r"Split regex '\(a\|a\)\+b' took more than 0\.2\d* s .*catastrophic"):
        pipeline.pieces("a" * 40)


def test_a_split_regex_gets_more_time_on_a_longer_text(monkeypatch):
    """The limit each regex call gets grows with the text (as custom patterns' budget does), so a long
    legitimate text is not taken for backtracking on a busy machine."""
    from bpe_core.pretokenization import custom_patterns, stages
    from bpe_core.pretokenization.stages import Pipeline, Split

    given: list[float] = []
    real = stages._compiled

    class Recorder:
        def __init__(self, compiled):
            self.compiled, self.pattern = compiled, compiled.pattern
            self.flags, self.groups = compiled.flags, compiled.groups

        def findall(self, text, timeout):
            given.append(timeout)
            return self.compiled.findall(text, timeout=timeout)

        def finditer(self, text, timeout):
            given.append(timeout)
            return self.compiled.finditer(text, timeout=timeout)

    monkeypatch.setattr(stages, "_compiled", lambda rule: Recorder(real(rule)))
    stages._splitter.cache_clear()
    try:
        text = "ab " * 500_000
        for behavior in ("isolated", "merged_with_next"):
            given.clear()
            Pipeline([Split(r"\s+|[^\s]+", behavior=behavior)]).pieces(text)
            expected = custom_patterns.BASE_SECONDS + custom_patterns.SECONDS_PER_MB * len(text) / 1_000_000
            assert given and all(abs(limit - expected) < 1e-9 for limit in given), (behavior, given)
    finally:
        stages._splitter.cache_clear()


def test_save_with_overwrite_false_leaves_an_existing_file_alone(tokenizer, tmp_path):
    target = tmp_path / "tok.json"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        tokenizer.save(target, overwrite=False)
    assert target.read_text(encoding="utf-8") == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["tok.json"]  # no temporary file left
    tokenizer.save(target)  # the default replaces it
    assert bpe_core.load(target).merges == tokenizer.merges
    fresh = tmp_path / "new.json"
    tokenizer.save(fresh, overwrite=False)
    assert bpe_core.load(fresh).merges == tokenizer.merges
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        tokenizer.save(tmp_path / "x.json", overwrite="no")
