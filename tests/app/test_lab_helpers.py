"""The Lab page's pure helpers (``pages/_lab/``): the variants and the corpus from its inputs, the
progress view's arithmetic and lines, the tables, the example text and the names a kept variant gets."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.analysis.picky_removals import picky_removals
from bpe_core.analysis.variants import HeldOutSample, compare_variants
from bpe_core.display.glyphs import token_label
from bpe_core.errors import BpeError
from bpe_core.training.picky import train_picky
from bpe_core.training.trainer import train
from pages._lab.choices import builtin_corpus, check_variants, parse_transitions, uploaded_corpus, variant_specs
from pages._lab.examples import excerpt, in_latin_letters, most_superwords
from pages._lab.keeping import default_name
from pages._lab.tables import per_text_frame, rows_frame, summary_frame, superwords_frame
from pages._lab.training import LabProgress, done_line, overall_fraction
from pages._ui.tables import removals_frame

# --------------------------------------------------------------------------------------------------
# variants


def test_transitions_are_shares_or_merge_counts_in_order():
    assert parse_transitions("0.8, 0.9") == [0.8, 0.9]
    assert parse_transitions(" 1500 ;0.5, 1500 ") == [1500, 0.5]
    assert isinstance(parse_transitions("1500")[0], int) and isinstance(parse_transitions("1.0")[0], float)
    for bad in ("", " , ", "abc", "0.8, x"):
        with pytest.raises(BpeError):
            parse_transitions(bad)


@given(st.lists(st.integers(1, 99), min_size=1, max_size=5))
def test_transitions_read_back_what_was_written(percents):
    values = [p / 100 for p in percents]
    assert parse_transitions(", ".join(map(str, values))) == list(dict.fromkeys(values))


def test_the_ticked_variants_and_their_checks():
    specs = variant_specs(bpe=True, transitions="0.8, 0.9", picky=0.9, parity=True)
    assert [s.label for s in specs] == ["BPE", "SuperBPE t=0.8", "SuperBPE t=0.9", "Picky T=0.9", "parity-aware BPE"]
    assert [s.label for s in variant_specs(bpe=False, transitions=None, picky=0.5, parity=True)] == [
        "Picky T=0.5",
        "parity-aware BPE",
    ]
    with pytest.raises(BpeError, match="2 to 6"):
        variant_specs(bpe=True, transitions=None, picky=None, parity=False)
    with pytest.raises(BpeError, match="2 to 6"):
        variant_specs(bpe=True, transitions="0.1,0.2,0.3,0.4,0.5,0.6", picky=None, parity=False)
    check_variants(specs, 2000)
    with pytest.raises(BpeError, match="does not fit"):
        check_variants(variant_specs(bpe=True, transitions="5000", picky=None, parity=False), 2000)
    with pytest.raises(BpeError, match="above 0 and at most 1"):
        check_variants(variant_specs(bpe=True, transitions="1.5", picky=None, parity=False), 2000)
    with pytest.raises(BpeError, match="parallel text"):
        check_variants(specs, 2000, parallel=False)
    check_variants(variant_specs(bpe=True, transitions="5000", picky=None, parity=False), 100)  # the trainer says


# --------------------------------------------------------------------------------------------------
# the corpus


def test_the_builtin_corpus_is_parallel_and_measured_on_held_out_text():
    corpus = builtin_corpus()
    assert corpus.parallel and len(corpus.texts) == 21 and len(corpus.samples) == 62
    assert all(len(lines) == 90 for lines in corpus.texts.values())
    training = set(corpus.documents)
    assert not any(line in training for s in corpus.samples if s.kind == "natural" for line in s.text.split("\n"))


def test_uploaded_files_hold_out_a_tenth_each():
    lines = [f"sentence number {i}\n" for i in range(100)]
    corpus = uploaded_corpus([("a.txt", "d1", ["".join(lines)]), ("a.txt", "d2", ["".join(lines[:50])])])
    assert list(corpus.texts) == ["a.txt", "a.txt (2)"] and not corpus.parallel
    held = [s for s in corpus.samples if s.kind == "held-out"]
    assert [s.label for s in held] == ["a.txt (held out)", "a.txt (2) (held out)"]
    first_train, first_held = "".join(corpus.texts["a.txt"]), held[0].text
    assert first_held.count("sentence") == 10 and first_train.count("sentence") == 90
    assert not set(first_held.split("\n")) - {""} & set(first_train.split("\n"))
    assert len(corpus.samples) == 2 + 62
    assert uploaded_corpus([("a.txt", "other", ["".join(lines)])]).signature != corpus.signature
    with pytest.raises(BpeError, match="upload at least one"):
        uploaded_corpus([])
    with pytest.raises(BpeError, match="tiny.txt"):
        uploaded_corpus([("tiny.txt", "d", ["one line"])])


# --------------------------------------------------------------------------------------------------
# progress


@given(st.integers(1, 6), st.data())
def test_the_whole_runs_share_grows_from_0_to_1(count, data):
    steps = sorted(data.draw(st.lists(st.tuples(st.integers(0, count - 1), st.floats(0, 1)), max_size=20)))
    shares = [overall_fraction(index, count, fraction) for index, fraction in steps]
    assert shares == sorted(shares) and all(0 <= s <= 1 for s in shares)
    assert overall_fraction(0, count, 0) == 0 and overall_fraction(count - 1, count, 1) == 1


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def progress(self, fraction, text=""):
        self.calls.append((fraction, text))

    def markdown(self, text):
        self.calls.append(text)


def test_the_progress_view_follows_each_variant():
    bar, lines = Recorder(), {"BPE": Recorder(), "Picky *x*": Recorder()}
    ticks = iter(range(100))
    report = LabProgress(["BPE", "Picky *x*"], bar, lines, clock=lambda: next(ticks))
    for label in lines:
        report(label, "count", 1, 1)
        report(label, "merge", 5, 10)
        report(label, "merge", 10, 10)
    fractions = [fraction for fraction, _ in bar.calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and math.isclose(fractions[2], 0.5)
    assert bar.calls[3][1].startswith("Variant 2 of 2 · Picky \\*x\\* · Counting")
    assert lines["BPE"].calls[-1].startswith("▶ **BPE**: Learning merges: 10/10 merges")
    tokenizer = train(["ab ab ab"], 258, min_frequency=1)
    report.finished("BPE", tokenizer, 0.25)
    ended = "ended: it reached the vocabulary size asked for"
    assert lines["BPE"].calls[-1] == f"✓ **BPE**: 258 tokens, 2 merges in 250 ms · {ended}"
    assert done_line("a [b](c)", tokenizer, 2).startswith("✓ **a \\[b\\](c)**")


# --------------------------------------------------------------------------------------------------
# tables and examples


class Chars:
    """One token per character (or per pair of characters): counts easy to check."""

    def __init__(self, width: int) -> None:
        self.width, self.vocab_size = width, 1000

    def encode_ordinary(self, text: str) -> list[int]:
        return [hash(text[i : i + self.width]) % 1000 for i in range(0, len(text), self.width)]


SAMPLES = [HeldOutSample("a", "A", "natural", "abab abab"), HeldOutSample("py", "Python", "code", "x = 1\n")]


def test_the_tables_show_the_comparison():
    comparison = compare_variants({"BPE": Chars(1), "pairs": Chars(2)}, SAMPLES)
    summary = summary_frame(comparison)
    assert list(summary["texts"]) == ["natural languages", "code", "all texts"] * 2
    saved = [100 * (1 - 5 / 9), 100 * (1 - 3 / 6), 100 * (1 - 8 / 15)]
    assert summary["saved vs BPE %"].tolist()[3:] == pytest.approx(saved)
    per_text = per_text_frame(comparison, "tokens_per_byte")
    assert list(per_text.columns) == ["text", "kind", "BPE", "pairs"] and per_text["BPE"].tolist() == [1.0, 1.0]
    assert per_text_frame(comparison, "tokens")["pairs"].tolist() == [5, 3]
    assert len(rows_frame(comparison)) == 4
    assert superwords_frame([("of␣the", 3)]).to_dict("records") == [{"superword": "of␣the", "held-out count": 3}]
    assert superwords_frame([("\\xe0\\xa4␣a", 1)])["superword"].tolist() == [token_label(b"\xe0\xa4 a")]
    assert "\\x" not in superwords_frame([("\\xe0\\xa4␣a", 1)])["superword"][0]


def test_the_removals_table_says_when_what_and_why():
    tokenizer = train_picky(["the then there the then"], 258, threshold=0.7, min_frequency=1, pattern=None)
    frame = removals_frame(picky_removals(tokenizer))
    assert frame.to_dict("records") == [
        {
            "merge step": 1,
            "removed token": "th",
            "split into": "t + h",
            "IoS": 1.0,
            "frequency then": 0,
            "made again later": "no",
        },
        {
            "merge step": 2,
            "removed token": "the",
            "split into": "t + h + e",
            "IoS": 0.8,
            "frequency then": 1,
            "made again later": "no",
        },
    ]


def test_the_example_text_and_the_superwords_it_opens_on():
    assert excerpt("one\ntwo\nthree", 10) == "one\ntwo\n" and excerpt("a long line", 6) == "a long"
    assert excerpt("short", 700) == "short"
    rows = [
        {"sample": "eng", "superword_share": 0.1, "tokens": 100},
        {"sample": "deu", "superword_share": 0.2, "tokens": 100},
        {"sample": "py", "superword_share": None, "tokens": 50},
    ]
    comparison = type("C", (), {"rows": rows})()
    assert most_superwords(comparison) == "deu" and most_superwords(comparison, latin=["eng", "py"]) == "eng"
    assert most_superwords(type("C", (), {"rows": rows[2:]})()) is None
    assert in_latin_letters("Über den Fluss") and not in_latin_letters("नमस्ते दुनिया") and not in_latin_letters("")


def test_a_kept_variants_default_name():
    assert default_name("SuperBPE t=0.8", 2000) == "lab-superbpe-t0.8-2000"
    assert default_name("Picky T=0.9", 500) == "lab-picky-t0.9-500"
    assert default_name("parity-aware BPE", 300) == "lab-parity-aware-bpe-300"
