"""Hugging Face tokenizer.json import: multi-stage Split pre-tokenizers (every behavior, invert),
normalizers and ByteLevel options give HF ``tokenizers``' ids exactly, on multilingual text, code and
random text; anything not supported is refused with a message naming the component.

The tokenizer.json files are made here by ``tokenizers`` itself: small byte-level BPE models trained
with the pre-tokenizer and normalizer under test, then imported and compared with HF's own encode.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers

import bpe_core
from bpe_core import Tokenizer
from bpe_core.corpora.samples import load_samples
from bpe_core.formats import detect, huggingface
from bpe_core.formats.oniguruma import from_oniguruma
from bpe_core.formats.tiktoken_file import save_tiktoken
from bpe_core.pretokenization.stages import Pipeline, PrefixSpace, Split

ROOT = Path(__file__).resolve().parents[2]
NATURAL = [sample.text for sample in load_samples("natural")]
CODE = [sample.text for sample in load_samples("code")] + [
    (ROOT / "bpe_core" / name).read_text(encoding="utf-8")
    for name in ("pretokenization/pretokenizer.py", "pretokenization/stages.py", "bpe/fast.py")
]
CORPUS = NATURAL + CODE
SPECIALS = ["<|endoftext|>", "<|im_start|>"]
TRICKY = [
    "",
    "Don't WE'LL they'RE I'M 'ſ 'ﬆ ß STRASSE İstanbul ıi ΟΔΟΣ Σ ﬁne Ｆｕｌｌ ①②③ x² ½ Ⅻ",
    "1234567 ١٢٣٤٥٦ ٣.١٤ 12,345.678 0x1F",
    "e\u0301 a\u0308 \u1100\u1161\u11a8 가 각 Å Å ﬀ",
    "   leading\u00a0nbsp\u2003em \u3000 space\r\n\r\n\t\tx  \n\n",
    "东京タワーとひらがな、カタカナ。中文，한국어",
    "emoji 🚀🔥👩‍👩‍👧‍👦 🇫🇷 <|endoftext|> tail<|im_start|>x",
    "def f(x):\n    return {'a': [1, 2]}  # ok\n\n\n",
]
# Characters every engine and Unicode table here agrees on (so random text is a fair comparison):
# the sample passages' and code's, plus the hard cases above.
ALPHABET = "".join(sorted(set("".join(CORPUS + TRICKY)))) + "\t\n\r \x0b\x0c\x85\u2028"

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2 = LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")
DEEPSEEK = [
    r"\p{N}{1,3}",
    "[一-龥\u3040-ゟ゠-ヿ]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
    r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]


def split(pattern: str, behavior: str = "isolated", invert: bool = False):
    return pre_tokenizers.Split(Regex(pattern), behavior=behavior, invert=invert)


def byte_level(*, add_prefix_space: bool = False, use_regex: bool = False):
    return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=use_regex)


def train_hf(pre_tokenizer, normalizer=None, vocab_size: int = 1500) -> tokenizers.Tokenizer:
    """A byte-level BPE tokenizer trained by HF tokenizers on the built-in samples and some code."""
    hf = tokenizers.Tokenizer(models.BPE())
    if normalizer is not None:
        hf.normalizer = normalizer
    hf.pre_tokenizer = pre_tokenizer
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    hf.train_from_iterator(CORPUS, trainer=trainer)
    return hf


@functools.cache
def base_json() -> str:
    """A model trained on whole documents (no pre-tokenization), so that it has merges across every
    boundary a pre-tokenizer could draw: a piece cut in the wrong place shows in the ids."""
    return train_hf(byte_level()).to_str()


def with_pipeline(pre_tokenizer, normalizer=None) -> tokenizers.Tokenizer:
    """The base model with ``pre_tokenizer`` and ``normalizer``, as HF loads it."""
    hf = tokenizers.Tokenizer.from_str(base_json())
    hf.pre_tokenizer = pre_tokenizer
    if normalizer is not None:
        hf.normalizer = normalizer
    return tokenizers.Tokenizer.from_str(hf.to_str())


def imported(hf: tokenizers.Tokenizer) -> Tokenizer:
    return huggingface.from_huggingface_dict(json.loads(hf.to_str()))


def hf_ids(hf: tokenizers.Tokenizer, text: str) -> list[int]:
    return hf.encode(text, add_special_tokens=False).ids


def assert_same_ids(hf: tokenizers.Tokenizer, ours: Tokenizer, texts) -> None:
    for text in texts:
        assert ours.encode(text, allowed_special="all") == hf_ids(hf, text), text[:80]


CONFIGURATIONS = {
    "llama3": (pre_tokenizers.Sequence([split(LLAMA3), byte_level()]), None),
    "qwen2-nfc": (pre_tokenizers.Sequence([split(QWEN2), byte_level()]), normalizers.NFC()),
    "deepseek-v3": (pre_tokenizers.Sequence([*map(split, DEEPSEEK), byte_level()]), None),
    "nfkc-lowercase": (
        pre_tokenizers.Sequence([split(LLAMA3), byte_level()]),
        normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
    ),
    "nfd": (pre_tokenizers.Sequence([split(r"\p{N}{1,3}+"), split(LLAMA3), byte_level()]), normalizers.NFD()),
    "nfkd-prefix-space-regex": (byte_level(add_prefix_space=True, use_regex=True), normalizers.NFKD()),
    "literal-prefix-space": (
        pre_tokenizers.Sequence(
            [pre_tokenizers.Split(" ", behavior="merged_with_next"), byte_level(add_prefix_space=True)]
        ),
        None,
    ),
    "prefix-space-only": (byte_level(add_prefix_space=True), None),
    "split-then-gpt2-regex": (pre_tokenizers.Sequence([split(r"\p{N}"), byte_level(use_regex=True)]), None),
    "anchors": (pre_tokenizers.Sequence([split(r"^\s+|\s+$|(?:\r?\n)+"), split(LLAMA3), byte_level()]), None),
}
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
BEHAVIOR_RULE = r"\p{N}|[^\s\p{L}\p{N}]"
_trained: dict = {}


def trained(key):
    """(HF tokenizer, bpe_core import) for a configuration name or a (behavior, invert) pair, cached."""
    if key not in _trained:
        if isinstance(key, tuple):
            behavior, invert = key
            # Each digit and punctuation mark a delimiter (so that delimiters often touch), and no
            # later rule that could hide what the behavior did.
            hf = with_pipeline(pre_tokenizers.Sequence([split(BEHAVIOR_RULE, behavior, invert), byte_level()]))
        else:
            hf = with_pipeline(*CONFIGURATIONS[key])
        _trained[key] = (hf, imported(hf))
    return _trained[key]


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_import_gives_tokenizers_ids_on_multilingual_text_and_code(name):
    hf, ours = trained(name)
    assert isinstance(ours.pattern, Pipeline) or name == "llama3"
    assert_same_ids(hf, ours, NATURAL + CODE + TRICKY)


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
def test_every_split_behavior_and_invert(behavior, invert):
    hf, ours = trained((behavior, invert))
    assert ours.pattern.stages[0] == Split(BEHAVIOR_RULE, behavior=behavior, invert=invert)
    assert_same_ids(hf, ours, NATURAL + CODE + TRICKY)


def test_the_behavior_tests_tell_the_behaviors_apart():
    # HF's behaviors give the same pieces only where they must: invert changes nothing for
    # isolated and contiguous, and merging matches into the previous piece is merging the inverted
    # matches into the next one. Every other pair of settings gives different ids on these texts.
    texts = TRICKY + [CODE[0]]
    groups: dict = {}
    for behavior in BEHAVIORS:
        for invert in (False, True):
            hf, ours = trained((behavior, invert))
            ids = [ours.encode(text, allowed_special="all") for text in texts]
            assert ids == [hf_ids(hf, text) for text in texts]
            groups.setdefault(repr(ids), set()).add((behavior, invert))
    assert sorted(map(sorted, groups.values())) == sorted(
        [
            [("contiguous", False), ("contiguous", True)],
            [("isolated", False), ("isolated", True)],
            [("merged_with_next", False), ("merged_with_previous", True)],
            [("merged_with_next", True), ("merged_with_previous", False)],
            [("removed", False)],
            [("removed", True)],
        ]
    )


@given(text=st.text(alphabet=ALPHABET, max_size=300))
def test_random_text_gives_tokenizers_ids(text):
    for name in ("deepseek-v3", "nfkc-lowercase", "nfkd-prefix-space-regex", "literal-prefix-space"):
        hf, ours = trained(name)
        assert ours.encode(text, allowed_special="all") == hf_ids(hf, text), name


@given(text=st.text(alphabet=ALPHABET, max_size=200), behavior=st.sampled_from(BEHAVIORS), invert=st.booleans())
def test_random_text_every_behavior(text, behavior, invert):
    hf, ours = trained((behavior, invert))
    assert ours.encode(text, allowed_special="all") == hf_ids(hf, text)


@given(
    text=st.text(alphabet="ab1-, \n東", max_size=40),
    rule=st.sampled_from([r"\d", r"-+", r"[, ]", r"\s+|\d", r"[a-z]+"]),
    behavior=st.sampled_from(BEHAVIORS),
    invert=st.booleans(),
)
def test_split_rules_cut_like_hf(text, rule, behavior, invert):
    expected = [piece for piece, _ in split(rule, behavior, invert).pre_tokenize_str(text)]
    assert Split(from_oniguruma(rule), behavior=behavior, invert=invert).split(text) == expected
    literal = pre_tokenizers.Split("-", behavior=behavior, invert=invert)
    assert Split("-", behavior=behavior, invert=invert, literal=True).split(text) == [
        piece for piece, _ in literal.pre_tokenize_str(text)
    ]


def test_the_rest_of_the_api_works_on_imported_pipelines(tmp_path):
    hf, ours = trained("deepseek-v3")
    text = NATURAL[0] + "<|endoftext|>" + CODE[0] + "東京123456"
    ids = ours.encode(text, allowed_special="all")
    assert ours.encode_ordinary(NATURAL[3]) == hf_ids(hf, NATURAL[3])
    assert ours.decode(ids) == text == hf.decode(ids, skip_special_tokens=False)
    assert list(ours.encode_iterable([text[i : i + 7] for i in range(0, len(text), 7)], allowed_special="all")) == ids
    assert ours.encode_batch([text, "x"], allowed_special="all", workers=2) == [ids, hf_ids(hf, "x")]
    assert [info.id for info in ours.encode_with_details(text, allowed_special="all")] == ids
    # bpe_core's JSON keeps the pipeline (format version 2); the HF export round-trips.
    ours.save(tmp_path / "mine.json")
    again = bpe_core.load(tmp_path / "mine.json")
    assert json.loads((tmp_path / "mine.json").read_text(encoding="utf-8"))["version"] == 2
    assert again.pattern == ours.pattern and again.encode(text, allowed_special="all") == ids
    exported = tokenizers.Tokenizer.from_str(json.dumps(huggingface.to_huggingface_dict(ours)))
    assert hf_ids(exported, text) == ids
    assert huggingface.from_huggingface_dict(huggingface.to_huggingface_dict(ours)).pattern == ours.pattern


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_exported_pipelines_load_in_tokenizers_with_the_same_ids(name):
    _, ours = trained(name)
    data = huggingface.to_huggingface_dict(ours)
    assert huggingface.from_huggingface_dict(data).pattern == ours.pattern
    exported = tokenizers.Tokenizer.from_str(json.dumps(data))
    for text in TRICKY + NATURAL[:4] + CODE[:1]:
        assert hf_ids(exported, text) == ours.encode(text, allowed_special="all"), text[:60]


def test_a_prefix_space_elsewhere_than_last_cannot_be_exported():
    _, ours = trained("llama3")
    inside = Tokenizer(ours.vocab, ours.merges, pattern=Pipeline([PrefixSpace(), Split(r"\d")]))
    with pytest.raises(ValueError, match="prefix space can only be exported as the last stage"):
        huggingface.to_huggingface_dict(inside)


def test_old_version_1_files_still_load_and_plain_tokenizers_still_write_version_1(tmp_path):
    tok = bpe_core.train(CORPUS[:3], 300, min_frequency=1)
    tok.save(tmp_path / "plain.json")
    data = json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))
    assert data["version"] == 1 and "pretokenizer" not in data
    assert bpe_core.load(tmp_path / "plain.json").encode(CODE[0]) == tok.encode(CODE[0])


def test_normalized_offsets_point_into_the_original_text():
    _, ours = trained("nfkc-lowercase")
    text = "ＡＢＣ e\u0301 Word"
    infos = ours.encode_with_details(text)
    assert infos[0].start == 0 and infos[-1].end == len(text)
    assert all(0 <= info.start <= info.end <= len(text) for info in infos)
    # The tokens of " word" (lowercased) point at " Word" in the original text.
    tail = [info for info in infos if info.start >= text.index(" Word")]
    assert text[tail[0].start : tail[-1].end] == " Word"


def test_removed_text_leaves_gaps_in_the_details():
    _, ours = trained(("removed", False))
    infos = ours.encode_with_details("ab, 12 cd")
    assert b"".join(info.bytes for info in infos) == b"ab  cd"  # "," and "12" removed
    assert not any(info.start <= position < info.end for info in infos for position in (2, 4, 5))


def test_prefix_space_has_an_empty_span():
    hf, ours = trained("literal-prefix-space")
    assert ours.encode("word") == hf_ids(hf, "word")
    first = ours.encode_with_details("word")[0]
    assert first.bytes.startswith(b" ") and first.start == 0


def test_exports_that_hold_one_regex_refuse_pipelines(tmp_path):
    _, ours = trained("qwen2-nfc")
    for export in (ours.to_tiktoken, lambda: save_tiktoken(ours, tmp_path / "x.tiktoken")):
        with pytest.raises(ValueError, match="one regex cannot express"):
            export()


def test_bpe_core_exports_still_import_as_presets_and_patterns():
    tok = bpe_core.train(CORPUS[:5], 300, min_frequency=1, pattern="cl100k")
    assert huggingface.from_huggingface_dict(huggingface.to_huggingface_dict(tok)).pattern_name == "cl100k"
    custom = bpe_core.train(CORPUS[:5], 300, min_frequency=1, pattern=r"\p{L}+|\p{N}{1,3}+")
    back = huggingface.from_huggingface_dict(huggingface.to_huggingface_dict(custom))
    assert isinstance(back.pattern, str) and back.encode(TRICKY[1]) == custom.encode(TRICKY[1])


def test_a_single_split_without_catch_all_keeps_unmatched_runs_whole():
    # HF makes one piece of a run its regex does not match ("ABC"), not one piece per character.
    hf = with_pipeline(pre_tokenizers.Sequence([split(r"[a-z]+"), byte_level()]))
    ours = imported(hf)
    assert isinstance(ours.pattern, Pipeline)
    assert_same_ids(hf, ours, ["ABCabcDEF 12", *TRICKY])


# ------------------------------------------------------------------------------------------------
# Oniguruma's regex dialect: translated where it differs, refused where it has no counterpart.


@pytest.mark.parametrize(
    "pattern, text",
    [
        (r"\p{N}{1,3}+", "1234567 12"),  # "one or more groups of 1-3 digits" in Oniguruma
        (r"(?i:'s|'t|'ll)", "'S 'ſ 'T 'LL 'Ll"),  # ſ folds to s in both
        (r"(?i:[a-k])+|[^a-z]", "abcK\u212aİı XYZ"),
        (r"a$|^b", "a\nb\na\r\nb a"),
        (r"x\Z|y\z", "x\nx\ny\ny"),
        (r"\x41\x{42}\u0043+|[\t-\r]", "ABCCC\t\n"),
        (r"(?<name>ab)+|(?>a+)b", "ababaab"),
    ],
)
def test_translated_regexes_split_like_oniguruma(pattern, text):
    hf_pieces = [piece for piece, _ in split(pattern).pre_tokenize_str(text)]
    assert Split(from_oniguruma(pattern)).split(text) == hf_pieces


def test_translation_is_stable():
    for pattern in (LLAMA3, *DEEPSEEK, r"a$|^b|x\Z|\n(?i:[a-c])"):
        once = from_oniguruma(pattern)
        assert from_oniguruma(once) == once


def test_case_insensitive_letters_match_as_in_oniguruma():
    candidates = "".join(
        sorted({chr(c) for c in range(0x3000) if chr(c).lower().isascii() or chr(c).upper().isascii()} - {"\n"})
    )
    for letter in "abcdefghijklmnopqrstuvwxyz":
        hf_pieces = [piece for piece, _ in split(f"(?i:{letter})", "removed").pre_tokenize_str(candidates)]
        assert Split(from_oniguruma(f"(?i:{letter})"), behavior="removed").split(candidates) == hf_pieces, letter


@pytest.mark.parametrize(
    "pattern, named",
    [
        (r"\w+", r"\w"),
        (r"\bx", r"\b"),
        (r"\h", r"\h"),
        (r"(?i:ss)", "'ss' under (?i)"),
        (r"(?i:fi)", "'fi' under (?i)"),
        (r"(?i:é)", "non-ASCII letter"),
        (r"(?i)\p{Lu}", "under (?i)"),
        (r"[[:alpha:]]", "POSIX bracket"),
        (r"[a-z&&[^aeiou]]", "set operation"),
        (r"(?m:a.)", "group option"),
        (r"a{2}?", "{2}?"),
        (r"a{", "'{'"),
        (r"(a)\1", r"\1"),
        (r"a*", "empty string"),
        (r"(?=a)", "empty string"),
        (r"\p{Alpha}", r"\p{Alpha}"),
        (r"\Qa\E", r"\Q"),
        (r"(a", "unclosed group"),
    ],
)
def test_untranslatable_regexes_are_refused_by_name(pattern, named):
    with pytest.raises(ValueError, match="not|empty string|unclosed") as caught:
        from_oniguruma(pattern)
    assert named in str(caught.value)


# ------------------------------------------------------------------------------------------------
# Refusals: every component bpe_core cannot reproduce exactly is named, never imported approximately.


@pytest.fixture(scope="module")
def llama_like() -> dict:
    hf, _ = trained("llama3")
    return json.loads(hf.to_str())


def refused(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        huggingface.from_huggingface_dict(data)


def edited(data: dict, **changes) -> dict:
    data = copy.deepcopy(data)
    for key, value in changes.items():
        data[key] = value
    return data


@pytest.mark.parametrize(
    "normalizer, named",
    [
        ({"type": "Strip", "strip_left": True, "strip_right": True}, "'Strip'"),
        ({"type": "StripAccents"}, "'StripAccents'"),
        ({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}, "'Replace'"),
        ({"type": "Prepend", "prepend": "▁"}, "'Prepend'"),
        ({"type": "BertNormalizer"}, "'BertNormalizer'"),
        ({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Precompiled"}]}, "'Precompiled'"),
        ({"type": "ByteLevel"}, "'ByteLevel'"),
    ],
)
def test_unsupported_normalizers_are_refused_by_name(llama_like, normalizer, named):
    refused(edited(llama_like, normalizer=normalizer), named)


@pytest.mark.parametrize(
    "node, named",
    [
        ({"type": "Whitespace"}, "'Whitespace'"),
        ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}, "'Metaspace'"),
        ({"type": "Digits", "individual_digits": True}, "'Digits'"),
        ({"type": "Punctuation", "behavior": "Isolated"}, "'Punctuation'"),
        ({"type": "Split", "pattern": {"Regex": r"\w+"}, "behavior": "Isolated", "invert": False}, r"\\w"),
        ({"type": "Split", "pattern": {"String": ""}, "behavior": "Isolated", "invert": False}, "empty String"),
        ({"type": "Split", "pattern": {"Glob": "*"}, "behavior": "Isolated", "invert": False}, "Glob"),
        ({"type": "Split", "pattern": "x", "behavior": "Isolated", "invert": False}, "Regex"),
        ({"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Dropped", "invert": False}, "'Dropped'"),
    ],
)
def test_unsupported_pre_tokenizers_are_refused_by_name(llama_like, node, named):
    sequence = {"type": "Sequence", "pretokenizers": [node, {"type": "ByteLevel", "add_prefix_space": False}]}
    refused(edited(llama_like, pre_tokenizer=sequence), named)


def test_files_that_are_not_byte_level_are_refused(llama_like):
    refused(edited(llama_like, pre_tokenizer=None), "no pre-tokenizer")
    refused(
        edited(llama_like, pre_tokenizer={"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated"}),
        "does not end with ByteLevel",
    )
    early = {
        "type": "Sequence",
        "pretokenizers": [{"type": "ByteLevel"}, {"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated"}],
    }
    refused(edited(llama_like, pre_tokenizer=early), "ByteLevel before")
    refused(edited(llama_like, pre_tokenizer={"type": "Sequence", "pretokenizers": "x"}), "'pretokenizers' list")
    broken = {"type": "Sequence", "pretokenizers": [42, {"type": "ByteLevel"}]}
    refused(edited(llama_like, pre_tokenizer=broken), "pre-tokenizer 0 must be an object with a 'type'")


def test_unsupported_model_options_and_added_tokens_are_refused(llama_like):
    for key, value, named in [
        ("dropout", 0.1, "dropout"),
        ("continuing_subword_prefix", "##", "continuing_subword_prefix"),
        ("end_of_word_suffix", "</w>", "end_of_word_suffix"),
    ]:
        data = copy.deepcopy(llama_like)
        data["model"][key] = value
        refused(data, named)
    for flag in ("lstrip", "rstrip", "single_word"):
        data = copy.deepcopy(llama_like)
        data["added_tokens"][0][flag] = True
        refused(data, flag)
    refused(edited(llama_like, decoder={"type": "WordPiece", "prefix": "##"}), "'WordPiece'")
    data = edited(llama_like, normalizer={"type": "NFC"})
    data["added_tokens"][0]["normalized"] = True
    refused(data, "normalized=true")
    data = copy.deepcopy(llama_like)
    data["added_tokens"][0]["normalized"] = True
    data["added_tokens"][0]["content"] = "<|im_start|>x"
    refused(data, "overlap")


def test_ignore_merges_is_imported_only_when_it_changes_nothing(llama_like):
    data = copy.deepcopy(llama_like)
    data["model"]["ignore_merges"] = True
    ours = huggingface.from_huggingface_dict(data)
    assert ours.tokens_encode_to_themselves
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    assert_same_ids(hf, ours, NATURAL[:5] + TRICKY)
    # "abc" comes from "a" + "bc", but BPE on "abc" merges "ab" first and never makes it; HF takes
    # the piece "abc" whole under ignore_merges, bpe_core would not: refused.
    vocab = {char: i for i, char in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    vocab.update({"ab": 256, "bc": 257, "abc": 258})
    data = copy.deepcopy(llama_like)
    data["added_tokens"] = []
    data["model"].update(vocab=vocab, merges=[["a", "b"], ["b", "c"], ["a", "bc"]], ignore_merges=True)
    refused(data, "ignore_merges")
    data["model"]["ignore_merges"] = False
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    assert huggingface.from_huggingface_dict(data).encode("abc") == hf_ids(hf, "abc") == [256, vocab["c"]]


def test_load_any_and_load_huggingface_name_the_file(tmp_path, llama_like):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(edited(llama_like, normalizer={"type": "Strip"})), encoding="utf-8")
    for load in (detect.load_any, huggingface.load_huggingface):
        with pytest.raises(ValueError, match=f"{path.name}.*'Strip'"):
            load(path)
