"""The Merge forest's controls, driven with AppTest: the number box beside the first-k slider, the
vocabulary search (prefix, regex, a bad and a pathological regex), the table of all merges with its
filter and pages, "never produced" on the user's text, deep links (valid, unknown tokenizer, bad id),
where a token occurs for a session tokenizer, and what is built from a token."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from apptest_support import APP, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.display.marks import parse_token_display  # noqa: E402

FOREST = "pages/merge_forest.py"
CORPUS = ("the cat sat on the mat. the dog sat on the log. cats and dogs sat together.\n" * 30).encode()


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def gpt2_forest(app: AppTest) -> AppTest:
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    return run(app)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def frame_with(at: AppTest, column: str):
    return [table.value for table in at.dataframe if column in table.value.columns]


def test_the_number_box_and_the_slider_stay_in_step(app):
    go(app, FOREST)
    app.selectbox(key="forest.tokenizer").set_value("default")  # the small example: a quick forest
    run(app)
    app.text_area(key="forest.seg_text").set_value("the theme of the thesis")
    app.number_input(key="forest.k_box:default").set_value(123)
    run(app)
    assert app.slider(key="forest.k:default").value == 123
    assert "tokens with 123 merges" in metrics(app)
    app.slider(key="forest.k:default").set_value(7)
    run(app)
    assert app.number_input(key="forest.k_box:default").value == 7
    assert "tokens with 7 merges" in metrics(app)


def test_vocabulary_search_by_prefix_and_regex(app):
    gpt2_forest(app)
    app.text_input(key="forest.search:gpt2").set_value(" the")  # typed space means ␣
    run(app)
    found = frame_with(app, "made from")[0]
    assert found["id"].tolist()[0] == 262 and found["token"].tolist()[0] == "␣the"
    assert all(token.startswith("␣the") for token in found["token"])
    assert any("matching tokens" in m for m in texts(app.markdown))
    app.radio(key="forest.search_mode").set_value("regex")
    app.text_input(key="forest.search:gpt2").set_value(r"^␣[A-Z][a-z]+ing$")
    run(app)
    found = frame_with(app, "made from")[0]
    assert " Thing" in {parse_token_display(t).decode() for t in found["token"]}
    assert all(t.startswith("␣") and t.endswith("ing") for t in found["token"])


def test_bad_and_pathological_regexes_are_messages(app):
    gpt2_forest(app)
    app.radio(key="forest.search_mode").set_value("regex")
    app.text_input(key="forest.search:gpt2").set_value("(unclosed")
    run(app)
    assert any("not a valid regular expression" in e for e in texts(app.error))
    app.text_input(key="forest.search:gpt2").set_value(r"(.|..)+\d$")  # backtracks without end on long tokens
    run(app)
    assert any("too slow over the vocabulary" in e and "simplify it" in e for e in texts(app.error)), texts(app.error)


def test_the_merges_table_filters_and_pages(app):
    gpt2_forest(app)
    table = frame_with(app, "new id")[0]
    assert len(table) == 500 and table["rank"].tolist()[:2] == [0, 1]
    assert (table["left"][0], table["right"][0], table["result"][0]) == ("␣", "t", "␣t")
    app.number_input(key="forest.merges_page:gpt2").set_value(3)
    run(app)
    assert frame_with(app, "new id")[0]["rank"].tolist()[0] == 1_000
    app.text_input(key="forest.merges_filter:gpt2").set_value(" the")
    run(app)
    filtered = frame_with(app, "new id")[0]
    assert app.number_input(key="forest.merges_page:gpt2").value == 1  # the filter shrank the table
    assert 0 < len(filtered) <= 500
    assert all(
        "␣the" in a or "␣the" in b or "␣the" in c
        for a, b, c in zip(filtered["left"], filtered["right"], filtered["result"], strict=True)
    )
    assert any("merges match" in c for c in texts(app.caption))


def test_never_produced_on_the_users_text(app):
    gpt2_forest(app)
    app.radio(key="forest.unused_source").set_value("mine")
    run(app)
    assert any("Type or upload some text" in i for i in texts(app.info))
    text = "the theme of the thesis, tokenization and the tokenizer"
    app.text_area(key="forest.unused_text").set_value(text)
    run(app)
    gpt2 = bpe_core.load("gpt2")
    used = {i for i in gpt2.encode(text) if gpt2.merge_rank_of(i) is not None}
    # 55 characters cannot say which of 50,000 merged tokens go unused: no headline share, the size named
    shown = metrics(app)
    assert int(shown[f"merged tokens produced by {len(text)} characters"]) == len(used)
    assert not any(label.startswith(("never produced", "share")) for label in shown), shown
    assert any("too little text" in w and f"{len(text)} characters" in w for w in texts(app.warning))
    table = frame_with(app, "built into")[0]
    assert "training count" not in table.columns  # GPT-2 recorded no counts: no column of None
    assert len(table) == 1_000 and not table.isna().any().any()


def test_never_produced_is_a_share_of_enough_text(app):
    go(app, "pages/train.py")
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(app)
    app.number_input(key="train.vocab_size").set_value(300)
    app.button(key="train.go").click()
    run(app)
    go(app, FOREST)
    shown = metrics(app)
    size = f"{len(CORPUS.decode()):,} characters"
    assert f"never produced in {size}" in shown and shown[f"share, in {size}"].endswith("%"), shown
    table = frame_with(app, "built into")[0]
    assert "training count" in table.columns and not table.isna().any().any()


def test_a_deep_link_opens_the_token(workspace_dir):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params = {"tokenizer": "gpt2", "token": "262"}
    run(at)
    at.query_params = {"tokenizer": "gpt2", "token": "262"}
    go(at, FOREST)
    assert at.selectbox(key="forest.tokenizer").value == "gpt2"
    assert at.radio(key="forest.mode").value == "id"
    assert metrics(at)["id"] == "262" and "‘␣the’" in texts(at.subheader)
    at.radio(key="forest.mode").set_value("text")  # the link is applied once: the user's choice stands
    run(at)
    assert at.radio(key="forest.mode").value == "text"


def test_deep_links_with_bad_values_say_so(workspace_dir):
    for params, message in [
        ({"tokenizer": "no-such-tokenizer", "token": "5"}, "which this session does not have"),
        ({"tokenizer": "gpt2", "token": "abc"}, "is not a token id of this tokenizer"),
        ({"tokenizer": "gpt2", "token": "9999999"}, "is not a token id of this tokenizer"),
        ({"token": "-3"}, "is not a token id of this tokenizer"),
    ]:
        at = AppTest.from_file(APP, default_timeout=180)
        at.query_params = dict(params)
        run(at)
        at.query_params = dict(params)
        go(at, FOREST)
        assert any(message in e.replace("\\", "") for e in texts(at.error)), (params, texts(at.error))
        assert at.get("graphviz_chart"), "the page still works: the default token's tree"


def test_where_a_token_occurs_for_a_session_tokenizer(app):
    go(app, "pages/train.py")
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(app)
    app.number_input(key="train.vocab_size").set_value(300)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    go(app, FOREST)
    assert app.selectbox(key="forest.tokenizer").value == "new:my-bpe"
    app.text_input(key="forest.query:new:my-bpe").set_value(" dog")
    run(app)
    shown = "\n".join(e.value for e in app.get("html"))
    assert shown.count("<mark>␣dog</mark>") == 10  # up to ten occurrences, the token highlighted
    assert "␣sat␣on␣the␣log." in shown
    assert any("The first 10 occurrence(s)" in c and "corpus.txt" in c for c in texts(app.caption))
    app.selectbox(key="forest.tokenizer").set_value("gpt2")
    run(app)
    assert any("Only for tokenizers trained in this session" in c for c in texts(app.caption))


def test_what_is_built_from_a_token(app):
    gpt2_forest(app)
    app.text_input(key="forest.query:gpt2").set_value(" t")
    run(app)
    table = frame_with(app, "depth")[0]
    assert table["depth"].tolist()[0] == 1 and table["depth"].is_monotonic_increasing
    assert "␣the" in table["token"].tolist() and len(table) == 997  # all of them
    assert not any("The first 1,000 tokens built from it" in c for c in texts(app.caption))
    app.text_input(key="forest.query:gpt2").set_value("t")  # a byte: thousands built from it
    run(app)
    assert len(frame_with(app, "depth")[0]) == 1_000
    assert any("The first 1,000 tokens built from it" in c for c in texts(app.caption))
    outline = [e.value for e in app.get("html") if "bpe-outline" in e.value]
    assert outline and outline[0].count("<li") == 1_001  # the byte itself, then every token in the table


def test_a_link_followed_again_from_another_page_reopens_its_token(workspace_dir):
    params = {"tokenizer": "gpt2", "token": "262"}
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params = dict(params)
    run(at)
    at.query_params = dict(params)
    go(at, FOREST)
    at.number_input(key="forest.id:gpt2").set_value(300)
    run(at)
    assert metrics(at)["id"] == "300"  # the user's choice stands on reruns
    go(at, "pages/step_through.py")
    at.query_params = dict(params)  # Tokenize's click on the same token again
    go(at, FOREST)
    assert metrics(at)["id"] == "262"


def test_the_built_from_tree_has_the_token_itself_at_its_root():
    # a token whose text is markup: the root's label and every line are escaped
    sys.path.insert(0, str(ROOT))
    from bpe_core.analysis.forest import MergeForest
    from pages._merge_forest import token
    from pages._merge_forest.index import Picked

    tokenizer = bpe_core.train(["<b> <b>& <b>&x " * 30], 270, min_frequency=1, pattern=None)
    forest = MergeForest.of(tokenizer)
    root = next(i for i in forest.made if forest.display[i] == "<b>")
    rows = forest.built_from(root)
    outline = token.built_from_outline(Picked(None, tokenizer, forest), root, rows)
    body = outline.split("</style>", 1)[1]
    assert "<b>" not in body and body.count("<li") == len(rows) + 1  # the token itself, then every row
    first = re.search(r'<span class="tk"[^>]*>(.*?)</span>', body).group(1)
    assert first == "&lt;b&gt;"  # the root is the first line
    parents = {parent for _, _, parent in rows}
    assert body.count("<details") == len(parents)  # a branch for each token something is built on


def test_never_produced_hashes_and_encodes_only_the_first_characters(monkeypatch):
    from collections import Counter

    sys.path.insert(0, str(ROOT))
    from pages._merge_forest import unused

    monkeypatch.setattr(unused, "MAX_STATS_CHARS", 10)
    texts = ["the cat", "sat on the mat", "never read"]
    parts = unused.encoded_part(texts)
    assert parts == ["the cat", "sat"]  # 7 + 3 characters; the third text is past the budget
    signature = unused.usage_signature("gpt2", "my text", parts)
    # text past the budget changes neither what is hashed nor the key; text inside it does
    assert (
        unused.usage_signature("gpt2", "my text", unused.encoded_part(["the cat", "sat, then slept", "other"]))
        == signature
    )
    assert unused.usage_signature("gpt2", "my text", ["the cat", "sa"]) != signature
    assert unused.usage_signature("gpt2", "my text", ["the ca", "tsat"]) != signature
    gpt2 = bpe_core.load("gpt2")
    usage = unused.usage_counts("test-budget", signature, gpt2, parts)
    assert usage == dict(Counter(gpt2.encode("the cat") + gpt2.encode("sat")))
