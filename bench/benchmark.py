#!/usr/bin/env python
"""Benchmark bpe_core against Hugging Face tokenizers, rustbpe and tiktoken (project issue 3).

    .venv/bin/python bench/benchmark.py            # ~11 MB of stdlib sources, vocab 8192 and 32768
    .venv/bin/python bench/benchmark.py --quick    # small data, well under a minute (CI smoke run)
    .venv/bin/python bench/benchmark.py --big      # also train_files on generated 100 MB, 250 MB, 1 GB

Every measurement runs in a subprocess of its own, timing only the training or encoding call (not
interpreter start-up or reading the corpus). The tools alternate round by round, so a noisy phase of
the machine hits all of them; ratios are medians over rounds of bpe_core's time divided by the
reference's time in the same round. Peak memory is the peak resident size of the whole process tree
(bpe_core's counting workers included), sampled from /proc every 10 ms, and never less than the
process's own peak (VmHWM).

The reference tools are benchmark dependencies (bench/requirements.txt); a missing one is skipped.
Corpora are prepared under --data (default bench/.data): the Python standard library's own .py
sources (sysconfig's "stdlib" path without site-packages and test directories) in sorted order, every
tenth file held out; ../shared/corpora/tinyshakespeare.txt when present; a multilingual text built
from bpe_core's samples; and, with --big, generated files for the larger-than-memory case.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DEFAULT_DATA = Path(__file__).resolve().parent / ".data"
SHAKESPEARE = ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt"
SKIPPED_DIRS = {"site-packages", "dist-packages", "__pycache__", "test", "tests", "idle_test"}
TRAIN_TOOLS = ("bpe_core", "hf", "rustbpe")
ENCODE_TOOLS = ("bpe_core", "tiktoken")
MB = 1_000_000


# ------------------------------------------------------------------------------------------------
# corpora


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
        for name in files:
            if name.endswith(".py"):
                found.append(Path(directory) / name)
    return sorted(found, key=lambda p: p.relative_to(base).as_posix())


def _write_corpus(name: str, data_dir: Path, train_docs: list[str], heldout: str) -> Corpus:
    data_dir.mkdir(parents=True, exist_ok=True)
    train_path = data_dir / f"{name}.train.json"
    heldout_path = data_dir / f"{name}.heldout.txt"
    train_path.write_text(json.dumps(train_docs, ensure_ascii=False), encoding="utf-8")
    heldout_path.write_text(heldout, encoding="utf-8", newline="")
    return Corpus(
        name,
        train_path,
        heldout_path,
        sum(map(len, train_docs)),
        sum(len(d.encode("utf-8")) for d in train_docs),
        len(heldout),
        len(train_docs),
    )


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


def multilingual_text(target_chars: int, seed: int = 0) -> str:
    """Mixed-script text: the project's parallel sample passages (21 languages, 14 scripts), the
    standard library's CJK test texts and emoji lines, shuffled sentence by sentence up to about
    ``target_chars``. Sentences repeat, as words do in any long text."""
    sentences: list[str] = []
    for path in sorted((ROOT / "bpe_core" / "samples" / "natural").glob("*.txt")):
        sentences += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cjk = Path(sysconfig.get_paths()["stdlib"]) / "test" / "cjkencodings"
    for path in sorted(cjk.glob("*-utf8.txt")):
        try:
            sentences += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (UnicodeDecodeError, OSError):
            pass
    sentences += [
        "Emoji 🚀🔥👩‍👩‍👧‍👦 🏳️‍🌈 flags 🇫🇷🇯🇵 and faces 😀😃😄😁 in a row.",
        "Смешанный текст 混合文本 مختلط मिश्रित 🙂 123,456.78 — «quotes» and ‘apostrophes’.",
    ]
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
    pools = [
        "abcdefghijklmnopqrstuvwxyz",
        "абвгдежзийклмнопрстуфхцчшщыэюя",
        "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
        "कखगघचछजझटठडढणतथदधनपफबभमयरलवशसह",
        "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面",
        "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허",
        "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘🚀🔥🌍🎉",
    ]
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < target_chars:
        pool = rng.choice(pools)
        word = "".join(rng.choice(pool) for _ in range(rng.randint(1, 8)))
        out.append(word + rng.choice("     \n,."))
        size += len(out[-1])
    return "".join(out)


# ------------------------------------------------------------------------------------------------
# the big, larger-than-memory case


def generate_big_file(path: Path, size_bytes: int, sources: list[str]) -> Path:
    """Write about ``size_bytes`` of Python source, deterministically: copy k of ``sources`` gets a
    few hundred identifiers suffixed with letters naming k, so the vocabulary keeps growing slowly
    (as in real corpora) instead of repeating exactly. Reused if already there with that size."""
    import re

    marker = path.with_suffix(".size")
    if path.is_file() and marker.is_file() and marker.read_text() == str(size_bytes):
        return path
    words: dict[str, int] = {}
    for text in sources[:200]:
        for word in re.findall(r"\b[a-z]{5,12}\b", text):
            words[word] = words.get(word, 0) + 1
    common = sorted(words, key=lambda w: (-words[w], w))[:300]
    pattern = re.compile(r"\b(?:" + "|".join(common) + r")\b")
    written = 0
    copy = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as out:
        while written < size_bytes:
            suffix = ""
            k = copy
            while True:
                suffix = chr(ord("a") + k % 26) + suffix
                k //= 26
                if not k:
                    break
            for text in sources:
                varied = pattern.sub(lambda m: m.group() + suffix, text) if copy else text
                data = varied.encode("utf-8")
                if written + len(data) > size_bytes:
                    data = data[: size_bytes - written]
                    data = data[: data.rfind(b"\n") + 1]
                    out.write(data.decode("utf-8"))
                    written = size_bytes
                    break
                out.write(varied)
                written += len(data)
            copy += 1
    marker.write_text(str(size_bytes))
    return path


# ------------------------------------------------------------------------------------------------
# what runs in the child processes


def _gpt2_pattern() -> str:
    from bpe_core.pretokenize import GPT2_PATTERN

    return GPT2_PATTERN


def child_train(spec: dict) -> dict:
    """Train one tool on a corpus; time the training call only, then encode the held-out text."""
    tool = spec["tool"]
    docs = json.loads(Path(spec["train"]).read_text(encoding="utf-8"))
    heldout = Path(spec["heldout"]).read_text(encoding="utf-8")
    vocab_size = spec["vocab_size"]
    min_frequency = spec.get("min_frequency", 2)
    if tool == "bpe_core":
        import bpe_core

        kwargs = {} if spec.get("workers") is None else {"workers": spec["workers"]}
        started = time.perf_counter()
        tok = bpe_core.train(docs, vocab_size, min_frequency=min_frequency, **kwargs)
        seconds = time.perf_counter() - started
        merges = len(tok.merges)
        ids = tok.encode_ordinary(heldout)
        digest = hashlib.sha256(json.dumps(tok.merges, default=lambda b: b.hex()).encode()).hexdigest()
    elif tool == "hf":
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        started = time.perf_counter()
        tok.train_from_iterator(docs, trainer=trainer, length=len(docs))
        seconds = time.perf_counter() - started
        merges = tok.get_vocab_size() - 256
        ids = tok.encode(heldout).ids
        digest = None
    elif tool == "rustbpe":
        import rustbpe

        tok = rustbpe.Tokenizer()
        started = time.perf_counter()
        tok.train_from_iterator(iter(docs), vocab_size, pattern=_gpt2_pattern())
        seconds = time.perf_counter() - started
        merges = tok.vocab_size - 256
        ids = tok.encode(heldout)
        digest = None
    else:
        raise ValueError(f"unknown training tool {tool!r}")
    return {
        "seconds": seconds,
        "merges": merges,
        "heldout_chars": len(heldout),
        "heldout_tokens": len(ids),
        "merges_sha256": digest,
    }


def child_train_files(spec: dict) -> dict:
    """bpe_core.train_files on one (big) file."""
    import bpe_core

    import resource

    def cpu():
        own = resource.getrusage(resource.RUSAGE_SELF)
        workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the counting workers, once ended
        return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime

    cpu_before = cpu()
    started = time.perf_counter()
    tok = bpe_core.train_files(spec["path"], spec["vocab_size"], min_frequency=spec.get("min_frequency", 2))
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "cpu_seconds": cpu() - cpu_before,
        "merges": len(tok.merges),
        "unique_pretokens": tok.training["corpus"]["unique_pretokens"],
    }


def child_encode(spec: dict) -> dict:
    """Encode a text with GPT-2's merges, single thread: a cold call (fresh tokenizer), then warm."""
    tool = spec["tool"]
    text = Path(spec["text"]).read_text(encoding="utf-8")
    import bpe_core

    vocabulary = spec.get("vocabulary", "gpt2")
    if tool == "tiktoken":
        encoder = bpe_core.gpt2_encoding() if vocabulary == "gpt2" else bpe_core.cl100k_encoding()
        encode = encoder.encode_ordinary
    elif tool == "bpe_core":
        encoder = bpe_core.gpt2() if vocabulary == "gpt2" else bpe_core.cl100k()
        encode = encoder.encode_ordinary
    else:
        raise ValueError(f"unknown encoding tool {tool!r}")
    started = time.perf_counter()
    ids = encode(text)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = encode(text)
    warm = time.perf_counter() - started
    assert again == ids
    return {
        "cold_seconds": cold,
        "warm_seconds": warm,
        "bytes": len(text.encode("utf-8")),
        "tokens": len(ids),
        "ids_sha256": hashlib.sha256(json.dumps(ids).encode()).hexdigest(),
    }


def child_encode_batch(spec: dict) -> dict:
    """One cold call of batch encoding over a list of documents, with ``workers`` processes
    (bpe_core) or threads (tiktoken)."""
    documents = json.loads(Path(spec["documents"]).read_text(encoding="utf-8"))
    import bpe_core

    workers = spec["workers"]
    if spec["tool"] == "tiktoken":
        encoder = bpe_core.gpt2_encoding()
        encoder.encode_ordinary("warm up")  # tiktoken builds its regex lazily, per thread
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, num_threads=workers)
    else:
        encoder = bpe_core.gpt2()
        started = time.perf_counter()
        ids = encoder.encode_ordinary_batch(documents, workers=workers)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "bytes": sum(len(d.encode("utf-8")) for d in documents),
        "ids_sha256": hashlib.sha256(json.dumps(ids).encode()).hexdigest(),
    }


CHILD_TASKS = {
    "train": child_train,
    "train_files": child_train_files,
    "encode": child_encode,
    "encode_batch": child_encode_batch,
}


def _own_peak_rss() -> int:
    """This process's peak resident size since exec (VmHWM). Not getrusage: on Linux ru_maxrss also
    counts the parent's memory image copied by fork before exec."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


# ------------------------------------------------------------------------------------------------
# running children and measuring memory


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (0 where /proc is unavailable)."""
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * page
            with open(f"/proc/{current}/task/{current}/children") as handle:
                stack.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


def run_child(spec: dict, *, memory_limit: int | None = None, timeout: float = 3600) -> dict:
    """Run one measurement in a fresh interpreter; add ``peak_rss`` (bytes, process tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    def limit():
        if memory_limit:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    process = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        env=env,
        preexec_fn=limit if (memory_limit and os.name == "posix") else None,
    )
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(process.pid))
            done.wait(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        output = process.stdout.read()
        process.wait(timeout)
    finally:
        done.set()
        sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"child {spec} failed with exit code {process.returncode}")
    result = json.loads(output.decode("utf-8").strip().splitlines()[-1])
    result["peak_rss"] = max(peak, result["own_peak_rss"])
    return result


# ------------------------------------------------------------------------------------------------
# scenarios


def available_tools(tools) -> list[str]:
    modules = {"bpe_core": "bpe_core", "hf": "tokenizers", "rustbpe": "rustbpe", "tiktoken": "tiktoken"}
    found = []
    for tool in tools:
        try:
            __import__(modules[tool])
        except ImportError:
            print(f"  ({tool} is not installed: skipped; see bench/requirements.txt)")
            continue
        found.append(tool)
    return found


@dataclass
class Rounds:
    """Results of one scenario, round by round: ``runs[tool]`` lists the child results in order."""

    label: str
    runs: dict[str, list[dict]] = field(default_factory=dict)

    def median(self, tool: str, key: str) -> float | None:
        if tool not in self.runs:
            return None
        return statistics.median(r[key] for r in self.runs[tool])

    def ratio(self, tool: str, reference: str, key: str = "seconds") -> float | None:
        """Median over rounds of tool/reference, each pair measured in the same round."""
        if tool not in self.runs or reference not in self.runs:
            return None
        pairs = zip(self.runs[tool], self.runs[reference])
        return statistics.median(a[key] / b[key] for a, b in pairs)


def train_rounds(corpus: Corpus, vocab_size: int, tools: list[str], repeats: int, log=print, **extra) -> Rounds:
    rounds = Rounds(f"{corpus.name} vocab {vocab_size}")
    for number in range(repeats):
        order = tools[number % len(tools) :] + tools[: number % len(tools)]
        for tool in order:
            spec = {
                "task": "train",
                "tool": tool,
                "train": str(corpus.train_path),
                "heldout": str(corpus.heldout_path),
                "vocab_size": vocab_size,
                **extra,
            }
            result = run_child(spec)
            rounds.runs.setdefault(tool, []).append(result)
            log(
                f"  round {number + 1} {tool:9s} {result['seconds']:7.2f} s  "
                f"peak {result['peak_rss'] / MB:7.1f} MB  merges {result['merges']}"
            )
    return rounds


def encode_rounds(
    label: str, text_path: Path, tools: list[str], repeats: int, log=print, vocabulary: str = "gpt2"
) -> Rounds:
    rounds = Rounds(label)
    for number in range(repeats):
        order = tools if number % 2 == 0 else list(reversed(tools))
        for tool in order:
            result = run_child({"task": "encode", "tool": tool, "text": str(text_path), "vocabulary": vocabulary})
            rounds.runs.setdefault(tool, []).append(result)
            log(
                f"  round {number + 1} {tool:9s} cold {result['bytes'] / result['cold_seconds'] / MB:6.2f} MB/s"
                f"  warm {result['bytes'] / result['warm_seconds'] / MB:6.2f} MB/s"
            )
    return rounds


def batch_rounds(documents_path: Path, repeats: int, log=print) -> Rounds:
    """encode_ordinary_batch on the stdlib documents, cold, one and all CPUs, against tiktoken's
    batch encoding with one and as many threads."""
    cpus = os.cpu_count() or 1
    variants = [(tool, n) for tool in ("bpe_core", "tiktoken") for n in sorted({1, cpus})]
    rounds = Rounds(f"stdlib documents, {cpus} CPUs")
    for number in range(repeats):
        order = variants if number % 2 == 0 else list(reversed(variants))
        for tool, workers in order:
            spec = {"task": "encode_batch", "tool": tool, "workers": workers, "documents": str(documents_path)}
            result = run_child(spec)
            key = f"{tool} x{workers}"
            rounds.runs.setdefault(key, []).append(result)
            log(f"  round {number + 1} {key:12s} {result['bytes'] / result['seconds'] / MB:6.2f} MB/s")
    return rounds


def batch_table(rounds: Rounds) -> str:
    same = len({r["ids_sha256"] for runs in rounds.runs.values() for r in runs}) == 1
    lines = [
        f"Batch encoding, {rounds.label}, cold (fresh process); ids identical across all: {'yes' if same else 'NO'}",
        "",
        "| tool | MB/s (median) | vs tiktoken, same parallelism | speed-up over one process/thread |",
        "|---|---|---|---|",
    ]
    for key in rounds.runs:
        tool, workers = key.split(" ")
        mbs = statistics.median(r["bytes"] / r["seconds"] for r in rounds.runs[key]) / MB
        versus = ""
        if tool == "bpe_core" and f"tiktoken {workers}" in rounds.runs:
            versus = f"{1 / rounds.ratio(key, f'tiktoken {workers}'):.2f}x"
        speedup = ""
        if workers != "x1" and f"{tool} x1" in rounds.runs:
            speedup = f"{1 / rounds.ratio(key, f'{tool} x1'):.2f}x"
        lines.append(f"| {key} | {mbs:.2f} | {versus} | {speedup} |")
    return "\n".join(lines)


def big_runs(data_dir: Path, sizes_mb: list[int], vocab_size: int, log=print) -> list[dict]:
    sources = [p.read_text(encoding="utf-8") for p in stdlib_sources()]
    results = []
    for size in sizes_mb:
        path = generate_big_file(data_dir / f"big-{size}MB.txt", size * MB, sources)
        spec = {"task": "train_files", "path": str(path), "vocab_size": vocab_size}
        # A 1.5 GB address-space limit per process: loading the 1 GB file (bytes, then str) could
        # not fit, so passing proves streaming.
        result = run_child(spec, memory_limit=int(1.5 * 2**30))
        result["size_mb"] = size
        results.append(result)
        log(
            f"  {size:5d} MB  {result['seconds']:8.1f} s  {result['seconds'] / size:6.3f} s/MB  "
            f"CPU {result['cpu_seconds'] / size:6.3f} s/MB  peak {result['peak_rss'] / MB:7.1f} MB  "
            f"unique pre-tokens {result['unique_pretokens']:,}"
        )
    return results


# ------------------------------------------------------------------------------------------------
# report


def render_rounds(repeats: int, log=print) -> list[dict]:
    """Server time of the Tokenize page's work for 20,000 characters and three tokenizers: per-token
    detail (``encode_with_details``) plus the escaped HTML spans, with fresh encoding caches each round
    (a first render). Compared with tiktoken encoding the same text with the same three vocabularies
    (GPT-2, cl100k and the trained one through ``to_tiktoken``) in the same run."""
    import warnings

    warnings.filterwarnings("ignore")
    root = Path(__file__).resolve().parents[1]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    import bpe_core
    from bpe_core import serialization
    from bpe_core.samples import load_samples
    from pages import _common as ui

    trained = bpe_core.train([s.text for s in load_samples()], 756, min_frequency=2)
    base = [trained, bpe_core.gpt2()] + ([bpe_core.cl100k()] if bpe_core.cl100k_available() else [])
    texts = {"multilingual": multilingual_text(20_000), "code": "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in stdlib_sources()[:40])[:20_000]}
    results = []
    for label, text in texts.items():
        for round_ in range(repeats):
            fresh = [serialization.loads(serialization.dumps(t)) for t in base]
            encodings = [t.to_tiktoken() for t in base]
            started = time.perf_counter()
            html_bytes = 0
            for tok in fresh:
                infos = tok.encode_with_details(text, allowed_special="all")
                html_bytes += len(ui.render_tokens_html(text, infos, rank_of=tok.merge_rank_of))
            ours = time.perf_counter() - started
            started = time.perf_counter()
            for enc in encodings:
                enc.encode(text, allowed_special="all")
            reference = time.perf_counter() - started
            results.append({"text": label, "round": round_, "seconds": ours, "tiktoken_seconds": reference,
                            "tokenizers": len(fresh), "html_bytes": html_bytes})
            log(f"  render {label} round {round_ + 1}: {ours:.3f} s for {len(fresh)} tokenizers "
                f"(tiktoken encode only: {reference:.3f} s), {html_bytes / MB:.1f} MB of HTML")
    return results


def _fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def training_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| corpus, vocab | tool | time (median) | bpe_core / tool (median of rounds) | peak RSS (tree) "
        "| peak vs bpe_core | held-out chars/token | merges |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        for tool in rounds.runs:
            peak = rounds.median(tool, "peak_rss")
            cpt = statistics.median(r["heldout_chars"] / r["heldout_tokens"] for r in rounds.runs[tool])
            ratio = "" if tool == "bpe_core" else _fmt_ratio(rounds.ratio("bpe_core", tool))
            ours = rounds.median("bpe_core", "peak_rss")
            mem = "" if tool == "bpe_core" or ours is None else f"{ours / peak:.2f}x"
            lines.append(
                f"| {rounds.label} | {tool} | {rounds.median(tool, 'seconds'):.2f} s | {ratio} "
                f"| {peak / MB:.0f} MB | {mem} | {cpt:.3f} | {int(rounds.median(tool, 'merges'))} |"
            )
    return "\n".join(lines)


def encoding_table(all_rounds: list[Rounds]) -> str:
    lines = [
        "| text | tool | cold MB/s | warm MB/s | bpe_core / tiktoken throughput, cold | warm | same ids |",
        "|---|---|---|---|---|---|---|",
    ]
    for rounds in all_rounds:
        same = len({r["ids_sha256"] for runs in rounds.runs.values() for r in runs}) == 1
        for tool in rounds.runs:
            cold = statistics.median(r["bytes"] / r["cold_seconds"] for r in rounds.runs[tool]) / MB
            warm = statistics.median(r["bytes"] / r["warm_seconds"] for r in rounds.runs[tool]) / MB
            if tool == "bpe_core" and "tiktoken" in rounds.runs:
                # throughput ratio = time ratio inverted, per round
                cold_ratio = 1 / rounds.ratio("bpe_core", "tiktoken", "cold_seconds")
                warm_ratio = 1 / rounds.ratio("bpe_core", "tiktoken", "warm_seconds")
                extra = f"{cold_ratio:.2f}x | {warm_ratio:.2f}x | {'yes' if same else 'NO'}"
            else:
                extra = " | | "
            lines.append(f"| {rounds.label} | {tool} | {cold:.2f} | {warm:.2f} | {extra} |")
    return "\n".join(lines)


def targets_summary(train: list[Rounds], encode: list[Rounds], big: list[dict]) -> str:
    out = []

    def check(name, ok, detail):
        out.append(f"- {'PASS' if ok else 'FAIL'}: {name}: {detail}")

    for rounds in train:
        if "hf" not in rounds.runs or "bpe_core" not in rounds.runs:
            continue
        ratio = rounds.ratio("bpe_core", "hf")
        vocab = int(rounds.label.rsplit(" ", 1)[1])
        limit = 1.0 if vocab <= 8192 else 1.5
        extra = ""
        if "rustbpe" in rounds.runs:
            extra = f"; vs rustbpe {_fmt_ratio(rounds.ratio('bpe_core', 'rustbpe'))}"
        check(f"training time {rounds.label} <= {limit}x HF", ratio <= limit, f"{ratio:.2f}x{extra}")
        mem = rounds.median("bpe_core", "peak_rss") / rounds.median("hf", "peak_rss")
        check(f"peak memory {rounds.label} <= 2x HF", mem <= 2, f"{mem:.2f}x")
        ours = rounds.median("bpe_core", "heldout_chars") / rounds.median("bpe_core", "heldout_tokens")
        theirs = rounds.median("hf", "heldout_chars") / rounds.median("hf", "heldout_tokens")
        delta = ours / theirs - 1
        check(f"held-out chars/token {rounds.label} within 1% of HF", abs(delta) <= 0.01, f"{delta:+.2%}")
    for rounds in encode:
        if "tiktoken" not in rounds.runs or "bpe_core" not in rounds.runs:
            continue
        cold = 1 / rounds.ratio("bpe_core", "tiktoken", "cold_seconds")
        warm = 1 / rounds.ratio("bpe_core", "tiktoken", "warm_seconds")
        same = len({r["ids_sha256"] for runs in rounds.runs.values() for r in runs}) == 1
        check(
            f"encode_ordinary throughput on {rounds.label} >= 0.5x tiktoken, same ids",
            cold >= 0.5 and same,
            f"cold {cold:.2f}x, warm {warm:.2f}x, ids {'identical' if same else 'DIFFER'}",
        )
    if big:
        peak = max(r["peak_rss"] for r in big)
        check("train_files peak memory < 1.5 GB", peak < 1.5 * 2**30, f"{peak / MB:.0f} MB")
        per_mb = [r["cpu_seconds"] / r["size_mb"] for r in big]
        spread = max(per_mb) / min(per_mb)
        check(
            "train_files time linear in size (CPU s/MB within 1.25x across sizes; wall time follows the load)",
            spread <= 1.25,
            ", ".join(
                f"{r['size_mb']} MB: {r['cpu_seconds'] / r['size_mb']:.3f} CPU s/MB, {r['seconds'] / r['size_mb']:.3f} wall s/MB"
                for r in big
            ),
        )
    return "\n".join(out)


def _versions() -> str:
    parts = [f"Python {platform.python_version()}", f"{os.cpu_count()} CPUs"]
    for module in ("tokenizers", "tiktoken", "rustbpe", "regex"):
        try:
            from importlib.metadata import version

            parts.append(f"{module} {version(module)}")
        except Exception:
            pass
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small data, one round (CI smoke run)")
    parser.add_argument("--big", action="store_true", help="also the larger-than-memory train_files case")
    parser.add_argument("--big-sizes", default="100,250,1000", help="sizes in MB for --big")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per scenario (default 3; 1 with --quick)")
    parser.add_argument("--vocab", default=None, help="vocab sizes, comma separated (default 8192,32768)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where corpora are prepared")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-encode", action="store_true")
    parser.add_argument("--skip-render", action="store_true", help="skip the Tokenize page render timing")
    parser.add_argument("--skip-batch", action="store_true", help="skip batch encoding in worker processes")
    parser.add_argument("--json", type=Path, help="also write all results as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        spec = json.loads(args.child)
        result = CHILD_TASKS[spec["task"]](spec)
        result["own_peak_rss"] = _own_peak_rss()
        sys.stdout.write(json.dumps(result) + "\n")
        return 0

    repeats = args.repeats or (1 if args.quick else 3)
    vocabs = [int(v) for v in (args.vocab or ("2048" if args.quick else "8192,32768")).split(",")]
    data = args.data / ("quick" if args.quick else "full")
    log = print
    log(f"# bpe_core benchmark ({'quick' if args.quick else 'full'}): {_versions()}")
    log(f"load average at start: {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")

    limit = 1_000_000 if args.quick else None
    corpora = [prepare_stdlib(data, limit)]
    shakespeare = prepare_shakespeare(data, 300_000 if args.quick else None)
    if shakespeare is None:
        log(f"({SHAKESPEARE} not found: the tinyshakespeare corpus is skipped)")
    else:
        corpora.append(shakespeare)
    for corpus in corpora:
        log(
            f"corpus {corpus.name}: {corpus.documents} documents, {corpus.train_bytes / MB:.1f} MB training, "
            f"{corpus.heldout_chars / MB:.2f} M characters held out"
        )

    train_results: list[Rounds] = []
    if not args.skip_train:
        tools = available_tools(TRAIN_TOOLS)
        for corpus in corpora:
            for vocab in vocabs if corpus.name == "stdlib" else vocabs[:1]:
                log(f"\n## training: {corpus.name}, vocab {vocab}, min_frequency 2")
                train_results.append(train_rounds(corpus, vocab, tools, repeats, log))

    encode_results: list[Rounds] = []
    if not args.skip_encode:
        tools = available_tools(ENCODE_TOOLS)
        size = 200_000 if args.quick else 1_000_000
        whole = data / "stdlib.train.txt"
        whole.write_text("".join(json.loads(corpora[0].train_path.read_text(encoding="utf-8"))), encoding="utf-8")
        texts = [
            (f"code: stdlib training text, {corpora[0].train_bytes / MB:.0f} MB in one call", whole),
            ("code: held-out stdlib", corpora[0].heldout_path),
        ]
        multi = data / "multilingual.txt"
        multi.write_text(multilingual_text(size), encoding="utf-8")
        texts.append(("multilingual", multi))
        from bpe_core.samples import load_samples

        once = data / "multilingual-once.txt"
        once.write_text(
            "\n".join(sample.text for sample in load_samples("natural")), encoding="utf-8"
        )
        texts.append(("multilingual passages once (19 k characters, all new)", once))
        rnd = data / "multilingual-random.txt"
        rnd.write_text(random_multilingual_text(size // 2), encoding="utf-8")
        texts.append(("random multilingual words", rnd))
        if shakespeare is not None:
            texts.append(("tinyshakespeare held-out", shakespeare.heldout_path))
        for label, path in texts:
            log(f"\n## encode_ordinary, GPT-2 merges, single thread: {label}")
            encode_results.append(encode_rounds(label, path, tools, repeats, log))
        import bpe_core

        if bpe_core.cl100k_available():
            label = "code: held-out stdlib, cl100k merges (not a target)"
            log(f"\n## encode_ordinary, single thread: {label}")
            encode_results.append(
                encode_rounds(label, corpora[0].heldout_path, tools, repeats, log, vocabulary="cl100k")
            )

    batch_result: Rounds | None = None
    if not args.skip_batch and not args.skip_encode:
        log("\n## encode_ordinary_batch on the stdlib training documents, cold: one and all CPUs")
        batch_result = batch_rounds(corpora[0].train_path, repeats, log)

    render_results: list[dict] = []
    if not args.skip_render:
        log("\n## Tokenize page: 20,000 characters x 3 tokenizers (details + HTML spans), first render")
        render_results = render_rounds(repeats, log)

    big_results: list[dict] = []
    if args.big:
        sizes = [int(s) for s in args.big_sizes.split(",")]
        log(f"\n## train_files on generated files (vocab 8192), sizes {sizes} MB")
        big_results = big_runs(args.data / "big", sizes, 8192, log)

    log(f"\nload average at end: {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")
    if train_results:
        log("\n### Training\n")
        log(training_table(train_results))
    if encode_results:
        log("\n### Encoding\n")
        log(encoding_table(encode_results))
    if batch_result is not None:
        log("\n### Batch encoding\n")
        log(batch_table(batch_result))
    if big_results:
        log("\n### Larger than memory (train_files, bpe_core)\n")
        log(
            "| size | wall time | wall s/MB | CPU s/MB (all processes) | peak RSS (tree) | unique pre-tokens |"
            "\n|---|---|---|---|---|---|"
        )
        for r in big_results:
            log(
                f"| {r['size_mb']} MB | {r['seconds']:.1f} s | {r['seconds'] / r['size_mb']:.3f} "
                f"| {r['cpu_seconds'] / r['size_mb']:.3f} | {r['peak_rss'] / MB:.0f} MB | {r['unique_pretokens']:,} |"
            )
    if render_results:
        log("\n### Tokenize page render (issue 4: under a second of server time)\n")
        for label in sorted({r["text"] for r in render_results}):
            runs = [r for r in render_results if r["text"] == label]
            median = statistics.median(r["seconds"] for r in runs)
            ratio = statistics.median(r["seconds"] / r["tiktoken_seconds"] for r in runs)
            verdict = "PASS" if median < 1.0 else "FAIL"
            log(f"- {verdict}: {label}: median {median:.3f} s for {runs[0]['tokenizers']} tokenizers "
                f"({ratio:.1f}x tiktoken's plain encoding of the same text)")
    log("\n### Targets (issue 3)\n")
    log(targets_summary(train_results, encode_results, big_results))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "train": [{"label": r.label, "runs": r.runs} for r in train_results],
                    "encode": [{"label": r.label, "runs": r.runs} for r in encode_results],
                    "big": big_results,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
