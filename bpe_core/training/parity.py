"""Parity-aware BPE training (Foroutan et al. 2025, "Parity-Aware Byte-Pair Encoding: Improving
Cross-lingual Fairness in Tokenization"): each merge serves the language that is worst compressed now.

Training text comes per language, with a parallel development text per language (the same content in
each, e.g. the same sentences translated). At each step the language whose development text needs the
most tokens under the merges so far is served: the merge is its most frequent pair in its own training
text, and it applies to every language. Variants (``variant``, ``global_merges``):

- ``"base"``: always serve the worst-compressed language (ties: the first in the order given);
- ``"window"`` (moving-window balancing): serve the worst-compressed language that has been served at
  most ``alpha * window / n`` times in the last ``window`` parity merges (n languages); the worst one
  if none qualifies;
- hybrid, with either variant: the first ``global_merges`` merges are standard BPE's (the most
  frequent pair over all training text); ``global_merges`` >= the number of merges is standard BPE,
  merge for merge.

The rest is standard training's (docs/library/training.md, "Training rules"): ids, special tokens (cut out of training
and development text), pre-tokenization, tie rules (the ``first`` rule's order is the training texts'
in the order the languages are given), the no-duplicate-tokens rule and determinism. ``min_frequency``
applies to the count in the language served: a language without a pair that frequent is exhausted and
the next worst is served; training stops when every language is exhausted (the reference code stops
at the first exhausted language). Development token counts are kept up to date by each merge (every
word holds its counts in the training and the development text of each language), never by
re-encoding. ``tokenizer.training["parity"]`` records which language each merge served.

This module does not measure or compare tokenizers (``parity_report`` does).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import CorpusStats, count_words
from bpe_core.training.merge_core import STOP_VOCAB_SIZE
from bpe_core.training.merge_loop import MAX_VOCAB_SIZE, ProgressCallback
from bpe_core.training.parity_loop import ParityLoop, WordTable, word_table
from bpe_core.training.tie_rules import TIE_BREAKS, TieBreak

Variant = Literal["base", "window"]
VARIANTS = ("base", "window")
#: The ``merge_language`` entry of a merge made by global frequency (the hybrid's first merges).
GLOBAL = -1


def _documents(texts: str | Iterable[str], what: str) -> Iterable[str]:
    if isinstance(texts, str):
        return [texts]
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError(f"{what} must be str, not bytes: decode it first (e.g. data.decode('utf-8'))")
    return texts


def _check_languages(texts: Mapping[str, object], dev: Mapping[str, object]) -> list[str]:
    for name, given in (("texts", texts), ("dev", dev)):
        if not isinstance(given, Mapping):
            raise TypeError(f"{name} must map each language to its text (a dict), not {type(given).__name__}")
    languages = list(texts)
    if not languages:
        raise BpeError("texts is empty: give the training text of at least one language")
    missing = [label for label in languages if label not in dev]
    extra = [label for label in dev if label not in texts]
    if missing or extra:
        parts = [f"no development text for {', '.join(map(str, missing))}"] if missing else []
        parts += [f"development text for {', '.join(map(str, extra))} but no training text"] if extra else []
        raise BpeError("texts and dev must name the same languages: " + "; ".join(parts))
    return languages


def _check_settings(vocab_size, min_frequency, tie_break, variant, global_merges, window, alpha) -> None:
    """Settings other than special tokens, with the messages of standard training's checks."""
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an integer, not {type(vocab_size).__name__}")
    if vocab_size > MAX_VOCAB_SIZE:
        raise BpeError(f"vocab_size={vocab_size:,} is too large: bpe_core trains at most {MAX_VOCAB_SIZE:,} ids")
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
        raise BpeError(f"min_frequency must be a non-negative integer, got {min_frequency!r}")
    if tie_break not in TIE_BREAKS:
        raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    if variant not in VARIANTS:
        raise BpeError(f"variant must be one of {VARIANTS}, got {variant!r}")
    for name, value in (("global_merges", global_merges), ("window", window)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if name == "global_merges" else 1):
            raise BpeError(f"{name} must be an integer of at least {0 if name == 'global_merges' else 1}, got {value!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < float("inf"):
        raise BpeError(f"alpha must be a positive number (the window's share per language, 2 in the paper), got {alpha!r}")


def _check_specials(special_tokens: Sequence[str], vocab_size: int) -> tuple[str, ...]:
    specials = validate_special_tokens(special_tokens)
    if vocab_size < 256 + len(specials):
        raise BpeError(
            f"vocab_size={vocab_size} is too small: it counts the 256 byte tokens and the "
            f"{len(specials)} special token(s), so it must be at least {256 + len(specials)}"
        )
    return specials


def _count_languages(languages, texts, dev, pretokenizer, specials, workers, progress):
    """Pre-token counts of each language's training and development text."""
    train_counts, dev_counts = [], []
    total = 2 * len(languages)
    if progress:
        progress("count", 0, total)
    for step, label in enumerate(languages):
        train_counts.append(count_words(_documents(texts[label], f"the training text of {label}"),
                                        pretokenizer=pretokenizer, special_tokens=specials, workers=workers))
        dev_counts.append(count_words(_documents(dev[label], f"the development text of {label}"),
                                      pretokenizer=pretokenizer, special_tokens=specials, workers=workers))
        if not dev_counts[-1].counts:
            raise BpeError(f"the development text of {label} is empty: parity needs its token count")
        if progress:
            progress("count", 2 * step + 2, total)
    return train_counts, dev_counts


class _Chooser:
    """Which language the next merge serves: the one with the most development tokens among those not
    exhausted; with a window, among those served at most alpha * window / n times lately."""

    def __init__(self, n: int, variant: str, window: int, alpha: float) -> None:
        self.n, self.variant, self.window, self.alpha = n, variant, window, alpha
        self.exhausted = [False] * n
        self.recent: deque[int] = deque()
        self.served = [0] * n  # times served in ``recent``

    def pick(self, dev_tokens: list[int]) -> int | None:
        order = sorted((l for l in range(self.n) if not self.exhausted[l]), key=lambda l: (-dev_tokens[l], l))
        if not order or self.variant == "base":
            return order[0] if order else None
        limit = self.alpha * self.window / self.n
        return next((l for l in order if self.served[l] <= limit), order[0])

    def record(self, language: int) -> None:
        if self.variant != "window":
            return
        self.recent.append(language)
        self.served[language] += 1
        if len(self.recent) > self.window:
            self.served[self.recent.popleft()] -= 1


def train_parity(
    texts: Mapping[str, str | Iterable[str]],
    dev: Mapping[str, str | Iterable[str]],
    vocab_size: int,
    *,
    variant: Variant = "base",
    global_merges: int = 0,
    window: int = 100,
    alpha: float = 2.0,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "parity-aware",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer whose merges each serve the worst-compressed language.

    ``texts`` maps each language (any label, e.g. ``"eng"``) to its training text: one ``str`` or an
    iterable of documents. ``dev`` maps the same languages to a parallel development text (the same
    content in each language), whose token counts decide which language is worst compressed; it may
    be the training text itself when that is parallel. ``variant``, ``global_merges`` (hybrid),
    ``window`` and ``alpha`` are described in the module docstring; the other keywords are ``train``'s.

    >>> tok = train_parity({"a": "aa aa aa", "b": "bc bc"}, {"a": "aa", "b": "bcbc"}, 258, min_frequency=1)
    >>> tok.merges, tok.training["parity"]["merge_language"]
    ([(b'b', b'c'), (b'a', b'a')], [1, 0])
    """
    started = time.perf_counter()
    _check_settings(vocab_size, min_frequency, tie_break, variant, global_merges, window, alpha)
    specials = _check_specials(special_tokens, vocab_size)
    workers = check_workers(workers)
    languages = _check_languages(texts, dev)
    pretokenizer = PreTokenizer.build(pattern)
    train_counts, dev_counts = _count_languages(languages, texts, dev, pretokenizer, specials, workers, progress)
    token_bytes = {i: bytes([i]) for i in range(256)}
    token_bytes.update({256 + offset: token.encode("utf-8") for offset, token in enumerate(specials)})
    first_id = 256 + len(specials)
    n = len(languages)
    table = word_table(train_counts, dev_counts)
    loop = ParityLoop(table, n, token_bytes, min_frequency=min_frequency, tie_break=tie_break,
                      use_global=global_merges > 0)
    dev_before = list(loop.dev_tokens)
    chooser = _Chooser(n, variant, window, alpha)
    made, stop_reason = _learn(loop, chooser, first_id, vocab_size - first_id, global_merges, progress)
    settings = {
        "vocab_size": vocab_size, "min_frequency": min_frequency,
        "pattern": preset_name(pretokenizer.source) or pretokenizer.source, "special_tokens": list(specials),
        "tie_break": tie_break, "objective": "parity", "variant": variant, "global_merges": global_merges,
        "window": window, "alpha": alpha, "languages": [str(label) for label in languages],
    }  # fmt: skip
    training = _record(settings, train_counts, table, made, stop_reason, started)
    training["parity"].update(dev_tokens_before=dev_before, dev_tokens_after=list(loop.dev_tokens),
                              exhausted=[l for l, done in zip(settings["languages"], chooser.exhausted) if done])
    return Tokenizer(
        dict(token_bytes),
        [(token_bytes[m[0]], token_bytes[m[1]]) for m in made],
        special_tokens={token: 256 + offset for offset, token in enumerate(specials)},
        pattern=pattern,
        name=name,
        merge_counts=[m[2] for m in made],
        training=training,
    )


def _record(settings: dict, train_counts: list, table: WordTable, made: list, stop_reason: str, started: float) -> dict:
    """The ``Tokenizer.training`` metadata: standard training's keys, and ``parity``."""
    stats = CorpusStats()
    for counts in train_counts:
        stats.add(counts.stats)
    return {
        "settings": settings,
        "corpus": {"documents": stats.documents, "characters": stats.characters, "bytes": table.train_bytes,
                   "pretokens": stats.pretokens, "unique_pretokens": sum(1 for w in table.train if w),
                   "special_tokens_cut": stats.special_tokens_cut},
        "stop_reason": stop_reason,
        "merges_learned": len(made),
        "tokens_after_merge": [m[4] for m in made],
        "seconds": round(time.perf_counter() - started, 3),
        "parity": {"languages": settings["languages"], "merge_language": [m[3] for m in made]},
    }  # fmt: skip


def _learn(loop: ParityLoop, chooser: _Chooser, next_id: int, num_merges: int, global_merges: int,
           progress: ProgressCallback | None) -> tuple[list[tuple[int, int, int, int, int]], str]:
    """Run up to ``num_merges`` merges; each is (left id, right id, count in all training text,
    language served or GLOBAL, training tokens after). Returns them and why training stopped."""
    made: list[tuple[int, int, int, int, int]] = []
    report_every = max(1, num_merges // 100)
    if progress:
        progress("merge", 0, num_merges)
    while len(made) < num_merges:
        if len(made) < global_merges:
            language = loop.n
            best = loop.best(language)
        else:
            loop.end_global()
            language = chooser.pick(loop.dev_tokens)
            best = None if language is None else loop.best(language)
            if language is not None and best is None:
                chooser.exhausted[language] = True  # nothing frequent enough left, ever: counts only fall
                continue
        if best is None:
            return made, loop.stop_reason()
        pair = best[0]
        count = loop.count_of(pair)
        loop.merge(pair, next_id)
        made.append((ord(pair[0]), ord(pair[1]), count, GLOBAL if language == loop.n else language,
                     loop.train_tokens))
        if language < loop.n:
            chooser.record(language)
        next_id += 1
        if progress and (len(made) % report_every == 0 or len(made) == num_merges):
            progress("merge", len(made), num_merges)
    return made, STOP_VOCAB_SIZE
