"""The Train page's tie rule: every rule of bpe_core is offered, and the one picked is the one trained
with (AppTest, workbench folder in a temporary directory)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


from apptest_support import run  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.training.tie_rules import TIE_BREAKS  # noqa: E402

CORPUS = ("xy !a ab ba " * 40 + "the cat sat on the mat\n" * 20).encode()


def test_train_page_offers_every_tie_rule_and_trains_with_the_one_picked(app):
    run(app.switch_page("pages/train.py"))
    radio = app.radio(key="train.tie_break")
    assert list(radio.options) == list(TIE_BREAKS)
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(app)
    app.radio(key="train.tie_break").set_value("rustbpe")
    app.number_input(key="train.vocab_size").set_value(300)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    trained = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    assert trained.training["settings"]["tie_break"] == "rustbpe"
    settings = trained.training["settings"]
    expected = bpe_core.train(
        [CORPUS.decode()],
        300,
        min_frequency=settings["min_frequency"],
        pattern=settings["pattern"],
        tie_break="rustbpe",
    )
    assert trained.merges == expected.merges
    assert (
        trained.merges
        != bpe_core.train(
            [CORPUS.decode()], 300, min_frequency=settings["min_frequency"], pattern=settings["pattern"]
        ).merges
    )


def test_step_through_offers_every_tie_rule_and_names_the_one_used(app):
    run(app.switch_page("pages/step_through.py"))
    app.selectbox(key="steps.mode").set_value("bytes")
    run(app)
    app.text_area(key="steps.text").set_value("ab ba ab ba xy yx")
    run(app)
    radio = app.radio(key="steps.tie")
    assert list(radio.options) == list(TIE_BREAKS)
    radio.set_value("huggingface")
    run(app)
    app.button(key="steps.next").click()
    run(app)
    captions = " ".join(str(c.value) for c in app.caption)
    assert "GPT" in captions and "BpeTrainer" in captions, captions
