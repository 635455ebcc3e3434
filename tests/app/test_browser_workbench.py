"""The workbench as a newcomer meets it, in a real browser (Debian's Chromium driven by Playwright,
helpers from test_browser.py): Tokenize follows typing with no Ctrl+Enter and no click elsewhere; Home
shows on its first screen what the tool answers, a path with one click a step and the cost of one
sentence in six languages; Fairer training is a page of its own that Compare links to; and on every
page, at 1280 x 900 and on a 1920 screen, no chart text is under 12 px, no label is cut short, no table
scrolls sideways and no two chart labels are drawn over each other (``readable``). Every wait is for a
state of the page (Streamlit's own "not running", an element, a text) with limits made for a busy
machine; nothing sleeps in place of an assertion. Screenshots go to tests/artifacts/workbench_*.png.
"""

from __future__ import annotations

import re
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "app"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT))

import readable  # noqa: E402
from test_browser import _browser_page, _no_exception, _serving, _shot  # noqa: E402

#: Milliseconds a wait may take: a page that loads a 200k vocabulary or trains on a busy machine.
LONG = 600_000
#: Each test walks several pages at two widths: minutes on a busy machine (the suite's default is 300 s).
pytestmark = pytest.mark.timeout(3_600)
SIZES = ((1280, 900), (1920, 1080))
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with _serving(tmp_path_factory.mktemp("workspace")) as served:
        yield served


def _idle(page) -> None:
    """Wait until Streamlit says no script runs (its own state on the app root) and its status is gone."""
    page.locator(IDLE).wait_for(state="attached", timeout=LONG)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=LONG)


def _open(page, title: str, heading: str) -> None:
    from playwright.sync_api import expect

    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=LONG)
    _idle(page)


def _readable_everywhere(page, where: str) -> None:
    """No readability problem at 1280 x 900 nor at 1920 x 1080 (the charts redrawn at each width)."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => window.innerWidth === {width}", timeout=LONG)
        page.wait_for_function(  # plotly redraws a chart at its new width: wait until every one has
            "() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]"
            ".filter(c => c.offsetParent && c.getBoundingClientRect().width).every(c => "
            "Math.abs(c.getBoundingClientRect().width - (c._fullLayout ? c._fullLayout.width : 0)) < 2)",
            timeout=LONG,
        )
        found = readable.problems(page)
        assert found == {}, f"{where} at {width} px: {found}"
    page.set_viewport_size({"width": 1280, "height": 900})
    _no_exception(page, where)


# --------------------------------------------------------------------------------------------------
# Tokenize follows typing


def test_tokenize_follows_typing_without_ctrl_enter(server):
    from playwright.sync_api import expect

    sys.path.insert(0, str(ROOT))
    import bpe_core

    with _browser_page(server, "workbench_failure_typing", timeout_ms=LONG) as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(f"{server['url']}/tokenize_text?text=Hello&tok=gpt2")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        page.wait_for_function("document.querySelectorAll('.bpe-tokens[data-k]').length >= 1", timeout=LONG)
        _idle(page)
        box = page.get_by_role("textbox", name="Text")
        box.click()
        page.keyboard.press("End")
        page.keyboard.type(" zebrafish swim", delay=40)  # typing only: no Ctrl+Enter, no click elsewhere
        page.wait_for_function(
            "() => document.querySelector('.bpe-tokens[data-k=\"gpt2\"]').innerText.includes('swim')", timeout=LONG
        )
        _idle(page)
        count = len(bpe_core.load("gpt2").encode("Hello zebrafish swim"))
        expect(page.get_by_text(f"GPT-2 · {count} tokens", exact=True)).to_be_visible()  # the counts followed
        assert page.evaluate("() => document.activeElement && document.activeElement.tagName") == "TEXTAREA"
        assert "text=Hello+zebrafish+swim" in page.url  # the text stays in the URL, as before
        # and again, in the middle of the text: the view follows every pause
        page.keyboard.press("Home")
        page.keyboard.type("Oh ", delay=40)
        page.wait_for_function(
            "() => document.querySelector('.bpe-tokens[data-k=\"gpt2\"]').innerText.startsWith('Oh')", timeout=LONG
        )
        _idle(page)
        assert "text=Oh+Hello+zebrafish+swim" in page.url
        _no_exception(page, "Tokenize, typed into")
        _shot(page, "workbench_typing")


# --------------------------------------------------------------------------------------------------
# Home guides


def test_home_guides_in_one_screen_with_one_click_a_step(server):
    from playwright.sync_api import expect

    with _browser_page(server, "workbench_failure_home", timeout_ms=LONG) as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(server["url"])
        expect(page.get_by_role("heading", name="BPE workbench", exact=True)).to_be_visible()
        _idle(page)
        expect(page.get_by_text("What it answers:")).to_be_in_viewport()
        glance = page.get_by_role("heading", name="One sentence, six languages")
        expect(glance).to_be_in_viewport()  # the first screen already shows what a language pays
        assert page.locator(".bpe-glance .bpe-tokens").count() == 6
        expect(page.locator(".bpe-glance").get_by_text("Burmese")).to_be_visible()
        _shot(page, "workbench_home")
        for link, heading in (
            ("1 · Train a tokenizer", "Train a tokenizer"),
            ("2 · Tokenize a text", "Tokenize"),
            ("3 · Compare the costs", "Compare tokenizers across languages and code"),
        ):
            page.locator('[data-testid="stMain"]').get_by_role("link", name=link).click()  # one click
            expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
            _idle(page)
            _no_exception(page, heading)
            _open(page, "Home", "BPE workbench")
        _readable_everywhere(page, "Home")


# --------------------------------------------------------------------------------------------------
# Fairer training has its page; every page reads


def test_pages_read_at_1280_and_1920(server):
    """Tokenize, the Merge forest (a wide tree), Step through, Library, Compare (every built-in sample),
    Languages and Vocabulary diff, as they open."""
    from playwright.sync_api import expect

    text = "Tokenizers cut text. टोकनाइज़र पाठ को बाँटते हैं। 分词器把文本切成小块。 أدوات الترميز 👍🏽"
    with _browser_page(server, "workbench_failure_pages", timeout_ms=LONG) as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        query = urllib.parse.urlencode({"text": text, "tok": ["gpt2", "cl100k", "o200k"]}, doseq=True)
        page.goto(f"{server['url']}/tokenize_text?{query}")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        page.wait_for_function("document.querySelectorAll('.bpe-tokens[data-k]').length >= 3", timeout=LONG)
        _idle(page)
        _readable_everywhere(page, "Tokenize")

        _open(page, "Merge forest", "Merge forest")
        query_box = page.get_by_role("textbox", name="Token text, typed plainly or with marks")
        query_box.fill(" दुनिया")  # o200k's seven-level tree, wider than the column
        query_box.press("Enter")
        page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for(timeout=LONG)
        _idle(page)
        _readable_everywhere(page, "Merge forest")

        _open(page, "Step through", "Step through training")
        page.get_by_role("button", name="Next").click()
        _idle(page)
        _readable_everywhere(page, "Step through")

        _open(page, "Compare", "Compare tokenizers across languages and code")
        page.get_by_role("button", name="Everything").click()
        _idle(page)
        expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
        _readable_everywhere(page, "Compare, every sample")
        page.get_by_role("link", name="Fairer training").last.click()  # Compare's section links to the page
        expect(page.get_by_role("heading", name="Train a fairer tokenizer", exact=True)).to_be_visible()
        _idle(page)

        for title, heading in (
            ("Library", "Tokenizer library"),
            ("Languages side by side", "Languages side by side"),
            ("Vocabulary diff", "Vocabulary diff"),
        ):
            _open(page, title, heading)
            _readable_everywhere(page, title)


def test_trained_pages_read_at_1280_and_1920(server):
    """Train's result, the Lab's comparison and Fairer training's result (from the sidebar), each after
    training."""
    from playwright.sync_api import expect

    with _browser_page(server, "workbench_failure_trained", timeout_ms=LONG) as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(server["url"])
        _idle(page)
        _open(page, "Train", "Train a tokenizer")
        paste = page.get_by_role("textbox", name="Or paste text (one document)")
        paste.fill("The quick brown fox jumps over the lazy dog. Tokenizers learn merges. " * 100)
        paste.press("Control+Enter")
        _idle(page)
        page.get_by_role("button", name="Train", exact=True).click()
        expect(page.get_by_text(re.compile(r"^4 · Result: "))).to_be_visible(timeout=LONG)
        _idle(page)
        _readable_everywhere(page, "Train, trained")

        _open(page, "Lab", "Lab: BPE variants")
        page.get_by_role("button", name="Train 4 variants", exact=True).click()
        expect(page.get_by_text(re.compile(r"^Trained 4 variants in ")).first).to_be_visible(timeout=LONG)
        _idle(page)
        _readable_everywhere(page, "Lab, trained")

        _open(page, "Fairer training", "Train a fairer tokenizer")
        vocab = page.get_by_role("spinbutton", name="Vocabulary size")
        vocab.fill("1000")
        vocab.press("Enter")
        _idle(page)
        page.get_by_role("button", name="Train both").click()
        expect(page.get_by_text("Worst premium, standard BPE").first).to_be_visible(timeout=LONG)
        _idle(page)
        _readable_everywhere(page, "Fairer training, trained")
        page.get_by_text("Beside the other tokenizers measured (a log scale then)", exact=True).click()
        _idle(page)
        _readable_everywhere(page, "Fairer training, beside the others")
        _shot(page, "workbench_fairer")


SYNTHETIC = """<div data-testid="stMain">
  <div style="width:80px"><div style="width:80px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis">
    <p style="margin:0">A label much longer than its column</p></div></div>
  <div data-testid="stPlotlyChart"><div class="js-plotly-plot"><svg width="400" height="100">
    <g class="xtick"><text x="10" y="50" style="font-size:12px">Greek</text></g>
    <g class="xtick"><text x="14" y="52" style="font-size:12px">Burmese</text></g>
    <g class="ytick"><text x="200" y="80" style="font-size:7px">tiny</text></g>
  </svg></div></div>
  <div data-testid="stDataFrame"><div class="dvn-scroller" style="width:100px;overflow:auto">
    <div style="width:400px;height:10px"></div></div></div>
</div>"""


def test_the_readability_checks_find_what_they_look_for():
    """Each check of ``readable`` reports a page made to fail it: a cut label, two chart labels drawn over
    each other, 7 px chart text, a table wider than its frame."""
    browser = {"chromium": __import__("test_browser")._needs_a_browser()}
    with _browser_page(browser, "workbench_failure_checks", timeout_ms=LONG) as page:
        page.set_content(SYNTHETIC)
        found = readable.problems(page)
        assert found["text cut short"] == ["A label much longer than its column"]
        assert found["labels over each other"] == ["Greek / Burmese"]
        assert found["chart text under 12 px"] == ["tiny: 7.0 px"]
        assert len(found["table cut"]) == 1 and found["table cut"][0].endswith("400 > 100")
