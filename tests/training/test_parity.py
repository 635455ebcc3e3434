"""Parity-aware training: hand-worked corpora, a naive reference recounted from scratch at every
step (with development text re-encoded from scratch), hybrid = standard BPE, and the comparison."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive_bpe import GPT2, naive_encode_word, pretokenize, replace_pair

import bpe_core
from bpe_core.formats.bytelevel import byte_to_unicode
from bpe_core.training.parity import GLOBAL, train_parity

# --------------------------------------------------------------------------------------------------
# a naive reference, written from the method's description


def _words(documents, pattern):
    """Distinct pre-tokens (as tuples of one-byte symbols) with their counts, in order of first appearance."""
    if isinstance(documents, str):
        documents = [documents]
    counts: dict[tuple[bytes, ...], int] = {}
    for document in documents:
        for piece in pretokenize(document, pattern):
            key = tuple(bytes([b]) for b in piece.encode("utf-8"))
            counts[key] = counts.get(key, 0) + 1
    return counts


def _tie(tied, rule, order, ids):
    if rule == "lexicographic":
        return max(tied)
    if rule == "first":
        return min(tied, key=order.__getitem__)
    if rule == "huggingface":  # ParityBpeTrainer and the paper's code: max over the byte-level strings
        table = byte_to_unicode()
        return max(tied, key=lambda p: tuple("".join(table[b] for b in side) for side in p))
    return min(tied, key=lambda p: (ids[p[0]], ids[p[1]]))  # rustbpe: bytes by value, new ids by creation


def _pick(standing, exhausted, recent, variant, window, limit):
    """ParityBpeTrainer's language selection, as its source reads: the scan over the languages not
    masked, the worst first (ties: the first), masking those over the window's limit."""
    n = len(standing)
    values = [float("-inf") if exhausted[i] else standing[i] for i in range(n)]
    if variant == "base":
        return max((i for i in range(n) if not exhausted[i]), key=lambda i: (values[i], -i))
    mask = [True] * n
    while True:
        best, best_value = 0, float("-inf")
        for i in range(n):
            if mask[i] and values[i] > best_value:
                best, best_value = i, values[i]
        if recent[-window:].count(best) / window <= limit:
            return best
        if not mask[best]:  # ParityBpeTrainer scans forever here; bpe_core serves the best compressed
            return min((i for i in range(n) if not exhausted[i]), key=lambda i: (values[i], -i))
        mask[best] = False
        if not any(mask):
            return best


def naive_parity(
    texts,
    dev,
    num_merges,
    *,
    variant="base",
    global_merges=0,
    window=100,
    alpha=2.0,
    min_frequency=1,
    rule="lexicographic",
    pattern=GPT2,
    ratio=None,
    convention="huggingface",
):
    """Returns (merges as byte pairs, language served per merge: index or -1, stop kind)."""
    langs = list(texts)
    n = len(langs)
    per_lang = [_words(texts[lang], pattern) for lang in langs]
    union: dict[tuple[bytes, ...], list[int]] = {}  # word -> count per language, first appearance order
    for index, counts in enumerate(per_lang):
        for word, freq in counts.items():
            union.setdefault(word, [0] * n)[index] += freq
    dev_words = per_lang if ratio is not None else [_words(dev[lang], pattern) for lang in langs]
    targets = None if ratio is None else [ratio[lang] for lang in langs]
    if targets is not None and convention == "paper":
        targets = [t / targets[0] for t in targets]
    limit = alpha / (n + 1 if convention == "paper" and global_merges else n)
    ids = {bytes([b]): b for b in range(256)}
    merges, served, excluded, recent = [], [], set(), []
    exhausted = [False] * n
    initial = None
    while len(merges) < num_merges:
        dev_tokens = [
            sum(len(naive_encode_word(b"".join(w), merges)) * f for w, f in words.items()) for words in dev_words
        ]
        initial = initial or dev_tokens
        standing = dev_tokens
        if targets is not None:
            standing = [-((a / b) / t) for a, b, t in zip(initial, dev_tokens, targets, strict=True)]
        if len(merges) < global_merges:
            lang = -1
        else:
            if all(exhausted):
                return merges, served, "exhausted"
            lang = _pick(standing, exhausted, recent, variant, window, limit)
            if variant == "window":
                recent.append(lang)
        counts, first_seen = {}, {}
        for word, freqs in union.items():
            weight = sum(freqs) if lang == -1 else freqs[lang]
            for pair in zip(word, word[1:], strict=False):
                first_seen.setdefault(pair, len(first_seen))
                if weight and pair not in excluded:
                    counts[pair] = counts.get(pair, 0) + weight
        best_count = max(counts.values(), default=0)
        if best_count < max(min_frequency, 1):
            if lang == -1:
                return merges, served, "global"
            exhausted[lang] = True
            if convention == "paper":
                return merges, served, "stopped"
            continue
        best = _tie([p for p, c in counts.items() if c == best_count], rule, first_seen, ids)
        if best[0] + best[1] in ids:
            excluded.add(best)
            continue
        ids[best[0] + best[1]] = 256 + len(merges)
        merges.append(best)
        served.append(lang)
        union = {tuple(replace_pair(list(w), best, best[0] + best[1])): f for w, f in union.items()}
    return merges, served, "vocab"


# --------------------------------------------------------------------------------------------------
# worked by hand

# x's training text has the most frequent pair (a, b: 5), so standard BPE merges it first; y's
# development text needs more tokens (6 against 4), so parity-aware BPE serves y first.
HAND_TEXTS = {"x": ["ab"] * 5, "y": ["cd", "cd", "cde", "cde"]}
HAND_DEV = {"x": "abab", "y": "cdecde"}


def test_hand_worked_corpus_serves_the_worst_language_and_the_worst_changes():
    tok = train_parity(HAND_TEXTS, HAND_DEV, 256 + 10, pattern=None, min_frequency=1)
    # 1: dev tokens x 4, y 6 -> y's best pair (c, d) 4; y's dev "cd e cd e" is 4 tokens.
    # 2: 4 and 4, a tie -> x (first given): (a, b) 5; x's dev is 2 tokens.
    # 3: y (4) -> (cd, e) 2; y's dev is 2 tokens. 4: no pair left in x nor y.
    assert tok.merges == [(b"c", b"d"), (b"a", b"b"), (b"cd", b"e")]
    parity = tok.training["parity"]
    assert parity["merge_language"] == [1, 0, 1]
    assert parity["dev_tokens_before"] == [4, 6]
    assert parity["dev_tokens_after"] == [2, 2]
    assert tok.training["stop_reason"] == "no pair left to merge"
    assert [r.count for r in tok.merge_records] == [4, 5, 2]  # counts in all training text
    standard = bpe_core.train(HAND_TEXTS["x"] + HAND_TEXTS["y"], 257, pattern=None, min_frequency=1)
    assert standard.merges == [(b"a", b"b")]


def test_min_frequency_applies_to_the_language_served_and_exhausts_it():
    tok = train_parity(HAND_TEXTS, HAND_DEV, 256 + 10, pattern=None, min_frequency=3)
    # 3: y's best pair (cd, e) has count 2 < 3: y is exhausted; x has no pair left: stop.
    assert tok.merges == [(b"c", b"d"), (b"a", b"b")]
    assert tok.training["stop_reason"] == "best pair count below min_frequency"
    assert tok.training["parity"]["exhausted"] == ["x", "y"]


def test_an_exhausted_language_hands_over_to_the_next_worst():
    texts = {"x": ["ab ab ab", "xy xy"], "y": "cd"}  # y's text has one pair, seen once
    tok = train_parity(texts, {"x": "ab", "y": "cd cd cd"}, 256 + 3, min_frequency=2)
    assert tok.training["parity"]["merge_language"] == [0, 0, 0]
    assert tok.training["parity"]["exhausted"] == ["y"]


def test_window_variant_caps_how_often_a_language_is_served():
    # x is always the worst; with window 4 and alpha 1 (2 languages) it is served only while it has
    # been served at most 4 * 1 / 2 = 2 times in the last 4 merges.
    texts = {"x": "abcdefghij " * 9, "y": "klmnop " * 3}
    dev = {"x": "abcdefghij " * 5, "y": "klmnop"}
    base = train_parity(texts, dev, 256 + 8, min_frequency=1)
    windowed = train_parity(texts, dev, 256 + 8, min_frequency=1, variant="window", window=4, alpha=1)
    assert base.training["parity"]["merge_language"] == [0] * 8
    assert windowed.training["parity"]["merge_language"] == [0, 0, 0, 1, 1, 0, 0, 0]


def test_hybrid_records_global_merges_then_parity():
    tok = train_parity(HAND_TEXTS, HAND_DEV, 256 + 3, pattern=None, min_frequency=1, global_merges=1)
    assert tok.merges[0] == (b"a", b"b")  # global frequency first
    assert tok.training["parity"]["merge_language"][0] == GLOBAL
    assert tok.training["parity"]["merge_language"][1:] == [1, 1]


# --------------------------------------------------------------------------------------------------
# against the naive reference and standard BPE

language_text = st.lists(st.text(alphabet="aab bc\né", max_size=30), min_size=1, max_size=4)
greek_text = st.lists(st.text(alphabet="αβγ αα\n", max_size=30), min_size=1, max_size=4)
dev_text = st.text(alphabet="aabcé αβγ", min_size=1, max_size=40)


@pytest.mark.parametrize("rule", ["lexicographic", "first", "huggingface", "rustbpe"])
@given(
    x=language_text,
    y=greek_text,
    z=language_text,
    devs=st.lists(dev_text, min_size=3, max_size=3),
    merges=st.integers(0, 25),
    min_frequency=st.integers(0, 3),
    global_merges=st.integers(0, 5),
    variant=st.sampled_from(["base", "window"]),
    window=st.integers(1, 6),
    raw=st.booleans(),
    convention=st.sampled_from(["huggingface", "paper"]),
)
def test_parity_training_matches_the_naive_reference(
    rule, x, y, z, devs, merges, min_frequency, global_merges, variant, window, raw, convention
):
    texts = {"x": x, "y": y, "z": z}
    dev = dict(zip(texts, devs, strict=True))
    settings = dict(
        variant=variant, global_merges=global_merges, window=window, min_frequency=min_frequency, convention=convention
    )
    expected, served, _stop = naive_parity(texts, dev, merges, rule=rule, pattern=None if raw else GPT2, **settings)
    tok = train_parity(texts, dev, 256 + merges, tie_break=rule, pattern=None if raw else "gpt2", **settings)
    assert tok.merges == expected
    assert tok.training["parity"]["merge_language"] == served
    # the development token counts kept by the loop are the encoder's
    assert tok.training["parity"]["dev_tokens_after"] == [len(tok.encode_ordinary(d)) for d in devs]


@pytest.mark.parametrize("convention", ["huggingface", "paper"])
@given(
    x=language_text,
    y=greek_text,
    z=language_text,
    ratio=st.lists(st.sampled_from([0.5, 1.0, 1.0, 1.7, 2.5, 3.0]), min_size=3, max_size=3),
    merges=st.integers(0, 25),
    min_frequency=st.integers(0, 3),
    global_merges=st.integers(0, 5),
    variant=st.sampled_from(["base", "window"]),
    window=st.integers(1, 6),
    alpha=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_target_rates_match_the_naive_reference(
    convention, x, y, z, ratio, merges, min_frequency, global_merges, variant, window, alpha
):
    texts = {"x": x, "y": y, "z": z}
    rates = dict(zip(texts, ratio, strict=True))
    if any(not "".join(text) for text in texts.values()):
        with pytest.raises(ValueError, match="training text of . is empty: a target rate needs"):
            train_parity(texts, None, 256 + merges, ratio=rates)
        return
    settings = dict(
        variant=variant,
        global_merges=global_merges,
        window=window,
        alpha=alpha,
        min_frequency=min_frequency,
        convention=convention,
    )
    expected, served, _stop = naive_parity(texts, None, merges, rule="huggingface", ratio=rates, **settings)
    tok = train_parity(texts, None, 256 + merges, ratio=rates, tie_break="huggingface", **settings)
    assert (tok.merges, tok.training["parity"]["merge_language"]) == (expected, served)
    parity = tok.training["parity"]
    # the training token counts kept by the loop are the encoder's, document by document
    assert parity["train_tokens_after"] == [sum(len(tok.encode_ordinary(d)) for d in text) for text in texts.values()]
    assert parity["train_tokens_before"] == [sum(len(d.encode()) for d in text) for text in texts.values()]
    assert tok.training["settings"]["ratio"] == ratio


@given(
    x=st.text(alphabet="aabcde", min_size=64, max_size=200),
    y=st.text(alphabet="αβγγ", min_size=64, max_size=120),
    devs=st.lists(st.text(alphabet="abcαβγ", min_size=64, max_size=150), min_size=2, max_size=2),
    merges=st.integers(0, 60),
)
def test_first_rule_on_long_words_matches_the_naive_reference(x, y, devs, merges):
    # Words of 64 symbols and more keep first-seen labels across merges (tie_rules.FirstSeen), also
    # the words only the development text holds.
    texts, dev = {"x": [x], "y": [y]}, {"x": devs[0], "y": devs[1]}
    expected, served, _stop = naive_parity(texts, dev, merges, rule="first", pattern=None)
    tok = train_parity(texts, dev, 256 + merges, tie_break="first", pattern=None, min_frequency=1)
    assert (tok.merges, tok.training["parity"]["merge_language"]) == (expected, served)


@pytest.mark.parametrize("rule", ["lexicographic", "first", "rustbpe"])
@given(x=language_text, y=greek_text, merges=st.integers(0, 30), min_frequency=st.integers(0, 3), raw=st.booleans())
def test_hybrid_with_every_merge_global_is_standard_bpe(rule, x, y, merges, min_frequency, raw):
    settings = dict(min_frequency=min_frequency, tie_break=rule, pattern=None if raw else "gpt2")
    standard = bpe_core.train(x + y, 256 + merges, **settings)
    hybrid = train_parity({"x": x, "y": y}, {"x": "a", "y": "β"}, 256 + merges, global_merges=merges, **settings)
    assert hybrid.merges == standard.merges
    assert [r.count for r in hybrid.merge_records] == [r.count for r in standard.merge_records]
    assert hybrid.training["tokens_after_merge"] == standard.training["tokens_after_merge"]
    assert hybrid.training["stop_reason"] == standard.training["stop_reason"]
    assert hybrid.training["corpus"].keys() == standard.training["corpus"].keys()  # one corpus record


@given(x=language_text, y=greek_text, merges=st.integers(0, 30), min_frequency=st.integers(0, 3))
def test_huggingface_rule_is_parity_bpe_trainers_not_bpe_trainers(x, y, merges, min_frequency):
    # The two Hugging Face trainers break ties differently: in parity-aware training "huggingface"
    # is ParityBpeTrainer's rule (the greatest byte-level strings), also in its global merges.
    settings = dict(min_frequency=min_frequency, tie_break="huggingface")
    hybrid = train_parity({"x": x, "y": y}, {"x": "a", "y": "β"}, 256 + merges, global_merges=merges, **settings)
    expected, served, _stop = naive_parity(
        {"x": x, "y": y},
        {"x": "a", "y": "β"},
        merges,
        global_merges=merges,
        rule="huggingface",
        min_frequency=min_frequency,
    )
    assert hybrid.merges == expected and set(served) <= {GLOBAL}


def test_huggingface_rules_differ_on_one_tie():
    # (a, a) and (α's two bytes) both twice: BpeTrainer takes the smallest ids ("a" is 64 in GPT-2's
    # byte alphabet, 0xCE 140), ParityBpeTrainer the greatest strings ("Î" U+00CE > "a").
    texts = {"x": ["aa", "aa"], "y": ["α", "α"]}
    standard = bpe_core.train(texts["x"] + texts["y"], 257, min_frequency=1, tie_break="huggingface")
    parity = train_parity(texts, texts, 257, min_frequency=1, tie_break="huggingface", global_merges=1)
    assert standard.merges == [(b"a", b"a")]
    assert parity.merges == [("α".encode()[:1], "α".encode()[1:])]


def test_hybrid_equals_standard_on_the_built_in_passages_with_special_tokens():
    from bpe_core.corpora.samples import load_samples

    texts = {s.id: s.text.replace(". ", ". <|x|>") for s in load_samples("natural")}
    standard = bpe_core.train(list(texts.values()), 1500, special_tokens=["<|x|>"])
    hybrid = train_parity(texts, texts, 1500, special_tokens=["<|x|>"], global_merges=10**6)
    assert hybrid.merges == standard.merges
    assert hybrid.special_tokens == {"<|x|>": 256}


# --------------------------------------------------------------------------------------------------
# on the built-in passages


@pytest.fixture(scope="module")
def passages():
    from bpe_core.corpora.samples import load_samples

    return {s.id: s.text for s in load_samples("natural")}


def test_on_the_built_in_passages_many_languages_take_turns(passages):
    tok = train_parity(passages, passages, 256 + 600, min_frequency=1)
    served = tok.training["parity"]["merge_language"]
    assert len(tok.merges) == 600
    assert len(set(served)) >= 15
    # the worst-compressed language changes as merges accrue
    assert sum(a != b for a, b in zip(served, served[1:], strict=False)) > 50
    # parity narrows the spread of development token counts
    before, after = tok.training["parity"]["dev_tokens_before"], tok.training["parity"]["dev_tokens_after"]
    assert max(after) / min(after) < max(before) / min(before)
    assert after == [len(tok.encode_ordinary(text)) for text in passages.values()]


def test_deterministic_and_reports_progress(passages):
    calls = []
    first = train_parity(passages, passages, 600, progress=lambda *a: calls.append(a))
    again = train_parity(passages, passages, 600)
    assert first.merges == again.merges
    assert first.training["parity"] == again.training["parity"]
    phases = Counter(call[0] for call in calls)
    assert phases["count"] >= 2 and phases["merge"] >= 2
    assert calls[-1] == ("merge", 600 - 256, 600 - 256)


def test_saved_and_loaded_with_its_record(passages, tmp_path):
    tok = train_parity(passages, passages, 400, variant="window", global_merges=20)
    path = tmp_path / "parity.json"
    tok.save(path)
    loaded = bpe_core.load(path)
    assert loaded.merges == tok.merges
    assert loaded.training["parity"]["merge_language"] == tok.training["parity"]["merge_language"]
    assert json.loads(path.read_text())["training"]["settings"]["objective"] == "parity"


# --------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(texts={}, dev={}), ValueError, "at least one language"),
        (dict(dev={"x": "a"}), ValueError, "no development text for y"),
        (dict(dev={"x": "a", "y": "b", "z": "c"}), ValueError, "development text for z but no training text"),
        (dict(dev={"x": "a", "y": ""}), ValueError, "development text of y is empty"),
        (dict(texts=[("x", "a")]), TypeError, "must map each language"),
        (dict(texts={"x": b"ab", "y": "c"}), TypeError, "not bytes"),
        (dict(variant="greedy"), ValueError, "variant must be one of"),
        (dict(window=0), ValueError, "window must be an integer of at least 1"),
        (dict(global_merges=-1), ValueError, "global_merges must be"),
        (dict(alpha=0), ValueError, "alpha must be a positive number"),
        (dict(vocab_size=255), ValueError, "at least 256"),
        (dict(vocab_size=300.0), TypeError, "vocab_size must be an integer"),
        (dict(tie_break="smallest"), ValueError, "tie_break must be one of"),
        (dict(min_frequency=-1), ValueError, "min_frequency must be"),
        (dict(special_tokens="<s>"), TypeError, "not one string"),
        (dict(convention="hf"), ValueError, "convention must be one of"),
        (dict(dev=None), ValueError, "give dev .* or ratio"),
        (dict(ratio={"x": 1.0, "y": 2.0}), ValueError, "give dev or ratio, not both"),
        (dict(dev=None, ratio={"x": 1.0}), ValueError, "no target rate for y"),
        (dict(dev=None, ratio=[1.0, 2.0]), TypeError, "ratio must map each language to its target rate"),
        (dict(dev=None, ratio={"x": 1.0, "y": 0}), ValueError, "ratio for y must be a positive number"),
        (dict(dev=None, ratio={"x": 1.0, "y": float("nan")}), ValueError, "ratio for y must be a positive"),
        (dict(dev=None, ratio={"x": 1.0, "y": "2"}), ValueError, "ratio for y must be a positive number"),
        (dict(texts={"x": "ab", "y": ""}, dev=None, ratio={"x": 1, "y": 1}), ValueError, "training text of y is empty"),
    ],
)
def test_bad_input_says_what_to_do(kwargs, error, message):
    arguments = dict(texts={"x": "ab ab", "y": "cd"}, dev={"x": "ab", "y": "cd"}, vocab_size=300)
    arguments.update(kwargs)
    with pytest.raises(error, match=message):
        train_parity(arguments.pop("texts"), arguments.pop("dev"), arguments.pop("vocab_size"), **arguments)


def test_parse_ratio_reads_every_form_and_says_what_is_wrong():
    from bpe_core.training.parity import byte_ratios, parse_ratio

    texts = {"eng": ["Hello."], "hin": ["नमस्ते।"]}
    assert parse_ratio(" eng = 1, hin=2.5 ", texts) == {"eng": 1.0, "hin": 2.5}
    assert parse_ratio("equal", texts) == {"eng": 1.0, "hin": 1.0}
    assert parse_ratio("bytes", texts) == byte_ratios(texts) == {"eng": 1.0, "hin": 21 / 6}
    for spec, message in [
        ("eng=1", "none for hin"),
        ("eng=1, hin=2, fra=3", "fra unknown"),
        ("eng=x, hin=2", "cannot read the target rate 'eng=x'"),
        ("eng", "write LANG=RATE"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_ratio(spec, texts)
    with pytest.raises(ValueError, match="no training text for hin"):
        byte_ratios({"eng": "a", "hin": ""})


def test_the_training_text_as_development_text_is_read_once():
    # One iterator per language, given as both: counted once, so the development text is not empty.
    lines = {"x": ["ab ab", "abc"], "y": ["cd cd cd"]}
    once = {label: iter(text) for label, text in lines.items()}
    tok = train_parity(once, once, 256 + 4, min_frequency=1)
    assert tok.merges == train_parity(lines, lines, 256 + 4, min_frequency=1).merges
    assert tok.training["parity"]["dev_tokens_before"] == [8, 8]
