"""The Vocabulary diff page (AppTest): its defaults, numbers equal to bpe_core.analysis.vocab_diff's, swapping
A and B, the search and order of the token tables, a tokenizer trained in the session, an external
tokenizer (token sets only, with the reason), the same tokenizer twice, and the CSV."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, run, texts  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.analysis import vocab_diff  # noqa: E402
from bpe_core.pretrained import catalogue  # noqa: E402

PAGE = "pages/vocab_diff.py"
CORPUS = ("the cat sat on the mat. the dog sat on the log. cats and dogs sat together.\n" * 30).encode()
B_DEFAULT = "cl100k" if catalogue.is_installed("cl100k") else "default"


def go(at: AppTest) -> AppTest:
    at.switch_page(PAGE)
    return run(at)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def frames(at: AppTest) -> dict[tuple[str, ...], object]:
    """The page's tables by their columns."""
    return {tuple(frame.value.columns): frame.value for frame in at.dataframe}


def test_opens_on_gpt2_against_cl100k_with_the_library_numbers(app):
    go(app)
    assert (app.selectbox(key="vdiff.a").value, app.selectbox(key="vdiff.b").value) == ("gpt2", B_DEFAULT)
    shown = metrics(app)
    if B_DEFAULT == "cl100k":
        expected = vocab_diff.diff(bpe_core.load("gpt2"), bpe_core.load("cl100k"))
        counts = expected.sets.counts
        assert shown["in both"] == f"{counts['shared']:,}" and shown["only in A"] == f"{counts['only_a']:,}"
        assert shown["only in B"] == f"{counts['only_b']:,}"
        assert shown["same first merges"] == f"{expected.merges.common_prefix:,}"
        assert shown["Spearman's rho"] == f"{expected.ranks.spearman:.3f}"
        assert shown["Kendall's tau"] == f"{expected.ranks.kendall:.3f}" != shown["Spearman's rho"]
    helps = {m.label: m.proto.help for m in app.metric}
    assert "pairs" in helps["Kendall's tau"] and "how far apart" in helps["Spearman's rho"]  # which is which
    assert [c.proto.spec for c in app.get("plotly_chart")], "the overlap and merge charts"
    curve = frames(app)[("k", "in both", "share", "Jaccard")]
    assert curve["k"].iloc[0] == 256 and curve["share"].iloc[0] == "100.0%"  # both start with the bytes
    only_a = frames(app)[("token", "rank", "id", "bytes")]
    assert len(only_a) <= 1_000 and list(only_a["rank"]) == sorted(only_a["rank"])  # earliest rank first
    assert any("merges" in line for line in texts(app.markdown))
    assert app.get("download_button")


def test_swap_exchanges_a_and_b(app):
    go(app)
    before = metrics(app)
    app.button(key="vdiff.swap").click()
    run(app)
    assert (app.selectbox(key="vdiff.a").value, app.selectbox(key="vdiff.b").value) == (B_DEFAULT, "gpt2")
    after = metrics(app)
    assert (after["only in A"], after["only in B"]) == (before["only in B"], before["only in A"])
    assert after["in both"] == before["in both"]


def test_search_and_order_of_the_token_tables(app):
    go(app)
    app.text_input(key="vdiff.query").set_value("␣the")
    run(app)
    shared = frames(app)[("token", "rank in A", "rank in B", "B - A", "id in A", "id in B")]
    assert len(shared) > 0 and all("␣the" in token.lower() for token in shared["token"])
    assert "␣the" in list(shared["token"])
    app.selectbox(key="vdiff.order").set_value("length")
    run(app)
    only_b = [frame for columns, frame in frames(app).items() if columns == ("token", "rank", "id", "bytes")]
    for frame in only_b:
        assert list(frame["bytes"]) == sorted(frame["bytes"], reverse=True)
    app.selectbox(key="vdiff.order").set_value("gap")
    run(app)
    shared = frames(app)[("token", "rank in A", "rank in B", "B - A", "id in A", "id in B")]
    gaps = [abs(g) for g in shared["B - A"]]
    assert gaps == sorted(gaps, reverse=True)
    app.text_input(key="vdiff.query").set_value("no such token at all ✗")
    run(app)
    assert all(len(frame) == 0 for columns, frame in frames(app).items() if "token" in columns)


def test_a_tokenizer_trained_in_the_session_is_set_against_gpt2(app):
    app.switch_page("pages/train.py")
    run(app)
    app.file_uploader(key="train.uploads").set_value(("corpus.txt", CORPUS, "text/plain"))
    run(app)
    app.number_input(key="train.vocab_size").set_value(300)
    app.text_input(key="train.name").set_value("my-bpe")
    app.button(key="train.go").click()
    run(app)
    go(app)
    assert (app.selectbox(key="vdiff.a").value, app.selectbox(key="vdiff.b").value) == ("new:my-bpe", "gpt2")
    shown = metrics(app)
    assert shown["only in A"] != "0" and not app.error
    assert any("my-bpe" in caption for caption in texts(app.caption))


def test_the_same_tokenizer_twice_agrees_everywhere(app):
    go(app)
    app.selectbox(key="vdiff.b").set_value("gpt2")
    run(app)
    assert any("same tokenizer" in info for info in texts(app.info))
    shown = metrics(app)
    assert shown["only in A"] == shown["only in B"] == "0"
    assert shown["same first merges"] == "50,000" and shown["Spearman's rho"] == "1.000"


def _wordpiece_json() -> str:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models

    vocab = {"[UNK]": 0, "[CLS]": 1, "hello": 2, "world": 3, "##s": 4, "a": 5}
    tok = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.add_special_tokens(["[CLS]"])
    return tok.to_str()


def test_an_external_tokenizer_gets_the_token_sets_and_the_reason(workspace_dir):
    folder = Path(workspace_dir) / "external"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bert.json").write_text(_wordpiece_json(), encoding="utf-8")
    at = run(AppTest.from_file(APP, default_timeout=180))
    go(at)
    at.selectbox(key="vdiff.a").set_value("ext:bert")
    run(at)
    assert not at.error
    assert any("no merge list" in info.replace("\\", "") for info in texts(at.info))
    assert not at.get("plotly_chart")  # no rank order: no curves
    shown = metrics(at)
    assert shown["only in A"] == "2" and shown["in both"] == "3"  # hello, world and a are GPT-2 tokens too
    assert "Spearman's rho" not in shown


def test_the_csv_holds_every_token():
    from pages.vocab_diff import csv_bytes, csv_of

    one = bpe_core.train("ab ab ab", 259, min_frequency=1, pattern=None, special_tokens=["<s>"])
    two = bpe_core.train("xab xab ab", 258, min_frequency=1, pattern=None)
    d = vocab_diff.diff(one, two)
    rows = list(csv.reader(io.StringIO(csv_bytes(d).decode("utf-8"))))
    assert csv_of("test-one", "test-two", d) == csv_bytes(d)
    assert rows[0] == ["token", "bytes (hex)", "in", "rank in A", "rank in B", "id in A", "id in B"]
    body = {row[0]: row[1:] for row in rows[1:]}
    assert len(rows) - 1 == 256 + 1 + 1 + 1 + 1  # bytes, ab, ab␣ (A only), xab (B only), <s>
    assert body["ab"] == ["6162", "both", "256", "256", "257", "256"]  # A's id counts <s> (id 256)
    assert body["ab␣"][:2] == ["616220", "A only"] and body["xab"][1] == "B only"
    assert body["<s>"][1] == "special, A only"
