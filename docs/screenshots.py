"""The documentation's screenshots of the app, one PNG per page, 1280 x 900, in docs/images/.

Starts the real app (``streamlit run app.py``, headless, on a free port of 127.0.0.1) with a library
folder of its own (``BPE_WORKBENCH_DIR`` in a temporary folder, holding one saved tokenizer named in
four scripts and emoji, so Home, Library and Vocabulary diff show it), drives Debian's Chromium with
Playwright for Python, waits on each page for its content (a heading, a chart, token panels; then
the end of the script run), never a fixed sleep, and writes ``docs/images/<page>.png``. Every page
shows Hindi, Chinese and Arabic (most of them emoji too: a ZWJ family, skin tones) beside English, so
a look at the pictures checks that each script is drawn legibly (whole clusters, Arabic joined right
to left, whole emoji). Install the Noto fonts first (``apt-get install fonts-noto-core
fonts-noto-cjk fonts-noto-color-emoji``) or those scripts are boxes.

    .venv/bin/python docs/screenshots.py            # all pages
    .venv/bin/python docs/screenshots.py tokenize   # only some (home, train, tokenize, merge-forest,
                                                    # step-through, library, compare, fairer, vocab-diff,
                                                    # languages, extend, lab)

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
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
WIDTH, HEIGHT = 1280, 900
#: Emoji a renderer must keep whole: a ZWJ family, skin tones, a flag, a keycap, a variation selector.
EMOJI = "👨\u200d👩\u200d👧\u200d👦 👋🏽 👍🏿 🧑🏾\u200d💻 🇮🇳 3️⃣ ✂️"
#: What the Tokenize page shows: English, Hindi, Chinese, Arabic and emoji.
TEXT = (
    "Tokenizers cut text into pieces. टोकनाइज़र पाठ को टुकड़ों में बाँटते हैं। "
    f"分词器把文本切成小块。 تقسم أدوات الترميز النص إلى قطع. {EMOJI}"
)
#: The saved tokenizer's name (Home, Library, Vocabulary diff show it), in four scripts and emoji.
SAVED = "samples नमूने 样本 عينات 👨\u200d👩\u200d👧\u200d👦"
#: Step through's input: byte-level BPE on Hindi and Chinese (and an emoji), where merges join the
#: bytes of one character before whole characters.
STEPS_TEXT = "नमस्ते नमस्ते नमस्ते दुनिया नमस्ते 你好 你好 你好世界 👋🏽 👋🏽"
#: Compare's files: one sentence in four languages and an English one with emoji; the file name is the label.
COMPARE_FILES = {
    "English.txt": "The library opens at nine o'clock, and children come after school to read.",
    "हिन्दी.txt": "पुस्तकालय नौ बजे खुलता है, और बच्चे स्कूल के बाद पढ़ने आते हैं।",
    "中文.txt": "图书馆九点开门，孩子们放学后来这里读书。",
    "العربية.txt": "تفتح المكتبة في الساعة التاسعة، ويأتي الأطفال بعد المدرسة للقراءة.",
    f"emoji {EMOJI.split()[0]}.txt": f"The library 📚 opens at nine 🕘, and children {EMOJI} come after school.",
}

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
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
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


def shot(page, name: str, *, at=None, block: str = "start", margin: int = 0) -> None:
    """``docs/images/<name>.png`` of the viewport, scrolled so that ``at`` (a locator) is at the top
    (``block="end"``: at the bottom), ``margin`` pixels from the edge."""
    page.evaluate("document.activeElement && document.activeElement.blur()")  # no focus ring in the picture
    if at is not None:
        at.scroll_into_view_if_needed()
        at.evaluate(
            "(element, [block, margin]) => { element.style.scrollMargin = margin + 'px';"
            " element.scrollIntoView({block}); }",
            [block, margin],
        )
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    page.wait_for_timeout(500)  # the scroll and the last paint
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / f"{name}.png"))
    print(f"wrote docs/images/{name}.png")


# --------------------------------------------------------------------------------------------------
# the pages


def choose(page, label: str, typed: str, option: str) -> None:
    """Pick ``option`` in the selectbox ``label`` (typing ``typed`` to filter), then wait for the rerun."""
    page.get_by_role("combobox", name=label).click()
    page.keyboard.type(typed)
    page.get_by_role("option").filter(has_text=option).first.click()
    settle(page)


def home(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, url, "BPE workbench")
    expect(page.get_by_role("heading", name="Tokenizers available now")).to_be_visible()
    expect(page.get_by_role("table").first).to_be_visible()
    expect(page.get_by_text(SAVED).first).to_be_attached()  # under the table, with the user's tokenizers
    expect(page.locator(".bpe-glance .bpe-tokens")).to_have_count(6)
    shot(page, "home")  # the first screen: what it answers, the path, one sentence in six languages


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
    pasted = page.get_by_role("textbox", name="Or paste text (one document)")
    pasted.fill(f"{EMOJI}\n" * 20)
    pasted.press("Control+Enter")
    settle(page)
    expect(page.get_by_text("unique pre-tokens").first).to_be_visible()
    page.get_by_role("button", name="Train", exact=True).click()
    result = page.get_by_role("heading", name="4 · Result:")
    expect(result).to_be_visible(timeout=120_000)
    settle(page)
    expect(page.get_by_text("Compression as merges accrue").first).to_be_visible()
    shot(page, "train", at=page.locator('[data-testid="stPlotlyChart"]').first, margin=50)


def tokenize(page, url: str) -> None:
    from playwright.sync_api import expect

    query = urllib.parse.urlencode([("text", TEXT), ("tok", "gpt2"), ("tok", "cl100k"), ("tok", "o200k")])
    open_page(page, f"{url}/tokenize_text?{query}", "Tokenize")
    page.wait_for_function("document.querySelectorAll('.bpe-tokens').length >= 3")
    expect(page.locator(".bpe-tokens span.t").first).to_be_visible()
    settle(page)
    shot(page, "tokenize", at=page.locator(".bpe-tokens").first, margin=110)


def merge_forest(page, url: str) -> None:
    """A Hindi lookup on o200k: a text that is several tokens (one character split between two), drawn
    as a strip, and the tree of one of them, a whole word."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/merge_forest?tokenizer=o200k", "Merge forest")
    query = page.get_by_role("textbox", name="Token text, typed plainly or with marks")
    query.fill("नमस्ते भारत")
    query.press("Enter")
    settle(page)
    expect(page.get_by_text("is not a single token").first).to_be_visible()
    choose(page, "Pick one of its merged tokens", "भारत", "भारत")
    expect(page.locator('[data-testid="stGraphVizChart"] svg').first).to_be_visible(timeout=120_000)
    settle(page)
    shot(page, "merge-forest", at=page.get_by_text("Find by").first)


def step_through(page, url: str) -> None:
    """Byte-level training on Hindi and Chinese: the first merges join the bytes of one character."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/step_through", "Step through training")
    choose(page, "Mode", "GPT-2", "Byte-level, GPT-2 pre-tokenization")
    text = page.get_by_role("textbox", name="Input")
    text.fill(STEPS_TEXT)
    text.press("Control+Enter")
    settle(page)
    for _ in range(3):
        page.get_by_role("button", name="Next").click()
        settle(page)
    expect(page.get_by_text("3 of 10 merges applied")).to_be_visible()
    probe = page.get_by_role("textbox", name="Text to encode")
    probe.fill(f"नमस्ते दुनिया 你好世界 {EMOJI.split()[1]}")
    probe.press("Enter")
    settle(page)
    shot(page, "step-through", at=text, margin=40)


def library(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/library", "Tokenizer library")
    expect(page.get_by_text(SAVED).first).to_be_visible()
    shot(page, "library")


def compare(page, url: str) -> None:
    """Compare on the user's files, named in their scripts: the names label the charts."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/compare", "Compare tokenizers across languages and code")
    page.get_by_text("My files", exact=True).click()
    settle(page)
    files = [
        {"name": name, "mimeType": "text/plain", "buffer": text.encode("utf-8")} for name, text in COMPARE_FILES.items()
    ]
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(files)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    expect(chart).to_be_visible(timeout=180_000)
    expect(page.get_by_text("more tokens for").first).to_be_visible(timeout=180_000)
    settle(page, timeout=180_000)
    shot(page, "compare", at=chart)


def fairer(page, url: str) -> None:
    """Standard and parity-aware BPE trained at the defaults on the built-in parallel text: the cards
    and the held-out premium per language."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/fairer", "Train a fairer tokenizer")
    page.get_by_role("button", name="Train both").click()
    cards = page.get_by_text("Worst premium, standard BPE").first
    expect(cards).to_be_visible(timeout=600_000)
    settle(page, timeout=600_000)
    shot(page, "fairer", at=cards, margin=120)


def vocab_diff(page, url: str) -> None:
    """The saved tokenizer (four scripts and emoji) against cl100k: its longest tokens cl100k lacks."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/vocab_diff", "Vocabulary diff")
    choose(page, "Tokenizer A", "samples", "samples")
    expect(page.locator('[data-testid="stMetric"]').first).to_be_visible(timeout=120_000)
    settle(page)
    choose(page, "Order", "Longest", "Longest token first")
    tokens = page.get_by_role("heading", name="Tokens", exact=True)
    expect(tokens).to_be_visible()
    shot(page, "vocab-diff", at=tokens)


def languages(page, url: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{url}/languages", "Languages side by side")
    page.wait_for_function("document.querySelectorAll('.bpe-langs .lrow').length === 21", timeout=120_000)
    page.get_by_role("button", name="Clear all").first.click()  # then eight languages, Hindi among them
    settle(page)
    chosen = page.get_by_role("combobox", name="Languages")
    for language in ("English", "German", "Russian", "Arabic", "Hindi", "Chinese", "Japanese", "Amharic"):
        chosen.click()
        page.keyboard.type(language)
        page.get_by_role("option").filter(has_text=language).first.click()
        page.keyboard.press("Escape")
        settle(page)
    page.wait_for_function("document.querySelectorAll('.bpe-langs .lrow').length === 8", timeout=120_000)
    expect(page.get_by_text("Hindi", exact=True).first).to_be_visible()
    shot(page, "languages", at=page.locator(".bpe-langs").first, margin=20)


def extend(page, url: str) -> None:
    """GPT-2 extended for Hindi on the built-in sentences: the figures, the other text kept, the curve."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/extend", "Extend a tokenizer")
    choose(page, "Model whose tokenizer grows", "GPT-2", "GPT-2 ·")
    field = page.get_by_label("Tokens to add", exact=True)
    field.fill("300")
    field.press("Enter")
    settle(page)
    page.get_by_role("button", name="Extend", exact=True).click()
    result = page.get_by_role("heading", name="Result: GPT-2 + Hindi")
    expect(result).to_be_visible(timeout=600_000)
    expect(page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg').first).to_be_visible()
    settle(page)
    shot(page, "extend", at=result, margin=20)


def lab(page, url: str) -> None:
    """The variants trained on the built-in parallel text, then the held-out Hindi text cut by each."""
    from playwright.sync_api import expect

    open_page(page, f"{url}/lab", "Lab: BPE variants")
    page.get_by_role("button", name="Train 4 variants").click()
    strips = page.get_by_role("heading", name="One held-out text, cut by each variant")
    expect(strips).to_be_visible()
    settle(page)
    choose(page, "Held-out text", "Hindi", "Hindi (natural)")
    shot(page, "lab", at=strips)


PAGES: dict[str, Callable] = {
    "home": home,
    "train": train,
    "tokenize": tokenize,
    "merge-forest": merge_forest,
    "step-through": step_through,
    "library": library,
    "compare": compare,
    "fairer": fairer,
    "vocab-diff": vocab_diff,
    "languages": languages,
    "extend": extend,
    "lab": lab,
}


def saved_tokenizer(folder: Path) -> None:
    """One tokenizer in the library folder, named ``SAVED``, trained on the built-in parallel text in
    English, Hindi, Chinese and Arabic and a few lines of emoji (its longest tokens are in all of them)."""
    import bpe_core
    from bpe_core.corpora.samples import parallel_text
    from bpe_core.workspace.library_folder import LibraryFolder

    sentences = parallel_text(split="all")
    texts = ["\n".join(sentences[language]) for language in ("eng", "hin", "zho", "ara")] + [EMOJI] * 5
    LibraryFolder(folder).save(bpe_core.train(texts, 2000, name=SAVED), SAVED)


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
