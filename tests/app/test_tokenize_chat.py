"""Tokenize's chat view (AppTest): a conversation typed as turns, drawn for each chosen model in its chat
format with the page's token strips, counted token by token; the counts and ids are the library's
(``bpe_core.pretrained.chat_formats``, itself held against the models' own implementations); turns
are added, edited and removed; a tokenizer without a published format is named as such; a format that
refuses the conversation says why."""

from __future__ import annotations

import re

import pytest
from apptest_support import drawn_html, run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.chat_formats import FORMATS, Message
from pages._tokenize_text import chat

TOKENIZE = "pages/tokenize_text.py"
WANTED = ["qwen", "llama3", "o200k_harmony", "mistral", "gpt2"]


def _installed() -> list[str]:
    return [name for name in WANTED if catalogue.is_installed(name)]


def _open(app: AppTest, tokenizers: list[str]) -> AppTest:
    app.switch_page(TOKENIZE).run()
    app.multiselect(key="tokenize.tokenizers").set_value(tokenizers)
    app.session_state[chat.K_OPEN] = True  # as a click on the expander does
    return run(app)


def _headers(app: AppTest) -> dict[str, str]:
    """Each chat panel's header line by its tokenizer's label."""
    lines = [line for line in texts(app.markdown) if "of them special" in line]
    return {line.split("**")[1].replace("\\", ""): line for line in lines}


def _chat_panels(app: AppTest) -> list[str]:
    return [body for body in drawn_html(app) if "data-cs=" in body]


def _example() -> list[Message]:
    return [Message(role, text) for role, text in chat.EXAMPLE]


def test_each_model_shows_the_conversation_in_its_format(app):
    names = _installed()
    if "qwen" not in names:
        pytest.skip(catalogue.not_installed_message("qwen"))
    _open(app, names)
    headers = _headers(app)
    for name in names:
        label = catalogue.BUILTINS[name].label
        if name == "gpt2":
            assert label not in headers
            continue
        fmt = FORMATS[{"qwen": "qwen3", "llama3": "llama3", "o200k_harmony": "harmony", "mistral": "mistral"}[name]]
        text, infos = fmt.encode_with_details(bpe_core.load(name), _example())
        specials = sum(i.special for i in infos)
        shown = headers[label].replace("\\", "")
        assert f"· {fmt.label} · {len(infos):,} tokens, {specials:,} of them special" in shown, headers
    assert any("No published chat format: GPT" in c.replace("\\", "") for c in texts(app.caption))
    qwen_panel = next(p for p in _chat_panels(app) if "im_start" in p)
    ids = [int(i) for i in re.findall(r'data-i="(\d+)"', qwen_panel)]
    _, infos = FORMATS["qwen3"].encode_with_details(bpe_core.load("qwen"), _example())
    assert ids == [i.id for i in infos if not i.special]  # the strip's tokens are the library's
    assert ' data-s="' not in qwen_panel  # no part in the page's linked hover


def test_turns_are_edited_added_and_removed(app):
    if not catalogue.is_installed("qwen"):
        pytest.skip(catalogue.not_installed_message("qwen"))
    _open(app, ["qwen"])
    app.text_area(key="tokenize.chat.text.3").set_value("Und jetzt auf Deutsch, bitte.")
    run(app)
    messages = [*_example()[:3], Message("user", "Und jetzt auf Deutsch, bitte.")]
    count = len(FORMATS["qwen3"].encode(bpe_core.load("qwen"), messages))
    assert f"{count:,} tokens" in _headers(app)["Qwen 2.5 / 3"]
    app.button(key="tokenize.chat.add").click()
    run(app)
    assert app.selectbox(key="tokenize.chat.role.4").value == "assistant"  # the turn after a user's
    app.text_area(key="tokenize.chat.text.4").set_value("Gern.")
    run(app)
    count = len(FORMATS["qwen3"].encode(bpe_core.load("qwen"), [*messages, Message("assistant", "Gern.")]))
    assert f"{count:,} tokens" in _headers(app)["Qwen 2.5 / 3"]
    app.selectbox(key=chat.K_FORMAT + "qwen").set_value("qwen2.5")
    run(app)
    count = len(FORMATS["qwen2.5"].encode(bpe_core.load("qwen"), [*messages, Message("assistant", "Gern.")]))
    assert f"· Qwen 2.5 (ChatML) · {count:,} tokens" in _headers(app)["Qwen 2.5 / 3"].replace("\\", "")
    app.button(key="tokenize.chat.remove").click()
    run(app)
    assert len(app.text_area) - 1 == 4  # the page's own text box and four turns


def test_a_format_that_refuses_the_conversation_says_why(app):
    if not catalogue.is_installed("mistral"):
        pytest.skip(catalogue.not_installed_message("mistral"))
    _open(app, ["mistral"])
    app.button(key="tokenize.chat.add").click()
    run(app)
    assert any("Mistral's format ends with a user turn" in w.value for w in app.warning)
    assert not app.exception
