"""The training functions' keyword options: one home each (a ``TypedDict`` and its defaults), a wrong
keyword refused at once with a ``TypeError`` that names it, and the documented defaults the used ones."""

from __future__ import annotations

import inspect
from typing import TypedDict

import pytest

import bpe_core
from bpe_core.errors import keyword_options
from bpe_core.training import distributed, picky, superbpe, trainer
from bpe_core.training.counting import count_words
from bpe_core.training.trainer import TrainingSettings

TEXTS = ["the cat sat on the mat. " * 6, "a dog, a log; the fog. " * 4]


class Untouchable:
    """An input that fails the test if a function reads it: the keyword check must come first."""

    def __iter__(self):
        raise AssertionError("the input was read before the keywords were checked")

    def __fspath__(self):
        raise AssertionError("the input was opened before the keywords were checked")


def counts():
    return count_words(TEXTS, pretokenizer=TrainingSettings(300).pretokenizer())


#: Each public function with keyword options, the arguments before them, and its ``TypedDict``.
FUNCTIONS = [
    (trainer.train, lambda: (Untouchable(), 300), trainer.TrainingOptions),
    (trainer.train_files, lambda: (Untouchable(), 300), trainer.FileTrainingOptions),
    (trainer.train_from_counts, lambda: (counts(), 300), trainer.FromCountsOptions),
    (distributed.count_on_dask, lambda: (Untouchable(),), distributed.DaskCountOptions),
    (distributed.train_on_dask, lambda: (Untouchable(), 300), distributed.DaskTrainingOptions),
    (superbpe.train_superbpe, lambda: (Untouchable(), 300), superbpe.SuperBPEOptions),
    (superbpe.train_superbpe_files, lambda: (Untouchable(), 300), superbpe.SuperBPEFileOptions),
    (picky.train_picky, lambda: (Untouchable(), 300), trainer.TrainingOptions),
]
IDS = [function.__name__ for function, _, _ in FUNCTIONS]


@pytest.mark.parametrize(("function", "arguments", "options"), FUNCTIONS, ids=IDS)
def test_a_misspelt_keyword_is_a_type_error_naming_it_before_any_work(function, arguments, options):
    calls = []
    with pytest.raises(TypeError) as raised:
        function(*arguments(), special_token=["<|end|>"], progress=lambda *call: calls.append(call))
    message = str(raised.value)
    assert message.startswith(f"{function.__name__}() got an unexpected keyword argument 'special_token'")
    assert "did you mean 'special_tokens'?" in message
    assert all(name in message.rpartition("it takes: ")[2].split(", ") for name in options.__annotations__)
    assert calls == []  # no counting, no merging


@pytest.mark.parametrize(("function", "arguments", "options"), FUNCTIONS, ids=IDS)
def test_the_signature_shows_the_keywords_of_the_typed_dict_the_function_is_annotated_with(
    function, arguments, options
):
    """What mypy checks callers against (``**options: Unpack[X]``) is what the function takes at run time
    and what help() shows."""
    annotation = function.__wrapped__.__annotations__["options"]
    assert annotation == f"Unpack[{options.__name__}]"
    parameters = inspect.signature(function).parameters.values()
    own = {"threshold"} if function is picky.train_picky else set()  # a keyword of its own, spelled out
    shown = {p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY} - own
    assert shown == set(options.__annotations__)
    assert all(p.default is not inspect.Parameter.empty for p in parameters if p.name in shown)


def test_training_with_no_options_equals_training_with_the_documented_defaults_spelled_out():
    documented = {
        "min_frequency": 2,
        "pattern": "gpt2",
        "special_tokens": (),
        "tie_break": "lexicographic",
        "progress": None,
        "name": "trained",
        "workers": None,
    }
    plain, spelled = bpe_core.train(TEXTS, 290), bpe_core.train(TEXTS, 290, **documented)
    assert plain.merges == spelled.merges and len(plain.merges) > 10
    assert plain.name == spelled.name == "trained"
    assert plain.training["settings"] == spelled.training["settings"]
    assert plain.training["settings"]["pattern"] == "gpt2"
    from_counts = bpe_core.train_from_counts(counts(), 290)
    assert from_counts.merges == plain.merges and from_counts.training["settings"] == plain.training["settings"]
    assert bpe_core.train(TEXTS, 290, **{**documented, "min_frequency": 5}).merges != plain.merges  # it is used


def test_train_files_with_no_options_equals_the_documented_reading_defaults(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "the cat sat on the mat"}\n[1]\n{"text": "the cat sat"}\n', encoding="utf-8")
    plain = bpe_core.train_files(path, 270, min_frequency=1)
    spelled = bpe_core.train_files(path, 270, min_frequency=1, text_field="text", on_bad_row="skip")
    assert plain.merges == spelled.merges and plain.merges
    assert plain.training["corpus"]["bad_rows"] == spelled.training["corpus"]["bad_rows"] == 1


def test_superbpe_with_no_options_equals_its_documented_defaults_spelled_out():
    documented = {
        "transition": 0.9,
        "recipe": "paper",
        "min_frequency": 2,
        "special_tokens": (),
        "tie_break": "huggingface",
        "progress": None,
        "name": "superbpe",
        "workers": None,
    }
    plain = superbpe.train_superbpe(TEXTS, 300)
    spelled = superbpe.train_superbpe(TEXTS, 300, **documented)
    assert plain.merges == spelled.merges and plain.name == spelled.name == "superbpe"
    assert plain.training["settings"] == spelled.training["settings"]
    other_rule = superbpe.train_superbpe(TEXTS, 300, tie_break="lexicographic")
    assert other_rule.training["settings"] != plain.training["settings"]  # the default is used


def test_count_on_dask_takes_train_files_pattern_and_reading_defaults():
    keywords = inspect.signature(distributed.count_on_dask).parameters
    files = inspect.signature(bpe_core.train_files).parameters
    for name in ("pattern", "special_tokens", "text_field", "on_bad_row", "progress"):
        assert keywords[name].default == files[name].default, name
    assert keywords["timeout"].default == distributed.CONNECT_TIMEOUT


def test_keyword_options_needs_a_default_for_every_key():
    class Options(TypedDict, total=False):
        size: int
        depth: int

    with pytest.raises(TypeError, match="Options has no default for depth"):
        keyword_options(Options, {"size": 1})


def test_a_positional_parameter_given_by_name_still_reaches_the_function():
    tokenizer = bpe_core.train(texts=TEXTS, vocab_size=270, min_frequency=1)
    assert tokenizer.merges == bpe_core.train(TEXTS, 270, min_frequency=1).merges
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'vocab_size'"):
        bpe_core.train(TEXTS)


def test_unpack_is_imported_for_type_checkers_only():
    """``typing.Unpack`` is 3.11's; on 3.10 it comes from typing_extensions, which is not needed at run time."""
    for module in (trainer, distributed, superbpe, picky):
        assert "Unpack" not in vars(module) and "typing_extensions" not in vars(module), module.__name__
