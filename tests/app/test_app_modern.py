"""The modern built-in tokenizers in the workbench (AppTest): offered by the pickers when their
package is installed, picked on Tokenize and Compare with no exception, and Compare's default
selection reaching past GPT-2 and cl100k to the current models."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from apptest_support import APP, run  # noqa: E402
from bpe_core import catalogue  # noqa: E402

PICKED = [name for name in ("o200k", "llama3") if catalogue.is_installed(name)]
pytestmark = pytest.mark.skipif(not PICKED, reason="neither mbpe nor llama-models is installed")


@pytest.fixture
def app(workspace_dir):
    at = AppTest.from_file(APP, default_timeout=180)
    return run(at)


def test_compare_opens_with_current_models_and_takes_a_modern_one(app):
    app.switch_page("pages/compare.py")
    run(app)
    selected = app.multiselect(key="cmp.tokenizers").value
    assert selected[:2] == ["default", "gpt2"] and PICKED[0] in selected
    app.multiselect(key="cmp.tokenizers").set_value(["gpt2", PICKED[-1]])
    run(app)
    assert not app.exception and not app.error


def test_tokenize_shows_a_modern_tokenizer_beside_gpt2(app):
    app.switch_page("pages/tokenize_text.py")
    run(app)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2", *PICKED])
    app.text_area(key="tokenize.text").set_value("Hello việc yılında 世界")
    run(app)
    assert not app.exception and not app.error
    html = "\n".join(e.value for e in app.get("html"))
    assert "việc" in html or "vi" in html
