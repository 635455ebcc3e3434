"""SuperBPE (Liu, Hayase, Hofmann, Oh, Smith, Choi; COLM 2025, arXiv 2503.13423): BPE in two stages, so that late tokens
may span several words ("superwords": ``" of the"``, ``", I am"``).

**Stage 1** is ordinary BPE with a pre-tokenization that splits words apart, up to the *transition point*. **Stage 2**
re-reads the corpus with a pre-tokenization that keeps words together, starts each piece from its stage-1 tokens (the
piece's bytes merged by the inherited merges, by rank) and continues the same greedy loop, except that a merge is
skipped for good when its token would hold the bytes ``": "`` or more than four words (runs of bytes other than the
space byte: ``" of the"`` is two, ``", I am"`` three): the reference's rules (``max_words``, ``forbidden``). Every
inherited merge is kept, in order, then the new ones; the tokenizer encodes by rank with the stage-2 pattern, like the
``tokenizer.json`` the reference writes. Ties go to the smallest pair of ids (``"huggingface"``).

The recipes (``RECIPES``, kept in ``superbpe_recipes`` with stage 2's rule) are the reference's pre-tokenizers written
as one regex each, read line by line: the reference reads its training files line by line, so no piece, in either stage,
runs past a newline. ``"paper"`` (default) is the code of the paper's released tokenizers (PythonNut/superbpe at
5df84b0): stage 1 digit runs in groups of three from the right plus GPT-2's rules without contractions; stage 2 only
those digit groups (everything else, punctuation and spaces included, may join). ``"2025-11"`` is the repository's later
recommendation (dc6bbea, d731c76): stage 1 o200k's pattern without contractions, stage 2 splitting numbers (1-3 digits),
runs of two or more symbols and trailing spaces. tests/training/test_superbpe.py holds each regex equal to the
reference's Hugging Face pre-tokenizers on every line, and the tokenizers trained here equal to them on whole texts
under "paper" (no token continues past a newline, so reading by line changes no id); under "2025-11" the reference's
whole-text split lets a symbol run at a line end take the next line's leading ``/`` or ``\r``, and there the ids differ
(docs/library/variants.md, "Encoding").

Where this differs from the reference, and why: the transition counts merges (``transition``), not HF's vocabulary of
the bytes seen plus t - 1 merges; an inherited merge that never occurs in stage 2 is kept (the reference drops it: 8
of 179,999 at t = 180k), so stage 2 starts exactly from the first-t-merges tokenizer; a pair whose bytes already are a
token is skipped (bpe_core's rule; HF merges it into that token's id).

Stage 2 counts each distinct piece once, with bpe_core's counting (streamed, sharded, from count shards:
``superwords_from_counts`` takes the counts of ``recipe.stage2_pattern``), encodes each distinct piece by the
inherited merges once, and merges tracking only the pairs that may be chosen (``engine``'s ``tracked_pairs``).
``extend_tokenizer`` runs stage 2 alone on an existing tokenizer (GPT-2, cl100k, one trained here), keeping
its ids. This module does not encode text nor read files itself (``counting`` does).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from bpe_core.corpora.documents import expand_inputs
from bpe_core.errors import BpeError, keyword_options
from bpe_core.parallel import call_in_child, check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts, count_files, count_words
from bpe_core.training.engine import TRACKED_PER_MERGE, MergeRun, ProgressCallback
from bpe_core.training.start import Start, check_continuable
from bpe_core.training.superbpe_recipes import (
    RECIPES,
    SuperBPERecipe,
    SuperwordRefusal,
    recipe_named,
    superword_allowed,
    word_count,
)
from bpe_core.training.tie_rules import TieBreak
from bpe_core.training.trainer import (
    READING_DEFAULTS,
    TRAINING_DEFAULTS,
    MergeOptions,
    ReadingOptions,
    TrainingSettings,
    merge_counts,
)

if TYPE_CHECKING:  # typing.Unpack from 3.11 on; only type checkers read it
    from typing_extensions import Unpack

__all__ = [
    "RECIPES",
    "SuperBPEFileOptions",
    "SuperBPEOptions",
    "SuperBPERecipe",
    "StageTwoOptions",
    "extend_tokenizer",
    "superword_allowed",
    "superwords_from_counts",
    "train_superbpe",
    "train_superbpe_files",
    "transition_merges",
    "word_count",
]


def transition_merges(transition: int | float, vocab_size: int, special_tokens: int = 0) -> int:
    """The merges stage 1 learns: ``transition`` itself when an integer, else the share ``transition``
    (0 < share <= 1) of ``vocab_size`` less the 256 bytes and the special tokens. The paper's t is the
    vocabulary size at the switch (t = 180,000 of 200,000 is ``transition=0.9``).

    >>> transition_merges(0.8, 1000), transition_merges(100, 1000)
    (544, 100)
    """
    if isinstance(transition, bool) or not isinstance(transition, (int, float)):
        raise TypeError(f"transition must be a number of merges or a share of the vocabulary, not {transition!r}")
    room = vocab_size - 256 - special_tokens
    if isinstance(transition, float):
        if not 0 < transition <= 1:
            raise BpeError(f"a transition share must be above 0 and at most 1 (e.g. 0.8), got {transition!r}")
        return max(0, min(room, round(transition * vocab_size) - 256 - special_tokens))
    if not 0 <= transition <= room:
        raise BpeError(f"transition={transition} merges does not fit: vocab_size {vocab_size} leaves {room} merges")
    return transition


# --------------------------------------------------------------------------------------------------
# stage 2 on counts


def _settings_record(recipe: SuperBPERecipe, base: Tokenizer, settings: TrainingSettings, inherited: int) -> dict:
    return {
        "algorithm": "superbpe",
        "recipe": recipe.name,
        "vocab_size": settings.vocab_size,
        "transition": inherited,
        "min_frequency": settings.min_frequency,
        "pattern": recipe.stage2_pattern,
        "stage1_pattern": recipe.stage1_pattern,
        "max_words": recipe.max_words,
        "forbidden": [part.decode("utf-8", "backslashreplace") for part in recipe.forbidden],
        "special_tokens": list(base.special_tokens),
        "tie_break": settings.tie_break,
        "base": base.name,
    }


class StageTwoOptions(TypedDict, total=False):
    """The keyword options of stage 2 on an existing tokenizer (``superwords_from_counts``,
    ``extend_tokenizer``; their defaults: ``STAGE_TWO_DEFAULTS``).

    Attributes:
        recipe: Stage 2's pattern and rules: a name in ``RECIPES`` (default ``"paper"``) or a
            ``SuperBPERecipe``.
        min_frequency: Training stops when the best pair occurs fewer times (default 2).
        tie_break: Which pair wins among pairs with the best count (default ``"huggingface"``,
            SuperBPE's reference; see ``bpe_core.train``).
        progress: ``progress(phase, done, total)``, merges counted from the base's (default None).
        name: The tokenizer's name (default None: the base's name; ``extend_tokenizer``: the base's
            name and ``"+superbpe"``).
    """

    recipe: str | SuperBPERecipe
    min_frequency: int
    tie_break: TieBreak
    progress: ProgressCallback | None
    name: str | None


#: Stage 2's defaults on an existing tokenizer (``StageTwoOptions``).
STAGE_TWO_DEFAULTS: dict[str, Any] = {
    "recipe": "paper",
    "min_frequency": TRAINING_DEFAULTS["min_frequency"],
    "tie_break": "huggingface",
    "progress": None,
    "name": None,
}


@keyword_options(StageTwoOptions, STAGE_TWO_DEFAULTS)
def superwords_from_counts(
    base: Tokenizer,
    chunk_counts: WordCounts,
    vocab_size: int,
    *,
    started: float | None = None,
    release_counts: bool = False,
    **options: Unpack[StageTwoOptions],
) -> Tokenizer:
    """Stage 2 on ``base``: ``chunk_counts`` are the counts of ``recipe.stage2_pattern``'s pieces
    (``count_words``, ``count_files``, count shards), each encoded by ``base``'s merges, then merged
    on until ``vocab_size`` ids. Every id of ``base`` is kept; the new tokens take the ids after its
    largest. The tokenizer encodes with ``recipe.stage2_pattern``. ``started`` is when stage 2 began
    (before its counting; default now): ``training["superbpe"]`` times its parts. ``release_counts``
    empties ``chunk_counts.counts`` once the pieces are encoded, so their text is freed before merging.
    The other keywords are ``StageTwoOptions``': ``recipe``, ``min_frequency``, ``tie_break``,
    ``progress``, ``name``."""
    if not isinstance(chunk_counts, WordCounts):
        kind = type(chunk_counts).__name__
        raise BpeError(f"chunk_counts must be WordCounts (from count_words, count_files or count shards), not {kind}")
    started = time.perf_counter() if started is None else started
    recipe, progress = recipe_named(options["recipe"]), options["progress"]
    check_continuable(base)
    name = options["name"] or base.name
    settings = TrainingSettings(
        vocab_size, options["min_frequency"], recipe.stage2_pattern, (), options["tie_break"], name
    )
    if vocab_size < base.vocab_size:
        raise BpeError(f"vocab_size={vocab_size:,} is below the {base.vocab_size:,} ids of {base.name!r}: stage 2 adds")
    encoding = time.perf_counter()
    start = Start.from_tokenizer(base, chunk_counts.counts, release=release_counts)
    if release_counts:
        chunk_counts.counts = Counter()
    merging = time.perf_counter()
    inherited = len(start.merges)
    refuse = SuperwordRefusal(recipe)
    tracked = TRACKED_PER_MERGE * (vocab_size - base.vocab_size)
    run = MergeRun(
        start, tie_break=settings.tie_break, min_frequency=settings.min_frequency, refuse=refuse, tracked_pairs=tracked
    )

    def report(phase: str, done: int, total: int) -> None:
        if progress:
            progress(phase, inherited + done, inherited + total)

    stop_reason = run.run(vocab_size - base.vocab_size, progress=report if progress else None)
    new = run.merges
    del run  # its pair counts and index are freed before the tokenizer is built
    stage1: dict[str, Any] = base.training if base.training.get("superbpe_stage") == 1 else {}
    training = {
        "settings": _settings_record(recipe, base, settings, inherited),
        "corpus": chunk_counts.stats.record(total_bytes=start.corpus_bytes, unique_pretokens=len(start.words)),
        "stop_reason": stop_reason,
        "merges_learned": len(start.merges) + len(new) if stage1 else len(new),
        "tokens_after_merge": list(stage1.get("tokens_after_merge", [])) + [m.tokens_after for m in new],
        "superbpe": {
            "inherited_merges": inherited,
            "new_merges": len(new),
            "forbidden_pairs": refuse.refused,
            "unique_chunks": len(start.words),
            "stage1_seconds": stage1.get("seconds"),
            "stage2_count_seconds": round(encoding - started, 3),
            "stage2_encode_seconds": round(merging - encoding, 3),
            "stage2_merge_seconds": round(time.perf_counter() - merging, 3),
        },
        "seconds": round(stage1.get("seconds", 0) + time.perf_counter() - started, 3),
    }
    first_id = max(base.vocab) + 1
    return start.extended_tokenizer(
        new, first_id=first_id, pattern=recipe.stage2_pattern, name=settings.name, training=training
    )


# --------------------------------------------------------------------------------------------------
# the two stages on texts or files, and stage 2 on an existing tokenizer


def _documents(texts: str | Iterable[str]) -> Sequence[str]:
    """The corpus as a sequence (it is read twice, once per stage)."""
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    if isinstance(texts, str):
        return [texts]
    if not isinstance(texts, Sequence):
        raise BpeError(
            "SuperBPE reads the corpus twice (once per stage), so texts must be a str or a list of them, not an "
            "iterator; for a large corpus use train_superbpe_files"
        )
    return texts


@dataclass(frozen=True)
class _TwoStages:
    """A SuperBPE training: how the corpus is counted with a pre-tokenizer, the final size, where stage 1
    stops, the recipe, what both stages merge with (``_options``) and where progress goes."""

    count: Callable[[PreTokenizer], WordCounts]
    vocab_size: int
    transition: int | float
    recipe: SuperBPERecipe
    options: dict
    progress: ProgressCallback | None

    def stage1(self) -> Tokenizer:
        """Stage 1's tokenizer (``recipe.stage1_pattern``, up to ``transition`` merges); its merge progress
        counts towards every merge of both stages."""
        started = time.perf_counter()
        options, progress = self.options, self.progress
        TrainingSettings(self.vocab_size, **options)  # checks the final size and the options before any counting
        specials = options["special_tokens"]
        inherited = transition_merges(self.transition, self.vocab_size, len(specials))
        total = self.vocab_size - 256 - len(specials)
        settings = TrainingSettings(256 + len(specials) + inherited, pattern=self.recipe.stage1_pattern, **options)

        def stage1_progress(phase: str, done: int, of: int) -> None:
            if progress:
                progress(phase, done, total if phase == "merge" else of)

        counts = self.count(settings.pretokenizer())
        tokenizer = merge_counts(counts, settings, progress=stage1_progress, started=started)
        tokenizer.training["superbpe_stage"] = 1
        return tokenizer

    def run(self, first_stage: Callable[[], Tokenizer] | None = None) -> Tokenizer:
        """Stage 1 (``stage1``, or ``first_stage()``), then stage 2 on the counts of
        ``recipe.stage2_pattern``'s pieces."""
        stage1 = first_stage() if first_stage is not None else self.stage1()
        started = time.perf_counter()
        counts = self.count(PreTokenizer.build(self.recipe.stage2_pattern))
        options = self.options
        return superwords_from_counts(
            stage1,
            counts,
            self.vocab_size,
            recipe=self.recipe,
            min_frequency=options["min_frequency"],
            tie_break=options["tie_break"],
            progress=self.progress,
            name=options["name"],
            started=started,
            release_counts=True,
        )


def _options(options: SuperBPEOptions) -> dict:
    """What both stages train with among the public functions' ``options``."""
    return {key: options[key] for key in ("min_frequency", "special_tokens", "tie_break", "name")}


class SuperBPEOptions(MergeOptions, total=False):
    """``train_superbpe``'s keyword options: ``MergeOptions`` (ties broken as Hugging Face's trainer,
    SuperBPE's reference, by default; the default name ``"superbpe"``), the workers, and these.

    Attributes:
        transition: Where stage 1 stops: a number of merges, or a share of ``vocab_size`` (default 0.9,
            the paper's t = 180k of 200k).
        recipe: The two stages' patterns and rules: a name in ``RECIPES`` (default ``"paper"``) or a
            ``SuperBPERecipe``.
        workers: As ``bpe_core.train``'s: how many processes count pre-tokens (default None: automatic).
    """

    transition: int | float
    recipe: str | SuperBPERecipe
    workers: int | None


class SuperBPEFileOptions(SuperBPEOptions, ReadingOptions, total=False):
    """``train_superbpe_files``' keyword options: ``SuperBPEOptions`` and ``ReadingOptions``."""


#: SuperBPE's defaults: ``TRAINING_DEFAULTS`` but the tie rule and the name, and its own.
SUPERBPE_DEFAULTS: dict[str, Any] = {
    "transition": 0.9,
    "recipe": "paper",
    **TRAINING_DEFAULTS,
    "tie_break": "huggingface",
    "name": "superbpe",
    **READING_DEFAULTS,
}


@keyword_options(SuperBPEOptions, SUPERBPE_DEFAULTS)
def train_superbpe(texts: str | Sequence[str], vocab_size: int, **options: Unpack[SuperBPEOptions]) -> Tokenizer:
    """Train a SuperBPE tokenizer (see the module docstring): stage 1 with ``recipe.stage1_pattern``
    up to ``transition`` (merges, or a share of ``vocab_size``: 0.9 is the paper's t = 180k of 200k),
    then stage 2 with ``recipe.stage2_pattern`` up to ``vocab_size`` ids (bytes and special tokens
    included). ``texts`` is read twice, so it is a str or a list. The keywords are ``SuperBPEOptions``':
    ``transition``, ``recipe``, and ``bpe_core.train``'s but ``pattern``.

    >>> tok = train_superbpe(["the cat sat on the mat. " * 8], 275, transition=8, min_frequency=1)
    >>> [tok.decode([i]) for i in tok.encode("the cat sat on the mat.")]  # at most 4 words a token
    ['the cat sat', ' on the mat.']
    """
    recipe = recipe_named(options["recipe"])
    documents = _documents(texts)
    workers, specials = check_workers(options["workers"]), options["special_tokens"]

    def count(pretokenizer: PreTokenizer) -> WordCounts:
        return count_words(documents, pretokenizer=pretokenizer, special_tokens=specials, workers=workers)

    return _TwoStages(count, vocab_size, options["transition"], recipe, _options(options), options["progress"]).run()


@keyword_options(SuperBPEFileOptions, SUPERBPE_DEFAULTS)
def train_superbpe_files(
    paths: Sequence[str] | str, vocab_size: int, **options: Unpack[SuperBPEFileOptions]
) -> Tokenizer:
    """``train_superbpe`` on corpus files, streamed (``bpe_core.train_files``' inputs and reading
    keywords, ``text_field`` and ``on_bad_row``: ``SuperBPEFileOptions``): each stage counts the files
    once and keeps only the counts of distinct pieces."""
    recipe = recipe_named(options["recipe"])
    workers, progress = check_workers(options["workers"]), options["progress"]
    reading = {"workers": workers, "text_field": options["text_field"], "on_bad_row": options["on_bad_row"]}
    count = _file_counter(paths, options["special_tokens"], reading, progress)
    transition, merging = options["transition"], _options(options)
    first_stage = None
    if workers != 1 and sum(map(os.path.getsize, expand_inputs(paths))) >= SEPARATE_STAGE1_BYTES:
        spec = (paths, vocab_size, transition, recipe, merging, reading)

        def first_stage() -> Tokenizer:
            return call_in_child(_stage1_of_files, spec, progress=progress)

    return _TwoStages(count, vocab_size, transition, recipe, merging, progress).run(first_stage)


#: Corpus files this large (in bytes, all of them) train stage 1 in a process of its own
#: (``parallel.call_in_child``), unless ``workers=1``: what it built and freed is then given back to
#: the system, not kept by this process through stage 2, whose counts are the larger.
SEPARATE_STAGE1_BYTES = 1 << 25


def _stage1_of_files(report: ProgressCallback | None, spec: tuple) -> Tokenizer:
    """``_TwoStages.stage1`` on corpus files, run by ``call_in_child``: ``spec`` is (paths, vocab size, transition,
    recipe, the merging options, the reading options); ``report`` takes the progress."""
    paths, vocab_size, transition, recipe, options, reading = spec
    count = _file_counter(paths, options["special_tokens"], reading, report)
    return _TwoStages(count, vocab_size, transition, recipe, options, report).stage1()


def _file_counter(
    paths: Sequence[str] | str, specials: Sequence[str], reading: dict, progress: ProgressCallback | None
) -> Callable[[PreTokenizer], WordCounts]:
    """How SuperBPE counts corpus files with a stage's pre-tokenizer: ``count_files`` with the reading
    options (workers, text field, bad rows), here and in stage 1's own process alike."""

    def count(pretokenizer: PreTokenizer) -> WordCounts:
        return count_files(paths, pretokenizer=pretokenizer, special_tokens=specials, progress=progress, **reading)

    return count


@keyword_options(StageTwoOptions, STAGE_TWO_DEFAULTS)
def extend_tokenizer(
    base: Tokenizer,
    texts: str | Sequence[str],
    vocab_size: int,
    *,
    inherit: int | None = None,
    workers: int | None = None,
    **options: Unpack[StageTwoOptions],
) -> Tokenizer:
    """Add superwords to an existing BPE tokenizer (GPT-2, cl100k, one trained here), as the paper's
    ``extend_existing_tokenizer.sh``: stage 2 on ``texts`` from ``base``'s first ``inherit`` merges
    (None: all of them) until ``vocab_size`` ids. Its ids are kept; the tokenizer encodes with
    ``recipe.stage2_pattern``, so its own pattern's pieces may now join into superwords. ``workers``
    as ``bpe_core.train``'s; the other keywords are ``StageTwoOptions``'."""
    started = time.perf_counter()
    if inherit is not None:
        base = base.truncated(inherit)
    documents = _documents(texts)
    specials = list(base.special_tokens)
    counts = count_words(
        documents,
        pretokenizer=PreTokenizer.build(recipe_named(options["recipe"]).stage2_pattern),
        special_tokens=specials,
        workers=check_workers(workers),
    )
    stage_two: StageTwoOptions = {**options, "name": options["name"] or f"{base.name}+superbpe"}
    return superwords_from_counts(base, counts, vocab_size, started=started, release_counts=True, **stage_two)
