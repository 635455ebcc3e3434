"""The built-in parallel text (samples/parallel/): its manifest, its files (120 aligned sentences in
every language, each in its own script), its splits, and the readers of a user's parallel files."""

import json
import unicodedata

import pytest

from bpe_core.corpora import samples
from bpe_core.corpora.samples import parallel_languages, parallel_text, parse_parallel_texts, read_parallel_files

PARALLEL_DIR = samples.SAMPLES_DIR / "parallel"
MANIFEST = json.loads((PARALLEL_DIR / "manifest.json").read_text(encoding="utf-8"))
NATURAL = [
    e
    for e in json.loads((PARALLEL_DIR.parent / "manifest.json").read_text(encoding="utf-8"))["samples"]
    if e["kind"] == "natural"
]
SCRIPTS = {e["id"]: e["script"] for e in NATURAL}
LANGUAGES = MANIFEST["languages"]
# Prefixes of the Unicode character names of each script's letters.
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
# Scripts that write a sentence in far fewer characters than alphabets do.
DENSE_SCRIPTS = {"Han", "Japanese", "Hangul", "Ethiopic"}
QUESTION_MARKS = ("?", ";", "؟", "፧", "？")  # Latin and most others, Greek, Arabic, Ethiopic, full width


def lines_of(language):
    return (PARALLEL_DIR / f"{language}.txt").read_bytes().decode("utf-8").split("\n")[:-1]


def has_digit(text):
    return any(unicodedata.category(ch) == "Nd" for ch in text)


# --------------------------------------------------------------------------------------------------
# manifest


def test_manifest_lists_the_natural_languages_and_two_splits_that_cover_every_line():
    assert LANGUAGES == [e["id"] for e in NATURAL] == parallel_languages()
    assert len(LANGUAGES) == 21
    assert MANIFEST["sentences"] == 120
    assert MANIFEST["splits"] == {"train": [1, 90], "heldout": [91, 120]}
    assert MANIFEST["description"]


def test_every_file_in_the_folder_is_listed():
    on_disk = {p.name for p in PARALLEL_DIR.iterdir()}
    assert on_disk == {f"{language}.txt" for language in LANGUAGES} | {"manifest.json"}


# --------------------------------------------------------------------------------------------------
# files


@pytest.mark.parametrize("language", LANGUAGES)
def test_file_is_clean_utf8_with_120_sentences(language):
    data = (PARALLEL_DIR / f"{language}.txt").read_bytes()
    text = data.decode("utf-8")  # strict
    assert not data.startswith(b"\xef\xbb\xbf")
    assert "\r" not in text and "\t" not in text
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert unicodedata.is_normalized("NFC", text)
    lines = lines_of(language)
    assert len(lines) == 120
    for number, line in enumerate(lines, 1):
        assert line.strip() and line == line.strip(), (language, number)
    assert len(set(lines)) == 120, "no sentence twice"


@pytest.mark.parametrize("language", LANGUAGES)
def test_file_is_written_in_its_script(language):
    """A file saved under the wrong name (Russian as Greek, Hindi as Bengali) fails here."""
    letters = [ch for ch in "".join(lines_of(language)) if unicodedata.category(ch)[0] in "LM"]
    prefixes = SCRIPT_NAMES[SCRIPTS[language]]
    in_script = sum(unicodedata.name(ch, "").startswith(prefixes) for ch in letters)
    assert in_script / len(letters) > 0.9, language


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "eng"])
def test_translation_is_aligned_line_by_line_with_english(language):
    """Line N is the translation of English line N: comparable length, numbers where the English
    has numbers, questions where the English asks one. A dropped or doubled line shifts the rest."""
    english, lines = lines_of("eng"), lines_of(language)
    low = 0.15 if SCRIPTS[language] in DENSE_SCRIPTS else 0.4
    for number, (line, source) in enumerate(zip(lines, english, strict=True), 1):
        assert low <= len(line) / len(source) <= 3.0, (language, number, line)
    # a few numbers may be written in words; a shift would lose many
    missing = [
        n
        for n, (line, source) in enumerate(zip(lines, english, strict=True), 1)
        if has_digit(source) and not has_digit(line)
    ]
    assert len(missing) <= 3, (language, missing)
    if any(mark in line for line in lines for mark in QUESTION_MARKS):
        unasked = [
            n
            for n, (line, source) in enumerate(zip(lines, english, strict=True), 1)
            if "?" in source and not any(mark in line for mark in QUESTION_MARKS)
        ]
        assert not unasked, (language, unasked)


# --------------------------------------------------------------------------------------------------
# parallel_text


def test_splits_have_90_and_30_sentences_and_together_make_all():
    everything = parallel_text(split="all")
    train, heldout = parallel_text(split="train"), parallel_text(split="heldout")
    assert list(everything) == list(train) == list(heldout) == LANGUAGES
    for language in LANGUAGES:
        assert len(train[language]) == 90 and len(heldout[language]) == 30
        assert train[language] + heldout[language] == everything[language] == lines_of(language)
    assert parallel_text() == train  # the default is the training split
    assert heldout["eng"][0] == "The hostel near the old town has rooms for 4 or 6 people."


def test_languages_are_chosen_in_the_order_given_and_lists_are_fresh():
    text = parallel_text(split="heldout", languages=["rus", "eng"])
    assert list(text) == ["rus", "eng"]
    text["eng"].clear()
    assert len(parallel_text(split="heldout", languages=["eng"])["eng"]) == 30


def test_parallel_text_refuses_unknown_splits_and_languages():
    with pytest.raises(ValueError, match=r"unknown split 'test': choose one of train, heldout, all"):
        parallel_text(split="test")
    with pytest.raises(ValueError, match=r"no built-in parallel text for \['xx'\].*eng, deu"):
        parallel_text(languages=["eng", "xx"])
    with pytest.raises(TypeError, match=r"list of ids such as \['eng'\]"):
        parallel_text(languages="eng")
    with pytest.raises(TypeError):
        parallel_text("train")  # keyword-only


# --------------------------------------------------------------------------------------------------
# a user's files


def write(folder, name, data):
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_read_parallel_files_names_files_by_stem_and_reads_the_built_in_text_back():
    paths = [PARALLEL_DIR / f"{language}.txt" for language in LANGUAGES]
    assert read_parallel_files(paths) == parallel_text(split="all")
    by_name = read_parallel_files({"English": paths[0], "German": str(paths[1])})
    assert list(by_name) == ["English", "German"] and len(by_name["German"]) == 120


def test_line_endings_byte_order_mark_and_trailing_blank_lines_are_tolerated(tmp_path):
    a = write(tmp_path, "a.txt", b"\xef\xbb\xbfOne.\r\nTwo.\r\n\r\n\n")
    b = write(tmp_path, "b.txt", "Eins.\nZwei.")  # no final newline
    assert read_parallel_files([a, b]) == {"a": ["One.", "Two."], "b": ["Eins.", "Zwei."]}
    # sentences are kept as written: inner spaces, other line separators, no normalization
    c = write(tmp_path, "c.txt", " indented\u2028same line \ne\u0301\n")
    assert read_parallel_files([c])["c"] == [" indented\u2028same line ", "e\u0301"]


def test_different_line_counts_name_every_file_and_its_count(tmp_path):
    eng = write(tmp_path, "eng.txt", "One.\nTwo.\nThree.\n")
    deu = write(tmp_path, "deu.txt", "Eins.\nZwei.\n")
    fra = write(tmp_path, "fra.txt", "Un.\nDeux.\nTrois.\n")
    with pytest.raises(ValueError, match="same number of lines") as caught:
        read_parallel_files([eng, deu, fra])
    message = str(caught.value)
    assert f"{eng}: 3 lines" in message and f"{deu}: 2 lines" in message and f"{fra}: 3 lines" in message


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"", r"empty: write one sentence per line"),
        (b"\n \n\t\n", r"empty: write one sentence per line"),
        (b"\xef\xbb\xbf", r"empty"),
        (b"One.\n\nTwo.\n", r"line 2 is blank; write one sentence on every line"),
        (b"One.\nTwo \xe9t\xe9.\n", r"is not UTF-8 text \(byte 9, line 2\): save it as UTF-8"),
        (b"\xff\xfeO\x00n\x00e\x00", r"is not UTF-8 text \(byte 0, line 1\)"),  # UTF-16
    ],
)
def test_bad_files_are_refused_by_name(tmp_path, data, expected):
    good = write(tmp_path, "good.txt", "One.\nTwo.\n")
    bad = write(tmp_path, "bad.txt", data)
    with pytest.raises(ValueError, match=expected) as caught:
        read_parallel_files([good, bad])
    assert str(bad) in str(caught.value)


def test_missing_files_folders_and_no_files_are_refused(tmp_path):
    good = write(tmp_path, "good.txt", "One.\n")
    with pytest.raises(ValueError, match=r"cannot read .*missing\.txt: No such file"):
        read_parallel_files([good, tmp_path / "missing.txt"])
    with pytest.raises(ValueError, match=r"cannot read"):
        read_parallel_files({"folder": tmp_path})
    with pytest.raises(ValueError, match="no files given: pass one file per language"):
        read_parallel_files([])


def test_files_argument_must_be_paths_or_a_mapping(tmp_path):
    first = write(tmp_path / "", "hin.txt", "One.\n")
    (tmp_path / "other").mkdir()
    second = write(tmp_path / "other", "hin.txt", "One.\n")
    with pytest.raises(ValueError, match=r"two files are named 'hin'.*pass a mapping \{name: path\}"):
        read_parallel_files([first, second])
    assert read_parallel_files({"hin": first, "hin2": second}) == {"hin": ["One."], "hin2": ["One."]}
    with pytest.raises(TypeError, match="list of paths or a mapping"):
        read_parallel_files(str(first))
    with pytest.raises(TypeError, match="list of paths or a mapping"):
        read_parallel_files(None)
    with pytest.raises(TypeError, match="expected a path, got int"):
        read_parallel_files([first, 3])
    with pytest.raises(TypeError, match="non-empty string"):
        read_parallel_files({"": first})


def test_parse_parallel_texts_checks_contents_as_read_parallel_files_does():
    assert parse_parallel_texts({"eng.txt": b"One.\nTwo.\n", "deu.txt": "Eins.\nZwei.\n"}) == {
        "eng.txt": ["One.", "Two."],
        "deu.txt": ["Eins.", "Zwei."],
    }
    with pytest.raises(ValueError, match=r"eng\.txt: 2 lines; deu\.txt: 1 lines"):
        parse_parallel_texts({"eng.txt": b"One.\nTwo.\n", "deu.txt": b"Eins.\n"})
    with pytest.raises(ValueError, match=r"deu\.txt is not UTF-8"):
        parse_parallel_texts({"eng.txt": b"One.\n", "deu.txt": b"\xe4\n"})
    with pytest.raises(TypeError, match="mapping of name -> contents"):
        parse_parallel_texts([b"One.\n"])
    with pytest.raises(TypeError, match="expected text or bytes, got int"):
        parse_parallel_texts({"eng.txt": 3})
