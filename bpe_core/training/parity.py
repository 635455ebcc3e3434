"""Parity-aware BPE training (Foroutan et al. 2025, "Parity-Aware Byte-Pair Encoding: Improving
Cross-lingual Fairness in Tokenization"): each merge serves the language that is worst compressed now.

Training text comes per language, with either a parallel development text per language (the same
content in each, e.g. the same sentences translated) or a target compression rate per language
(``ratio``). At each step the worst-compressed language is served: the one whose development text
needs the most tokens under the merges so far, or the one whose training text is compressed least
relative to its target (tokens at the start / tokens now, divided by the target: rates are in
pre-token units, bytes with a byte-level pattern, so equal targets do not mean equal token counts
across scripts). The merge is that language's most frequent pair in its own training text, and it
applies to every language. Variants (``variant``, ``global_merges``):

- ``"base"``: always serve the worst-compressed language (ties: the first in the order given);
- ``"window"`` (moving-window balancing): serve the worst-compressed language picked at most
  ``alpha / n`` of the last ``window`` picks (n languages); the best compressed if none qualifies;
- hybrid, with either variant: the first ``global_merges`` merges are standard BPE's (the most
  frequent pair over all training text); ``global_merges`` >= the number of merges is standard BPE,
  merge for merge.

Where Hugging Face's ParityBpeTrainer and the paper's code differ (exhausted languages, the window's
bookkeeping), ``convention`` picks one: ``parity_choice`` says how. The rest is standard training's
(docs/library/training.md, "Training rules"): ids, special tokens (cut out of training and
development text), pre-tokenization, tie rules (``huggingface`` is ParityBpeTrainer's rule here, the
greatest pair of byte-level strings: ``tie_rules``; the ``first`` rule's order is the training texts'
in the order the languages are given), the no-duplicate-tokens rule and determinism. ``min_frequency``
applies to the count in the language served: a language without a pair that frequent is exhausted.
Development token counts are kept up to date by each merge (every word holds its counts in the
training and the development text of each language), never by re-encoding; with target rates the
training text's counts serve as the development text's. ``tokenizer.training["parity"]`` records
which language each merge served.

This module does not measure or compare tokenizers (``parity_report``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import CorpusStats, WordCounts, count_words
from bpe_core.training.engine import MAX_VOCAB_SIZE, MergeRun, ProgressCallback, paused_collector
from bpe_core.training.parity_choice import CONVENTIONS, Chooser, Convention, ratio_standing
from bpe_core.training.parity_policy import GLOBAL, STOP_LANGUAGE_EXHAUSTED, ParityPolicy, WordTable, word_table
from bpe_core.training.tie_rules import TIE_BREAKS, TieBreak, parity_rule

Variant = Literal["base", "window"]
VARIANTS = ("base", "window")
__all__ = ["GLOBAL", "STOP_LANGUAGE_EXHAUSTED", "byte_ratios", "parse_ratio", "train_parity"]


def _documents(texts: str | Iterable[str], what: str) -> Iterable[str]:
    if isinstance(texts, str):
        return [texts]
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError(f"{what} must be str, not bytes: decode it first (e.g. data.decode('utf-8'))")
    return texts


def _check_languages(texts: Mapping[str, object], dev: Mapping[str, object] | None, ratio: object) -> list[str]:
    if not isinstance(texts, Mapping):
        raise TypeError(f"texts must map each language to its text (a dict), not {type(texts).__name__}")
    if dev is None and ratio is None:
        raise BpeError(
            "give dev (a parallel development text per language; the training text itself if that "
            "is parallel) or ratio (a target compression rate per language)"
        )
    if dev is not None and ratio is not None:
        raise BpeError(
            "give dev or ratio, not both: the development text and target rates are two ways to "
            "decide which language is worst compressed"
        )
    given = dev if dev is not None else ratio
    name = "dev" if dev is not None else "ratio"
    if not isinstance(given, Mapping):
        what = "its text" if name == "dev" else "its target rate"
        raise TypeError(f"{name} must map each language to {what} (a dict), not {type(given).__name__}")
    languages = list(texts)
    if not languages:
        raise BpeError("texts is empty: give the training text of at least one language")
    missing = [label for label in languages if label not in given]
    extra = [label for label in given if label not in texts]
    if missing or extra:
        what = "development text" if name == "dev" else "target rate"
        parts = [f"no {what} for {', '.join(map(str, missing))}"] if missing else []
        parts += [f"{what} for {', '.join(map(str, extra))} but no training text"] if extra else []
        raise BpeError(f"texts and {name} must name the same languages: " + "; ".join(parts))
    return languages


def _check_ratio(ratio: Mapping[str, object], languages: list[str]) -> list[float]:
    values = []
    for label in languages:
        value = ratio[label]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
            raise BpeError(
                f"ratio for {label} must be a positive number (a target compression rate, e.g. 1.0 "
                f"for one language and 2.5 for one that needs 2.5 times the bytes), got {value!r}"
            )
        values.append(float(value))
    return values


def _check_settings(
    vocab_size: object,
    min_frequency: object,
    tie_break: object,
    variant: object,
    global_merges: object,
    window: object,
    alpha: object,
    convention: object,
) -> None:
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
    if convention not in CONVENTIONS:
        raise BpeError(
            f"convention must be one of {CONVENTIONS} (whose implementation to follow where "
            f"they differ), got {convention!r}"
        )
    for name, value, least in (("global_merges", global_merges, 0), ("window", window, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise BpeError(f"{name} must be an integer of at least {least}, got {value!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < math.inf:
        raise BpeError(
            f"alpha must be a positive number (the window's share per language, 2 in the paper), got {alpha!r}"
        )


def _check_specials(special_tokens: Sequence[str], vocab_size: int) -> tuple[str, ...]:
    specials = validate_special_tokens(special_tokens)
    if vocab_size < 256 + len(specials):
        raise BpeError(
            f"vocab_size={vocab_size} is too small: it counts the 256 byte tokens and the "
            f"{len(specials)} special token(s), so it must be at least {256 + len(specials)}"
        )
    return specials


def byte_ratios(texts: Mapping[str, str | Iterable[str]]) -> dict[str, float]:
    """Target rates that ask every language for the same token count on parallel text: each
    language's UTF-8 bytes of training text over the first language's (rates are bytes per token).

    >>> byte_ratios({"eng": ["Hello."], "hin": ["नमस्ते।"]})
    {'eng': 1.0, 'hin': 3.5}
    """
    sizes = {
        label: sum(len(doc.encode("utf-8", "replace")) for doc in _documents(text, f"the text of {label}"))
        for label, text in texts.items()
    }
    empty = [str(label) for label, size in sizes.items() if not size]
    if not sizes or empty:
        raise BpeError(f"no training text for {', '.join(empty) or 'any language'}: rates by bytes need some")
    first = next(iter(sizes.values()))
    return {label: size / first for label, size in sizes.items()}


def parse_ratio(spec: str, texts: Mapping[str, str | Iterable[str]]) -> dict[str, float]:
    """Target rates from a line of text: ``bytes`` (``byte_ratios``), ``equal`` (1.0 each: equal
    bytes per token, so scripts that need more bytes get more tokens), or ``LANG=RATE`` for every
    language, separated by commas.

    >>> parse_ratio("eng=1, hin=2.5", {"eng": "a", "hin": "b"})
    {'eng': 1.0, 'hin': 2.5}
    """
    spec = spec.strip()
    if spec == "bytes":
        return byte_ratios(texts)
    if spec == "equal":
        return {label: 1.0 for label in texts}
    rates: dict[str, float] = {}
    for part in filter(None, (piece.strip() for piece in spec.split(","))):
        label, _, value = (piece.strip() for piece in part.partition("="))
        try:
            rates[label] = float(value)
        except ValueError:
            raise BpeError(
                f"cannot read the target rate {part!r}: write LANG=RATE for every language, e.g. "
                "eng=1.0, hin=2.5 (or bytes, or equal)"
            ) from None
    missing = [str(label) for label in texts if label not in rates]
    unknown = [label for label in rates if label not in texts]
    if missing or unknown:
        found = [f"none for {', '.join(missing)}"] if missing else []
        found += [f"{', '.join(unknown)} unknown"] if unknown else []
        raise BpeError(f"give a target rate for every language and no other ({'; '.join(found)})")
    return rates


def _count_languages(
    languages: list[str],
    texts: Mapping[str, str | Iterable[str]],
    dev: Mapping[str, str | Iterable[str]] | None,
    pretokenizer: PreTokenizer,
    specials: tuple[str, ...],
    workers: int | None,
    progress: ProgressCallback | None,
) -> tuple[list[WordCounts], list[WordCounts]]:
    """Pre-token counts of each language's training and development text (the training counts
    again when there is no development text, since target rates are measured on the training text,
    and when the development text is the training text itself)."""
    train_counts: list[WordCounts] = []
    dev_counts: list[WordCounts] = []
    total = (2 if dev is not None else 1) * len(languages)
    if progress:
        progress("count", 0, total)

    def count(text: str | Iterable[str], what: str) -> WordCounts:
        return count_words(_documents(text, what), pretokenizer=pretokenizer, special_tokens=specials, workers=workers)

    for step, label in enumerate(languages):
        train_counts.append(count(texts[label], f"the training text of {label}"))
        if dev is None:
            if not train_counts[-1].counts:
                raise BpeError(f"the training text of {label} is empty: a target rate needs its token count")
            dev_counts.append(train_counts[-1])
        else:  # the training text as development text is counted once
            same = dev[label] is texts[label]
            dev_counts.append(train_counts[-1] if same else count(dev[label], f"the development text of {label}"))
            if not dev_counts[-1].counts:
                raise BpeError(f"the development text of {label} is empty: parity needs its token count")
        if progress:
            progress("count", (step + 1) * total // len(languages), total)
    return train_counts, dev_counts


def train_parity(
    texts: Mapping[str, str | Iterable[str]],
    dev: Mapping[str, str | Iterable[str]] | None,
    vocab_size: int,
    *,
    ratio: Mapping[str, float] | None = None,
    variant: Variant = "base",
    global_merges: int = 0,
    window: int = 100,
    alpha: float = 2.0,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    convention: Convention = "huggingface",
    progress: ProgressCallback | None = None,
    name: str = "parity-aware",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer whose merges each serve the worst-compressed language.

    ``texts`` maps each language (any label, e.g. ``"eng"``) to its training text: one ``str`` or an
    iterable of documents. ``dev`` maps the same languages to a parallel development text (the same
    content in each language), whose token counts decide which language is worst compressed; it may
    be the training text itself when that is parallel. Or, instead (``dev=None``), ``ratio`` maps each
    language to a target compression rate over its own training text, in pre-token units (bytes
    with a byte-level pattern): the language furthest below its target is served. ``variant``,
    ``global_merges`` (hybrid), ``window``, ``alpha`` and ``convention`` (``"huggingface"`` or
    ``"paper"``) are described in the module docstring; ``tie_break="huggingface"`` is Hugging Face
    ParityBpeTrainer's rule here; the other keywords are ``train``'s.

    >>> tok = train_parity({"a": "aa aa aa", "b": "bc bc"}, {"a": "aa", "b": "bcbc"}, 258, min_frequency=1)
    >>> tok.merges, tok.training["parity"]["merge_language"]
    ([(b'b', b'c'), (b'a', b'a')], [1, 0])
    """
    started = time.perf_counter()
    _check_settings(vocab_size, min_frequency, tie_break, variant, global_merges, window, alpha, convention)
    specials = _check_specials(special_tokens, vocab_size)
    workers = check_workers(workers)
    languages = _check_languages(texts, dev, ratio)
    targets = None if ratio is None else _check_ratio(ratio, languages)
    pretokenizer = PreTokenizer.build(pattern)
    train_counts, dev_counts = _count_languages(languages, texts, dev, pretokenizer, specials, workers, progress)
    table = word_table(train_counts, dev_counts)
    chooser = Chooser(len(languages), variant, window, alpha, convention=convention, hybrid=global_merges > 0)
    policy = ParityPolicy(table, chooser, global_merges)
    before = list(policy.dev_tokens)
    policy.standing = _standing(policy, before, targets, convention)
    token_bytes, made, stop_reason = _merge(
        table, policy, specials, vocab_size, parity_rule(tie_break), min_frequency, progress
    )
    settings = {
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
        "special_tokens": list(specials),
        "tie_break": tie_break,
        "objective": "parity",
        "variant": variant,
        "global_merges": global_merges,
        "window": window,
        "alpha": alpha,
        "convention": convention,
        "ratio": targets,
        "languages": [str(label) for label in languages],
    }
    training = _record(settings, train_counts, table, made, stop_reason, started)
    training["parity"].update(_outcome(policy, before, targets is None, [str(label) for label in languages]))
    return Tokenizer(
        dict(token_bytes),
        [(token_bytes[m[0]], token_bytes[m[1]]) for m in made],
        special_tokens={token: 256 + offset for offset, token in enumerate(specials)},
        pattern=pattern,
        name=name,
        merge_counts=[m[2] for m in made],
        training=training,
    )


def _merge(
    table: WordTable,
    policy: ParityPolicy,
    specials: Sequence[str],
    vocab_size: int,
    tie_break: str,
    min_frequency: int,
    progress: ProgressCallback | None,
) -> tuple[dict[int, bytes], list[tuple[int, int, int, int, int]], str]:
    """The merge engine run with the parity policy: every id's bytes, the merges as (left id, right id,
    count in all training text, language served or GLOBAL, training tokens after), and why it stopped."""
    token_bytes = {i: bytes([i]) for i in range(256)}
    token_bytes.update({256 + offset: token.encode("utf-8") for offset, token in enumerate(specials)})
    first_id = 256 + len(specials)
    with paused_collector():
        start = table.start(token_bytes, first_id, with_global=policy.global_merges > 0)
        run = MergeRun(start, tie_break=tie_break, min_frequency=min_frequency, policy=policy)
        stop_reason = run.run(vocab_size - first_id, progress=progress)
    made = [(m.left, m.right, m.count, lang, m.tokens_after) for m, lang in zip(run.merges, policy.served, strict=True)]
    return token_bytes, made, stop_reason


def _outcome(policy: ParityPolicy, before: list[int], with_dev: bool, labels: list[str]) -> dict:
    """``training["parity"]``'s token counts before and after (of the development text, or the training
    text with target rates), the exhausted languages and the picks ParityBpeTrainer would stall on."""
    kind = "dev" if with_dev else "train"
    chooser = policy.chooser
    return {
        f"{kind}_tokens_before": before,
        f"{kind}_tokens_after": list(policy.dev_tokens),
        "exhausted": [label for label, done in zip(labels, chooser.exhausted, strict=True) if done],
        "stalled_picks": chooser.stalled,
    }


def _standing(
    policy: ParityPolicy, before: list[int], targets: list[float] | None, convention: str
) -> Callable[[], Sequence[float]]:
    """The function giving each language's standing now (larger: worse compressed): its development
    tokens, or with target rates ``parity_choice.ratio_standing`` on its training tokens."""
    if targets is None:
        return lambda: policy.dev_tokens
    if convention == "paper":
        targets = [target / targets[0] for target in targets]  # the paper's code divides by the first
    return lambda: ratio_standing(before, policy.dev_tokens, targets)


def _record(settings: dict, train_counts: list, table: WordTable, made: list, stop_reason: str, started: float) -> dict:
    """The ``Tokenizer.training`` metadata: standard training's keys, and ``parity``."""
    stats = CorpusStats()
    for counts in train_counts:
        stats.add(counts.stats)
    return {
        "settings": settings,
        "corpus": stats.record(total_bytes=table.train_bytes, unique_pretokens=sum(1 for w in table.train if w)),
        "stop_reason": stop_reason,
        "merges_learned": len(made),
        "tokens_after_merge": [m[4] for m in made],
        "seconds": round(time.perf_counter() - started, 3),
        "parity": {"languages": settings["languages"], "merge_language": [m[3] for m in made]},
    }
