"""Tokenize's BPE-dropout expander (AppTest): nothing runs while it is closed; open, three segmentations
sampled with the chosen p and seed are drawn, each exactly ``Tokenizer.encode(text, dropout=p,
seed=seed + n)``; p = 0 is the plain
encoding and p = 1 the bytes; tokenizers without ranked merges (Picky BPE) are not offered, with the
reason, and a page with only such tokenizers says what to choose."""

from __future__ import annotations

import re

import pytest
from apptest_support import drawn_html, run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.training.picky import train_picky
from bpe_core.workspace.library_folder import LibraryFolder
from pages._tokenize_text import dropout

TOKENIZE = "pages/tokenize_text.py"
TEXT = "Subword regularization: unrelated, unrelated, unrelated words are segmented afresh. 你好世界 🙂"


def _open(app: AppTest, tokenizers: list[str], text: str = TEXT) -> AppTest:
    """Tokenize with ``tokenizers`` on ``text``, the BPE-dropout expander open."""
    app.switch_page(TOKENIZE).run()
    app.multiselect(key="tokenize.tokenizers").set_value(tokenizers)
    app.text_area(key="tokenize.text").set_value(text)
    app.session_state[dropout.K_OPEN] = True  # as a click on the expander does
    return run(app)


def sampled_panels(app: AppTest) -> list[list[int]]:
    """The ids of each panel drawn without a tokenizer key (the dropout samples; Tokenize's own panels
    carry ``data-k``)."""
    panels = re.findall(r'<div class="bpe-tokens">(.*?)</div>', "\n".join(drawn_html(app)), re.S)
    return [[int(i) for i in re.findall(r'data-i="(\d+)"', panel)] for panel in panels if "data-i" in panel]


def sample_lines(app: AppTest) -> list[str]:
    return [line for line in texts(app.markdown) if line.startswith("**Sample ")]


def test_nothing_is_sampled_while_the_expander_is_closed(app):
    _open(app, ["gpt2"])
    assert sampled_panels(app)
    app.session_state[dropout.K_OPEN] = False
    run(app)
    assert not sampled_panels(app) and not sample_lines(app)
    assert "BPE-dropout: sampled segmentations" in [expander.label for expander in app.expander]


def test_three_seeded_samples_are_the_tokenizers_own(app):
    _open(app, ["gpt2"])
    gpt2 = bpe_core.load("gpt2")
    assert app.number_input(key=dropout.K_P).value == 0.1 and app.number_input(key=dropout.K_SEED).value == 0
    expected = [gpt2.encode(TEXT, dropout=0.1, seed=seed, disallowed_special=()) for seed in range(3)]
    assert sampled_panels(app) == expected
    plain = len(gpt2.encode(TEXT))
    lines = sample_lines(app)
    first = len(expected[0])
    assert lines[0] == f"**Sample 1** (seed 0): {first:,} tokens, {first - plain:+,} against no dropout ({plain:,})"
    assert len(lines) == dropout.SAMPLES
    app.number_input(key=dropout.K_SEED).set_value(7)
    run(app)
    later = [gpt2.encode(TEXT, dropout=0.1, seed=seed, disallowed_special=()) for seed in (7, 8, 9)]
    assert sampled_panels(app) == later != expected


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_no_dropout_is_the_plain_encoding_and_full_dropout_the_bytes(app, p):
    _open(app, ["gpt2"])
    app.number_input(key=dropout.K_P).set_value(p)
    run(app)
    gpt2 = bpe_core.load("gpt2")
    want = gpt2.encode(TEXT) if p == 0 else [gpt2.encode_single_token(bytes([b])) for b in TEXT.encode()]
    assert sampled_panels(app) == [want] * 3
    plain = len(gpt2.encode(TEXT))
    assert all(line.endswith(f"{len(want) - plain:+,} against no dropout ({plain:,})") for line in sample_lines(app))


def test_a_picky_tokenizer_is_not_offered(app, workspace_dir):
    picky = train_picky(["the then there the then; other others mother"] * 5, 300, threshold=0.6, min_frequency=1)
    assert picky.rule == "picky"
    LibraryFolder(str(workspace_dir)).save(picky, "pk")
    _open(app, ["lib:pk"])
    assert not app.exception
    assert any("Choose a BPE tokenizer above" in info.value for info in app.info)
    assert any(
        caption.startswith("Not offered (no ranked merges to skip)") and "pk" in caption
        for caption in texts(app.caption)
    )
    _open(app, ["lib:pk", "gpt2"])
    picker = app.selectbox(key=dropout.K_TOKENIZER)
    assert picker.value == "gpt2" and len(picker.options) == 1
    assert len(sampled_panels(app)) == 3
