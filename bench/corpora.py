"""The texts the benchmark runs on: building them, finding them, writing them under --data.

What it provides: the Python standard library's own .py sources (sysconfig's "stdlib" path without
site-packages and test directories) in sorted order with every tenth file held out;
../shared/corpora/tinyshakespeare.txt when present; a multilingual text built from bpe_core's
samples (``bpe_core.corpora.samples.load_samples``) and the standard library's CJK test texts; random words
in many scripts; the encoding scenarios' text files; and, for --big, generated Python source of a
given size for the larger-than-memory case.

What it does not do: time or measure anything (that is ``timing``), nor run any tokenizer. The texts
are deterministic, so runs on one machine and Python version see the same bytes.
"""

from __future__ import annotations

import json
import os
import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from bench.timing import MB, ROOT

SHAKESPEARE = ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt"
SKIPPED_DIRS = {"site-packages", "dist-packages", "__pycache__", "test", "tests", "idle_test"}
EXTRA_SENTENCES = [
    "Emoji 🚀🔥👩‍👩‍👧‍👦 🏳️‍🌈 flags 🇫🇷🇯🇵 and faces 😀😃😄😁 in a row.",
    "Смешанный текст 混合文本 مختلط मिश्रित 🙂 123,456.78 — «quotes» and ‘apostrophes’.",
]
SCRIPT_ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz",
    "абвгдежзийклмнопрстуфхцчшщыэюя",
    "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "कखगघचछजझटठडढणतथदधनपफबभमयरलवशसह",
    "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面",
    "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허",
    "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘🚀🔥🌍🎉",
]


@dataclass
class Corpus:
    name: str
    train_path: Path  # JSON list of documents
    heldout_path: Path  # plain text
    train_chars: int
    train_bytes: int
    heldout_chars: int
    documents: int


def stdlib_sources() -> list[Path]:
    """The standard library's .py files in a fixed order (sorted relative paths)."""
    base = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
        found += [Path(directory) / name for name in files if name.endswith(".py")]
    return sorted(found, key=lambda p: p.relative_to(base).as_posix())


def _write_corpus(name: str, data_dir: Path, train_docs: list[str], heldout: str) -> Corpus:
    data_dir.mkdir(parents=True, exist_ok=True)
    train_path = data_dir / f"{name}.train.json"
    heldout_path = data_dir / f"{name}.heldout.txt"
    train_path.write_text(json.dumps(train_docs, ensure_ascii=False), encoding="utf-8")
    heldout_path.write_text(heldout, encoding="utf-8", newline="")
    train_bytes = sum(len(d.encode("utf-8")) for d in train_docs)
    return Corpus(name, train_path, heldout_path, sum(map(len, train_docs)), train_bytes, len(heldout), len(train_docs))


def prepare_stdlib(data_dir: Path, limit_bytes: int | None = None, name: str = "stdlib") -> Corpus:
    """Training documents (one per file) and a held-out text (every tenth file), optionally cut
    down to about ``limit_bytes`` of training text (the quick mode and the smoke test)."""
    train_docs: list[str] = []
    heldout: list[str] = []
    size = held = 0
    for index, path in enumerate(stdlib_sources()):
        full = limit_bytes is not None and size >= limit_bytes
        if index % 10 != 9 and full:
            continue  # enough training text: only held-out files are still wanted
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if index % 10 == 9:
            heldout.append(text)
            held += len(text)
        else:
            train_docs.append(text)
            size += len(text.encode("utf-8"))
        if full and held >= limit_bytes // 10:
            break
    return _write_corpus(name, data_dir, train_docs, "".join(heldout))


def prepare_shakespeare(data_dir: Path, limit_bytes: int | None = None) -> Corpus | None:
    """tinyshakespeare, when ../shared has it: the first 90% for training (in documents of 100
    lines), the rest held out. None when the file is absent."""
    if not SHAKESPEARE.is_file():
        return None
    text = SHAKESPEARE.read_text(encoding="utf-8")
    if limit_bytes is not None:
        text = text[:limit_bytes]
    cut = text.rfind("\n", 0, int(len(text) * 0.9)) + 1
    lines = text[:cut].splitlines(keepends=True)
    docs = ["".join(lines[i : i + 100]) for i in range(0, len(lines), 100)]
    return _write_corpus("shakespeare", data_dir, docs, text[cut:])


def _nonblank_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def multilingual_text(target_chars: int, seed: int = 0) -> str:
    """Mixed-script text: the project's parallel sample passages (21 languages, 14 scripts), the
    standard library's CJK test texts and emoji lines, shuffled sentence by sentence up to about
    ``target_chars``. Sentences repeat, as words do in any long text."""
    from bpe_core.corpora.samples import load_samples

    sentences: list[str] = []
    for sample in sorted(load_samples("natural"), key=lambda s: s.id):  # by id: a fixed order
        sentences += _nonblank_lines(sample.text)
    cjk = Path(sysconfig.get_paths()["stdlib"]) / "test" / "cjkencodings"
    for path in sorted(cjk.glob("*-utf8.txt")):
        try:
            sentences += _nonblank_lines(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            pass
    sentences += EXTRA_SENTENCES
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < target_chars:
        rng.shuffle(sentences)
        for sentence in sentences:
            out.append(sentence + ("\n" if rng.random() < 0.3 else " "))
            size += len(out[-1])
            if size >= target_chars:
                break
    return "".join(out)


def random_multilingual_text(target_chars: int, seed: int = 1) -> str:
    """Random words from per-script alphabets (Latin, Cyrillic, Arabic, Devanagari, CJK, Hangul,
    emoji): nearly every word is new, the worst case for any per-piece cache."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < target_chars:
        pool = rng.choice(SCRIPT_ALPHABETS)
        word = "".join(rng.choice(pool) for _ in range(rng.randint(1, 8)))
        out.append(word + rng.choice("     \n,."))
        size += len(out[-1])
    return "".join(out)


def encoding_texts(data_dir: Path, stdlib: Corpus, shakespeare: Corpus | None, size: int) -> list[tuple[str, Path]]:
    """The single-thread encoding scenarios as (label, file): the whole stdlib training text in one
    call, the held-out stdlib, ``size`` characters of multilingual text, the sample passages once
    each, random multilingual words and the tinyshakespeare held-out text when present."""
    from bpe_core.corpora.samples import load_samples

    def write(name: str, text: str) -> Path:
        path = data_dir / name
        path.write_text(text, encoding="utf-8")
        return path

    whole = "".join(json.loads(stdlib.train_path.read_text(encoding="utf-8")))
    texts = [
        (f"code: stdlib training text, {stdlib.train_bytes / MB:.0f} MB in one call", write("stdlib.train.txt", whole)),
        ("code: held-out stdlib", stdlib.heldout_path),
        ("multilingual", write("multilingual.txt", multilingual_text(size))),
        (
            "multilingual passages once (19 k characters, all new)",
            write("multilingual-once.txt", "\n".join(s.text for s in load_samples("natural"))),
        ),
        ("random multilingual words", write("multilingual-random.txt", random_multilingual_text(size // 2))),
    ]
    if shakespeare is not None:
        texts.append(("tinyshakespeare held-out", shakespeare.heldout_path))
    return texts


# ------------------------------------------------------------------------------------------------
# the big, larger-than-memory case


def _copy_suffix(copy: int) -> str:
    """Letters naming copy number ``copy``: a, b, ..., z, ba, bb, ..."""
    suffix = ""
    while True:
        suffix = chr(ord("a") + copy % 26) + suffix
        copy //= 26
        if not copy:
            return suffix


def _common_words(sources: list[str]) -> re.Pattern:
    words: dict[str, int] = {}
    for text in sources[:200]:
        for word in re.findall(r"\b[a-z]{5,12}\b", text):
            words[word] = words.get(word, 0) + 1
    common = sorted(words, key=lambda w: (-words[w], w))[:300]
    return re.compile(r"\b(?:" + "|".join(common) + r")\b")


def generate_big_file(path: Path, size_bytes: int, sources: list[str]) -> Path:
    """Write about ``size_bytes`` of Python source, deterministically: copy k of ``sources`` gets a
    few hundred identifiers suffixed with letters naming k, so the vocabulary keeps growing slowly
    (as in real corpora) instead of repeating exactly. Reused if already there with that size."""
    marker = path.with_suffix(".size")
    if path.is_file() and marker.is_file() and marker.read_text() == str(size_bytes):
        return path
    pattern = _common_words(sources)
    written = copy = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as out:
        while written < size_bytes:
            suffix = _copy_suffix(copy)
            for text in sources:
                varied = pattern.sub(lambda m, suffix=suffix: m.group() + suffix, text) if copy else text
                data = varied.encode("utf-8")
                if written + len(data) > size_bytes:
                    data = data[: size_bytes - written]
                    out.write(data[: data.rfind(b"\n") + 1].decode("utf-8"))
                    written = size_bytes
                    break
                out.write(varied)
                written += len(data)
            copy += 1
    marker.write_text(str(size_bytes))
    return path


# ------------------------------------------------------------------------------------------------
# the scale case: real code and documentation, and resampled text of any size

#: The file kinds the real corpus takes: code (.py, .pyi) and documentation or prose (.md, .rst, .txt).
REAL_SUFFIXES = (".py", ".pyi", ".md", ".rst", ".txt")


def real_source_roots() -> list[Path]:
    """Where the real corpus comes from: the Python standard library (all of it, tests included), the
    environment's site-packages, Debian's Python packages and /usr/share/doc, those present."""
    paths = sysconfig.get_paths()
    candidates = [
        paths["stdlib"],
        paths["purelib"],
        "/usr/lib/python3",
        *sorted(map(str, Path("/usr/lib").glob("python3.*"))),
        "/usr/share/doc",
    ]
    roots: list[Path] = []
    for candidate in candidates:
        root = Path(candidate)
        if root.is_dir() and root not in roots:
            roots.append(root)
    return roots


def real_sources() -> list[tuple[Path, bytes]]:
    """Every valid UTF-8 code or documentation file under ``real_source_roots`` with its bytes, each
    content once (de-duplicated by SHA-256: a file installed twice counts once), in a fixed order
    (root, then relative path)."""
    import hashlib

    seen: set[bytes] = set()
    found: list[tuple[Path, bytes]] = []
    for root in real_source_roots():
        names = []
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            names += [Path(directory) / name for name in files if name.endswith(REAL_SUFFIXES)]
        for path in sorted(names, key=lambda p: p.relative_to(root).as_posix()):
            try:
                data = path.read_bytes()
                data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.sha256(data).digest()
            if data.strip() and digest not in seen:
                seen.add(digest)
                found.append((path, data))
    return found


def prepare_real_file(path: Path, size_bytes: int, sources: list[tuple[Path, bytes]] | None = None) -> dict:
    """Write about ``size_bytes`` of real files (``real_sources`` in a seeded shuffle, whole files, one
    after another) to ``path``; return what it holds: bytes and files per suffix. Reused if there."""
    marker = path.with_suffix(".json")
    if path.is_file() and marker.is_file():
        made = json.loads(marker.read_text())
        if made.get("requested") == size_bytes:
            return made
    chosen = list(sources if sources is not None else real_sources())
    random.Random(0).shuffle(chosen)
    kinds: dict[str, list[int]] = {}
    written = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for source, data in chosen:
            if written >= size_bytes:
                break
            data = data if data.endswith(b"\n") else data + b"\n"
            out.write(data)
            written += len(data)
            kind = kinds.setdefault(source.suffix, [0, 0])
            kind[0] += 1
            kind[1] += len(data)
    made = {"requested": size_bytes, "bytes": written, "files": sum(k[0] for k in kinds.values()), "kinds": kinds}
    marker.write_text(json.dumps(made))
    return made


_WORD = re.compile(r"\b[A-Za-z]{4,}\b")


def generate_resampled_file(path: Path, size_bytes: int, lines: list[str], *, seed: int = 0) -> Path:
    """Write about ``size_bytes`` of text resampled from real ``lines``: runs of 40 consecutive lines
    from random places, and in one run in four, one word in five (of four letters or more) gets a
    suffix drawn from a heavy-tailed law (Pareto, alpha 0.8), so new words keep appearing at a falling
    rate, as in real text (Heaps' law), instead of the vocabulary stopping at the pool's.
    Deterministic for a given pool and seed; reused if already there with that size."""
    marker = path.with_suffix(".size")
    if path.is_file() and marker.is_file() and marker.read_text() == f"{size_bytes} {seed}":
        return path
    rng = random.Random(seed)

    def vary(match: re.Match) -> str:
        if rng.random() >= 0.2:
            return match.group()
        return match.group() + "_" + _copy_suffix(min(int(rng.paretovariate(0.8)), 10**7))

    written = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as out:
        while written < size_bytes:
            start = rng.randrange(len(lines))
            text = "".join(lines[start : start + 40])
            if rng.random() < 0.25:
                text = _WORD.sub(vary, text)
            data = text.encode("utf-8")
            if written + len(data) > size_bytes:
                data = data[: size_bytes - written]
                out.write(data[: data.rfind(b"\n") + 1].decode("utf-8"))
                break
            out.write(text)
            written += len(data)
    marker.write_text(f"{size_bytes} {seed}")
    return path
