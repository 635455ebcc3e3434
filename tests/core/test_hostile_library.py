"""Hostile names and files for the library, loading and the CLI (issue #15): each is a ValueError
saying what is wrong (or, in a listing, an entry with that error), never a traceback; files saved
before stay readable."""

from __future__ import annotations

import json
import math

import pytest

import bpe_core
from bpe_core.formats import bpe_json
from bpe_core.cli import main as cli
from bpe_core.formats import detect, gpt2_files, huggingface
from bpe_core import safe_io
from bpe_core.corpora.documents import DocumentReader
from bpe_core.workspace import MAX_NAME_BYTES, Workspace, sanitize_name

TEXT = "low low low low low lower newer newer newer newer wider " * 20
FOUR_BYTES = "\U00020000"  # a CJK letter (a word character) that takes four bytes in UTF-8


@pytest.fixture(scope="module")
def tokenizer():
    return bpe_core.train(TEXT, 270, min_frequency=1, special_tokens=["<|end|>"])


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


def _document(tokenizer) -> dict:
    return json.loads(tokenizer.to_json())


def _loads(document: dict) -> bpe_core.Tokenizer:
    return bpe_core.Tokenizer.from_json(json.dumps(document), source="hostile.json")


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# -------------------------------------------------------------------------------------------------
# names: limited by bytes, since file systems are


@pytest.mark.parametrize("count", [30, 63, 64, 80, 200])
def test_names_of_four_byte_characters_are_cut_by_bytes(ws, tokenizer, count):
    name = FOUR_BYTES * count
    clean = sanitize_name(name)
    assert len(clean.encode("utf-8")) <= MAX_NAME_BYTES and clean == FOUR_BYTES * min(count, MAX_NAME_BYTES // 4)
    assert ws.save(tokenizer, name).name == clean
    assert ws.rename(clean, "x" + name).name == sanitize_name("x" + name)
    assert ws.save_as_new(tokenizer, name).name == clean
    again = ws.save_as_new(tokenizer, name).name  # the number fits in the limit too
    assert again.endswith(" 2") and len(again.encode("utf-8")) <= MAX_NAME_BYTES
    assert sorted(ws.names()) == sorted([sanitize_name("x" + name), clean, again])
    assert all(entry.ok for entry, _ in ws.scan())


def test_multibyte_names_are_cut_between_characters():
    assert sanitize_name("é" * 100) == "é" * 60  # 120 bytes
    assert sanitize_name("a" + "中" * 100) == "a" + "中" * 39  # 118 bytes: a fortieth would not fit
    assert sanitize_name("x" * 500) == "x" * 80  # ASCII stays limited by characters


def test_names_too_long_for_the_file_system_are_missing_not_oserrors(ws, tokenizer):
    ws.save(tokenizer, "real")
    absurd = "\U0001d400" * 300  # mathematical bold A: a letter, four bytes, 1,200 bytes in all
    assert not ws.exists(absurd)
    for call in (lambda: ws.load(absurd), lambda: ws.delete(absurd), lambda: ws.rename(absurd, "y")):
        with pytest.raises(ValueError, match="no tokenizer named"):
            call()
    assert ws.names() == ["real"]


def test_files_saved_under_longer_names_before_the_byte_limit_still_work(ws, tokenizer):
    """Earlier versions limited names to 80 characters only: 80 three-byte characters (240 bytes)
    fit on most file systems, and such files must stay usable by their exact name."""
    legacy = "中" * 80
    ws.folder.mkdir(parents=True)
    tokenizer.save(ws.folder / f"{legacy}.json")
    assert ws.names() == [legacy]
    assert ws.exists(legacy)
    assert ws.load(legacy).name == legacy
    renamed = ws.rename(legacy, legacy)  # to the new limit
    assert renamed.name == sanitize_name(legacy) == "中" * 40
    ws.save(tokenizer, "another")
    tokenizer.save(ws.folder / f"{legacy}.json")
    ws.delete(legacy)
    assert sorted(ws.names()) == sorted(["another", "中" * 40])


# -------------------------------------------------------------------------------------------------
# deep nesting: a ValueError wherever users' JSON is read


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_deeply_nested_json_is_a_value_error(depth):
    with pytest.raises(ValueError, match="nested too deeply"):
        safe_io.json_value(_nested(depth))
    with pytest.raises(ValueError, match="hostile.json is nested too deeply"):
        bpe_json.parse_json(_nested(depth), source="hostile.json")


def test_a_deeply_nested_tokenizer_file_is_listed_with_its_error(ws, tokenizer, tmp_path, capsys):
    ws.save(tokenizer, "good")
    text = '{"format": "bpe_core.tokenizer", "version": 1, "training": ' + _nested(5_000) + "}"
    (ws.folder / "deep.json").write_text(text, encoding="utf-8")
    scanned = {entry.name: (entry, tok) for entry, tok in ws.scan()}
    assert scanned["good"][1] is not None
    assert scanned["deep"][1] is None and "nested too deeply" in scanned["deep"][0].error
    with pytest.raises(ValueError, match="nested too deeply"):
        ws.load("deep")
    for load in (bpe_core.load, detect.load_any):
        with pytest.raises(ValueError, match="nested too deeply"):
            load(ws.folder / "deep.json")
    assert ws.rename("deep", "still deep").name == "still deep"  # kept as it is, like any corrupt file
    assert (ws.folder / "still deep.json").read_text(encoding="utf-8") == text
    capsys.readouterr()
    assert cli.main(["inspect", str(ws.folder / "still deep.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nested too deeply" in err and "Traceback" not in err


def test_a_deeply_nested_jsonl_line_is_skipped_with_a_warning(tmp_path, capsys):
    # the reader train_files, the CLI and the app's uploads (read_corpus_file) all use
    lines = ['{"text": "first"}', '{"text": ' + _nested(100_000) + "}", '{"text": "third"}']
    (tmp_path / "c.jsonl").write_text("\n".join(lines), encoding="utf-8")
    reader = DocumentReader([tmp_path / "c.jsonl"])
    assert ["".join(document) for document in reader.documents()] == ["first", "third"]
    assert reader.bad_rows.count == 1
    assert [(e["row"], e["reason"]) for e in reader.bad_rows.examples] == [
        (2, "nested too deeply: arrays or objects hundreds of levels deep (a real file nests a few levels)")]
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
        "vocab id 10**30", "vocab id 2**32", "vocab id -1", "special id 10**30", "count 10**30", "count -5",
        "version -1", "version 0", "version as text", "settings 5", "settings nested", "corpus text",
        "corpus negative", "corpus 2**64", "tokens_after_merge text", "tokens_after_merge float",
        "merges_learned -3", "seconds NaN", "seconds text", "stop_reason 5", "unknown key deep", "training list",
    ],  # fmt: skip
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


def test_a_saved_library_file_round_trips_with_its_metadata(ws, tokenizer, capsys):
    entry = ws.save(tokenizer, "kept")
    loaded = ws.load("kept")
    assert loaded.training == tokenizer.training
    assert loaded.special_tokens == tokenizer.special_tokens
    capsys.readouterr()
    assert cli.main(["inspect", str(entry.path)]) == 0
    out = capsys.readouterr().out
    assert "trained with: vocab_size=270" in out and "stopped:" in out


def test_a_name_holding_a_lone_surrogate_is_a_value_error_leaving_nothing(tokenizer, tmp_path):
    odd = tokenizer.truncated(2)
    odd.name = "bad \ud800 name"
    with pytest.raises(ValueError, match="lone surrogate"):
        odd.save(tmp_path / "odd.json")
    assert list(tmp_path.iterdir()) == []
    assert Workspace(tmp_path / "ws").save(odd, "bad \ud800 name").name == "bad _ name"  # sanitized


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
    from bpe_core.pretokenization import custom_patterns
    from bpe_core.pretokenization import stages
    from bpe_core.pretokenization.stages import Pipeline, Split

    given: list[float] = []
    real = stages._compiled

    class Recorder:
        def __init__(self, compiled):
            self.compiled, self.pattern, self.flags, self.groups = compiled, compiled.pattern, compiled.flags, compiled.groups

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
