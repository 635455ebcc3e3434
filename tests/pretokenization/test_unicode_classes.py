"""The presets agree with the installed tiktoken on every code point, whatever the `regex` release.

tiktoken answers ``\\p{L}``, ``\\p{N}``, ``\\s`` ... from its own Unicode tables, the `regex` module
from its own; bpe_core pins tiktoken's classes (``bpe_core.pretokenization.unicode_classes``). Checked here:

* the pinned table is what the installed tiktoken answers, class by class and code point by code
  point; when a tiktoken release moves to a newer Unicode this fails and names the command that
  regenerates the table;
* the sweep: every code point in a few contexts, pre-tokenized by bpe_core and encoded by tiktoken,
  for GPT-2 and cl100k: the same ids;
* the paths a text holding a code point in dispute takes (translation, the spelled-out pattern, the
  narrowed safe-cut rules) give what the table says, also for a `regex` that lacks newer Unicode.

How the sweep batches without hiding a difference: every context is written as a *template* that
starts with a space and ends with an ASCII letter, and the templates of all code points are joined
into one text. Between two templates there is then a letter followed by a space, a safe cut for GPT-2
(non-space, then space) and for cl100k (letter, then space) whatever class any other character has
(pretokenize's _SAFE_CUTS argument uses only those two characters), so in both tools each template is
pre-tokenized exactly as on its own, and equal ids for the whole text are equal ids for each template
(the ids cover the same bytes in the same order). A lone character ("alone") cannot be framed that
way, so those are separated by a special token instead, which both tools treat as a text boundary.
The bpe_core side takes bpe_core's pieces and runs BPE on each piece as it is, in one tiktoken call
whose pattern splits only at a NUL placed between the pieces (bpe_core's BPE equals tiktoken's: the
differential tests check that); bpe_core's own encoder runs on the code points in dispute.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from itertools import chain

import pytest
import regex
import tiktoken

import bpe_core
from bpe_core.pretokenization import unicode_classes
from bpe_core.pretokenization.pretokenizer import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    PreTokenizer,
    safe_cut_regex,
)
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

#: Each starts with a space and ends with an ASCII letter (see the module docstring); "{}" is the code
#: point. Between them they put it after a letter, before 's and between spaces, which tells every
#: class of GPT-2's and cl100k's patterns (letter, digit, space, other) from every other.
TEMPLATES = {"after a letter, before 's": " a{}'s", "between spaces": " {} z"}
SEPARATOR = "<|endoftext|>"
ENCODINGS = {"gpt2": gpt2_encoding, "cl100k": cl100k_encoding}
CHUNK = 1 << 16


def disputed() -> set[int]:
    """Code points on which the installed `regex` disagrees with the table in some class."""
    return {
        code
        for name in unicode_classes.NAMES
        for first, last in unicode_classes.disagreeing(name)
        for code in range(first, last + 1)
    }


def code_point_groups() -> dict[str, list[str]]:
    """Every code point but the surrogates (which tiktoken cannot take; bpe_core replaces them) and NUL
    (the separator of the BPE call, swept on its own), in chunks: those in dispute apart from the rest,
    so that each is checked on the path a text holding it takes."""
    wrong = disputed()
    codes = [code for code in range(1, 0x110000) if not 0xD800 <= code <= 0xDFFF]
    groups = {"agreed": [chr(c) for c in codes if c not in wrong], "in dispute": [chr(c) for c in sorted(wrong)]}
    return {
        name: ["".join(chars[i : i + CHUNK]) for i in range(0, len(chars), CHUNK)] for name, chars in groups.items()
    }


class PieceEncoder:
    """tiktoken's BPE on given pieces, each as it is: one call over the pieces joined by NUL with a
    pattern that splits only there; NUL's own token is dropped."""

    def __init__(self, encoding: tiktoken.Encoding) -> None:
        self.raw = tiktoken.Encoding(
            f"{encoding.name}-pieces",
            pat_str=r"[^\x00]+|\x00",
            mergeable_ranks=encoding._mergeable_ranks,
            special_tokens={},
        )
        self.nul = self.raw.encode_single_token("\x00")

    def ids(self, pieces) -> list[int]:
        text = "\x00".join(pieces)
        assert text.count("\x00") == len(pieces) - 1, "a piece holds NUL"
        return list(filter(self.nul.__ne__, self.raw.encode_ordinary(text)))


def first_differences(encoding, pieces_of, piece_encoder, contexts, limit=10) -> list[str]:
    """The first contexts whose ids differ, one by one (only run when a batch differs)."""
    found = []
    for context in contexts:
        expected = encoding.encode_ordinary(context)
        got = piece_encoder.ids(pieces_of(context))
        if got != expected:
            found.append(f"{context!r} (U+{max(map(ord, context)):04X}): bpe_core {got}, tiktoken {expected}")
            if len(found) == limit:
                break
    return found


def sweep(preset: str, pieces_of=None, groups=None) -> list[str]:
    """Every code point (``groups``: all) in every template and alone, pre-tokenized by ``pieces_of``
    (bpe_core's ``preset``): the differences found (the first few of the first batch that differs), or
    an empty list."""
    encoding = ENCODINGS[preset]()
    pieces_of = pieces_of or PreTokenizer.build(preset).pieces
    piece_encoder = PieceEncoder(encoding)
    separator = encoding.encode_single_token(SEPARATOR)
    for group, chunks in (groups or code_point_groups()).items():
        for chunk in chunks:
            for name, template in TEMPLATES.items():
                prefix, suffix = template.split("{}")
                text = prefix + (suffix + prefix).join(chunk) + suffix
                if encoding.encode_ordinary(text) != piece_encoder.ids(pieces_of(text)):
                    contexts = [template.format(char) for char in chunk]
                    found = first_differences(encoding, pieces_of, piece_encoder, contexts)
                    return [f"{preset}, {name}, {group}: {len(found)} or more differ", *found]
            alone = encoding.encode(SEPARATOR.join(chunk), allowed_special={SEPARATOR})
            each_alone = piece_encoder.ids(list(chain.from_iterable(map(pieces_of, chunk))))
            if list(filter(separator.__ne__, alone)) != each_alone:
                found = first_differences(encoding, pieces_of, piece_encoder, list(chunk))
                return [f"{preset}, alone, {group}: {len(found)} or more differ", *found]
    return []


@pytest.fixture(scope="module")
def sweeps():
    """Both presets' sweeps, started at once in two worker processes (half the wall time on two CPUs)."""
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {preset: pool.submit(sweep, preset) for preset in ENCODINGS}
        yield {preset: future.result() for preset, future in futures.items()}


def test_the_table_is_what_the_installed_tiktoken_answers():
    if unicode_classes.generate_table() != unicode_classes.TABLE:
        pytest.fail(
            f"tiktoken {tiktoken.__version__} (Unicode {unicode_classes.tiktoken_unicode_version()}) answers "
            f"the presets' Unicode classes differently from bpe_core's table (tiktoken "
            f"{unicode_classes.TIKTOKEN_VERSION}, Unicode {unicode_classes.UNICODE_VERSION}). Regenerate it: "
            "python -m bpe_core.pretokenization.unicode_classes --write"
        )


@pytest.mark.parametrize("preset", sorted(ENCODINGS))
def test_every_code_point_alone_and_in_context_gives_tiktokens_ids(preset, sweeps):
    assert sweeps[preset] == []


@pytest.mark.parametrize("preset", sorted(ENCODINGS))
def test_the_sweep_finds_the_differences_of_the_pattern_as_this_regex_runs_it(preset):
    """The sweep fails, and names the issue's example, for bpe_core as it was: the preset compiled by
    this `regex` as it stands."""
    wrong = sorted(disputed())
    if 0x11DE0 not in wrong:
        pytest.skip(f"this regex {regex.__version__} does not know Unicode 17: nothing in dispute to find")
    as_it_was = regex.compile(PreTokenizer.build(preset).source).findall
    found = sweep(preset, as_it_was, {"in dispute": ["".join(map(chr, wrong))]})
    assert found and "or more differ" in found[0]
    assert "(U+11DE0): bpe_core" in sweep(preset, as_it_was, {"one": ["\U00011de0"]})[1]


@pytest.mark.parametrize("preset", sorted(ENCODINGS))
def test_nul_in_context_gives_tiktokens_ids(preset):
    encoding = ENCODINGS[preset]()
    tokenizer = bpe_core.load("gpt2") if preset == "gpt2" else bpe_core.load("cl100k")
    for context in ["\x00", *(template.format("\x00") for template in TEMPLATES.values())]:
        assert tokenizer.encode_ordinary(context) == encoding.encode_ordinary(context)


@pytest.mark.parametrize("preset", sorted(ENCODINGS))
def test_bpe_cores_own_encoder_on_the_code_points_in_dispute(preset):
    """The issue's example and every code point in dispute, through ``Tokenizer.encode_ordinary``
    itself (its segment caches and BPE), in every template at once."""
    encoding = ENCODINGS[preset]()
    tokenizer = bpe_core.load("gpt2") if preset == "gpt2" else bpe_core.load("cl100k")
    assert tokenizer.encode("\U00011de0's") == encoding.encode("\U00011de0's")
    chars = [chr(code) for code in sorted(disputed())][::3]
    text = "".join(template.format(char) for char in chars for template in TEMPLATES.values())
    assert tokenizer.encode_ordinary(text) == encoding.encode_ordinary(text)


# ------------------------------------------------------------------------------------------------
# The paths for text holding a code point in dispute, whatever this `regex` knows: the table's
# classes, a translation that keeps every span, the spelled-out pattern, the narrowed cut rules.


def table_class(name: str) -> str:
    every = unicode_classes._every_code_point()
    return "".join(every[first : last + 1] for first, last in unicode_classes.ranges(name))


def test_the_table_has_the_known_changes_between_unicode_16_and_17():
    letters = set(table_class("L"))
    assert "a" in letters and "\u4e00" in letters and "\U000105c0" in letters  # Todhri: Unicode 16
    assert "\U00011db0" not in letters and "\U00011de0" not in set(table_class("N"))  # Unicode 17
    assert "\u0295" in set(table_class("Ll"))  # ʕ: Ll until Unicode 17 made it Lo
    assert table_class("White_Space") == "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + (
        "\u2028\u2029\u202f\u205f\u3000"
    )


@pytest.mark.parametrize("source", [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN])
def test_spelled_out_presets_follow_the_table_not_this_regex(source):
    """The spelled-out preset (explicit ranges, no `regex` property) splits like the table says on
    text made of code points from every class, including those in dispute."""
    spelled = regex.compile(unicode_classes.spelled_out(source, list(unicode_classes.NAMES)))
    every = unicode_classes._every_code_point()
    sample = "".join(every[code] for code in sorted(disputed())[::50]) + "ab 12 ʕ'S \n\n x\U00011de0's"
    text = " ".join(sample[i : i + 5] for i in range(0, len(sample), 5))
    pieces = PreTokenizer.build(source).pieces(text)
    assert pieces == spelled.findall(text)
    assert "".join(pieces) == text


@pytest.mark.parametrize("source", [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN])
def test_a_regex_that_lacks_newer_unicode_also_agrees(source, monkeypatch):
    """A `regex` with an older Unicode is simulated by a table that claims letters this `regex` does
    not have (and drops some it has): the exact pattern then follows the table, not `regex`."""
    # Letters: ASCII and U+02C0..U+02C2 (˂ is none for `regex`); digits: ASCII only.
    fake = {"L": ((0x41, 0x5A), (0x61, 0x7A), (0x2C0, 0x2C2)), "N": ((0x30, 0x39),)}
    real = unicode_classes.ranges

    def ranges(name):
        return fake.get(name, real(name))

    monkeypatch.setattr(unicode_classes, "ranges", ranges)
    for function in (
        unicode_classes.disagreeing,
        unicode_classes._translation,
        unicode_classes.exact_pattern,
        unicode_classes.narrowed_pattern,
    ):
        function.cache_clear()
    try:
        compiled = unicode_classes.exact_pattern(source)
        assert isinstance(compiled, unicode_classes.ExactPattern)
        spelled = regex.compile(unicode_classes.spelled_out(source, ["L", "N"]))
        for text in ["héllo wörld 123 ٣٤٥", "ˀab ˁ  x ˂ab", "日本語 ok", "ab\u00e9 \u0660\u0661 x'S ʕ ˂'s"]:
            assert compiled.findall(text) == spelled.findall(text), text
            assert [m.span() for m in compiled.finditer(text)] == [m.span() for m in spelled.finditer(text)]
        cut = unicode_classes.narrowed_pattern(r"(?=\s)(?<=\p{L})")
        # é is no letter in the fake table, ˂ none for `regex`: no cut after either.
        assert [m.start() for m in cut.finditer("ab é ˀ ˂ c")] == [2, 6]
        if source == GPT2_PATTERN:
            assert compiled.findall(" ˂ab é") == [" ˂ab", " é"]
    finally:
        for function in (
            unicode_classes.disagreeing,
            unicode_classes._translation,
            unicode_classes.exact_pattern,
            unicode_classes.narrowed_pattern,
        ):
            function.cache_clear()


def test_safe_cuts_never_follow_a_code_point_the_table_does_not_call_a_letter():
    cut = safe_cut_regex(CL100K_PATTERN)
    text = "ab \U00011db0 c\U00011db0 d\u0558 e"
    assert [m.start() for m in cut.finditer(text)] == [2]
    pieces = PreTokenizer.build("cl100k").pieces
    assert pieces(text) == pieces(text[:2]) + pieces(text[2:])


def test_an_unknown_class_in_a_pinned_pattern_is_refused():
    with pytest.raises(ValueError, match="no pinned Unicode class 'Greek'"):
        unicode_classes.exact_pattern(r"\p{Greek}+")


def test_presets_pickle_and_are_rebuilt_for_the_receiving_process():
    import pickle

    for preset in ("gpt2", "cl100k", "o200k"):
        pretokenizer = PreTokenizer.build(preset)
        again = pickle.loads(pickle.dumps(pretokenizer))
        text = "x \U00011de0's ʕa 12345"
        assert again.pieces(text) == pretokenizer.pieces(text)
    tokenizer = bpe_core.load("gpt2")
    assert pickle.loads(pickle.dumps(tokenizer)).encode("\U00011de0's") == tokenizer.encode("\U00011de0's")
