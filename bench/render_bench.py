"""The library's share of the Tokenize page's work: per-token detail for 20,000 characters and three
tokenizers, against tiktoken encoding the same text with the same three vocabularies.

For each text (multilingual and stdlib code) and round, every tokenizer (one trained on the built-in
samples, GPT-2 and cl100k when available) is rebuilt from bpe_core's JSON (``formats.loads`` of
``formats.dumps``) so its encoding caches are empty, as on a first render; then
``encode_with_details`` runs on the text and ``merge_rank_of`` is asked for every token, which is
what the page needs to colour the tokens. tiktoken encodes the same text with each vocabulary
(through ``to_tiktoken``) in the same round; the report gives bpe_core's time and its ratio to
tiktoken's.

What it does not measure: HTML rendering and escaping, which are the app's (``pages/``), nor
Streamlit's own time; earlier versions of this benchmark timed the app's HTML spans too. It runs in
this process, not in a child.
"""

from __future__ import annotations

import statistics
import time

from bench.corpora import multilingual_text, stdlib_sources
from bpe_core.pretrained import catalogue

RENDER_CHARS = 20_000


def _tokenizers() -> list:
    """A tokenizer trained on the built-in samples, GPT-2 and (when its data is there) cl100k."""
    import bpe_core
    from bpe_core.corpora.samples import load_samples

    trained = bpe_core.train([s.text for s in load_samples()], 756, min_frequency=2)
    return [trained, bpe_core.load("gpt2")] + ([bpe_core.load("cl100k")] if catalogue.is_installed("cl100k") else [])


def _texts() -> dict[str, str]:
    code = "".join(p.read_text(encoding="utf-8", errors="replace") for p in stdlib_sources()[:40])
    return {"multilingual": multilingual_text(RENDER_CHARS), "code": code[:RENDER_CHARS]}


def _details_seconds(tokenizers: list, text: str) -> tuple[float, int]:
    """Seconds for ``encode_with_details`` plus a merge rank per token, and the tokens counted."""
    started = time.perf_counter()
    tokens = 0
    for tok in tokenizers:
        infos = tok.encode_with_details(text, allowed_special="all")
        ranks = [None if info.special else tok.merge_rank_of(info.id) for info in infos]
        tokens += len(ranks)
    return time.perf_counter() - started, tokens


def render_rounds(repeats: int, log=print) -> list[dict]:
    """``repeats`` rounds per text of the per-token detail for all tokenizers, fresh caches each
    round, and of tiktoken's plain encoding of the same text; one result per text and round."""
    from bpe_core.tokenizer import Tokenizer

    base = _tokenizers()
    results = []
    for label, text in _texts().items():
        for round_ in range(repeats):
            fresh = [Tokenizer.from_json(t.to_json()) for t in base]
            encodings = [t.to_tiktoken() for t in base]
            ours, tokens = _details_seconds(fresh, text)
            started = time.perf_counter()
            for enc in encodings:
                enc.encode(text, allowed_special="all")
            reference = time.perf_counter() - started
            results.append(
                {
                    "text": label,
                    "round": round_,
                    "seconds": ours,
                    "tiktoken_seconds": reference,
                    "tokenizers": len(fresh),
                    "tokens": tokens,
                }
            )
            log(
                f"  render {label} round {round_ + 1}: {ours:.3f} s for {len(fresh)} tokenizers "
                f"(tiktoken encode only: {reference:.3f} s), {tokens:,} tokens"
            )
    return results


def render_report(results: list[dict]) -> str:
    """One PASS/FAIL line per text: the target, a second for the library's share."""
    lines = []
    for label in sorted({r["text"] for r in results}):
        runs = [r for r in results if r["text"] == label]
        median = statistics.median(r["seconds"] for r in runs)
        ratio = statistics.median(r["seconds"] / r["tiktoken_seconds"] for r in runs)
        lines.append(
            f"- {'PASS' if median < 1.0 else 'FAIL'}: {label}: median {median:.3f} s for {runs[0]['tokenizers']} "
            f"tokenizers ({ratio:.1f}x tiktoken's plain encoding of the same text)"
        )
    return "\n".join(lines)
