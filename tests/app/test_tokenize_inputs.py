"""Tokenize's inputs (AppTest): the text box is followed as it is typed (the script that applies it after
a pause is mounted for that box, on every run, with no user text in it), the typed text stays in the
URL, and an empty uploaded file says so in the page's words instead of asking for text. The browser
test (tests/app/test_browser_workbench.py) types into the box and sees the view follow."""

from __future__ import annotations

import json

from apptest_support import run, texts
from streamlit.testing.v1 import AppTest

import bpe_core
from pages._tokenize_text import live

TOKENIZE = "pages/tokenize_text.py"


def _follow_settings(app: AppTest) -> list[dict]:
    return [
        json.loads(e.proto.json) for e in app.get("bidi_component") if e.proto.component_name == "bpe_follow_typing"
    ]


def test_the_text_box_is_followed_as_typed(app):
    app.switch_page(TOKENIZE).run()
    assert _follow_settings(app) == [{"selector": ".st-key-tokenize-text", "pause": live.PAUSE_MS}]
    app.text_area(key="tokenize.text").set_value("Hello <b>world</b>")
    run(app)
    settings = _follow_settings(app)
    assert settings == [{"selector": ".st-key-tokenize-text", "pause": live.PAUSE_MS}]  # no user text in it
    assert app.query_params["text"] == "Hello <b>world</b>"
    # the element the selector names is the text area's: Streamlit's class for the key
    assert live.key_class("tokenize.text") == "st-key-tokenize-text"
    assert "view follows as you type" in app.text_area(key="tokenize.text").help


def test_the_follow_script_applies_with_the_text_areas_own_key_press():
    script = live.FOLLOW_JS
    assert "ctrlKey: true" in script and "'Enter'" in script  # what st.text_area takes as "apply now"
    assert "isComposing" in script  # never in the middle of an input method's character
    assert "data-test-script-state" in script  # waits for the running script instead of queueing runs


def test_an_empty_upload_says_the_file_is_empty(app):
    app.switch_page(TOKENIZE).run()
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2"])
    app.text_area(key="tokenize.text").set_value("typed text")
    run(app)
    app.file_uploader(key="tokenize.upload").set_value(("empty.txt", b"", "text/plain"))
    run(app)
    warnings = texts(app.warning)
    assert any("empty.txt" in w and "is empty" in w and "typed text is used" in w for w in warnings), warnings
    assert not any("Type some text" in i for i in texts(app.info))
    # the typed text is what is drawn meanwhile
    typed = len(bpe_core.load("gpt2").encode("typed text"))
    assert f"**GPT-2** · {typed} tokens" in texts(app.markdown)
