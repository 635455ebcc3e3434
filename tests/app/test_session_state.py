"""No lost or stranded state, driven with AppTest: the Library list is fresh
after an import; every tokenizer trained in the session is kept (same name: a second one, not a
replacement) with its own Save and Discard on Train, Compare and Library; the Tokenize page's shared
URL keeps its toggles and reference and names the tokenizers it cannot find here."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.workspace.library_folder import LibraryFolder  # noqa: E402

TRAIN = "pages/train.py"
LIBRARY = "pages/library.py"
COMPARE = "pages/compare.py"
TOKENIZE = "pages/tokenize_text.py"
CORPUS = ("the cat sat on the mat. the dog sat on the log. cats and dogs sat together.\n" * 30).encode()


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def train(at: AppTest, name: str) -> AppTest:
    go(at, TRAIN)
    at.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(at)
    at.text_input(key="train.name").set_value(name)
    at.number_input(key="train.vocab_size").set_value(290)
    at.button(key="train.go").click()
    return run(at)


def buttons(at: AppTest, suffix: str) -> list:
    return [b for b in at.button if str(b.key).endswith(suffix)]


def session_names(at: AppTest) -> list[str]:
    return [n for n in at.session_state["wb.session_tokenizers"]]


def saved_names(folder: Path) -> list[str]:
    return [entry.name for entry in LibraryFolder(folder).entries()]


def test_library_list_shows_an_import_in_the_same_run(app, workspace_dir):
    go(app, LIBRARY)
    assert any("library is empty" in i for i in texts(app.info))
    data = bpe_core.train(["abc abd abe " * 20], 260, name="imported-one").to_json().encode()
    app.file_uploader(key="library.upload").set_value(("imported-one.json", data, "application/json"))
    run(app)
    assert any("imported-one" in s for s in texts(app.success))
    assert not any("library is empty" in i for i in texts(app.info))
    assert "imported-one" in list(app.dataframe[0].value["name"])
    assert app.selectbox(key="library.selected").options == ["imported-one"]


def test_training_twice_with_one_name_keeps_both_each_with_save_and_discard(app, workspace_dir):
    train(app, "my-bpe")
    train(app, "my-bpe")
    assert session_names(app) == ["my-bpe", "my-bpe 2"]
    assert len(buttons(app, ".save")) >= 2 and len(buttons(app, ".discard")) == 2
    go(app, LIBRARY)
    assert len(buttons(app, ".discard")) == 2
    # save the first from the Library page, discard the second there
    save = [b for b in buttons(app, ".save") if b.key.startswith("library.keep.")]
    save[0].click()
    run(app)
    assert saved_names(workspace_dir) == ["my-bpe"]
    assert "my-bpe" in list(app.dataframe[0].value["name"])
    buttons(app, ".discard")[0].click()
    run(app)
    assert session_names(app) == []
    assert not buttons(app, ".discard")
    assert saved_names(workspace_dir) == ["my-bpe"]


def test_save_from_train_reports_a_taken_name_and_keeps_the_tokenizer(app, workspace_dir):
    train(app, "dup")
    LibraryFolder(workspace_dir).save(bpe_core.train(["xy xy xy"], 257, name="dup"), "dup")
    [save] = [b for b in buttons(app, ".save") if b.key.startswith("train.keep.")]
    save.click()
    run(app)
    assert any("Could not save" in e and "another name" in e for e in texts(app.error))
    assert session_names(app) == ["dup"]


def test_a_tokenizer_trained_on_compare_can_be_saved_there_and_from_library(app, workspace_dir):
    go(app, COMPARE)
    app.multiselect(key="cmp.train.samples").set_value(["eng"])
    app.number_input(key="cmp.train.vocab").set_value(300)
    for name in ("mix-a", "mix-b"):
        app.text_input(key="cmp.train.name").set_value(name)
        app.button(key="cmp.train.go").click()
        run(app)
    assert not any("from the Train page)" in s for s in texts(app.success))
    assert session_names(app) == ["mix-a", "mix-b"]
    [save_here] = [
        b
        for b in buttons(app, ".save")
        if b.key.startswith("cmp.keep.")
        and "mix-a" in str(app.text_input(key=b.key.removesuffix(".save") + ".name").value)
    ]
    save_here.click()
    run(app)
    assert saved_names(workspace_dir) == ["mix-a"]
    go(app, LIBRARY)
    [save_there] = [b for b in buttons(app, ".save") if b.key.startswith("library.keep.")]
    save_there.click()
    run(app)
    assert saved_names(workspace_dir) == ["mix-a", "mix-b"]
    assert session_names(app) == []


def open_shared(params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params = dict(params)
    run(at)
    at.query_params = dict(params)
    return go(at, TOKENIZE)


def test_shared_url_keeps_toggles_and_reference(workspace_dir):
    at = go(run(AppTest.from_file(APP, default_timeout=180)), TOKENIZE)
    at.multiselect(key="tokenize.tokenizers").set_value(["gpt2", "default"])
    run(at)
    at.toggle(key="tokenize.whitespace").set_value(False)
    at.toggle(key="tokenize.bytes").set_value(True)
    run(at)
    at.selectbox(key="tokenize.reference").set_value("default")
    run(at)
    shared = {name: at.query_params[name] for name in ("text", "tok", "ws", "special", "bytes", "diff", "ref")}
    assert shared["ws"] == "0" and shared["bytes"] == "1" and shared["ref"] == "default"
    # another browser opens the link: the same view, not the defaults
    other = open_shared(shared)
    assert other.multiselect(key="tokenize.tokenizers").value == ["gpt2", "default"]
    assert other.toggle(key="tokenize.whitespace").value is False
    assert other.toggle(key="tokenize.bytes").value is True
    assert other.toggle(key="tokenize.special").value is True
    assert other.selectbox(key="tokenize.reference").value == "default"
    assert not other.warning
    other.toggle(key="tokenize.diff").set_value(False)
    run(other)
    assert other.query_params["diff"] == "0" and "ref" not in other.query_params


def test_shared_url_names_the_tokenizers_this_machine_lacks(workspace_dir):
    at = open_shared({"text": "Hello", "tok": ["gpt2", "lib:their-bpe", "new:half-done", "no-such-builtin"]})
    assert at.multiselect(key="tokenize.tokenizers").value == ["gpt2"]
    [warning] = texts(at.warning)
    assert "their-bpe (saved in the library" in warning
    assert "half-done (trained but not saved" in warning
    assert "no-such-builtin (a built-in tokenizer not installed here)" in warning
    assert "Library page" in warning
