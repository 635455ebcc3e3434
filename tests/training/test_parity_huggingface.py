"""Parity-aware training merge for merge with Hugging Face's ParityBpeTrainer (``tokenizers`` 0.23):
``tie_break="huggingface"`` with the default ``convention="huggingface"``, the same pre-tokenization on
both sides (GPT-2's pattern; ``ByteLevel(add_prefix_space=False, use_regex=True)``), the whole merge
list compared, on the built-in parallel text, on a user's parallel files, with a development text,
with target rates and with neither (the training text as its own development text), both variants,
plain and hybrid, with and without ``min_frequency``."""

from __future__ import annotations

import json

import pytest

from bpe_core.cli.parity import split_sentences
from bpe_core.corpora.samples import load_samples, parallel_text, read_parallel_files
from bpe_core.formats.bytelevel import printable_to_bytes
from bpe_core.training import parity_choice
from bpe_core.training.parity import train_parity

tokenizers = pytest.importorskip("tokenizers")
if not hasattr(tokenizers.trainers, "ParityBpeTrainer"):
    pytest.skip(f"tokenizers {tokenizers.__version__} has no ParityBpeTrainer (0.23 has)", allow_module_level=True)


def huggingface_parity(
    texts, dev, num_merges, *, ratio=None, variant="base", min_frequency=0, global_merges=0, window=100, alpha=2.0
):
    """ParityBpeTrainer's merges as byte pairs; languages in the order of ``texts``."""
    pre = tokenizers.pre_tokenizers
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = pre.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = tokenizers.trainers.ParityBpeTrainer(
        num_merges=num_merges,
        variant=variant,
        min_frequency=min_frequency,
        global_merges=global_merges,
        window_size=window,
        alpha=alpha,
        show_progress=False,
    )
    languages = list(texts)
    given = {}
    if dev is not None:
        given["dev_iterators"] = [iter(list(dev[label])) for label in languages]
    if ratio is not None:
        given["ratio"] = [ratio[label] for label in languages]
    trainer.train_from_iterator(tok, train_iterators=[iter(list(texts[label])) for label in languages], **given)
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = (merge if isinstance(merge, list) else merge.split(" ") for merge in merges)
    return [(printable_to_bytes(left), printable_to_bytes(right)) for left, right in pairs]


def both(texts, dev, num_merges, *, ratio=None, **settings):
    """(bpe_core's tokenizer, ParityBpeTrainer's merges) on the same input; ParityBpeTrainer only
    where it returns (bpe_core counts the picks at which it would not: ``stalled_picks``)."""
    tok = train_parity(texts, dev, 256 + num_merges, ratio=ratio, tie_break="huggingface", **settings)
    assert tok.training["parity"]["stalled_picks"] == 0
    return tok, huggingface_parity(texts, dev, num_merges, ratio=ratio, **settings)


@pytest.fixture(scope="module")
def built_in():
    return parallel_text(split="train"), parallel_text(split="heldout")


@pytest.mark.parametrize("global_merges", [0, 300])
@pytest.mark.parametrize("min_frequency", [0, 5])
@pytest.mark.parametrize("variant", ["base", "window"])
def test_built_in_parallel_text_with_a_development_text(built_in, variant, min_frequency, global_merges):
    train, heldout = built_in
    settings = dict(variant=variant, min_frequency=min_frequency, global_merges=global_merges)
    tok, expected = both(train, heldout, 2000, **settings)
    assert len(expected) > 1500
    assert tok.merges == expected
    if min_frequency == 5:
        assert tok.training["parity"]["exhausted"]  # languages run out, ParityBpeTrainer goes on without them


def test_the_first_tie_that_standard_and_parity_trainers_break_apart(built_in):
    # Step 114 of the base variant serves Tamil, whose training text holds two pairs 71 times each.
    train, heldout = built_in
    tok, expected = both(train, heldout, 120)
    assert tok.merges == expected
    assert tok.training["parity"]["languages"][tok.training["parity"]["merge_language"][113]] == "tam"
    assert tok.merges[113] == (b" \xe0\xae", b"\x95")  # "Ġà®" > "à®": BpeTrainer's rule takes the other


@pytest.mark.parametrize(("alpha", "window", "global_merges"), [(0.5, 100, 0), (1.0, 7, 0), (3.0, 100, 300)])
def test_window_limits_below_and_above_one_language_in_n(built_in, alpha, window, global_merges):
    # alpha 0.5 with 21 languages: a language may take 2 of the last 100 picks, so often none
    # qualifies and the best compressed is served (ParityBpeTrainer's scan, masked to the end).
    train, heldout = built_in
    tok, expected = both(
        train, heldout, 2000, variant="window", alpha=alpha, window=window, global_merges=global_merges, min_frequency=2
    )
    assert tok.merges == expected


@pytest.mark.parametrize("global_merges", [0, 300])
@pytest.mark.parametrize("variant", ["base", "window"])
def test_target_rates_instead_of_a_development_text(built_in, variant, global_merges):
    train, _ = built_in
    # Rates in bytes per token: proportional to each language's bytes on the parallel text, they ask
    # every language for the same token count; a spread of them tests the choice.
    ratio = {label: 1.0 + 0.15 * index for index, label in enumerate(train)}
    tok, expected = both(train, None, 2000, ratio=ratio, variant=variant, global_merges=global_merges, min_frequency=2)
    assert tok.merges == expected
    served = set(tok.training["parity"]["merge_language"])
    assert len(served - {-1}) >= 10


def test_training_text_as_its_own_development_text_is_parity_bpe_trainer_without_one():
    # ParityBpeTrainer given neither a development text nor rates follows the training text's
    # token counts: train_parity with the training text as ``dev``. Passages, not line-parallel.
    texts = {sample.id: [sample.text] for sample in load_samples("natural")}
    tok = train_parity(texts, texts, 256 + 1500, tie_break="huggingface", min_frequency=2, variant="window")
    assert tok.merges == huggingface_parity(texts, None, 1500, min_frequency=2, variant="window")


def test_a_users_parallel_files(tmp_path, built_in):
    train, heldout = built_in
    paths = []
    for label in ["eng", "hin", "zho", "ara", "rus", "tam"]:
        path = tmp_path / f"{label}.txt"
        path.write_text("\n".join(train[label] + heldout[label]) + "\n", encoding="utf-8")
        paths.append(path)
    texts, held = split_sentences(read_parallel_files(paths))
    for variant in ("base", "window"):
        tok, expected = both(texts, held, 1500, variant=variant, min_frequency=2, global_merges=200)
        assert tok.merges == expected


def test_a_window_pick_that_falls_through_to_an_exhausted_language_0(monkeypatch, built_in):
    # Thai (language 0) runs out of pairs; when every other language is over the window's limit,
    # ParityBpeTrainer's scan falls on language 0 anyway: a pick that merges nothing but counts in
    # the window. bpe_core does the same.
    train, heldout = built_in
    labels = ["tha", "fra", "rus", "spa"]
    texts, dev = {label: train[label][:20] for label in labels}, {label: heldout[label][:10] for label in labels}
    idle = []
    pick = parity_choice.Chooser.pick

    def counting_pick(chooser, standing):
        language = pick(chooser, standing)
        if language is not None and chooser.exhausted[language]:
            idle.append(language)
        return language

    monkeypatch.setattr(parity_choice.Chooser, "pick", counting_pick)
    tok, expected = both(texts, dev, 800, variant="window", window=10, min_frequency=3)
    assert tok.merges == expected
    assert idle and set(idle) == {0}
    assert tok.training["parity"]["exhausted"][0] == "tha"
