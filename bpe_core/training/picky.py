"""Picky BPE training (Chizhov, Arnett, Korotkova, Yamshchikov, EMNLP 2024): BPE that removes
intermediate tokens once they are used almost only inside a merge.

After each merge of (x, y) into z, joining m occurrences, each parent that is not a single byte is
checked, x first then y (once when x == y): its *Intersection over Self* is IoS = m / (f + m), where
f is its frequency once the merge took its occurrences (and after x's removal, if x was removed and
y is among x's parts). If IoS > ``threshold`` the parent is *removed*: every occurrence left in the
word table is split into its parts (its first merge's parents, an absent one split further), which
gain its frequency; the vocabulary loses one token. A later merge that makes the same bytes
*restores* it, with the same id. Training stops when the tokens present reach ``vocab_size``.

Where this follows the authors' code rather than the paper: the caption of the paper's Figure 2
removes a token once IoS >= T; both implementations (``pchizhov/picky_bpe`` and ``pickybpe-bauwenst``) test IoS > T,
as here, so T = 1 never removes and equals ``bpe_core.train``. The paper defines IoS as the pair's
frequency over the token's; for x == y the merge takes 2m occurrences, and the authors' formula,
kept here, is m / (f_before - m). As everywhere in bpe_core, a pair whose bytes are a token present
now is not merged (the merge engine's rule); the authors' code merges it into that token and counts it.

Every event is recorded in order (``PickyEvent``; in ``Tokenizer.training["picky_events"]``). Encoding
replays the events (``bpe.picky_replay``). The merges are the merge engine's (``engine``: its heap, tie
rules and word update), the removals its Picky policy's (``picky_policy``); this module checks the
settings, runs them and builds the tokenizer. It does not count pre-tokens (``counting``) nor encode
text; the readable algorithm is the naive trainer in ``tests/training/test_picky.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_core.bpe.picky_replay import MERGE, REMOVE, Event
from bpe_core.errors import BpeError, keyword_options
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import preset_name
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts, count_words
from bpe_core.training.engine import MergeRun, ProgressCallback, paused_collector
from bpe_core.training.picky_policy import STOP_CYCLE, PickyEvent, PickyPolicy
from bpe_core.training.start import Start
from bpe_core.training.trainer import TRAINING_DEFAULTS, TrainingOptions, TrainingSettings

if TYPE_CHECKING:  # typing.Unpack from 3.11 on; only type checkers read it
    from typing_extensions import Unpack

__all__ = ["MAX_RESTORES", "STOP_CYCLE", "PickyEvent", "PickyTraining", "picky_training", "train_picky"]

PICKY_TIE_BREAKS = ("lexicographic", "huggingface", "rustbpe")
#: A token restored more often stops training (STOP_CYCLE): any cycle of the word table restores some token.
MAX_RESTORES = 64
EVENT_FIELDS = ["step", "kind", "token", "parts", "count", "merged", "ios"]


@dataclass(frozen=True)
class PickyTraining:
    """What Picky BPE training made: the tokens present at the end (``vocab``: the 256 bytes, the
    special tokens, then the merged tokens in the order first made, ids without gaps), every event,
    and the ``training`` metadata (see ``_metadata``)."""

    vocab: dict[int, bytes]
    special_tokens: dict[str, int]
    events: tuple[PickyEvent, ...]
    training: dict
    pattern: str | None
    name: str

    @property
    def removals(self) -> int:
        return sum(event.kind == REMOVE for event in self.events)

    def replay_events(self) -> list[Event]:
        """The events as ``bpe.picky_replay`` takes them (what encoding needs)."""
        return [(event.kind, event.token, event.parts) for event in self.events]

    def tokenizer(self) -> Tokenizer:
        """The ``Tokenizer``. With no removal, replaying the events is BPE with the merges in order, so
        this is ``bpe_core.train``'s tokenizer (``rule="bpe"``); with removals it follows
        ``rule="picky"``: it encodes by replaying the events (see ``bpe.picky_replay``)."""
        if self.removals:
            return Tokenizer(
                self.vocab,
                [],
                special_tokens=self.special_tokens,
                pattern=self.pattern,
                name=self.name,
                training=self.training,
                rule="picky",
                events=self.replay_events(),
            )
        merges = [event for event in self.events if event.kind == MERGE]
        return Tokenizer(
            self.vocab,
            [(event.parts[0], event.parts[1]) for event in merges],
            special_tokens=self.special_tokens,
            pattern=self.pattern,
            name=self.name,
            merge_counts=[event.count for event in merges],
            training=self.training,
        )


def _check_threshold(threshold: object) -> float:
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        raise TypeError(f"threshold must be a number, not {type(threshold).__name__}")
    if math.isnan(threshold) or threshold <= 0:
        raise BpeError(f"threshold must be above 0 (an IoS is at most 1: 1 or more never removes), got {threshold!r}")
    return float(threshold)


def _metadata(policy: PickyPolicy, token_bytes: dict[int, bytes], final_id: dict[int, int]) -> tuple[dict, list]:
    """``training["picky"]`` (counts, field names, the removed tokens) and ``training["picky_events"]``
    (one row per event, tokens by id: removed tokens numbered after the vocab). Two keys, so that the
    rows nest no deeper than ``bpe_json`` keeps."""
    ids = dict(final_id)
    removed = []
    for token_id in sorted(set(token_bytes) - set(final_id)):
        token = ids[token_id] = len(ids)
        try:
            removed.append({"id": token, "text": token_bytes[token_id].decode("utf-8")})
        except UnicodeDecodeError:
            removed.append({"id": token, "hex": token_bytes[token_id].hex()})
    by_bytes = {token_bytes[token_id]: ids[token_id] for token_id in ids}
    rows = [
        [e.step, e.kind, by_bytes[e.token], [by_bytes[p] for p in e.parts], e.count, e.merged, list(e.ios)]
        for e in policy.events
    ]
    summary = {
        "threshold": policy.threshold,
        "removals": sum(e.kind == REMOVE for e in policy.events),
        "restores": sum(policy.restores.values()),
        "event_fields": EVENT_FIELDS,
        "removed_tokens": removed,
    }
    return summary, rows


def picky_training(
    word_counts: WordCounts,
    settings: TrainingSettings,
    *,
    threshold: float = 0.9,
    progress: ProgressCallback | None = None,
    started: float | None = None,
) -> PickyTraining:
    """Picky BPE on pre-token counts (``count_words``'s), with ``settings`` checked already."""
    started = time.perf_counter() if started is None else started
    threshold = _check_threshold(threshold)
    if settings.tie_break not in PICKY_TIE_BREAKS:
        raise BpeError(
            f"train_picky breaks ties by {PICKY_TIE_BREAKS}, not {settings.tie_break!r}: the 'first' rule's "
            "first occurrences move earlier when a removal splits tokens"
        )
    specials = settings.special_tokens
    start = Start.from_counts(word_counts.counts, specials)
    token_bytes = start.token_bytes  # every token ever made, by creation id
    policy = PickyPolicy(start.words, start.freqs, token_bytes, threshold, MAX_RESTORES)
    with paused_collector():
        run = MergeRun(start, tie_break=settings.tie_break, min_frequency=settings.min_frequency, policy=policy)
        stop_reason = run.run(settings.vocab_size, progress=progress)
    final_id = {token_id: n for n, token_id in enumerate(sorted(policy.present))}
    summary, rows = _metadata(policy, token_bytes, final_id)
    pretokenizer = settings.pretokenizer()
    training = {
        "settings": {
            "algorithm": "picky",
            "threshold": threshold,
            "vocab_size": settings.vocab_size,
            "min_frequency": settings.min_frequency,
            "pattern": preset_name(pretokenizer.source) or pretokenizer.source,
            "special_tokens": list(specials),
            "tie_break": settings.tie_break,
        },
        "corpus": word_counts.stats.record(total_bytes=start.corpus_bytes, unique_pretokens=len(start.words)),
        "stop_reason": stop_reason,
        "merges_learned": len(policy.tokens_after),
        "tokens_after_merge": policy.tokens_after,
        "picky": summary,
        "picky_events": rows,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return PickyTraining(
        vocab={final_id[token_id]: token_bytes[token_id] for token_id in sorted(policy.present)},
        special_tokens={token: 256 + n for n, token in enumerate(specials)},
        events=tuple(policy.events),
        training=training,
        pattern=settings.pattern,
        name=settings.name,
    )


@keyword_options(TrainingOptions, {**TRAINING_DEFAULTS, "name": "picky"})
def train_picky(
    texts: str | Iterable[str], vocab_size: int, *, threshold: float = 0.9, **options: Unpack[TrainingOptions]
) -> Tokenizer:
    """Train a byte-level Picky BPE tokenizer: ``bpe_core.train``'s counting and keywords, then the
    Picky merge loop (see the module docstring); ``vocab_size`` counts the tokens present at the end.
    The other keywords are ``TrainingOptions``' (the default name: ``"picky"``).
    ``threshold`` > 0: an IoS above it removes a token (1 or more never does: then this is
    ``bpe_core.train``). ``tie_break`` is ``"lexicographic"``, ``"huggingface"`` or ``"rustbpe"``.
    With removals the tokenizer follows ``rule="picky"`` (it encodes by replaying ``picky_events``),
    without it is plain BPE. The events, with counts and IoS, are in ``training["picky_events"]``.

    >>> train_picky(["ab ab ab ab", "abc abc"], 259, threshold=1.0, min_frequency=1).merges
    [(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]
    """
    started = time.perf_counter()
    settings, progress = TrainingSettings.of(vocab_size, options), options["progress"]
    _check_threshold(threshold)
    if isinstance(texts, (bytes, bytearray)):
        raise TypeError("texts must be str, not bytes: decode them first (e.g. data.decode('utf-8'))")
    documents: Iterable[str] = [texts] if isinstance(texts, str) else texts
    if progress:
        progress("count", 0, 0)
    word_counts = count_words(
        documents,
        pretokenizer=settings.pretokenizer(),
        special_tokens=settings.special_tokens,
        workers=check_workers(options["workers"]),
    )
    if progress:
        progress("count", word_counts.stats.documents, word_counts.stats.documents)
    result = picky_training(word_counts, settings, threshold=threshold, progress=progress, started=started)
    return result.tokenizer()
