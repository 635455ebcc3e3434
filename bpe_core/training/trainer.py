"""Training byte-level BPE: count pre-tokens, then merge the most frequent pair until done.

``train`` (texts) and ``train_files`` (UTF-8 files, streamed) check the settings (``check_settings``,
which every way of training shares), count pre-tokens with ``counting`` and hand the counts to
``train_from_counts``, which runs the one merge loop (``merge_loop.learn_merges``) and builds the
``Tokenizer``. Counting and merging are kept apart on purpose: counts from chunks add up
(``count_words``), so they can be made elsewhere. This module does no I/O of its own.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from bpe_core.training.counting import WordCounts, count_files, count_words
from bpe_core.training.merge_loop import (
    MAX_VOCAB_SIZE,
    STOP_MIN_FREQUENCY,
    STOP_NO_PAIRS,
    STOP_VOCAB_SIZE,
    TIE_BREAKS,
    ProgressCallback,
    TieBreak,
    learn_merges,
)
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name, replace_surrogates
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.tokenizer import Tokenizer

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "STOP_MIN_FREQUENCY",
    "STOP_NO_PAIRS",
    "STOP_VOCAB_SIZE",
    "TIE_BREAKS",
    "FileOptions",
    "TrainingOptions",
    "WordCounts",
    "count_words",
    "train",
    "train_files",
    "train_from_counts",
]


def _utf8_strings(counts: Mapping[str, int]) -> tuple[list[str], list[int], int]:
    """The unique pre-tokens as byte strings written one character per byte (``chr(byte)``, i.e.
    latin-1), which is the id string the merge loop works on since ids 0..255 are the bytes."""
    words: list[str] = []
    freqs = list(counts.values())
    total_bytes = 0
    append = words.append
    for word, freq in zip(counts, freqs):
        try:
            encoded = word.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: U+FFFD, exactly as encoding treats them
            encoded = replace_surrogates(word).encode("utf-8")
        append(encoded.decode("latin-1"))
        total_bytes += len(encoded) * freq
    return words, freqs, total_bytes


def _validate_settings(vocab_size, min_frequency, tie_break, special_tokens) -> tuple[str, ...]:
    specials = validate_special_tokens(special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an integer, not {type(vocab_size).__name__}")
    minimum = 256 + len(specials)
    if vocab_size < minimum:
        raise ValueError(
            f"vocab_size={vocab_size} is too small: it counts the 256 byte tokens and the "
            f"{len(specials)} special token(s), so it must be at least {minimum}"
        )
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
        raise ValueError(f"min_frequency must be a non-negative integer, got {min_frequency!r}")
    if vocab_size > MAX_VOCAB_SIZE:
        raise ValueError(f"vocab_size={vocab_size:,} is too large: bpe_core trains at most {MAX_VOCAB_SIZE:,} ids")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    return specials


class TrainingOptions(TypedDict, total=False):
    """The keywords ``train_files`` and ``train_from_counts`` share with ``train`` (see its docstring
    for their meaning; ``workers`` does not apply to ``train_from_counts``)."""

    min_frequency: int
    pattern: str | None
    special_tokens: Sequence[str]
    tie_break: TieBreak
    progress: ProgressCallback | None
    name: str
    workers: int | None


class FileOptions(TrainingOptions, total=False):
    """``train_files``'s keywords: ``train``'s, and how structured files are read (see ``datasets``)."""

    text_field: str
    on_bad_row: str


#: The keywords only ``train_files`` takes, with their defaults (see ``FileOptions``).
FILE_OPTIONS = {"text_field": "text", "on_bad_row": "skip"}


def _options(function: Callable, given: dict, *, exclude: tuple[str, ...] = (), extra: dict | None = None) -> dict:
    """``train``'s defaults (and ``extra``'s) updated with ``given``; TypeError naming any other keyword."""
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(train).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name not in exclude
    }
    defaults.update(extra or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise TypeError(
            f"{function.__name__}() got an unexpected keyword argument {unknown[0]!r} "
            f"(it takes {', '.join(defaults)})"
        )
    return {**defaults, **given}


def check_settings(
    function: Callable, vocab_size: int, options: dict, *, exclude: tuple[str, ...] = (), extra: dict | None = None
) -> dict:
    """``options`` (``train``'s keywords but ``exclude``, and ``extra``'s with their defaults) completed
    with the defaults and checked before any work, for every way of training: a TypeError naming
    ``function`` for a keyword it does not take, and the errors of a bad ``vocab_size``,
    ``min_frequency``, ``tie_break`` or special token. ``special_tokens`` comes back checked (a tuple).

    >>> check_settings(train_from_counts, 300, {"min_frequency": 1}, exclude=("workers",))["tie_break"]
    'lexicographic'
    """
    options = _options(function, options, exclude=exclude, extra=extra)
    options["special_tokens"] = _validate_settings(
        vocab_size, options["min_frequency"], options["tie_break"], options["special_tokens"]
    )
    return options


def train_from_counts(
    word_counts: WordCounts, vocab_size: int, *, _started: float | None = None, **options: Unpack[TrainingOptions]
) -> Tokenizer:
    """Train from pre-token counts already made by ``count_words`` (the reduce step's output), with
    ``train``'s keywords but ``workers``. (``_started``, private: the ``time.perf_counter()`` the
    caller began at, so that a caller that counted first records counting and merging in
    ``training["seconds"]``, as ``train_files`` does.)"""
    options = check_settings(train_from_counts, vocab_size, options, exclude=("workers",))
    return _merge_counts(word_counts, vocab_size, time.perf_counter() if _started is None else _started, **options)


def _merge_counts(
    word_counts: WordCounts, vocab_size: int, started: float, *, min_frequency, pattern, special_tokens, tie_break,
    progress, name,
) -> Tokenizer:
    """The merge loop on ``word_counts`` and the ``Tokenizer`` it makes, with settings the caller has
    checked (``special_tokens`` as ``_validate_settings`` returns them; ``started``: when training
    began, for the recorded duration)."""
    specials = special_tokens
    pretokenizer = PreTokenizer.build(pattern)
    settings = {
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
        "special_tokens": list(specials),
        "tie_break": tie_break,
    }
    words, freqs, total_bytes = _utf8_strings(word_counts.counts)
    token_bytes = {i: bytes([i]) for i in range(256)}
    for offset, token in enumerate(specials):
        token_bytes[256 + offset] = token.encode("utf-8")
    first_merge_id = 256 + len(specials)
    merges, stop_reason = learn_merges(
        words,
        freqs,
        token_bytes=token_bytes,
        next_id=first_merge_id,
        num_merges=vocab_size - first_merge_id,
        min_frequency=min_frequency,
        tie_break=tie_break,
        progress=progress,
    )
    training = _training_record(
        word_counts, settings, unique_pretokens=len(words), total_bytes=total_bytes, merges=merges,
        stop_reason=stop_reason, started=started,
    )
    vocab = dict(token_bytes)
    return Tokenizer(
        vocab,
        [(token_bytes[m.left], token_bytes[m.right]) for m in merges],
        special_tokens={token: 256 + offset for offset, token in enumerate(specials)},
        pattern=pattern,
        name=name,
        merge_counts=[m.count for m in merges],
        training=training,
    )


def _training_record(
    word_counts: WordCounts, settings: dict, *, unique_pretokens: int, total_bytes: int, merges: list,
    stop_reason: str, started: float,
) -> dict:
    """The ``Tokenizer.training`` metadata: settings, corpus statistics, stop reason, timings."""
    stats = word_counts.stats
    return {
        "settings": settings,
        "corpus": {
            "documents": stats.documents,
            "characters": stats.characters,
            "bytes": total_bytes,
            "pretokens": stats.pretokens,
            "unique_pretokens": unique_pretokens,
            "special_tokens_cut": stats.special_tokens_cut,
            "bad_rows": stats.bad_rows,
        },
        # the first bad rows skipped, {file, row, reason} each (the corpus record holds only numbers)
        **({"bad_row_examples": list(stats.bad_row_examples)} if stats.bad_rows else {}),
        "stop_reason": stop_reason,
        "merges_learned": len(merges),
        "tokens_after_merge": [m.tokens_after for m in merges],
        "seconds": round(time.perf_counter() - started, 3),
    }


def train(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 2,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = (),
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "trained",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer.

    ``texts`` is one document (a ``str``) or an iterable of documents. Ids 0..255 are the bytes,
    then the special tokens in order, then one id per merge; ``vocab_size`` counts all of them.
    Training stops at ``vocab_size``, when no pair is left, or when the best pair's count is below
    ``min_frequency``. ``tie_break`` picks among pairs with the best count: ``"lexicographic"`` (the
    greatest (left bytes, right bytes) pair), ``"first"`` (the pair met first, scanning unique
    pre-tokens in order of first appearance, left to right: the textbook's first-seen rule),
    ``"huggingface"`` or ``"rustbpe"`` (each tool's own rule, so the merges are theirs; see
    ``tie_rules``). ``workers`` is how many processes count pre-tokens (None: one per CPU for inputs
    of several megabytes, else this process; 1: this process only); the tokenizer does not depend
    on it.
    """
    started = time.perf_counter()
    specials = _validate_settings(vocab_size, min_frequency, tie_break, special_tokens)
    workers = check_workers(workers)
    pretokenizer = PreTokenizer.build(pattern)
    if isinstance(texts, str):
        documents: Iterable[str] = [texts]
    elif isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    else:
        documents = texts
    total = len(documents) if isinstance(documents, Sequence) else 0
    if progress:
        counted = _counting_progress(documents, progress, total)
    else:
        counted = documents
    word_counts = count_words(counted, pretokenizer=pretokenizer, special_tokens=specials, workers=workers)
    return _merge_counts(
        word_counts, vocab_size, started, min_frequency=min_frequency, pattern=pattern, special_tokens=specials,
        tie_break=tie_break, progress=progress, name=name,
    )


def _counting_progress(documents: Iterable[str], progress: ProgressCallback, total: int):
    step = max(1, total // 100) if total else 1000
    done = 0
    progress("count", 0, total)
    for document in documents:
        yield document
        done += 1
        if done % step == 0:
            progress("count", done, total)
    progress("count", done, total or done)


def train_files(
    paths: Sequence[str | os.PathLike] | str | os.PathLike, vocab_size: int, **options: Unpack[FileOptions]
) -> Tokenizer:
    """Train on corpus files, streamed (only pre-token counts are kept in memory), with ``train``'s
    keywords and ``text_field`` / ``on_bad_row``.

    ``paths`` are files, folders (every file under them, sorted, hidden ones skipped) and glob
    patterns (``**`` crosses folders). A text file is one document; JSONL, JSON arrays and Parquet
    give one document per row, its ``text_field`` (default ``"text"``) string; ``.gz`` and ``.zst``
    files are decompressed as they are read (see ``datasets``). Bad rows are skipped and reported in
    ``training["corpus"]`` (``on_bad_row="skip"``, the default) or stop training with a ValueError
    naming the file and row (``"stop"``). ``progress("count", ...)`` counts bytes read. With a preset
    pattern, counting is split into tasks at safe cuts and, for ``workers`` other than 1, spread over
    worker processes.
    """
    started = time.perf_counter()
    options = check_settings(train_files, vocab_size, options, extra=FILE_OPTIONS)
    workers = check_workers(options.pop("workers"))
    reading = {name: options.pop(name) for name in FILE_OPTIONS}
    word_counts = count_files(
        paths, pretokenizer=PreTokenizer.build(options["pattern"]), special_tokens=options["special_tokens"],
        workers=workers, progress=options["progress"], **reading,
    )  # fmt: skip
    return _merge_counts(word_counts, vocab_size, started, **options)
