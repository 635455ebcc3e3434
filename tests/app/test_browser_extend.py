"""The Extend page in a real browser (Debian's Chromium driven by Playwright, helpers from
test_browser.py; every wait is for a state of the page, with limits made for a busy machine): GPT-2
extended for Hindi shows its figures, a sentence before and after, the curve and the new tokens, and a
new token's merge tree opens in the Merge forest of the same session; a long extension of uploaded files
is cancelled (Extend back, no Cancel, the message, its worker gone). Skips without Chromium or
Playwright, as test_browser.py does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "app"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from long_corpus import long_documents  # noqa: E402
from test_browser import PATIENCE_MS, _browser_page, _no_exception, _settle, _shot  # noqa: E402
from test_browser_job_states import serving_with_job_folders, until, workers  # noqa: E402
from test_browser_workbench import _readable_everywhere  # noqa: E402

#: A page that extends, measures and draws on a busy machine may take minutes.
LONG = 600_000
pytestmark = pytest.mark.timeout(3_600)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving_with_job_folders(tmp_path_factory.mktemp("workspace")) as served:
        yield served


def open_extend(page, server) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server['url']}/extend")
    expect(page.get_by_role("heading", name="Extend a tokenizer", exact=True)).to_be_visible(timeout=LONG)
    _settle(page, LONG)


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option).first.click()
    _settle(page, LONG)


def set_number(page, label: str, value: int) -> None:
    field = page.get_by_label(label, exact=True)
    field.fill(str(value))
    field.press("Enter")
    _settle(page, LONG)


def test_gpt2_extended_for_hindi_then_a_merge_tree(server):
    from playwright.sync_api import expect

    with _browser_page(server, "extend_failure", timeout_ms=LONG) as page:
        page.set_viewport_size({"width": 1400, "height": 1400})
        open_extend(page, server)
        choose(page, "Model whose tokenizer grows", "GPT-2 · 50,257")
        set_number(page, "Tokens to add", 300)
        page.get_by_role("button", name="Extend", exact=True).click()
        expect(page.get_by_role("heading", name="Result: GPT-2 + Hindi")).to_be_visible()
        _settle(page, LONG)
        expect(page.get_by_text("Premium over English", exact=True)).to_be_visible()  # the metric's label
        expect(page.get_by_text("Text in other scripts encodes exactly as before")).to_be_visible()
        # plotly draws its chart a while after the page's run: wait for the drawing, then for what is below it
        expect(page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')).to_have_count(1)
        expect(page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg').first).to_be_visible()
        link = page.get_by_role("link", name="Open its merge tree in the Merge forest")
        expect(link).to_be_visible()
        expect(page.get_by_text("before", exact=True).first).to_be_visible()  # the sentence before and after
        expect(page.get_by_text("after", exact=True).first).to_be_visible()
        assert page.locator(".bpe-tokens").count() >= 2
        expect(page.get_by_role("button", name="Extend", exact=True)).to_be_enabled()
        expect(page.get_by_role("button", name="Cancel training")).to_have_count(0)
        _no_exception(page, "Extend, done")
        _shot(page, "extend_result")
        _readable_everywhere(page, "Extend's result")  # at 1280 and 1920: no label cut, chart text readable
        link.click()
        expect(page.get_by_role("heading", name="Merge forest", exact=True)).to_be_visible()
        _settle(page, LONG)
        assert page.get_by_text("this session does not have").count() == 0
        _no_exception(page, "Merge forest of the extended tokenizer")


def test_a_long_extension_is_cancelled(server, tmp_path):
    from playwright.sync_api import expect

    corpus = tmp_path / "words.txt"
    corpus.write_text(long_documents()[0], encoding="utf-8")
    with _browser_page(server, "extend_failure_cancel", timeout_ms=LONG) as page:
        open_extend(page, server)
        choose(page, "Language", "English")
        page.get_by_text("My files", exact=True).click()
        _settle(page, LONG)
        page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(corpus))
        _settle(page, LONG)
        set_number(page, "Tokens to add", 100_000)
        page.get_by_role("button", name="Extend", exact=True).click()
        cancel = page.get_by_role("button", name="Cancel training")
        expect(cancel).to_be_visible()
        assert until(lambda: workers(server), timeout=PATIENCE_MS / 1000), "no worker started"
        cancel.click()
        expect(page.get_by_text("Training cancelled: nothing was kept.")).to_be_visible()
        expect(page.get_by_role("button", name="Extend", exact=True)).to_be_enabled()
        expect(cancel).to_have_count(0)
        assert until(lambda: not workers(server), timeout=PATIENCE_MS / 1000), "the worker still runs"
        _no_exception(page, "Extend, cancelled")
