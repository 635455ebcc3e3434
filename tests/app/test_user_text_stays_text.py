"""User text never becomes markup in the workbench: a tokenizer, a file and tokens whose text is
Markdown and HTML that links, fetches an image and styles text are shown as written on every page.

The tokenizer library is shared by every user of a server, so one user's import must not make other
users' browsers contact a URL. Three checks: an AST audit of the pages (every Markdown sink gets user
text through ``render.markdown_text``; see ``tests/support/markup_audit.py``), AppTest runs of every
page with hostile names and token texts (no element handed to Markdown holds live link, image or
HTML syntax, and plotly figures hold the text escaped), and the Deploy button hidden by the config.
The real browser check (no <a>/<img> to the URL, no request to it) is in test_browser.py.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from apptest_support import APP, drawn_html, run  # noqa: E402
from markup_audit import audit_pages, live_markup, shown_text, unescaped_sinks  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import bpe_core  # noqa: E402
from bpe_core.workspace.library_folder import LibraryFolder  # noqa: E402
from pages._ui.render import markdown_text, plot_text  # noqa: E402

HOSTILE = "[x](https://e.x/) ![i](https://e.x/i.png) **b** <b>z</b>"
#: The same for a file in the library folder (a file name cannot hold "/").
HOSTILE_FILE = "[x](e.x) ![i](e.x) **b** <b>z"
CORPUS = ((HOSTILE + "\n") * 30).encode()
TRAIN = "pages/train.py"
TOKENIZE = "pages/tokenize_text.py"
FOREST = "pages/merge_forest.py"
STEPS = "pages/step_through.py"
LIBRARY = "pages/library.py"
HOME = "pages/home.py"
COMPARE = "pages/compare.py"
VOCAB_DIFF = "pages/vocab_diff.py"
LAB = "pages/lab.py"
#: Element types whose value is a Markdown body.
MARKDOWN_BODIES = {
    "markdown",
    "caption",
    "title",
    "header",
    "subheader",
    "error",
    "warning",
    "info",
    "success",
    "toast",
}


# ------------------------------------------------------------------------------------------------
# what an AppTest run shows


def markdown_sources(at: AppTest) -> list[tuple[str, str]]:
    """(element type, Markdown source) of everything on the page that Streamlit renders as Markdown:
    bodies of text elements and alerts, metric labels and values, widget, expander and tab labels,
    tooltips, radio options and progress text."""
    found = []
    for node in [*at.main, *at.sidebar]:
        kind = getattr(node, "type", "")
        proto = getattr(node, "proto", None)
        if kind in MARKDOWN_BODIES:
            found.append((kind, str(node.value)))
        if kind == "metric":
            found.append(("metric value", proto.body))
        for field in ("label", "help", "text"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value:
                found.append((f"{kind} {field}", value))
        for block_field in ("expandable", "tab"):
            if proto is not None and hasattr(proto, "HasField") and _has(proto, block_field):
                found.append((block_field, getattr(proto, block_field).label))
        if kind == "radio":
            found.extend(("radio option", option) for option in proto.options)
    return found


def _has(proto, field: str) -> bool:
    try:
        return proto.HasField(field)
    except ValueError:  # not a field of this message
        return False


def figure_strings(at: AppTest) -> list[str]:
    """Every string in every plotly figure on the page."""
    strings: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for chart in at.get("plotly_chart"):
        walk(json.loads(chart.proto.spec))
    return strings


def html_bodies(at: AppTest) -> str:
    return "\n".join(drawn_html(at))


def assert_no_live_markup(at: AppTest) -> list[str]:
    """No Markdown source or figure on the page holds live markup; returns what the page shows
    (Markdown sources with their escapes resolved) for further checks."""
    sources = markdown_sources(at)
    live = [(kind, source, problems) for kind, source in sources if (problems := live_markup(source))]
    assert not live, live
    for text in figure_strings(at):
        assert "<b>z" not in text and "<a " not in text.lower() and "<img" not in text.lower(), text
    assert HOSTILE not in html_bodies(at)  # st.html gets escaped text only
    return [shown_text(source) for _, source in sources]


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    return run(at)


def shows(lines: list[str], *words: str) -> bool:
    return any(all(word in line for word in words) for line in lines)


# ------------------------------------------------------------------------------------------------
# the audit and the helpers


def test_every_markdown_sink_in_the_pages_gets_escaped_text():
    assert audit_pages(ROOT) == []


def test_the_audit_reads_every_module_of_the_pages(tmp_path):
    for relative in ("pages/page.py", "pages/_page/part.py", "pages/_ui/shared.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("st.error(f'Could not load {name}')\n", encoding="utf-8")
    assert len(audit_pages(tmp_path)) == 3


def test_the_audit_finds_unescaped_text():
    bad = (
        "st.error(f'Could not load {name}: {exc}')\n"
        "st.header(tokenizer.name)\n"
        "st.caption(f'{query!r} is not a token')\n"
        "col.checkbox(f'Delete {selected}?')\n"
        "state.flash('success', f'Saved {name}')\n"
        "st.button('Go', help=note)\n"
        "st.metric('tokens', count)\n"
    )
    assert len(unescaped_sinks(bad)) == 7
    good = (
        "st.error(f'Could not load {md(name)}: {md(exc)}')\n"
        "st.header(md(tokenizer.name))\n"
        "st.caption(f'{len(ids):,} ids, {ratio:.2f} per token; ' + SPECIAL_NOTE)\n"
        "col.metric('tokens', count)  # plain: an int\n"
        "st.dataframe(frame, help=None)\n"
    )
    assert unescaped_sinks(good) == []


def test_markdown_text_neutralises_links_images_html_and_autolinks():
    for text in [HOSTILE, HOSTILE_FILE, "see www.e.x or me@e.x", "<https://e.x>", "a :material/home: icon"]:
        assert live_markup(text), text  # the detector sees the raw text as live
        escaped = markdown_text(text)
        assert live_markup(escaped) == [], (text, escaped)
        assert shown_text(escaped) == text  # and it reads as written
    # Streamlit's directives (colours, icons, math) start with ":", "[" or "$": all escaped
    directives = ":red[alarm] :material/home: $x^2$ `code` # heading | cell"
    escaped = markdown_text(directives)
    assert re.search(r"(?<!\\)[:\[\]$`#|]", escaped) is None, escaped
    assert shown_text(escaped) == directives
    assert markdown_text("vocab_size") == "vocab_size"
    assert plot_text(HOSTILE) == "[x](https://e.x/) ![i](https://e.x/i.png) **b** &lt;b&gt;z&lt;/b&gt;"


def test_the_deploy_button_is_hidden():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["toolbarMode"] == "minimal"


# ------------------------------------------------------------------------------------------------
# every page with a hostile tokenizer, file names and token texts


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The app after training a tokenizer named HOSTILE on a file named HOSTILE that holds HOSTILE
    (no pre-tokenization, so tokens hold the whole text), with a corrupt library file named
    HOSTILE_FILE next to it."""
    folder = tmp_path_factory.mktemp("hostile") / "workbench"
    (folder / "tokenizers").mkdir(parents=True)
    (folder / "tokenizers" / f"{HOSTILE_FILE}.json").write_text("{broken", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BPE_WORKBENCH_DIR", str(folder))
        at = AppTest.from_file(APP, default_timeout=180)
        run(at)
        go(at, TRAIN)
        at.file_uploader(key="train.uploads").set_value(
            [(f"{HOSTILE}.txt", CORPUS, "text/plain"), (f"{HOSTILE} bad.txt", b"ok\xff\xfe", "text/plain")]
        )
        at.selectbox(key="train.pattern").set_value("none")
        at.text_input(key="train.name").set_value(HOSTILE)
        at.number_input(key="train.vocab_size").set_value(256 + 60)
        run(at)
        at.button(key="train.go").click()
        run(at)
        yield at, folder


def test_train_shows_the_names_as_text(hostile):
    at, _ = hostile
    shown = assert_no_live_markup(at)
    assert f"4 · Result: {HOSTILE}" in shown
    assert shows(shown, "Skipped", f"{HOSTILE} bad.txt", "UTF-8")


def test_train_regex_error_reads_as_written(hostile):
    at, _ = hostile
    at.selectbox(key="train.pattern").set_value("custom")
    run(at)
    at.text_input(key="train.custom_regex").set_value("a*")
    run(at)
    errors = [e.value for e in at.error]
    assert any("Use '+' instead of '*'" in shown_text(e) and "'\\*'" in e for e in errors), errors
    assert_no_live_markup(at)
    at.selectbox(key="train.pattern").set_value("none")
    run(at)


def test_tokenize_shows_names_and_file_names_as_text(hostile):
    at, _ = hostile
    go(at, TOKENIZE)
    at.text_area(key="tokenize.text").set_value(HOSTILE)
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, f"✱ {HOSTILE} (unsaved)", "tokens")  # the column title
    assert "&lt;b&gt;z&lt;/b&gt;" in html_bodies(at)
    at.file_uploader(key="tokenize.upload").set_value((f"{HOSTILE}.txt", HOSTILE.encode(), "text/plain"))
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Using", f"{HOSTILE}.txt")
    at.file_uploader(key="tokenize.upload").set_value([])
    run(at)


def test_merge_forest_shows_token_texts_as_text(hostile):
    at, _ = hostile
    go(at, FOREST)
    assert at.selectbox(key="forest.tokenizer").value == f"new:{HOSTILE}"
    shown = assert_no_live_markup(at)
    assert any(line.startswith("‘") and "](https://e.x/i.png)␣**b**␣<b>z</b>" in line for line in shown)
    assert shows(shown, "Made by merge", "**b**")
    assert shows(shown, "own training text", f"{HOSTILE}.txt")
    outline = [body for body in drawn_html(at) if "bpe-outline" in body]
    assert outline and all("<b>z" not in body for body in outline)
    assert any("&lt;b&gt;z" in body for body in outline), "the trees' lines hold the token text, escaped"
    at.text_input(key=f"forest.query:new:{HOSTILE}").set_value(HOSTILE + " [more](https://e.x/)")
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "is not a single token of", HOSTILE)


def test_step_through_shows_symbols_as_text(hostile):
    at, _ = hostile
    go(at, STEPS)
    at.selectbox(key="steps.example").set_value("custom")
    run(at)
    at.text_area(key="steps.text").set_value(HOSTILE)
    run(at)
    for _ in range(3):
        at.button(key="steps.next").click()
        run(at)
        assert_no_live_markup(at)
    at.button(key="steps.end").click()
    run(at)
    assert_no_live_markup(at)


def test_compare_shows_names_and_file_labels_as_text(hostile):
    at, _ = hostile
    go(at, COMPARE)
    assert f"new:{HOSTILE}" in at.multiselect(key="cmp.tokenizers").value
    assert_no_live_markup(at)
    assert any("&lt;b&gt;z&lt;/b&gt;" in s for s in figure_strings(at)), "legend names escaped"
    at.radio(key="cmp.source").set_value("My files")
    run(at)
    passage = ("A town library. " * 20).encode()
    at.file_uploader(key="cmp.uploads").set_value(
        [(f"{HOSTILE}.txt", passage, "text/plain"), (f"{HOSTILE} bad.txt", b"\xff", "text/plain")]
    )
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Skipped", f"{HOSTILE} bad.txt")
    assert any(s == plot_text(f"{HOSTILE}.txt") for s in figure_strings(at)), "file labels escaped on the axis"
    at.radio(key="cmp.source").set_value("Built-in samples")
    run(at)


def test_vocab_diff_shows_names_and_tokens_as_text(hostile):
    at, _ = hostile
    go(at, VOCAB_DIFF)
    assert at.selectbox(key="vdiff.a").value == f"new:{HOSTILE}"  # the tokenizer trained last, against GPT-2
    shown = assert_no_live_markup(at)
    assert shows(shown, "A is", f"✱ {HOSTILE} (unsaved)")
    assert any(plot_text(HOSTILE) in s for s in figure_strings(at)), "the chart's title names A, escaped"
    tokens = [t for frame in at.dataframe if "token" in frame.value.columns for t in frame.value["token"]]
    assert any("](https://e.x/i.png)␣**b**␣<b>z</b>" in t for t in tokens)  # table cells are text, not markup
    at.text_input(key="vdiff.query").set_value("<b>z")
    run(at)
    assert_no_live_markup(at)
    at.button(key="vdiff.swap").click()
    run(at)
    assert_no_live_markup(at)


def test_library_and_home_show_names_as_text(hostile):
    at, folder = hostile
    go(at, HOME)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Yours:", HOSTILE_FILE)  # by name: Home loads no tokenizer
    go(at, LIBRARY)
    junk = (f"{HOSTILE}.json", b"{not json", "application/json")
    tokenizer = bpe_core.train(CORPUS.decode(), 270, pattern=None, name=HOSTILE)
    good = (f"{HOSTILE} ok.json", tokenizer.to_json().encode(), "application/json")
    at.file_uploader(key="library.upload").set_value([junk, good])
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Could not load", f"{HOSTILE}.json")
    assert shows(shown, "Loaded", f"{HOSTILE} ok.json", "into the library as")
    assert shows(shown, "cannot be used", HOSTILE_FILE)
    assert len(LibraryFolder(folder).names()) == 2  # the imported tokenizer (named safely) and the broken file
    go(at, TRAIN)
    at.button(key="train.save").click()
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Saved") or shows(shown, "Could not save")
    go(at, LIBRARY)
    assert_no_live_markup(at)  # the delete checkbox's label names the selected tokenizer


def test_the_lab_shows_file_names_tokens_and_names_as_text(workspace_dir):
    at = go(run(AppTest.from_file(APP, default_timeout=180)), LAB)
    at.radio(key="lab.corpus").set_value("files")
    at.checkbox(key="lab.parity").uncheck()
    at.text_input(key="lab.transitions").set_value("0.9")
    at.number_input(key="lab.vocab_size").set_value(300)
    run(at)
    lines = "".join(f"{HOSTILE} {number}\n" for number in range(40)).encode()  # identical lines are held out together
    at.file_uploader(key="lab.uploads").set_value((f"{HOSTILE}.txt", lines, "text/plain"))
    run(at)
    at.button(key="lab.go").click()
    run(at)
    assert not at.error, [e.value for e in at.error]
    shown = assert_no_live_markup(at)
    assert shows(shown, "Trained on", f"{HOSTILE}.txt")
    held = [t for frame in at.dataframe if "kind" in frame.value.columns for t in frame.value["text"]]
    assert f"{HOSTILE}.txt (held out)" in held  # table cells are text, not markup
    at.selectbox(key="lab.example").set_value(f"{HOSTILE}.txt")
    at.text_input(key="lab.keep.name").set_value(HOSTILE)
    run(at)
    assert "&lt;b&gt;z&lt;/b&gt;" in html_bodies(at)  # the strips show the text, escaped
    at.button(key="lab.keep.save").click()
    run(at)
    shown = assert_no_live_markup(at)
    assert shows(shown, "Saved") or shows(shown, "Could not save")
