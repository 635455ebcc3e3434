"""The documentation's screenshots of the app, one PNG per page, 1400 px wide, in docs/images/.

Starts the real app (``streamlit run app.py``, headless, on a free port of 127.0.0.1) with a library
folder of its own (``BPE_WORKBENCH_DIR`` in a temporary folder, holding one saved tokenizer so the
Library page has something to show), drives Debian's Chromium with Playwright for Python, waits on
each page for its content (a heading, a chart, token panels; then the end of the script run), never a
fixed sleep, and writes ``docs/images/<page>.png``. Text shown on a page mixes English with Hindi,
Chinese, Arabic and emoji; install the Noto fonts first (``apt-get install fonts-noto-core
fonts-noto-cjk fonts-noto-color-emoji``) or those scripts are boxes.

    .venv/bin/python docs/screenshots.py            # all pages
    .venv/bin/python docs/screenshots.py tokenize   # only some (home, train, tokenize, merge-forest,
                                                    # step-through, library, compare, vocab-diff, lab)

Never downloads a browser: it uses /usr/bin/chromium (``apt-get install chromium``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]  # fmt: skip
WIDTH, HEIGHT = 1400, 1000
#: What the Tokenize page shows: English, Hindi, Chinese, Arabic and emoji.
TEXT = ("Tokenizers cut text into pieces. टोकनाइज़र पाठ को टुकड़ों में बाँटते हैं। "
        "分词器把文本切成小块。 تقسم أدوات الترميز النص إلى قطع. 🧩✂️👋🌍")  # fmt: skip

sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"streamlit exited early with code {process.returncode}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
            if answer.read().strip() == b"ok":
                return
        time.sleep(0.3)
    raise SystemExit(f"streamlit did not answer on {url} within {timeout:.0f} s")


@contextlib.contextmanager
def serving(library: Path) -> Iterator[str]:
    """``streamlit run app.py`` on a free port with ``library`` as its library folder; its URL."""
    port = free_port()
    env = {**os.environ, "BPE_WORKBENCH_DIR": str(library), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]  # fmt: skip
    with open(library / "streamlit.log", "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def settle(page, timeout: float = 120_000) -> None:
    """Wait until the script run is over (Streamlit's 'Running…' widget gone) and no spinner shows."""
    page.wait_for_timeout(300)  # let a rerun that was just triggered start
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=timeout)
    page.locator('[data-testid="stSpinner"]').first.wait_for(state="detached", timeout=timeout)
    exceptions = page.locator('[data-testid="stException"]')
    if exceptions.count():
        raise SystemExit(f"{page.url}: Streamlit exception shown: {exceptions.first.inner_text()[:500]}")


def open_page(page, url: str, heading: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    settle(page)


def shot(page, name: str, *, at=None) -> None:
    """``docs/images/<name>.png`` of the viewport, scrolled so that ``at`` (a locator) is at the top."""
    if at is not None:
        at.scroll_into_view_if_needed()
        at.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    page.wait_for_timeout(500)  # the scroll and the last paint
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / f"{name}.png"))
    print(f"wrote docs/images/{name}.png")


# --------------------------------------------------------------------------------------------------
# the pages


def home(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, url, "BPE workbench")
    expect(page.get_by_text("Tokenizers available now")).to_be_visible()
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    shot(page, "home")


def train(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/train", "Train a tokenizer")
    samples = page.get_by_role("combobox", name="Built-in samples")
    for label in ("English", "Hindi", "Chinese", "Arabic"):
        samples.click()
        page.keyboard.type(label)
        page.get_by_role("option").filter(has_text=label).first.click()
        page.keyboard.press("Escape")
        settle(page)
    expect(page.get_by_text("unique pre-tokens").first).to_be_visible()
    page.get_by_role("button", name="Train", exact=True).click()
    result = page.get_by_role("heading", name="4 · Result:")
    expect(result).to_be_visible(timeout=120_000)
    settle(page)
    expect(page.get_by_text("Compression as merges accrue").first).to_be_visible()
    shot(page, "train", at=page.get_by_role("heading", name="3 · Train"))


def tokenize(page, url: str) -> None:
    from playwright.sync_api import expect

    query = urllib.parse.urlencode([("text", TEXT), ("tok", "gpt2"), ("tok", "cl100k"), ("tok", "o200k")])
    open_page(page, f"{url}/tokenize_text?{query}", "Tokenize")
    page.wait_for_function("document.querySelectorAll('.bpe-tokens').length >= 3")
    expect(page.locator(".bpe-tokens span.t").first).to_be_visible()
    settle(page)
    page.set_viewport_size({"width": WIDTH, "height": 1400})  # the text, the table and the panels in one picture
    try:
        shot(page, "tokenize")
    finally:
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})


def merge_forest(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/merge_forest?tokenizer=gpt2&token=262", "Merge forest")
    expect(page.locator('[data-testid="stGraphVizChart"] svg').first).to_be_visible(timeout=120_000)
    expect(page.get_by_text("‘␣the’").first).to_be_visible()
    settle(page)
    shot(page, "merge-forest")


def step_through(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/step_through", "Step through training")
    for _ in range(3):
        page.get_by_role("button", name="Next").click()
        settle(page)
    expect(page.get_by_text("3 of 10 merges applied")).to_be_visible()
    shot(page, "step-through")


def library(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/library", "Tokenizer library")
    expect(page.get_by_text("samples-2000").first).to_be_visible()
    shot(page, "library")


def compare(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/compare", "Compare tokenizers across languages and code")
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible(timeout=180_000)
    expect(page.get_by_text("more tokens for").first).to_be_visible(timeout=180_000)
    settle(page, timeout=180_000)
    shot(page, "compare", at=page.locator('[data-testid="stPlotlyChart"]').first)


def vocab_diff(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/vocab_diff", "Vocabulary diff")
    expect(page.locator('[data-testid="stMetric"]').first).to_be_visible(timeout=120_000)
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible(timeout=120_000)
    settle(page)
    shot(page, "vocab-diff")


def lab(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/lab", "Lab: BPE variants")
    page.get_by_role("button", name="Train 4 variants").click()
    expect(page.get_by_role("heading", name="One held-out text, cut by each variant")).to_be_visible()
    settle(page)
    shot(page, "lab", at=page.get_by_role("heading", name="One held-out text, cut by each variant"))


PAGES: dict[str, Callable] = {
    "home": home, "train": train, "tokenize": tokenize, "merge-forest": merge_forest,
    "step-through": step_through, "library": library, "compare": compare, "vocab-diff": vocab_diff, "lab": lab,
}  # fmt: skip


def saved_tokenizer(folder: Path) -> None:
    """One tokenizer in the library folder, trained on the built-in samples, so Library lists it."""
    import bpe_core
    from bpe_core.corpora.samples import load_samples
    from pages._ui.library_folder import LibraryFolder

    texts = [sample.text for sample in load_samples("natural")]
    LibraryFolder(folder).save(bpe_core.train(texts, 2000, name="samples-2000"), "samples-2000")


def main(names: list[str]) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=180_000)  # a page's first load builds tokenizers: seconds on a busy machine
    unknown = [name for name in names if name not in PAGES]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}: choose from {', '.join(PAGES)}")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install chromium (this script never downloads one)")
    with tempfile.TemporaryDirectory(prefix="bpe-screenshots-") as folder:
        saved_tokenizer(Path(folder))
        with serving(Path(folder)) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
                page.set_default_timeout(60_000)
                for name in names or list(PAGES):
                    PAGES[name](page, url)
            finally:
                browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
