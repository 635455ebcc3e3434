"""Extending a tokenizer you already use (``bpe_core.extend``): BPE continued from its merges on your
corpus for ``add`` new tokens, every id, merge rank and special-token id of it kept.

This is vocabulary extension as Chinese-LLaMA (Cui et al. 2023) and EEVE (Kim et al. 2024) do it: the
model keeps its tokenizer, gains tokens learned on a language's text, and its embedding matrix grows
by as many rows. ``extend`` counts the corpus with the base tokenizer's own pre-tokenization (or, with
``superwords=True``, SuperBPE's stage-2 pattern, so that new tokens may span words), starts each
distinct piece from its tokens under the base (``start.Start.from_tokenizer``: the one engine start
SuperBPE's stage 2 uses too), and runs the merge engine (``engine.MergeRun``) with its tie rules,
``min_frequency``, progress and cancel. New tokens take ids after the highest id in use (Llama 3's
reserved special tokens included) or from ``first_id``.

``scripts`` restricts new tokens to Unicode scripts (``scripts.ScriptRule``), so that text with none of
them encodes exactly as before; without it, ``training["extension"]["other_text"]`` says how much of
the built-in samples in other scripts changed (``other_text``). Every built-in byte-level BPE can be
extended: those whose ranks hold tiktoken's late merges and whole-word tokens (Llama 3, Qwen 3.5) keep
tiktoken's rule (``start.Continued.extended_tokenizer``). A Picky BPE tokenizer is refused.

Counting is ``train_files``' (files, folders, globs; text, JSONL, JSON, Parquet, gzip, zstd; bounded
memory). A multi-stage pre-tokenizer (Qwen's, DeepSeek's, an imported ``tokenizer.json``'s) has no
safe cuts, so each document is split whole, in this process (``_count_staged``). This module measures
nothing on held-out text (``analysis.extension`` does) and writes no file.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from bpe_core.corpora.documents import DocumentReader, expand_inputs
from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.special_tokens import special_token_regex, split_on_special_tokens
from bpe_core.pretokenization.stages import StagedPreTokenizer
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts, count_files, count_words
from bpe_core.training.engine import MAX_VOCAB_SIZE, TRACKED_PER_MERGE, MergeRun, ProgressCallback, paused_collector
from bpe_core.training.other_text import other_text_changes
from bpe_core.training.scripts import ScriptRule, dominant_scripts
from bpe_core.training.start import Start, check_continuable, check_first_id
from bpe_core.training.superbpe_recipes import SuperBPERecipe, SuperwordRefusal, recipe_named
from bpe_core.training.tie_rules import TIE_BREAKS, TieBreak

__all__ = ["extend"]

Corpus = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def extend(
    base: Tokenizer,
    texts: str | Iterable[str] | None = None,
    *,
    add: int,
    files: Corpus | None = None,
    scripts: str | Sequence[str] | None = None,
    superwords: bool = False,
    first_id: int | None = None,
    min_frequency: int = 2,
    tie_break: TieBreak = "huggingface",
    recipe: str | SuperBPERecipe = "paper",
    progress: ProgressCallback | None = None,
    cancel: Callable[[], bool] | None = None,
    name: str | None = None,
    workers: int | None = None,
    text_field: str = "text",
    on_bad_row: str = "skip",
) -> Tokenizer:
    """``base`` with up to ``add`` new tokens learned on ``texts`` (a str or an iterable of documents)
    or ``files`` (``train_files``' paths, folders and globs, with ``text_field`` and ``on_bad_row``).

    Every id of ``base`` keeps its bytes, every merge its rank, every special token its id; the new
    tokens take ids ``first_id``, ``first_id + 1``, ... (default: after the highest id in use, special
    tokens included). ``scripts`` (names such as ``"Devanagari"`` or ``["Han", "Hiragana"]``) allows
    only new tokens made of characters of those scripts (spaces, punctuation and marks beside them), so
    text with none of them encodes exactly as before. ``superwords=True`` continues as SuperBPE's stage 2
    (``recipe``; the tokenizer then pre-tokenizes with the recipe's pattern, so that tokens may span
    words). ``min_frequency``, ``tie_break`` (default ``"huggingface"``, as SuperBPE), ``progress``
    and ``workers`` are ``train``'s; ``cancel()``, checked before each merge, stops early (the
    tokenizer has the merges made so far and ``training["stop_reason"] == "cancelled"``).

    ``training["extension"]`` records the base, the ids added, why training stopped and, on the
    built-in samples with none of the language's scripts, how many pre-tokens now encode differently.

    >>> import bpe_core
    >>> gpt2 = bpe_core.load("gpt2")
    >>> hindi = bpe_core.extend(gpt2, ["नमस्ते दुनिया, नमस्ते भारत। " * 20], add=20, scripts="Devanagari")
    >>> hindi.vocab_size, [hindi.decode([i]) for i in range(50262, 50270)]  # 17 pairs occur twice or more
    (50274, ['मस', ' न', ' नमस', 'न', 'य', 'र', 'ि', 'ु'])
    >>> len(gpt2.encode("नमस्ते भारत")), len(hindi.encode("नमस्ते भारत")), hindi.encode("Hi!") == gpt2.encode("Hi!")
    (19, 8, True)
    """
    started = time.perf_counter()
    plan = _Plan.of(base, add, scripts, superwords, recipe, first_id, min_frequency, tie_break)
    counts = count_corpus(
        base,
        plan.pattern,
        texts=texts,
        files=files,
        workers=workers,
        progress=progress,
        text_field=text_field,
        on_bad_row=on_bad_row,
    )
    counting = time.perf_counter()
    target = plan.rule.scripts if plan.rule else dominant_scripts(counts.counts)
    with paused_collector():
        start = Start.from_tokenizer(base, counts.counts, release=True)  # each piece's text freed once encoded
        tokens_before = _tokens_before(start)  # the run merges the words in place
        run = plan.merge_run(start, add, min_frequency, tie_break)
        stop_reason = run.run(add, progress=progress, cancel=cancel)
    merging = time.perf_counter()
    record = _record(base, counts, start, run, plan.settings(base, add, min_frequency, tie_break), stop_reason)
    extended = start.extended_tokenizer(
        run.merges,
        first_id=first_id,
        pattern=plan.pattern,
        name=name or f"{base.name}+{len(run.merges)}",
        training=record,
    )
    record["extension"].update(
        tokens_before=tokens_before,
        first_id=min((i for i in extended.vocab if i not in base.vocab), default=None),
        refused_pairs=plan.refused(),
        other_text=other_text_changes(base, extended, target, same_pattern=plan.recipe is None),
        seconds={"count": round(counting - started, 3), "merge": round(merging - counting, 3)},
    )
    record["seconds"] = round(time.perf_counter() - started, 3)
    return extended


@dataclass(frozen=True)
class _Plan:
    """``extend``'s settings checked, before any counting: the script rule or SuperBPE's recipe (never
    both), the pre-tokenization to count and encode with, and the engine's ``refuse``."""

    rule: ScriptRule | None
    recipe: SuperBPERecipe | None
    pattern: Any
    refuse: Callable[[bytes], bool] | None

    @classmethod
    def of(
        cls,
        base: Tokenizer,
        add: object,
        scripts: str | Sequence[str] | None,
        superwords: bool,
        recipe: str | SuperBPERecipe,
        first_id: int | None,
        min_frequency: object,
        tie_break: object,
    ) -> _Plan:
        check_continuable(base)
        _check_add(base, add)
        if first_id is not None:
            check_first_id(base, first_id, cast(int, add))
        if tie_break not in TIE_BREAKS:
            raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
        if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
            raise BpeError(f"min_frequency must be a non-negative integer, got {min_frequency!r}")
        rule = ScriptRule(scripts) if scripts is not None else None
        chosen = recipe_named(recipe) if superwords else None
        if rule is not None and chosen is not None:
            raise BpeError(
                "scripts and superwords cannot go together: superwords change how all text is pre-tokenized, so "
                "text of other scripts would not encode as before; extend with scripts, or with superwords alone"
            )
        if chosen is not None:
            return cls(None, chosen, chosen.stage2_pattern, SuperwordRefusal(chosen))
        return cls(rule, None, base._pattern_argument, rule.refuse if rule is not None else None)

    def merge_run(self, start: Start, add: int, min_frequency: int, tie_break: TieBreak) -> MergeRun:
        """The engine's run from ``start``; with superwords, tracking only the pairs that may be chosen
        for ``add`` new tokens (``TRACKED_PER_MERGE`` each, as SuperBPE's stage 2: the same merges, far
        fewer of its long pieces' pairs held; short pre-tokens gain little from it and count twice)."""
        tracked = TRACKED_PER_MERGE * add if self.recipe is not None else None
        return MergeRun(
            start, tie_break=tie_break, min_frequency=min_frequency, refuse=self.refuse, tracked_pairs=tracked
        )

    def settings(self, base: Tokenizer, add: int, min_frequency: int, tie_break: str) -> dict[str, Any]:
        return {
            "algorithm": "extend",
            "base": base.name,
            "add": add,
            "scripts": list(self.rule.scripts) if self.rule else None,
            "superwords": self.recipe.name if self.recipe else None,
            "min_frequency": min_frequency,
            "tie_break": tie_break,
            "special_tokens": list(base.special_tokens),
        }

    def refused(self) -> int:
        """How many pairs the script rule or the superword rules turned down."""
        return self.rule.refused if self.rule else getattr(self.refuse, "refused", 0)


def _check_add(base: Tokenizer, add: object) -> None:
    if not isinstance(add, int) or isinstance(add, bool):
        raise TypeError(f"add must be an integer (the number of new tokens), not {type(add).__name__}")
    room = MAX_VOCAB_SIZE - (max([*base.vocab, *base.special_tokens.values()]) + 1)
    if not 0 < add <= room:
        raise BpeError(
            f"add={add:,} new tokens: give a number from 1 to {room:,} (ids end at {MAX_VOCAB_SIZE - 1:,})"
            if add > 0
            else f"add must be at least 1 (the number of new tokens to learn), got {add}"
        )


def _record(
    base: Tokenizer, counts: WordCounts, start: Start, run: MergeRun, settings: dict, stop_reason: str
) -> dict[str, Any]:
    stats = counts.stats
    return {
        "settings": settings,
        "corpus": stats.record(total_bytes=start.corpus_bytes, unique_pretokens=len(start.words)),
        **({"bad_row_examples": list(stats.bad_row_examples)} if stats.bad_rows else {}),
        "stop_reason": stop_reason,
        "merges_learned": len(run.merges),
        "tokens_after_merge": [m.tokens_after for m in run.merges],
        "extension": {"base": base.name, "base_vocab_size": base.vocab_size, "added": len(run.merges)},
    }


def _tokens_before(start: Start) -> int:
    """The corpus's tokens under the base: each distinct piece's tokens times its count."""
    return sum(len(word) * freq for word, freq in zip(start.words, start.freqs, strict=True))


# --------------------------------------------------------------------------------------------------
# counting with the base's pre-tokenization


def count_corpus(
    base: Tokenizer,
    pattern: Any,
    *,
    texts: str | Iterable[str] | None,
    files: Corpus | None,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    text_field: str = "text",
    on_bad_row: str = "skip",
) -> WordCounts:
    """The pre-token counts of ``texts`` or ``files`` (exactly one) as ``pattern`` (the base's own, or
    SuperBPE's stage 2) cuts them, the base's special tokens cut out first."""
    if (texts is None) == (files is None):
        raise BpeError(
            "give the corpus as texts (a str or a list of documents) or as files= (paths, folders, globs), not both"
            if texts is not None
            else "give a corpus to learn the new tokens from: texts (a str or a list of documents) or files="
        )
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    workers = check_workers(workers)
    specials = list(base.special_tokens)
    pretokenizer = base.pretokenizer if pattern is base._pattern_argument else PreTokenizer.build(pattern)
    if isinstance(pretokenizer, StagedPreTokenizer):
        if files is not None:
            reader = DocumentReader(
                expand_inputs(files),
                text_field=text_field,
                on_bad_row=on_bad_row,
                progress=(lambda done, total: progress("count", done, total)) if progress else None,
            )
            counts = _count_staged(("".join(blocks) for blocks in reader.documents()), pretokenizer, specials)
            counts.stats.bad_rows += reader.bad_rows.count
            counts.stats.bad_row_examples.extend(reader.bad_rows.examples)
            return counts
        return _count_staged([texts] if isinstance(texts, str) else texts, pretokenizer, specials)  # type: ignore[arg-type]
    if files is not None:
        return count_files(
            files,
            pretokenizer=pretokenizer,
            special_tokens=specials,
            workers=workers,
            progress=progress,
            text_field=text_field,
            on_bad_row=on_bad_row,
        )
    documents = [texts] if isinstance(texts, str) else texts
    return count_words(documents, pretokenizer=pretokenizer, special_tokens=specials, workers=workers)  # type: ignore[arg-type]


def _count_staged(documents: Iterable[str], pretokenizer: StagedPreTokenizer, specials: Sequence[str]) -> WordCounts:
    """Counts of a multi-stage pre-tokenizer's pieces, each document split whole (it has no safe cuts)."""
    result = WordCounts()
    stats = result.stats
    counts: Counter = result.counts
    special_regex = special_token_regex(specials)
    for document in documents:
        if not isinstance(document, str):
            raise TypeError(f"training texts must be str, got {type(document).__name__}")
        stats.documents += 1
        for segment, is_special in split_on_special_tokens(document, special_regex):
            if is_special:
                stats.special_tokens_cut += 1
                continue
            stats.characters += len(segment)
            pieces = pretokenizer.pieces(segment)
            stats.pretokens += len(pieces)
            counts.update(pieces)
    return result
