"""A Picky BPE tokenizer in the workbench (AppTest): the Merge forest says why it has no forest and
shows its tokens (the merge step that made each, its parts) and its removals (when, what, why: the
table equals ``picky_removals``), says so when the token looked up was removed (for good, or before a
later merge made it again), follows a deep link to one of its ids; Compare leaves it out of the
compression curve with the reason; and no page raises with it picked."""

from __future__ import annotations

import pytest
from apptest_support import run, texts
from markup_audit import shown_text
from streamlit.testing.v1 import AppTest

from bpe_core.analysis.picky_removals import merge_steps, picky_removals
from bpe_core.corpora.samples import parallel_text
from bpe_core.display.marks import token_display
from bpe_core.training.picky import train_picky
from bpe_core.workspace.library_folder import LibraryFolder
from pages._merge_forest.picky import NO_FOREST
from pages._ui.tables import removals_frame

FOREST = "pages/merge_forest.py"
KEY = "lib:pk"


@pytest.fixture(scope="module")
def picky():
    documents = [line for lines in parallel_text(split="train", languages=["eng"]).values() for line in lines]
    tokenizer = train_picky(documents, 400, threshold=0.7, min_frequency=2, name="pk")
    removals = picky_removals(tokenizer)
    assert tokenizer.rule == "picky" and any(r.restored for r in removals) and any(not r.restored for r in removals)
    return tokenizer


@pytest.fixture
def forest(app, workspace_dir, picky):
    LibraryFolder(str(workspace_dir)).save(picky, "pk")
    app.switch_page(FOREST).run()
    app.selectbox(key="forest.tokenizer").set_value(KEY)
    return run(app)


def find_text(app: AppTest, query: str) -> AppTest:
    app.radio(key="forest.mode").set_value("text")
    app.text_input(key=f"forest.query:{KEY}").set_value(query)
    return run(app)


def test_no_forest_but_the_removals(forest, picky):
    assert NO_FOREST in [info.value for info in forest.info]
    assert not forest.get("graphviz_chart")
    table = next(frame.value for frame in forest.dataframe if "IoS" in frame.value.columns)
    want = removals_frame(picky_removals(picky))
    assert table.reset_index(drop=True).equals(want)
    assert len([info for info in forest.info if info.value.startswith("Not for a Picky BPE tokenizer")]) == 5


def test_a_token_shows_the_merge_step_that_made_it(forest, picky):
    steps = merge_steps(picky)
    token = max(steps, key=lambda t: (len(t), -steps[t]))  # a long one, made late
    find_text(forest, token_display(token))
    metrics = {metric.label: metric.value for metric in forest.metric}
    assert metrics["merge step"] == f"{steps[token]:,}" and metrics["id"] == str(picky.encode_single_token(token))
    assert any(line.startswith("Made (last) by merge step") for line in map(shown_text, texts(forest.markdown)))


def test_a_removed_token_says_when_and_why(forest, picky):
    gone = next(r for r in picky_removals(picky) if not r.restored)
    find_text(forest, token_display(gone.token))
    warning = shown_text(forest.warning[0].value)
    assert f"was removed by the check after merge step {gone.merge_step:,} with an IoS of {gone.ios:.3f}" in warning
    assert warning.endswith("It is not in the vocabulary.") and not forest.metric
    back = next(r for r in picky_removals(picky) if r.restored)
    find_text(forest, token_display(back.token))
    assert any(
        f"after merge step {back.merge_step:,}" in shown_text(info.value) and "made it again" in info.value
        for info in forest.info
    )
    find_text(forest, "zzqx")
    assert any("is not a token of" in shown_text(info.value) for info in forest.info)


def test_a_deep_link_opens_a_picky_token(app, workspace_dir, picky):
    LibraryFolder(str(workspace_dir)).save(picky, "pk")
    token = max(merge_steps(picky), key=len)
    token_id = picky.encode_single_token(token)
    app.query_params = {"tokenizer": KEY, "token": str(token_id)}
    app.switch_page(FOREST)
    run(app)
    assert {metric.label: metric.value for metric in app.metric}["id"] == str(token_id)


def test_compare_leaves_it_out_of_the_curve_and_no_page_raises(app, workspace_dir, picky):
    LibraryFolder(str(workspace_dir)).save(picky, "pk")
    app.switch_page("pages/compare.py").run()
    app.multiselect(key="cmp.tokenizers").set_value([KEY, "gpt2"])
    run(app)
    assert any(caption.startswith("Not drawn here: pk (Picky BPE") for caption in map(shown_text, texts(app.caption)))
    for page in ("tokenize_text", "vocab_diff", "languages", "library", "home", "lab"):
        app.switch_page(f"pages/{page}.py")
        run(app)
    app.switch_page("pages/vocab_diff.py").run()
    app.selectbox(key="vdiff.a").set_value(KEY)
    run(app)
    app.switch_page("pages/languages.py").run()
    app.selectbox(key="langs.tokenizer").set_value(KEY)
    run(app)
    app.switch_page("pages/tokenize_text.py").run()
    app.multiselect(key="tokenize.tokenizers").set_value([KEY])
    run(app)
