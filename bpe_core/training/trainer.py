"""Training byte-level BPE: count pre-tokens, then merge the most frequent pair until done.

``train`` (texts) and ``train_files`` (corpus files, streamed) check their settings once
(``TrainingSettings``, which every way of training shares), count pre-tokens with ``counting`` and
hand the counts to ``merge_counts``, which runs the merge engine (``engine.MergeRun`` from
``start.Start.from_counts``, standard BPE's policy) and builds the ``Tokenizer``. Counting and merging
are kept apart on purpose: counts from chunks add up (``count_words``), so they can be made elsewhere
and trained from with ``train_from_counts``. The readable version of the whole algorithm is
``_educational.train_reference``. This module does no I/O of its own.

The keywords these functions share have one home: ``TypedDict``s that say what each one means and that
type checkers hold callers to (``**options: Unpack[TrainingOptions]``, PEP 692), their defaults
written once (``TRAINING_DEFAULTS``, ``TrainingSettings``' own; ``READING_DEFAULTS``), and
``errors.keyword_options``, which fills them in, shows them in ``help()`` and refuses any other keyword.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypedDict

from bpe_core.errors import BpeError, keyword_options
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer, preset_name
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts, count_files, count_words
from bpe_core.training.engine import MAX_VOCAB_SIZE, MergeRun, ProgressCallback, paused_collector
from bpe_core.training.start import Start
from bpe_core.training.tie_rules import TIE_BREAKS, TieBreak

if TYPE_CHECKING:  # typing.Unpack from 3.11 on; only type checkers read it, so nothing is needed at run time
    from typing_extensions import Unpack

__all__ = [
    "FileTrainingOptions",
    "FromCountsOptions",
    "MergeOptions",
    "ReadingOptions",
    "TrainingOptions",
    "TrainingSettings",
    "merge_counts",
    "train",
    "train_files",
    "train_from_counts",
]


@dataclass(frozen=True)
class TrainingSettings:
    """The settings every way of training shares, checked when made, so before any counting: a
    ``TypeError`` for a ``vocab_size`` that is not an integer, a ``BpeError`` naming the fix for a bad
    value. ``special_tokens`` is kept as a checked tuple.

    >>> TrainingSettings(300, special_tokens=["<|end|>"]).special_tokens
    ('<|end|>',)
    >>> TrainingSettings(100)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    bpe_core.errors.BpeError: vocab_size=100 is too small: it counts the 256 byte tokens and the 0 special
    token(s), so it must be at least 256
    """

    vocab_size: int
    min_frequency: int = 2
    pattern: str | None = "gpt2"
    special_tokens: Sequence[str] = ()
    tie_break: TieBreak = "lexicographic"
    name: str = "trained"
    _pretokenizer: PreTokenizer = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        specials = validate_special_tokens(self.special_tokens)
        object.__setattr__(self, "special_tokens", specials)
        vocab_size, min_frequency = self.vocab_size, self.min_frequency
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
            raise TypeError(f"vocab_size must be an integer, not {type(vocab_size).__name__}")
        minimum = 256 + len(specials)
        if vocab_size < minimum:
            raise BpeError(
                f"vocab_size={vocab_size} is too small: it counts the 256 byte tokens and the "
                f"{len(specials)} special token(s), so it must be at least {minimum}"
            )
        if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
            raise BpeError(f"min_frequency must be a non-negative integer, got {min_frequency!r}")
        if vocab_size > MAX_VOCAB_SIZE:
            raise BpeError(f"vocab_size={vocab_size:,} is too large: bpe_core trains at most {MAX_VOCAB_SIZE:,} ids")
        if self.tie_break not in TIE_BREAKS:
            raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {self.tie_break!r}")
        # a bad pattern is refused here too, before any counting
        object.__setattr__(self, "_pretokenizer", PreTokenizer.build(self.pattern))

    def pretokenizer(self) -> PreTokenizer:
        return self._pretokenizer

    @classmethod
    def of(cls, vocab_size: int, options: Mapping[str, Any]) -> TrainingSettings:
        """The settings among a training function's ``options`` (its keywords), checked."""
        return cls(vocab_size, **{f.name: options[f.name] for f in fields(cls) if f.init and f.name in options})


class MergeOptions(TypedDict, total=False):
    """The keyword options that ``train``, ``train_files``, ``train_from_counts``, ``train_on_dask`` and
    SuperBPE's trainers share (their defaults: ``TRAINING_DEFAULTS``).

    Attributes:
        min_frequency: Training stops when the best pair occurs fewer times (default 2).
        special_tokens: Tokens that are never split, with the ids after the 256 bytes, in order (default
            none).
        tie_break: Which pair wins among pairs with the best count: ``"lexicographic"`` (the greatest
            (left bytes, right bytes) pair; the default), ``"first"`` (the pair met first, scanning unique
            pre-tokens in order of first appearance, left to right: the textbook's first-seen rule),
            ``"huggingface"`` or ``"rustbpe"`` (each tool's own rule, so the merges are theirs; see
            ``tie_rules``).
        progress: ``progress(phase, done, total)``, called as counting and merging go (default None).
        name: The tokenizer's name (default ``"trained"``).
    """

    min_frequency: int
    special_tokens: Sequence[str]
    tie_break: TieBreak
    progress: ProgressCallback | None
    name: str


class FromCountsOptions(MergeOptions, total=False):
    """``train_from_counts``' keyword options: ``MergeOptions`` and the pattern.

    Attributes:
        pattern: How text is cut into pre-tokens: a preset name (``"gpt2"``, the default; ``"cl100k"``,
            ``"o200k"``; see ``PRESETS``), a regex, or None for no pre-tokenization.
    """

    pattern: str | None


class TrainingOptions(FromCountsOptions, total=False):
    """``train``'s keyword options: ``FromCountsOptions`` and the workers.

    Attributes:
        workers: How many processes count pre-tokens (None, the default: one per CPU for inputs of
            several megabytes, else this process; 1: this process only). The tokenizer does not depend
            on it.
    """

    workers: int | None


class ReadingOptions(TypedDict, total=False):
    """How corpus files are read (see ``bpe_core.corpora.documents``).

    Attributes:
        text_field: The field (JSONL, JSON) or column (Parquet) that holds a row's text (default
            ``"text"``).
        on_bad_row: ``"skip"`` (the default) skips a bad row and reports it in ``training["corpus"]``;
            ``"stop"`` stops with a ``BpeError`` naming the file and row.
    """

    text_field: str
    on_bad_row: str


class FileTrainingOptions(TrainingOptions, ReadingOptions, total=False):
    """``train_files``' keyword options: ``TrainingOptions`` and ``ReadingOptions``."""


#: The defaults of the training keywords: ``TrainingSettings``' own; no progress calls; automatic workers.
TRAINING_DEFAULTS: dict[str, Any] = {
    **{f.name: f.default for f in fields(TrainingSettings) if f.init and f.default is not MISSING},
    "progress": None,
    "workers": None,
}
#: The defaults of ``ReadingOptions``.
READING_DEFAULTS: dict[str, Any] = {"text_field": "text", "on_bad_row": "skip"}


def merge_counts(
    word_counts: WordCounts,
    settings: TrainingSettings,
    *,
    progress: ProgressCallback | None = None,
    started: float | None = None,
) -> Tokenizer:
    """The merge loop on ``word_counts`` and the ``Tokenizer`` it makes. ``started`` is the
    ``time.perf_counter()`` training began at (default: now), so that a caller that counted first
    records counting and merging in ``training["seconds"]``."""
    started = time.perf_counter() if started is None else started
    specials = settings.special_tokens
    pretokenizer = settings.pretokenizer()
    record = {
        "vocab_size": settings.vocab_size,
        "min_frequency": settings.min_frequency,
        "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
        "special_tokens": list(specials),
        "tie_break": settings.tie_break,
    }
    start = Start.from_counts(word_counts.counts, specials)
    with paused_collector():
        run = MergeRun(start, tie_break=settings.tie_break, min_frequency=settings.min_frequency)
        stop_reason = run.run(settings.vocab_size - start.next_id, progress=progress)
    merges, token_bytes = run.merges, start.token_bytes
    training = _training_record(
        word_counts,
        record,
        unique_pretokens=len(start.words),
        total_bytes=start.corpus_bytes,
        merges=merges,
        stop_reason=stop_reason,
        started=started,
    )
    return Tokenizer(
        dict(token_bytes),
        [(token_bytes[m.left], token_bytes[m.right]) for m in merges],
        special_tokens={token: 256 + offset for offset, token in enumerate(specials)},
        pattern=settings.pattern,
        name=settings.name,
        merge_counts=[m.count for m in merges],
        training=training,
    )


def _training_record(
    word_counts: WordCounts,
    settings: dict,
    *,
    unique_pretokens: int,
    total_bytes: int,
    merges: list,
    stop_reason: str,
    started: float,
) -> dict:
    """The ``Tokenizer.training`` metadata: settings, corpus statistics, stop reason, timings."""
    stats = word_counts.stats
    return {
        "settings": settings,
        "corpus": stats.record(total_bytes=total_bytes, unique_pretokens=unique_pretokens),
        # the first bad rows skipped, {file, row, reason} each (the corpus record holds only numbers)
        **({"bad_row_examples": list(stats.bad_row_examples)} if stats.bad_rows else {}),
        "stop_reason": stop_reason,
        "merges_learned": len(merges),
        "tokens_after_merge": [m.tokens_after for m in merges],
        "seconds": round(time.perf_counter() - started, 3),
    }


@keyword_options(TrainingOptions, TRAINING_DEFAULTS)
def train(texts: str | Iterable[str], vocab_size: int, **options: Unpack[TrainingOptions]) -> Tokenizer:
    """Train a byte-level BPE tokenizer.

    ``texts`` is one document (a ``str``) or an iterable of documents. Ids 0..255 are the bytes,
    then the special tokens in order, then one id per merge; ``vocab_size`` counts all of them.
    Training stops at ``vocab_size``, when no pair is left, or when the best pair's count is below
    ``min_frequency``. The keywords are ``TrainingOptions``' (it gives each one's meaning and default):
    ``min_frequency``, ``pattern``, ``special_tokens``, ``tie_break``, ``progress``, ``name`` and
    ``workers``, each optional; any other is a ``TypeError``, before any work.

    >>> train(["ab ab ab ab", "abc abc"], 259, min_frequency=1).merges
    [(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]
    """
    started = time.perf_counter()
    settings = TrainingSettings.of(vocab_size, options)
    workers, progress = check_workers(options["workers"]), options["progress"]
    if isinstance(texts, str):
        documents: Iterable[str] = [texts]
    elif isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    else:
        documents = texts
    if progress:
        documents = _counting_progress(documents, progress, len(documents) if isinstance(documents, Sequence) else 0)
    word_counts = count_words(
        documents, pretokenizer=settings.pretokenizer(), special_tokens=settings.special_tokens, workers=workers
    )
    return merge_counts(word_counts, settings, progress=progress, started=started)


@keyword_options(FileTrainingOptions, {**TRAINING_DEFAULTS, **READING_DEFAULTS})
def train_files(
    paths: Sequence[str | os.PathLike] | str | os.PathLike, vocab_size: int, **options: Unpack[FileTrainingOptions]
) -> Tokenizer:
    """Train on corpus files, streamed (only pre-token counts are kept in memory), with ``train``'s
    keywords and two about reading, ``text_field`` and ``on_bad_row`` (``FileTrainingOptions``).

    ``paths`` are files, folders (every file under them, sorted, hidden ones skipped) and glob
    patterns (``**`` crosses folders). A text file is one document; JSONL, JSON arrays and Parquet
    give one document per row, its ``text_field`` string; ``.gz`` and ``.zst`` files are
    decompressed as they are read (see ``bpe_core.corpora.documents``). Bad rows are skipped and
    reported in ``training["corpus"]`` (``on_bad_row="skip"``) or stop training with a ``BpeError``
    naming the file and row (``"stop"``). ``progress("count", ...)`` counts bytes read. With a preset
    pattern, counting is split into tasks at safe cuts and, for ``workers`` other than 1, spread over
    worker processes.
    """
    started = time.perf_counter()
    settings = TrainingSettings.of(vocab_size, options)
    progress = options["progress"]
    word_counts = count_files(
        paths,
        pretokenizer=settings.pretokenizer(),
        special_tokens=settings.special_tokens,
        workers=check_workers(options["workers"]),
        progress=progress,
        text_field=options["text_field"],
        on_bad_row=options["on_bad_row"],
    )
    return merge_counts(word_counts, settings, progress=progress, started=started)


@keyword_options(FromCountsOptions, TRAINING_DEFAULTS)
def train_from_counts(word_counts: WordCounts, vocab_size: int, **options: Unpack[FromCountsOptions]) -> Tokenizer:
    """Train from pre-token counts already made by ``count_words`` (the reduce step's output), with
    ``train``'s keywords but ``workers`` (``FromCountsOptions``). ``pattern`` and ``special_tokens``
    should be the ones the counts were made with: they are what the tokenizer encodes with."""
    return merge_counts(word_counts, TrainingSettings.of(vocab_size, options), progress=options["progress"])


def _counting_progress(documents: Iterable[str], progress: ProgressCallback, total: int) -> Iterator[str]:
    step = max(1, total // 100) if total else 1000
    done = 0
    progress("count", 0, total)
    for document in documents:
        yield document
        done += 1
        if done % step == 0:
            progress("count", done, total)
    progress("count", done, total or done)
