"""The modern built-in tokenizers in the workbench (AppTest): offered by the pickers when their
package is installed, picked on Tokenize and Compare with no exception, and Compare's default
selection opening with the current models."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, drawn_html, run  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bpe_core.pretrained import catalogue  # noqa: E402

PICKED = [name for name in ("o200k", "llama3") if catalogue.is_installed(name)]
pytestmark = pytest.mark.skipif(not PICKED, reason="neither mbpe nor llama-models is installed")


def test_compare_opens_with_current_models_and_takes_a_modern_one(app):
    app.switch_page("pages/compare.py")
    run(app)
    selected = app.multiselect(key="cmp.tokenizers").value
    assert selected[0] == PICKED[0] and "default" not in selected  # today's models, not the example
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
    html = "\n".join(drawn_html(app))
    assert "việc" in html or "vi" in html


# ------------------------------------------------------------------------------------------------
# external tokenizers: a WordPiece tokenizer.json in the library, shown read-only


def _wordpiece_json() -> str:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, normalizers, pre_tokenizers

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4, "##s": 5}
    tok = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens(["[CLS]", "[SEP]"])
    return tok.to_str()


@pytest.fixture
def app_with_external(workspace_dir):
    folder = Path(workspace_dir) / "external"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bert.json").write_text(_wordpiece_json(), encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=180)
    return run(at)


def test_an_external_tokenizer_is_shown_in_tokenize_and_compare(app_with_external):
    app = app_with_external
    app.switch_page("pages/tokenize_text.py")
    run(app)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2", "ext:bert"])
    app.text_area(key="tokenize.text").set_value("Hello worlds")
    run(app)
    assert not app.exception and not app.error
    assert any("WordPiece (external, run by tokenizers)" in c.value.replace("\\", "") for c in app.caption)
    id_lists = [", ".join(re.findall(r">(\d+)</span>", body)) for body in drawn_html(app) if 'class="bpe-ids"' in body]
    assert any("3, 4, 5" in ids for ids in id_lists)  # HF's ids, in the page's id list
    app.switch_page("pages/compare.py")
    run(app)
    app.multiselect(key="cmp.tokenizers").set_value(["gpt2", "ext:bert"])
    run(app)
    assert not app.exception and not app.error


def test_the_merge_forest_says_why_external_tokenizers_are_not_offered(app_with_external):
    app = app_with_external
    app.switch_page("pages/merge_forest.py")
    run(app)
    assert not app.exception
    assert "ext:bert" not in app.selectbox(key="forest.tokenizer").options
    assert any("external tokenizers have no merge list" in c.value.replace("\\", "") for c in app.caption)


def test_the_library_lists_external_tokenizers(app_with_external):
    app = app_with_external
    app.switch_page("pages/library.py")
    run(app)
    assert not app.exception and not app.error
    assert any(s.value == "External tokenizers" for s in app.subheader)
    assert app.selectbox(key="library.external_selected").value == "bert"


def test_missing_packages_are_named_where_tokenizers_are_picked(monkeypatch, workspace_dir):
    missing = catalogue.Builtin(
        "llama3", "Llama 3", "llama-models", "no_such_package_here", ("x",), "0" * 64, build=lambda data: None
    )
    monkeypatch.setitem(catalogue.BUILTINS, "llama3", missing)
    app = run(AppTest.from_file(APP, default_timeout=180))
    for page in ("pages/tokenize_text.py", "pages/compare.py", "pages/library.py", "pages/vocab_diff.py"):
        app.switch_page(page)
        run(app)
        assert not app.exception
        shown = [c.value.replace("\\", "") for c in app.caption]
        assert any("Llama 3: not installed: pip install llama-models" in c for c in shown), page


def test_the_forest_explains_whole_word_tokens_and_late_merges():
    from pages._ui.tokenizers import unmerged_note

    class Ranks:  # what a tiktoken-rule Tokenizer reports
        late_merges: ClassVar = [(b" vi", "ệc".encode())]
        whole_word_tokens: ClassVar = [7]

    assert unmerged_note(Ranks(), 7, " yılında".encode()).startswith("A whole-word token: no merge builds it")
    late = unmerged_note(Ranks(), 9, " việc".encode())
    assert late.startswith("A late merge: ‘␣vi’ + ‘ệc’")  # the display convention
    assert unmerged_note(Ranks(), 97, b"a").startswith("A single byte")
    if catalogue.is_installed("llama3"):
        llama = catalogue.load("llama3")
        whole = llama.whole_word_tokens[0]
        assert unmerged_note(llama, whole, llama.decode_single_token_bytes(whole)).startswith("A whole-word token")
