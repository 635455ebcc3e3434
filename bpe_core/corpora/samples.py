"""Built-in sample texts for comparing tokenizers across languages and kinds of text.

The data lives in ``bpe_core/corpora/sample_texts/`` beside this module: ``manifest.json`` lists every sample and
the text files hold them (UTF-8, NFC, one sentence per line for natural language).

* ``natural``: one short passage (8 sentences, about 1,000 characters in English) written for this
  project in English and translated into 20 more languages across 14 scripts. The passages are
  parallel, so token counts can be compared across languages (the tokenization premium).
* ``code``: the same small word-frequency program in Python, JavaScript, C, Java, Rust and Go, plus
  an SQL script doing the same in a database.
* ``data``: a JSON document and a Markdown document (data and markup rather than programs).

``spaced`` is False for languages written without spaces between words (Chinese, Japanese, Thai,
Burmese): whitespace-based word metrics do not apply to them. ``iso639_3`` is None for code and data.
``sample_documents`` and ``sample_text`` give the samples' first characters, for an example
tokenizer's training text or a preview.

The larger parallel text lives in ``sample_texts/parallel/`` (its own ``manifest.json``): 120 sentences
written for this project, one per line, in the same 21 languages; lines 1-90 are for training and
lines 91-120 are held out for evaluation. ``parallel_text`` loads it; ``read_parallel_files`` and
``parse_parallel_texts`` read a user's parallel files (one per language, one sentence per line, the
same number of lines) and say which file is wrong when they are not. Nothing here normalizes, trims or
tokenizes the sentences; each is kept as written.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_core.errors import BpeError

SAMPLES_DIR = Path(__file__).parent / "sample_texts"
MANIFEST = SAMPLES_DIR / "manifest.json"
KINDS = ("natural", "code", "data")
REFERENCE_ID = "eng"
PARALLEL_DIR = SAMPLES_DIR / "parallel"
PARALLEL_MANIFEST = PARALLEL_DIR / "manifest.json"
PARALLEL_SPLITS = ("train", "heldout", "all")


@dataclass(frozen=True)
class Sample:
    """One built-in text: ``id`` (the ISO 639-3 code for natural samples, e.g. ``"eng"``; a language
    name such as ``"python"`` otherwise), a display ``label``, ``iso639_3`` (None unless natural),
    ``script`` (e.g. ``"Devanagari"``), ``kind`` (``natural``/``code``/``data``), ``spaced`` (words
    separated by spaces) and the ``text`` itself (the file without its final newline)."""

    id: str
    label: str
    iso639_3: str | None
    script: str
    kind: str
    spaced: bool
    text: str


def _read_manifest() -> list[dict]:
    try:
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"the samples manifest {MANIFEST} is missing: the package data is incomplete") from None
    entries = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BpeError(f"{MANIFEST}: expected an object with a 'samples' list")
    return entries


@functools.lru_cache(maxsize=1)
def _all_samples() -> tuple[Sample, ...]:
    samples = []
    seen: set[str] = set()
    for entry in _read_manifest():
        sample_id = entry["id"]
        if sample_id in seen:
            raise BpeError(f"{MANIFEST}: sample id {sample_id!r} is listed twice")
        seen.add(sample_id)
        if entry["kind"] not in KINDS:
            raise BpeError(f"{MANIFEST}: sample {sample_id!r} has unknown kind {entry['kind']!r}")
        path = SAMPLES_DIR / entry["file"]
        text = path.read_bytes().decode("utf-8")
        if text.endswith("\n"):
            text = text[:-1]
        samples.append(
            Sample(
                id=sample_id,
                label=entry["label"],
                iso639_3=entry.get("iso639_3"),
                script=entry["script"],
                kind=entry["kind"],
                spaced=bool(entry["spaced"]),
                text=text,
            )
        )
    return tuple(samples)


def load_samples(kind: str | None = None) -> list[Sample]:
    """All built-in samples in manifest order (natural languages first), or those of one ``kind``
    (``"natural"``, ``"code"`` or ``"data"``)."""
    if kind is not None and kind not in KINDS:
        raise BpeError(f"unknown sample kind {kind!r}: choose one of {', '.join(KINDS)} (or None for all)")
    return [s for s in _all_samples() if kind is None or s.kind == kind]


def sample_ids(kind: str | None = None) -> list[str]:
    """The ids of the built-in samples, in manifest order (optionally of one ``kind``)."""
    return [s.id for s in load_samples(kind)]


def get_sample(sample_id: str) -> Sample:
    """The built-in sample with this id (e.g. ``"hin"``, ``"python"``); ValueError for unknown ids."""
    for sample in _all_samples():
        if sample.id == sample_id:
            return sample
    raise BpeError(f"unknown sample id {sample_id!r}: the built-in samples are {', '.join(sample_ids())}")


def sample_documents(max_chars: int) -> list[str]:
    """The built-in samples' texts in manifest order (natural languages first), ``max_chars``
    characters in all, the last one cut: a small corpus for an example tokenizer.

    >>> [len(text) for text in sample_documents(2_000)]  # English (949 characters), then German, cut
    [949, 1051]
    """
    documents: list[str] = []
    left = max_chars
    for sample in _all_samples():
        if left <= 0:
            break
        documents.append(sample.text[:left])
        left -= len(documents[-1])
    return documents


def sample_text(max_chars: int) -> str:
    """The first ``max_chars`` characters of the built-in samples, one after another with a blank line
    between two: a stretch of text for a preview.

    >>> sample_text(27)
    'The small town by the river'
    """
    return "\n\n".join(sample_documents(max_chars))[:max_chars]


# --------------------------------------------------------------------------------------------------
# the built-in parallel text


@functools.lru_cache(maxsize=1)
def _parallel_manifest() -> tuple[tuple[str, ...], int, dict[str, range]]:
    """(language ids, sentences per language, split -> 0-based line range) from the parallel manifest."""
    try:
        data = json.loads(PARALLEL_MANIFEST.read_text(encoding="utf-8"))
        languages = tuple(data["languages"])
        count = data["sentences"]
        splits = {name: range(first - 1, last) for name, (first, last) in data["splits"].items()}
    except FileNotFoundError:
        raise FileNotFoundError(f"{PARALLEL_MANIFEST} is missing: the package data is incomplete") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise BpeError(f"{PARALLEL_MANIFEST} is damaged ({exc}): reinstall bpe_core") from None
    splits["all"] = range(count)
    if set(splits) != set(PARALLEL_SPLITS):
        raise BpeError(f"{PARALLEL_MANIFEST}: expected the splits train and heldout: reinstall bpe_core")
    return languages, count, splits


@functools.cache
def _parallel_lines(language: str) -> tuple[str, ...]:
    _languages, count, _splits = _parallel_manifest()
    path = PARALLEL_DIR / f"{language}.txt"
    try:
        lines = tuple(_sentences(path.read_bytes(), name=str(path)))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} is missing: the package data is incomplete") from None
    if len(lines) != count:
        raise BpeError(f"{path} has {len(lines)} lines, not {count}: the package data is damaged")
    return lines


def parallel_languages() -> list[str]:
    """The ids of the languages of the built-in parallel text (ISO 639-3, as the natural samples).

    >>> parallel_languages()[:3]
    ['eng', 'deu', 'fra']
    """
    return list(_parallel_manifest()[0])


def parallel_text(*, split: str = "train", languages: Sequence[str] | None = None) -> dict[str, list[str]]:
    """The built-in parallel text: language id -> its sentences, one per line of the file, in the
    same order in every language. ``split`` is ``"train"`` (lines 1-90), ``"heldout"`` (lines 91-120,
    for evaluating a tokenizer on sentences it was not trained on) or ``"all"``; ``languages`` picks
    some of ``parallel_languages()`` (all by default), in the order given.

    >>> text = parallel_text(split="heldout", languages=["eng", "deu"])
    >>> len(text["eng"]), len(text["deu"])
    (30, 30)
    >>> text["eng"][-1]
    'Will you come to the party on Saturday? Yes, I will bring a salad.'
    """
    known, _count, splits = _parallel_manifest()
    if split not in splits:
        raise BpeError(f"unknown split {split!r}: choose one of {', '.join(PARALLEL_SPLITS)}")
    if isinstance(languages, (str, bytes)):
        raise TypeError(f"languages must be a list of ids such as [{languages!r}], not one string")
    chosen = list(known) if languages is None else list(languages)
    unknown = [language for language in chosen if language not in known]
    if unknown:
        raise BpeError(f"no built-in parallel text for {unknown!r}: the languages are {', '.join(known)}")
    lines = splits[split]
    return {language: list(_parallel_lines(language)[lines.start : lines.stop]) for language in chosen}


# --------------------------------------------------------------------------------------------------
# a user's parallel files


def _sentences(data: bytes | str, *, name: str) -> list[str]:
    r"""One sentence per line of ``data`` (UTF-8 bytes or text): a leading byte-order mark and the
    line endings (LF or CRLF) are dropped, and so are blank lines at the end; other lines are kept
    as written. ValueError (naming ``name``) for bytes that are not UTF-8, an empty text or a blank
    line between sentences.

    >>> _sentences(b"One.\r\nTwo.\n\n", name="eng.txt")
    ['One.', 'Two.']
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line_number = data.count(b"\n", 0, exc.start) + 1
            raise BpeError(
                f"{name} is not UTF-8 text (byte {exc.start}, line {line_number}): save it as UTF-8 and try again"
            ) from None
    elif isinstance(data, str):
        text = data
    else:
        raise TypeError(f"{name}: expected text or bytes, got {type(data).__name__}")
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise BpeError(f"{name} is empty: write one sentence per line")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise BpeError(
                f"{name}: line {number} is blank; write one sentence on every line, so that line N of "
                "every file is the same sentence"
            )
    return lines


def parse_parallel_texts(texts: Mapping[str, bytes | str]) -> dict[str, list[str]]:
    r"""Parallel texts given as contents (e.g. uploaded files): name -> UTF-8 bytes or text, one
    sentence per line. Returns name -> sentences, in the order given; ValueError naming every text
    and its line count when the counts differ, and for empty or non-UTF-8 texts.

    >>> parse_parallel_texts({"eng": b"Hello.\nGood night.\n", "deu": "Hallo.\nGute Nacht.\n"})
    {'eng': ['Hello.', 'Good night.'], 'deu': ['Hallo.', 'Gute Nacht.']}
    """
    if not isinstance(texts, Mapping):
        raise TypeError(f"texts must be a mapping of name -> contents, not {type(texts).__name__}")
    for name in texts:
        if not isinstance(name, str) or not name:
            raise TypeError(f"every name must be a non-empty string, not {name!r}")
    found = {name: _sentences(data, name=name) for name, data in texts.items()}
    _check_parallel(found, {name: name for name in found})
    return found


def read_parallel_files(
    files: Sequence[str | os.PathLike[str]] | Mapping[str, str | os.PathLike[str]],
) -> dict[str, list[str]]:
    """A user's parallel files: one per language, UTF-8, one sentence per line, the same number of
    lines in each (line N of every file is the same sentence). ``files`` is a list of paths (each
    named by its file name without the extension, so ``texts/hin.txt`` is ``"hin"``) or a mapping
    ``{name: path}``. Returns name -> sentences; ValueError naming the files and their line counts
    when the counts differ, and for files that are missing, empty or not UTF-8.

    >>> read_parallel_files([PARALLEL_DIR / "eng.txt", PARALLEL_DIR / "deu.txt"])["deu"][2]
    'Der Zug von Paris nach Berlin braucht etwa acht Stunden.'
    """
    paths = _named_paths(files)
    found = {name: _sentences(_read_bytes(path), name=str(path)) for name, path in paths.items()}
    _check_parallel(found, {name: str(path) for name, path in paths.items()})
    return found


def _named_paths(files: object) -> dict[str, Path]:
    """name -> path for ``read_parallel_files``: the mapping as given, or each path named by its stem."""
    if isinstance(files, Mapping):
        pairs = list(files.items())
    elif isinstance(files, (str, bytes, os.PathLike)) or not isinstance(files, Sequence):
        raise TypeError(f"files must be a list of paths or a mapping of name -> path, not {type(files).__name__}")
    else:
        pairs = [(Path(path).stem if isinstance(path, (str, os.PathLike)) else "", path) for path in files]
    named: dict[str, Path] = {}
    for name, path in pairs:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"expected a path, got {type(path).__name__}: {path!r}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"every name must be a non-empty string, not {name!r}")
        if name in named:  # only lists can repeat a name: two folders holding hin.txt
            raise BpeError(f"two files are named {name!r} ({named[name]} and {path}): pass a mapping {{name: path}}")
        named[name] = Path(path)
    if not named:
        raise BpeError("no files given: pass one file per language")
    return named


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BpeError(f"cannot read {path}: {exc.strerror or exc}") from None


def _check_parallel(found: Mapping[str, list[str]], shown: Mapping[str, str]) -> None:
    """ValueError listing every file and its line count unless all counts are equal."""
    counts = {name: len(lines) for name, lines in found.items()}
    if len(set(counts.values())) > 1:
        listing = "; ".join(f"{shown[name]}: {count} lines" for name, count in counts.items())
        raise BpeError(
            f"parallel files must have the same number of lines, one sentence per line in the same "
            f"order, but {listing}. Make every file hold the same sentences, line for line"
        )
