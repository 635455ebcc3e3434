"""The workbench's face in a real browser (Debian's Chromium driven by Playwright, helpers from
test_browser.py): Hindi, Chinese, Arabic and emoji text on Tokenize (Show bytes on: nothing runs past a
panel's edge), the Merge forest (a lookup and the overview tree), Step through at byte level, the
Vocabulary diff, Compare (a legend that never scrolls, charts that save from their modebar), Languages
side by side, and the HTML report opened with the network cut off. No page shows a ``\\x`` escape.
Screenshots go to tests/artifacts/face_*.png. Waits on page state with generous limits (a busy machine
loads a 200k vocabulary in tens of seconds), never on a short fixed timeout.
"""

from __future__ import annotations

import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "app"))
sys.path.insert(0, str(ROOT))

from test_browser import ARTIFACTS, _browser_page, _nav, _no_exception, _serving, _settle, _shot  # noqa: E402

TEXT = "नमस्ते दुनिया 你好世界 مرحبا بالعالم 👨‍👩‍👧‍👦👍🏽\nहिन्दी भारत की राजभाषा है। اللغة العربية جميلة"
LONG = 300_000  # ms: a page that loads a 200k vocabulary on a busy machine
NO_OVERFLOW = """() => {
    const problems = [];
    for (const panel of document.querySelectorAll('.bpe-tokens, .bpe-cuts')) {
        const edge = panel.getBoundingClientRect().right;
        if (panel.scrollWidth > panel.clientWidth + 1)
            problems.push('scrolls: ' + panel.scrollWidth + ' > ' + panel.clientWidth);
        for (const box of panel.querySelectorAll('.t, .g, .gc, .p')) {
            const r = box.getBoundingClientRect();
            if (r.width && r.right > edge + 1)
                problems.push(box.textContent.slice(0, 30) + ' ends at ' + r.right + ' > ' + edge);
        }
    }
    return problems;
}"""
ESCAPES = "() => document.body.innerText.includes('\\\\x')"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with _serving(tmp_path_factory.mktemp("workspace")) as served:
        yield served


def _wait_text(page, text: str, timeout: float = LONG) -> None:
    page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout)


def test_tokenize_with_every_script_and_show_bytes(server):
    tokenizers = ["gpt2", "cl100k", "default"]
    query = urllib.parse.urlencode({"text": TEXT, "tok": tokenizers, "bytes": "1"}, doseq=True)
    with _browser_page(server, "failure_face_tokenize", timeout_ms=LONG) as page:
        page.goto(f"{server['url']}/tokenize_text?{query}")
        _settle(page, timeout=LONG)
        panels = f"document.querySelectorAll('.bpe-tokens[data-k]').length >= {len(tokenizers)}"
        page.wait_for_function(panels, timeout=LONG)
        bytes_shown = "[...document.querySelectorAll('.bpe-tokens .ph')].some(e => e.offsetParent)"
        page.wait_for_function(bytes_shown, timeout=LONG)
        page.wait_for_function("document.querySelectorAll('.bpe-cuts span').length > 5", timeout=LONG)
        assert page.evaluate(NO_OVERFLOW) == []  # Show bytes on: the byte rows wrap inside their panels
        assert not page.evaluate(ESCAPES)
        drawn = page.locator(".bpe-tokens .gc").all_inner_texts()
        assert "स्ते" in drawn and any("👨\u200d👩\u200d👧\u200d👦" in d for d in drawn), drawn[:30]
        _no_exception(page, "Tokenize, every script")
        _shot(page, "face_tokenize_show_bytes")
        strip = page.locator(".bpe-cuts:not(.bpe-legend)").first
        strip.scroll_into_view_if_needed()
        strip.screenshot(path=str(ARTIFACTS / "face_tokenize_cut_strip.png"))
        panel = page.locator('.bpe-tokens[data-k="cl100k"]').first
        panel.screenshot(path=str(ARTIFACTS / "face_tokenize_cl100k_panel.png"))


def test_forest_step_through_vocab_diff_languages(server):
    from playwright.sync_api import expect

    with _browser_page(server, "failure_face_pages", timeout_ms=LONG) as page:
        page.goto(f"{server['url']}/merge_forest?tokenizer=gpt2&token=262")
        expect(page.get_by_role("heading", name="Merge forest", exact=True)).to_be_visible(timeout=LONG)
        _settle(page, timeout=LONG)
        page.get_by_text("text", exact=True).first.click()
        _settle(page, timeout=LONG)
        box = page.get_by_role("textbox", name="Token text, typed plainly or with marks")
        box.fill("नमस्ते")
        box.press("Enter")
        _wait_text(page, "is not a single token of GPT-2")
        _settle(page, timeout=LONG)
        expect(page.locator('[data-testid="stGraphVizChart"] svg').first).to_be_visible(timeout=LONG)
        assert not page.evaluate(ESCAPES)
        assert "न" in page.locator(".bpe-tokens .gc").all_inner_texts()
        _no_exception(page, "Merge forest, a Hindi lookup")
        _shot(page, "face_forest_lookup")
        page.get_by_role("tab", name="Forest overview").click()
        expect(page.locator(".bpe-outline >> visible=true").first).to_be_visible(timeout=LONG)
        assert not page.evaluate(ESCAPES)
        page.locator(".bpe-outline >> visible=true").first.screenshot(path=str(ARTIFACTS / "face_forest_overview.png"))

        _nav(page, "Step through", "Step through training")
        page.get_by_role("combobox", name="Example").click()
        page.get_by_role("option", name="Your own text").click()
        _settle(page, timeout=LONG)
        page.get_by_role("combobox", name="Mode").click()
        page.get_by_role("option", name="Byte-level, GPT-2 pre-tokenization").click()
        _settle(page, timeout=LONG)
        area = page.get_by_role("textbox", name="Input")
        area.fill("नमस्ते नमस्ते नमस्ते\n你好 你好 你好 你好\nمرحبا مرحبا 👍🏽👍🏽")
        area.press("Control+Enter")
        _settle(page, timeout=LONG)
        for _ in range(3):
            page.get_by_role("button", name="Next").click()
            _settle(page, timeout=LONG)
        _wait_text(page, "3 of 10 merges applied")
        expect(page.locator(".bpe-words").first).to_be_visible(timeout=LONG)
        assert not page.evaluate(ESCAPES)
        assert page.evaluate(NO_OVERFLOW) == []
        _no_exception(page, "Step through, Hindi and Chinese")
        _shot(page, "face_step_through")

        _nav(page, "Vocabulary diff", "Vocabulary diff")
        _wait_text(page, "Where the merge orders agree")
        _settle(page, timeout=LONG)
        assert not page.evaluate(ESCAPES)
        _no_exception(page, "Vocabulary diff")
        _shot(page, "face_vocab_diff")

        _nav(page, "Languages side by side", "Languages side by side")
        page.wait_for_function("document.querySelectorAll('.bpe-langs .lrow').length === 21", timeout=LONG)
        assert not page.evaluate(ESCAPES)
        assert page.evaluate(NO_OVERFLOW) == []
        expect(page.get_by_role("button", name="⬇ Strips as SVG (for slides)")).to_be_visible()
        _no_exception(page, "Languages side by side")
        _shot(page, "face_languages")


def _download(page, button, target, *, attempts: int = 3) -> None:
    """Click a download button until its file arrives, each try waiting a minute. A rerun of the page
    between drawing the button and the click can replace the button and the file it serves, and the
    click then fetches nothing: seen once on a quiet machine, where one wait of LONG outlasted the
    test's own time limit."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        try:
            with page.expect_download(timeout=60_000) as download:
                button.click(timeout=LONG)
            download.value.save_as(target)
            return
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise


def test_compare_legends_do_not_scroll_charts_save_and_the_report_opens_offline(server, tmp_path):
    from playwright.sync_api import expect

    with _browser_page(server, "failure_face_compare", timeout_ms=LONG) as page:
        page.goto(f"{server['url']}/compare")
        heading = page.get_by_role("heading", name="Compare tokenizers across languages and code")
        expect(heading).to_be_visible(timeout=LONG)
        _settle(page, timeout=LONG)
        chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="by vocabulary size").first
        expect(chart).to_be_visible(timeout=LONG)
        chart.scroll_into_view_if_needed()
        chart.hover()
        expect(chart.locator(".modebar-btn[data-title^='Download plot']").first).to_be_attached(timeout=LONG)
        scroll = chart.locator(".legend .scrollbar")
        assert scroll.count() == 0 or scroll.first.bounding_box() is None or scroll.first.bounding_box()["height"] == 0
        legend = chart.locator(".legend .traces .legendtext").all_text_contents()
        assert 3 <= len(legend) <= 7 and "English" in legend, legend
        table = page.locator('[data-testid="stDataFrame"]').first
        table.hover()
        expect(page.get_by_role("button", name="Download as CSV").first).to_be_attached(timeout=LONG)  # every table
        assert not page.evaluate(ESCAPES)
        _no_exception(page, "Compare")
        _shot(page, "face_compare")
        chart.screenshot(path=str(ARTIFACTS / "face_compare_curve.png"))
        button = page.get_by_role("button", name="⬇ Report as HTML (charts, tables, settings)")
        report = tmp_path / "report.html"
        _download(page, button, report)
    fetched: list[str] = []
    with _browser_page(server, "failure_face_report") as page:  # the report alone, the network cut off
        page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("file:")
                else (fetched.append(route.request.url), route.abort())
            ),
        )
        page.goto(report.as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 8", timeout=LONG)
        assert fetched == [] and page.locator("table").count() >= 1
        assert "Settings" in page.inner_text("body") and not page.evaluate(ESCAPES)
        _shot(page, "face_report_offline")
