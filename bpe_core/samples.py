"""Built-in sample texts for comparing tokenizers across languages and kinds of text.

The data lives in ``bpe_core/samples/`` beside this module: ``manifest.json`` lists every sample and
the text files hold them (UTF-8, NFC, one sentence per line for natural language).

* ``natural``: one short passage (8 sentences, about 1,000 characters in English) written for this
  project in English and translated into 20 more languages across 14 scripts. The passages are
  parallel, so token counts can be compared across languages (the tokenization premium).
* ``code``: the same small word-frequency program in Python, JavaScript, C, Java, Rust and Go, plus
  an SQL script doing the same in a database.
* ``data``: a JSON document and a Markdown document (data and markup rather than programs).

``spaced`` is False for languages written without spaces between words (Chinese, Japanese, Thai,
Burmese): whitespace-based word metrics do not apply to them. ``iso639_3`` is None for code and data.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

SAMPLES_DIR = Path(__file__).parent / "samples"
MANIFEST = SAMPLES_DIR / "manifest.json"
KINDS = ("natural", "code", "data")
REFERENCE_ID = "eng"


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
        raise ValueError(f"{MANIFEST}: expected an object with a 'samples' list")
    return entries


@functools.lru_cache(maxsize=1)
def _all_samples() -> tuple[Sample, ...]:
    samples = []
    seen: set[str] = set()
    for entry in _read_manifest():
        sample_id = entry["id"]
        if sample_id in seen:
            raise ValueError(f"{MANIFEST}: sample id {sample_id!r} is listed twice")
        seen.add(sample_id)
        if entry["kind"] not in KINDS:
            raise ValueError(f"{MANIFEST}: sample {sample_id!r} has unknown kind {entry['kind']!r}")
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
        raise ValueError(f"unknown sample kind {kind!r}: choose one of {', '.join(KINDS)} (or None for all)")
    return [s for s in _all_samples() if kind is None or s.kind == kind]


def sample_ids(kind: str | None = None) -> list[str]:
    """The ids of the built-in samples, in manifest order (optionally of one ``kind``)."""
    return [s.id for s in load_samples(kind)]


def get_sample(sample_id: str) -> Sample:
    """The built-in sample with this id (e.g. ``"hin"``, ``"python"``); ValueError for unknown ids."""
    for sample in _all_samples():
        if sample.id == sample_id:
            return sample
    raise ValueError(f"unknown sample id {sample_id!r}: the built-in samples are {', '.join(sample_ids())}")
