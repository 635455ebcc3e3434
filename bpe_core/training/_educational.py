"""BPE training written the plain way, once: for reading, for teaching, and for checking the fast
engine against.

The algorithm, on words with counts: count every adjacent pair, each word weighted by how often it
occurs (``pair_counts``); take the most frequent, ties broken by the rule (``choose_pair``,
``rank_pairs``); merge it everywhere (``merge``: every occurrence, left to right, no overlap); repeat.
``learn`` is that loop, recounting everything at each step, so it is meant for small inputs. Three
views are built on it:

- ``train_reference(texts, vocab_size)``: byte-level BPE as ``bpe_core.train`` does it (pieces of the
  pre-tokenization regex, each as its bytes), with bpe_core's two rules beyond the textbook's: a pair
  whose bytes already are a token is skipped for good (two ids never share bytes), and training stops
  when the best pair is rarer than ``min_frequency``. Tests hold it equal, merge for merge, to the
  merge engine (``engine``) under every tie rule.
- ``trace_training(texts, num_merges)``: the same, with each step recorded (the top pair counts, every
  word's symbols after the merge): the Step through page's byte-level modes.
- ``train_textbook(text, num_merges)``: Sennrich et al. 2016 as textbooks trace it by hand: words split
  on whitespace, each its characters plus an end-of-word marker ``</w>``, ties to the pair met first,
  no rule against a token made twice. Not byte-level: it cannot encode arbitrary bytes losslessly.

``merge`` and ``pair_counts`` are ``bpe_core.bpe.reference``'s, shared with the readable encoder. This
module lives in ``training`` because it splits text with the pre-tokenization regex and ranks bytes as
Hugging Face does, both above ``bpe_core.bpe`` in the layers (tests/project/test_layout.py). It has no
files or workers (``trainer`` has); the tests keep a naive trainer of their own (tests/support).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core.bpe.reference import merge, pair_counts
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer, replace_surrogates
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.training.counting import count_words
from bpe_core.training.engine import STOP_MIN_FREQUENCY, STOP_NO_PAIRS
from bpe_core.training.tie_rules import TIE_BREAKS, huggingface_byte_ids

Pair = tuple[bytes, bytes]
END_OF_WORD = "</w>"
#: Inputs larger than this many characters are refused: the trace recounts everything each step.
MAX_TRACE_CHARACTERS = 200_000
STOP_NUM_MERGES = "reached num_merges"


@dataclass(frozen=True)
class Choice:
    """One step's pick: the pairs still in the running, best first (``ranked``), and the pair to
    merge with its count, or ``pair`` None and why training stops."""

    ranked: list[tuple[Any, int]]
    pair: Any
    count: int = 0
    stop_reason: str = ""


def learn(
    words: list[tuple[Any, ...]],
    freqs: list[int],
    num_merges: int,
    choose: Callable[[dict], Choice],
    on_merge: Callable[[Choice, list[tuple[Any, ...]]], None],
) -> str:
    """The loop: up to ``num_merges`` times, count the pairs, ``choose`` one, merge it in every word,
    and tell ``on_merge`` the choice and the words after it. Returns why it stopped.

    >>> made = []
    >>> learn([("a", "b", "a", "b")], [1], 5, lambda counts: rank_first(counts), lambda c, w: made.append(w))
    'no pair left to merge'
    >>> made
    [[('ab', 'ab')], [('abab',)]]
    """
    while num_merges > 0:
        choice = choose(pair_counts(words, freqs))  # every adjacent pair, weighted by its word's count
        if choice.pair is None:
            return choice.stop_reason
        left, right = choice.pair
        words = [tuple(merge(word, choice.pair, left + right)) for word in words]  # merged everywhere
        on_merge(choice, words)
        num_merges -= 1
    return STOP_NUM_MERGES


def rank_first(counts: Mapping[Any, int]) -> Choice:
    """The textbook's pick: the most frequent pair, the one met first among equals."""
    ranked = rank_pairs(counts, "first", {})
    return Choice(ranked, ranked[0][0], ranked[0][1]) if ranked else Choice([], None, stop_reason=STOP_NO_PAIRS)


def choose_pair(
    counts: Mapping[Pair, int], tie_break: str, vocab: Mapping[bytes, int], skipped: set[Pair], min_frequency: int
) -> Choice:
    """The pair to merge: the best of ``rank_pairs`` not skipped before, unless it is rarer than
    ``min_frequency`` (training stops). A pair whose bytes already are a token (in ``vocab``) is
    skipped for good: added to ``skipped``, and the next one is taken.

    >>> vocab = {bytes([byte]): byte for byte in range(256)}
    >>> choose_pair({(b"a", b"b"): 2, (b"c", b"d"): 2}, "first", vocab, set(), 1).pair
    (b'a', b'b')
    """
    ranked = rank_pairs({pair: count for pair, count in counts.items() if pair not in skipped}, tie_break, vocab)
    for place, (pair, count) in enumerate(ranked):
        if count < min_frequency:
            return Choice(ranked[place:], None, stop_reason=STOP_MIN_FREQUENCY)
        if pair[0] + pair[1] not in vocab:
            return Choice(ranked[place:], pair, count)
        skipped.add(pair)
    return Choice([], None, stop_reason=STOP_NO_PAIRS)


def rank_pairs(counts: Mapping[Any, int], tie_break: str, vocab: Mapping[bytes, int]) -> list[tuple[Any, int]]:
    """The pairs best first: the highest count, then the tie rule (docs/library/training.md, "Training
    rules"; ``tie_rules``). ``counts`` is in order of first occurrence; ``vocab`` gives merged tokens' ids.

    >>> vocab = {bytes([byte]): byte for byte in range(256)}
    >>> rank_pairs({(b"a", b"b"): 1, (b"b", b"a"): 1}, "lexicographic", vocab)
    [((b'b', b'a'), 1), ((b'a', b'b'), 1)]
    """
    if tie_break == "lexicographic":  # the greatest (left bytes, right bytes)
        return sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    if tie_break == "first":  # sorting is stable, and the counts are in order of first occurrence
        return sorted(counts.items(), key=lambda item: -item[1])
    # the smallest (left id, right id): single bytes numbered by the rule, merged tokens by creation
    byte_ids = huggingface_byte_ids() if tie_break == "huggingface" else range(256)

    def symbol_id(symbol: bytes) -> int:
        return byte_ids[symbol[0]] if len(symbol) == 1 else vocab[symbol]

    return sorted(counts.items(), key=lambda item: (-item[1], symbol_id(item[0][0]), symbol_id(item[0][1])))


def symbols_of(pretoken: str) -> tuple[bytes, ...]:
    """A pre-token as training starts it: one symbol per UTF-8 byte (lone surrogates as U+FFFD,
    exactly as encoding treats them).

    >>> symbols_of("hé")
    (b'h', b'\\xc3', b'\\xa9')
    """
    return tuple(bytes([byte]) for byte in replace_surrogates(pretoken).encode("utf-8"))


def _check_tie_break(tie_break: str) -> None:
    if tie_break not in TIE_BREAKS:
        raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")


def _check_num_merges(num_merges: object) -> None:
    if not isinstance(num_merges, int) or num_merges < 0:
        raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")


def _byte_learner(
    tie_break: str, min_frequency: int, vocab: dict[bytes, int], next_id: int
) -> tuple[Callable[[dict], Choice], Callable[[Choice], int]]:
    """Byte-level training's pick (``choose_pair`` on ``vocab``) and what records each merge's token
    in ``vocab`` with the next id (returned)."""
    skipped: set[Pair] = set()
    initial = len(vocab)

    def choose(counts: dict) -> Choice:
        return choose_pair(counts, tie_break, vocab, skipped, min_frequency)

    def add(choice: Choice) -> int:
        new_id = vocab[choice.pair[0] + choice.pair[1]] = next_id + len(vocab) - initial
        return new_id

    return choose, add


# --------------------------------------------------------------------------------------------------
# byte-level: the readable bpe_core.train, and its trace


def train_reference(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = "gpt2",
    min_frequency: int = 2,
    tie_break: str = "lexicographic",
) -> list[Pair]:
    """The merges BPE learns from ``texts`` for a vocabulary of ``vocab_size`` ids (the 256 bytes,
    then one per merge), as (left bytes, right bytes): ``bpe_core.train(...).merges``, the slow way.

    >>> train_reference(["ab ab ab ab", "abc abc"], 259, min_frequency=1)
    [(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]
    """
    _check_tie_break(tie_break)
    pretokenizer = PreTokenizer.build(pattern)
    word_counts: dict[tuple[bytes, ...], int] = {}  # each distinct piece, as its bytes, and how often it occurs
    for text in [texts] if isinstance(texts, str) else texts:
        for piece in pretokenizer.pieces(text):
            word = symbols_of(piece)
            word_counts[word] = word_counts.get(word, 0) + 1
    vocab = {bytes([byte]): byte for byte in range(256)}  # token -> id
    choose, add = _byte_learner(tie_break, min_frequency, vocab, 256)
    merges: list[Pair] = []

    def on_merge(choice: Choice, words: list) -> None:
        add(choice)
        merges.append(choice.pair)

    learn(list(word_counts), list(word_counts.values()), vocab_size - len(vocab), choose, on_merge)
    return merges


@dataclass(frozen=True)
class WordState:
    """One unique pre-token: its current symbols and how often it occurs."""

    symbols: tuple[bytes, ...]
    freq: int


@dataclass(frozen=True)
class TraceStep:
    """Merge number ``number`` (1-based): ``pair`` with ``count`` became ``new_token`` (id ``new_id``)."""

    number: int
    pair: tuple[bytes, bytes]
    count: int
    new_id: int
    new_token: bytes
    top_pairs: list[tuple[tuple[bytes, bytes], int]]
    words: list[WordState]
    tokens_after: int


@dataclass(frozen=True)
class TraceResult:
    initial: list[WordState]
    steps: list[TraceStep]
    stop_reason: str

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        return [step.pair for step in self.steps]


def _checked_documents(texts: str | Sequence[str], num_merges: int, tie_break: str) -> list[str]:
    _check_tie_break(tie_break)
    _check_num_merges(num_merges)
    documents = [texts] if isinstance(texts, str) else list(texts)
    size = sum(len(d) for d in documents if isinstance(d, str))
    if size > MAX_TRACE_CHARACTERS:
        raise BpeError(
            f"the input has {size:,} characters; the step-by-step trace takes at most "
            f"{MAX_TRACE_CHARACTERS:,}. Use bpe_core.train for larger corpora."
        )
    return documents


def trace_training(
    texts: str | Sequence[str],
    num_merges: int,
    *,
    pattern: str | None = "gpt2",
    tie_break: str = "first",
    min_frequency: int = 1,
    top: int = 10,
    special_tokens: Sequence[str] = (),
) -> TraceResult:
    """Train up to ``num_merges`` merges on ``texts`` as ``train_reference`` does, and record every step."""
    documents = _checked_documents(texts, num_merges, tie_break)
    specials = validate_special_tokens(special_tokens)
    counted = count_words(documents, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials)
    words = [symbols_of(word) for word in counted.counts]
    freqs = list(counted.counts.values())
    vocab = {bytes([byte]): byte for byte in range(256)}  # token -> id
    for offset, token in enumerate(specials):
        vocab.setdefault(token.encode("utf-8"), 256 + offset)
    choose, add = _byte_learner(tie_break, min_frequency, vocab, 256 + len(specials))
    initial = [WordState(symbols, freq) for symbols, freq in zip(words, freqs, strict=True)]
    steps: list[TraceStep] = []

    def on_merge(choice: Choice, merged: list[tuple[bytes, ...]]) -> None:
        new_id = add(choice)
        after = [WordState(symbols, freq) for symbols, freq in zip(merged, freqs, strict=True)]
        tokens_after = sum(len(symbols) * freq for symbols, freq in zip(merged, freqs, strict=True))
        pair = choice.pair
        top_pairs = choice.ranked[:top]
        steps.append(
            TraceStep(len(steps) + 1, pair, choice.count, new_id, pair[0] + pair[1], top_pairs, after, tokens_after)
        )

    stop_reason = learn(words, freqs, num_merges, choose, on_merge)
    return TraceResult(initial, steps, stop_reason)


# --------------------------------------------------------------------------------------------------
# the textbook: characters and </w>


@dataclass(frozen=True)
class TextbookStep:
    number: int
    pair: tuple[str, str]
    merged: str
    count: int
    top_pairs: list[tuple[tuple[str, str], int]]
    words: list[tuple[tuple[str, ...], int]]


@dataclass(frozen=True)
class TextbookResult:
    initial: list[tuple[tuple[str, ...], int]]
    steps: list[TextbookStep]

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [step.pair for step in self.steps]

    @property
    def vocabulary(self) -> list[str]:
        """Initial symbols (in order of first appearance) followed by the merged tokens."""
        seen: dict[str, None] = {}
        for symbols, _ in self.initial:
            for symbol in symbols:
                seen.setdefault(symbol, None)
        return list(seen) + [step.merged for step in self.steps]

    def encode_word(self, word: str) -> list[str]:
        """Tokenize one word: its characters plus ``</w>``, then every merge in learned order."""
        symbols: tuple[str, ...] = (*word, END_OF_WORD)
        for pair in self.merges:
            symbols = tuple(merge(symbols, pair, pair[0] + pair[1]))
        return list(symbols)

    def encode(self, text: str) -> list[str]:
        return [token for word in text.split() for token in self.encode_word(word)]

    @staticmethod
    def decode(tokens: Sequence[str]) -> str:
        return "".join(tokens).replace(END_OF_WORD, " ").strip()


def _split_words(text_or_words: str | Sequence[str]) -> list[str]:
    if isinstance(text_or_words, str):
        return text_or_words.split()
    words = list(text_or_words)
    for word in words:
        if not isinstance(word, str):
            raise TypeError(f"words must be strings, got {type(word).__name__}")
    return [w for text in words for w in text.split()]


def train_textbook(text_or_words: str | Sequence[str], num_merges: int, *, top: int = 10) -> TextbookResult:
    """Learn ``num_merges`` merges (fewer if pairs run out) on whitespace-separated words."""
    _check_num_merges(num_merges)
    counts: dict[str, int] = {}
    for word in _split_words(text_or_words):
        counts[word] = counts.get(word, 0) + 1
    words = [(*word, END_OF_WORD) for word in counts]
    freqs = list(counts.values())
    initial = list(zip(words, freqs, strict=True))
    steps: list[TextbookStep] = []

    def on_merge(choice: Choice, merged: list[tuple[str, ...]]) -> None:
        pair = choice.pair
        after = list(zip(merged, freqs, strict=True))
        steps.append(TextbookStep(len(steps) + 1, pair, pair[0] + pair[1], choice.count, choice.ranked[:top], after))

    learn(words, freqs, num_merges, rank_first, on_merge)
    return TextbookResult(initial, steps)
