"""End-to-end test of the workbench in a real browser (Debian's Chromium driven by Playwright).

Starts ``streamlit run app.py`` on a free port with a temporary workspace, then: uploads a corpus on
Train and trains, sees token spans on Tokenize, opens the merge forest, steps through a few merges,
and checks that no page shows a Streamlit exception; a fresh server's first session, opened on / or on
a deep link, gets app.py's frame and menu. Screenshots go to tests/artifacts/ (gitignored).
Skips when Chromium or Playwright is missing; never downloads a browser. Nothing here can hang: every
wait has a limit, a browser session that outlives BROWSER_DEADLINE_S is killed, and each server's whole
process group is ended at teardown.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
]
CORPUS = (
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away.\n"
    "Tokenizers learn merges: the most frequent pair of tokens becomes a new token.\n"
) * 40


def _chromium() -> str | None:
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"streamlit did not answer on {url} within {timeout:.0f} s")


def _needs_a_browser() -> str:
    browser_path = _chromium()
    if browser_path is None:
        pytest.skip("no Chromium: /usr/bin/chromium is missing and `chromium` is not on PATH")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright (Python package) is not installed")
    return browser_path


@contextlib.contextmanager
def _serving(workspace: Path):
    """``streamlit run app.py`` on a free port with ``workspace`` as its library folder, stopped after."""
    browser_path = _needs_a_browser()
    port = _free_port()
    env = {**os.environ, "BPE_WORKBENCH_DIR": str(workspace), "PYTHONPATH": str(ROOT)}
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
    with open(workspace / "streamlit.log", "w") as log:
        # A session of its own: the teardown ends the server and every process it started (training jobs
        # start their own sessions and end when the server's pipe to them closes).
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, process)
            yield {"url": url, "chromium": browser_path, "workspace": workspace}
        finally:
            _stop_server(process)


def _stop_server(process: subprocess.Popen) -> None:
    """SIGTERM to the server's process group, SIGKILL after 10 s, then reaped: never left running."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 30)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:  # the group is gone already
            pass
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with _serving(tmp_path_factory.mktemp("workspace")) as served:
        yield served


def _no_exception(page, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{where}: Streamlit exception shown: {exceptions.first.inner_text()[:500]}"


#: How long any wait on page state may take (milliseconds): a busy machine (other tests, other
#: developers' builds on the same two CPUs) makes a page that takes a second alone take tens of seconds.
#: Every wait is for a state of the page, never a fixed delay that would be too short on such a day.
PATIENCE_MS = 180_000


def _settle(page, timeout: float = PATIENCE_MS) -> None:
    """Wait until the script run finishes: the 'Running…' status widget, once it shows (a run may take a
    moment to start on a busy machine), is gone."""
    status = page.locator('[data-testid="stStatusWidget"]')
    try:
        status.wait_for(state="attached", timeout=1_500)
    except Exception:  # the run was over before the status showed, or has not needed one
        pass
    status.wait_for(state="detached", timeout=timeout)


def _nav(page, title: str, heading: str) -> None:
    """Open a page from the sidebar (same session) and wait until its script run has finished."""
    from playwright.sync_api import expect

    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    _settle(page)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


#: Seconds one browser session may last in all. Every wait has its own limit, but a call Playwright
#: does not time out (``page.evaluate`` on a renderer that stopped answering) would wait for ever:
#: past this, the session's browser processes are killed, and the call fails instead of hanging.
BROWSER_DEADLINE_S = 1_800


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (children, their children...), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # gone since, or not ours to read
            children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def _browser_page(server, failure_shot: str, *, timeout_ms: int = PATIENCE_MS):
    """A Chromium page (1400 x 2200) on the test server; a screenshot named ``failure_shot`` when the
    test fails inside it, and the browser closed either way (killed, with Playwright's driver, if the
    session outlives BROWSER_DEADLINE_S)."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=timeout_ms)  # expect()'s own default is 5 s: far too short on a busy machine
    before = _descendants(os.getpid())  # the test server, when this module's fixture started it
    watchdog = threading.Timer(BROWSER_DEADLINE_S, lambda: _kill(_descendants(os.getpid()) - before))
    watchdog.daemon = True
    watchdog.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=server["chromium"], args=CHROMIUM_ARGS, headless=True, timeout=timeout_ms
            )
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 2200})
                page.set_default_timeout(timeout_ms)
                try:
                    yield page
                except BaseException:
                    with contextlib.suppress(Exception):  # a page that cannot be shot: the test's own error
                        _shot(page, failure_shot)
                    raise
            finally:
                browser.close()
    finally:
        watchdog.cancel()


def test_a_page_that_stops_answering_fails_the_test_instead_of_hanging_it(monkeypatch):
    """``page.evaluate`` has no time limit of its own: a script that never returns is ended by the browser
    session's deadline (its browser killed), and the call raises."""
    from playwright.sync_api import Error

    monkeypatch.setattr(sys.modules[__name__], "BROWSER_DEADLINE_S", 5)
    browser = {"chromium": _needs_a_browser()}
    with pytest.raises(Error), _browser_page(browser, "failure_hung", timeout_ms=20_000) as page:
        page.goto("data:text/html,<p>a page</p>")
        page.evaluate("() => { while (true) {} }")


def test_train_tokenize_forest_steps(server, tmp_path):
    from playwright.sync_api import expect

    corpus = tmp_path / "fox.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    with _browser_page(server, "failure") as page:
        # A shared Tokenize link opened as the server's very first session: the page runs inside
        # app.py's navigation (no "Page not found", the full sidebar) and the URL's text is escaped.
        page.goto(f"{server['url']}/tokenize_text?text=Hello%20%3Cscript%3Ex%3C%2Fscript%3E&tok=gpt2")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        _settle(page)
        nav = page.locator('[data-testid="stSidebarNav"]')
        expect(nav.get_by_role("link", name="Merge forest", exact=True)).to_be_visible()
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator(".bpe-tokens script").count() == 0
        expect(page.locator(".bpe-tokens").first).to_contain_text("<script>")
        assert page.locator(".bpe-tokens").count() == 1  # only gpt2, from the URL
        _no_exception(page, "Tokenize (shared link)")
        _shot(page, "00_shared_link")

        _nav(page, "Home", "BPE workbench")
        expect(page.get_by_text("Tokenizers available now")).to_be_visible()
        _no_exception(page, "Home")
        _shot(page, "01_home")

        # Train: upload the corpus, train, see the result
        _nav(page, "Train", "Train a tokenizer")
        page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(corpus))
        expect(page.get_by_text("unique pre-tokens").first).to_be_visible()
        _settle(page)
        page.get_by_role("button", name="Train", exact=True).click()
        result = page.get_by_text(re.compile(r"^4 · Result: fox-\d+$"))  # named after its corpus and vocabulary
        expect(result).to_be_visible()
        trained = result.inner_text().removeprefix("4 · Result: ")
        _settle(page)
        expect(page.get_by_text("Compression as merges accrue").first).to_be_visible()
        _no_exception(page, "Train")
        _shot(page, "02_train")

        # Tokenize: coloured spans; add the freshly trained tokenizer to the selection
        _nav(page, "Tokenize", "Tokenize")
        page.get_by_role("combobox", name="Tokenizers").click()
        # the user's own tokenizers lead the list: in sight without typing, however many built-ins follow
        page.get_by_role("option", name=re.compile(rf"^✱ {trained} \(unsaved\) · [\d,]+$")).click()
        page.keyboard.press("Escape")
        _settle(page)
        expect(page.get_by_text(f"✱ {trained} (unsaved) ·").first).to_be_visible()
        page.wait_for_function("document.querySelectorAll('.bpe-tokens').length >= 2")
        assert page.locator(".bpe-tokens span.t").count() > 10
        _no_exception(page, "Tokenize")
        _shot(page, "03_tokenize")

        # Merge forest: a derivation tree is drawn
        _nav(page, "Merge forest", "Merge forest")
        expect(page.locator('[data-testid="stGraphVizChart"] svg').first).to_be_visible()
        _no_exception(page, "Merge forest")
        _shot(page, "04_forest")

        # Step through: three merges forward, one back
        _nav(page, "Step through", "Step through training")
        for _ in range(3):
            page.get_by_role("button", name="Next").click()
            _settle(page)
        expect(page.get_by_text("3 of 10 merges applied")).to_be_visible()
        page.get_by_role("button", name="Back").click()
        _settle(page)
        expect(page.get_by_text("2 of 10 merges applied")).to_be_visible()
        expect(page.get_by_role("heading", name="Merge rank 1:")).to_be_visible()
        _no_exception(page, "Step through")
        _shot(page, "05_steps")

        _nav(page, "Library", "Tokenizer library")
        _no_exception(page, "Library")

        # Back on Train: the uploader is empty again, but the upload is still in the corpus
        _nav(page, "Train", "Train a tokenizer")
        expect(page.get_by_text("Files uploaded earlier in this session")).to_be_visible()
        expect(page.get_by_text(corpus.name).first).to_be_visible()
        expect(page.get_by_text("unique pre-tokens").first).to_be_visible()
        _no_exception(page, "Train, back again")

        # Compare: charts for the default selection and a sentence naming the costliest language
        _nav(page, "Compare", "Compare tokenizers across languages and code")
        expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
        expect(page.get_by_text("more tokens for").first).to_be_visible()
        _no_exception(page, "Compare")
        _shot(page, "06_compare")


# --------------------------------------------------------------------------------------------------
# a fresh server's first session, on any URL, runs inside app.py (pages/_ui/navigation.py says why)

ALL_PAGES = [
    "Home",
    "Train",
    "Tokenize",
    "Merge forest",
    "Step through",
    "Library",
    "Compare",
    "Fairer training",
    "Languages side by side",
    "Extend",
    "Vocabulary diff",
    "Lab",
]


@pytest.mark.parametrize(
    ("path", "heading"),
    [("/", "BPE workbench"), ("/merge_forest?tokenizer=gpt2&token=262", "Merge forest")],
    ids=["root", "merge_forest_deep_link"],
)
def test_a_fresh_servers_first_page_load(tmp_path, path, heading):
    """The first session of a new server: app.py's frame (its sidebar note, the full menu), no "Page not
    found", the deep link's token open, and the menu leads on to another page."""
    from playwright.sync_api import expect

    shot = f"failure_fresh_{path.strip('/').split('?')[0] or 'root'}"
    with _serving(tmp_path) as served, _browser_page(served, shot) as page:
        page.goto(f"{served['url']}{path}")
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        _settle(page)
        nav = page.locator('[data-testid="stSidebarNav"]')
        for title in ALL_PAGES:
            expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
        assert nav.get_by_role("link").count() == len(ALL_PAGES)  # no page file listed on its own
        expect(page.locator('[data-testid="stSidebar"]').get_by_text("Tokenizer library:")).to_be_visible()
        assert page.get_by_text("Page not found").count() == 0
        if "token=262" in path:
            expect(page.get_by_text("‘␣the’").first).to_be_visible()
        _no_exception(page, f"first load of {path}")
        _nav(page, "Step through", "Step through training")
        assert page.get_by_text("Page not found").count() == 0
        _no_exception(page, f"Step through after {path}")


# --------------------------------------------------------------------------------------------------
# user text never becomes markup

HOSTILE = "[x](https://e.x/) ![i](https://e.x/i.png) **b** <b>z</b>"
HOSTILE_PAGES = [
    ("Train", "Train a tokenizer"),
    ("Tokenize", "Tokenize"),
    ("Merge forest", "Merge forest"),
    ("Library", "Tokenizer library"),
    ("Home", "BPE workbench"),
    ("Compare", "Compare tokenizers across languages and code"),
    ("Vocabulary diff", "Vocabulary diff"),
]


def _no_live_markup(page, where: str, fetched: list[str]) -> None:
    """No link to, image from or request for e.x on the page, and no <b> made from user text."""
    assert page.locator('a[href^="https://e.x"]').count() == 0, f"{where}: a live link to e.x"
    assert page.locator('img[src^="https://e.x"]').count() == 0, f"{where}: an image from e.x"
    assert page.locator("b", has_text="z").count() == 0, f"{where}: <b>z</b> rendered as bold"
    assert not fetched, f"{where}: the browser contacted {fetched}"


def _shows_text(page, text: str) -> None:
    """Wait until the page shows ``text`` as written (invisible word joiners aside)."""
    page.wait_for_function(
        "text => document.body.innerText.replaceAll('\\u2060', '').includes(text)", arg=text, timeout=PATIENCE_MS
    )


def _import_tokenizer(page, payload: bytes) -> None:
    """Import a tokenizer file (named like the hostile text) on the Library page."""
    from playwright.sync_api import expect

    upload = page.locator('[data-testid="stFileUploader"] input[type="file"]').last
    upload.set_input_files({"name": "[x](e.x) **b** <b>z.json", "mimeType": "application/json", "buffer": payload})
    expect(page.get_by_text("into the library as").first).to_be_visible()
    _settle(page)


def _train_hostile(page) -> None:
    """Train on pasted hostile text, no pre-tokenization, with the hostile text as the name."""
    _nav(page, "Train", "Train a tokenizer")
    paste = page.get_by_label("Or paste text (one document)")
    paste.fill((HOSTILE + "\n") * 30)
    paste.press("Control+Enter")
    _settle(page)
    name = page.get_by_role("textbox", name="Tokenizer name", exact=True)
    name.fill(HOSTILE)
    name.press("Enter")
    _settle(page)
    page.get_by_role("combobox", name="Pre-tokenization").click()
    page.get_by_role("option", name="None (each document is one piece)").click()
    _settle(page)
    vocab = page.get_by_label("Vocabulary size (256 bytes + special tokens + merges)", exact=True)
    vocab.fill("316")
    vocab.press("Enter")
    _settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    _shows_text(page, f"4 · Result: {HOSTILE}")  # the header, as written
    _settle(page)


def test_hostile_names_and_tokens_stay_text(server):
    """A tokenizer named with Markdown and HTML that links, fetches an image and makes bold text,
    whose tokens hold the same text, imported and trained: every page shows the text as written, with
    no link, no image and no request to its URL."""

    sys.path.insert(0, str(ROOT))
    import bpe_core

    imported = bpe_core.train([(HOSTILE + "\n") * 30], 256 + 60, pattern=None, name=HOSTILE)
    fetched: list[str] = []
    with _browser_page(server, "failure_hostile") as page:
        page.route("**://e.x/**", lambda route: (fetched.append(route.request.url), route.abort()))
        page.goto(server["url"])
        _settle(page)
        assert page.get_by_text("Deploy", exact=True).count() == 0  # client.toolbarMode = "minimal"
        _nav(page, "Library", "Tokenizer library")
        _import_tokenizer(page, imported.to_json().encode("utf-8"))
        _no_live_markup(page, "Library after the import", fetched)
        _train_hostile(page)
        _no_live_markup(page, "Train", fetched)
        for title, heading in HOSTILE_PAGES:
            _nav(page, title, heading)
            _no_exception(page, title)
            _no_live_markup(page, title, fetched)
        _shot(page, "07_hostile_compare")
        _nav(page, "Tokenize", "Tokenize")
        _shows_text(page, f"✱ {HOSTILE} (unsaved) ·")  # the column title, as written
        _nav(page, "Merge forest", "Merge forest")
        page.get_by_text("Made by merge").first.wait_for()
        _no_live_markup(page, "Merge forest, the deepest token", fetched)
        _shot(page, "08_hostile_forest")


# --------------------------------------------------------------------------------------------------
# the modern tokenizers (o200k, Llama 3, ...) in the pickers


def _installed_modern(limit: int) -> list[str]:
    """Up to ``limit`` built-in modern tokenizers whose package is installed, o200k first."""
    sys.path.insert(0, str(ROOT))
    from bpe_core.pretrained import catalogue

    wanted = ["o200k", "llama3", "qwen3.5", "mistral", "deepseek"]
    return [name for name in wanted if catalogue.is_installed(name)][:limit]


def _label(name: str) -> str:
    """What the pickers and panels call a built-in (the catalogue's label)."""
    from bpe_core.pretrained import catalogue

    return catalogue.BUILTINS[name].label


def test_modern_tokenizers_on_tokenize_and_compare(server):
    """Tokenize: o200k (and one more installed modern tokenizer) picked in the tokenizer picker each
    get their token panel; Compare: the modern tokenizers are in the default selection and the chart;
    no page shows an exception."""
    from playwright.sync_api import expect

    modern = _installed_modern(2)
    if "o200k" not in modern:
        pytest.skip("o200k's package is not installed (pip install mbpe)")
    with _browser_page(server, "failure_modern") as page:
        page.goto(f"{server['url']}/tokenize_text?text=Hello%20world%2C%20vi%E1%BB%87c&tok=gpt2")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        _settle(page)
        for name in modern:
            page.get_by_role("combobox", name="Tokenizers").click()
            # a human label with the vocabulary's size, not the bare key
            page.get_by_role("option", name=re.compile(rf"^{re.escape(_label(name))} · [\d,]+$")).click()
            page.keyboard.press("Escape")
            _settle(page)
            expect(page.get_by_text(f"{_label(name)} ·").first).to_be_visible()
            _no_exception(page, f"Tokenize with {name}")
        page.wait_for_function(f"document.querySelectorAll('.bpe-tokens').length >= {1 + len(modern)}")
        panels = page.locator(".bpe-tokens")
        for index in range(1, 1 + len(modern)):
            assert panels.nth(index).locator("span.t").count() >= 2, f"panel {index} has no tokens"
        _shot(page, "09_modern_tokenize")

        _nav(page, "Compare", "Compare tokenizers across languages and code")
        chosen = page.locator('[data-testid="stMultiSelect"]').filter(has_text=_label("o200k")).first
        for name in modern:
            expect(chosen.get_by_text(re.compile(rf"^{re.escape(_label(name))} · ")).first).to_be_visible()
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        expect(chart).to_be_visible()
        for name in modern:
            expect(chart.get_by_text(_label(name), exact=True).first).to_be_attached()
        _no_exception(page, "Compare with the modern tokenizers")
        _shot(page, "10_modern_compare")


# --------------------------------------------------------------------------------------------------
# legible in every script

MULTILINGUAL = (
    "नमस्ते दुनिया, यह एक परीक्षण है।\n你好世界，机器学习正在改变世界。\nمرحبا بالعالم، اللغة العربية جميلة.\n🙂👍🏽"
)
# Each of these returns a list of problems (empty when the page is right).
BOXES_UNBROKEN = """() => [...document.querySelectorAll('.bpe-tokens .t, .bpe-tokens .g')]
    .filter(e => e.getClientRects().length !== 1).map(e => e.outerHTML.slice(0, 120))"""
RTL_READS_RIGHT_TO_LEFT = """() => {
    const run = document.querySelector('.bpe-tokens .rtl');
    if (!run) return ['no right-to-left run'];
    const boxes = [...run.children].map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
    const problems = [];
    for (let i = 1; i < boxes.length; i++)
        if (Math.abs(boxes[i].top - boxes[i - 1].top) < 2 && boxes[i].left >= boxes[i - 1].left)
            problems.push('box ' + i + ' is right of box ' + (i - 1));
    return problems;
}"""
NOTHING_OVERFLOWS = """(selector) => [...document.querySelectorAll(selector)]
    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.scrollWidth + ' > ' + e.clientWidth)"""


def test_multilingual_text_is_legible(server):
    """Hindi, Chinese, Arabic and emoji under GPT-2: the characters themselves, never a \\x escape
    (split characters drawn once over numbered pieces, bytes on hover or with Show bytes), Arabic in
    reading order, no token box broken at the panel edge, the script fonts in the font stacks, and
    Step through's one-stream sequence wrapping inside the page."""
    import urllib.parse

    from playwright.sync_api import expect

    query = urllib.parse.urlencode({"text": MULTILINGUAL, "tok": ["gpt2"]}, doseq=True)
    with _browser_page(server, "failure_legible") as page:
        page.goto(f"{server['url']}/tokenize_text?{query}")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        _settle(page)
        panel = page.locator(".bpe-tokens").first
        expect(panel).to_be_visible()
        shown = panel.inner_text()
        assert "\\x" not in shown, shown[:300]
        drawn = page.locator(".bpe-tokens .gc").all_inner_texts()
        assert "你" in drawn and "स्ते" in drawn and "👍🏽" in drawn, drawn[:40]
        titles = page.evaluate("() => [...document.querySelectorAll('.bpe-tokens .p')].map(e => e.title)")
        assert any("bytes e4 bd · piece 1 of 2 of ‘你’" in title for title in titles), titles[:5]  # bytes on hover
        assert page.evaluate(BOXES_UNBROKEN) == []
        assert page.evaluate(RTL_READS_RIGHT_TO_LEFT) == []
        fonts = page.evaluate("() => getComputedStyle(document.querySelector('.bpe-tokens')).fontFamily")
        body = page.evaluate("() => getComputedStyle(document.body).fontFamily")
        for family in ("Noto Sans CJK SC", "Noto Color Emoji", "Noto Sans Devanagari"):
            assert family in fonts and family in body, (family, fonts, body)
        _no_exception(page, "Tokenize, multilingual")
        _shot(page, "09_legible_tokenize")

        page.get_by_text("Show bytes", exact=True).click()
        _settle(page)
        page.wait_for_function("[...document.querySelectorAll('.bpe-tokens .ph')].some(e => e.offsetParent)")
        assert "e4 bd" in page.locator(".bpe-tokens").first.inner_text()

        _nav(page, "Step through", "Step through training")
        page.get_by_role("combobox", name="Example").click()
        page.get_by_role("option", name="A short paragraph on bytes and Unicode").click()
        _settle(page)
        page.get_by_role("button", name="Next").click()
        _settle(page)
        expect(page.locator(".bpe-words").first).to_be_visible()
        assert page.evaluate(NOTHING_OVERFLOWS, ".bpe-words") == []
        _no_exception(page, "Step through, one byte stream")
        _shot(page, "10_legible_steps")


# --------------------------------------------------------------------------------------------------
# linked views: hover a token, the same characters light up everywhere; click it, its merge tree opens

LIT_IN = """(selector) => [...document.querySelectorAll(selector)].filter(e => e.classList.contains('hl')).length"""


def test_linked_hover_and_click_to_the_merge_tree(server):
    """Hovering a GPT-2 token lights up (class and computed style) the cl100k boxes over the same
    characters and the entries of both id lists, at once; Mark whitespace off blanks the space marks
    without redrawing; clicking a token opens the Merge forest on that tokenizer and token."""
    import urllib.parse

    from playwright.sync_api import expect

    text = "Hello world, the quick brown fox. " + MULTILINGUAL
    query = urllib.parse.urlencode({"text": text, "tok": ["gpt2", "cl100k"]}, doseq=True)
    with _browser_page(server, "failure_linked") as page:
        page.goto(f"{server['url']}/tokenize_text?{query}")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        _settle(page)
        page.wait_for_function("document.querySelectorAll('.bpe-tokens[data-k]').length >= 2")
        marks_toggle = page.locator('[data-testid="stCheckbox"]').filter(has_text="Mark whitespace").locator("input")
        assert marks_toggle.is_checked()  # a first visit: the toggle says what the panels show (marks)
        for expander in page.get_by_text("ids on this page").all():
            expander.click()
        _settle(page)
        other = '.bpe-tokens[data-k="cl100k"] [data-s]'
        before = page.evaluate(f"() => getComputedStyle(document.querySelector('{other}')).outlineStyle")
        assert page.evaluate(LIT_IN, other) == 0
        page.locator('.bpe-tokens[data-k="gpt2"] .t[data-s="0"]').first.hover()  # 'Hello'
        page.wait_for_function(f"() => document.querySelector('{other}').classList.contains('hl')")
        assert page.evaluate(f"() => getComputedStyle(document.querySelector('{other}')).outlineStyle") != before
        assert page.evaluate(LIT_IN, '.bpe-ids[data-k="cl100k"] [data-s]') >= 1
        assert page.evaluate(LIT_IN, '.bpe-ids[data-k="gpt2"] [data-s]') >= 1
        assert page.evaluate(LIT_IN, '.bpe-tokens[data-k="cl100k"] [data-s="5"]') == 0  # ' world' stays dark
        _shot(page, "11_linked_hover")

        blank = "() => getComputedStyle(document.querySelector('.bpe-tokens .wb')).color"
        shown = page.evaluate(blank)
        page.get_by_text("Mark whitespace", exact=True).click()
        page.wait_for_function(f"shown => ({blank})() !== shown", arg=shown)
        assert page.evaluate(blank) == "rgba(0, 0, 0, 0)"

        token = page.locator('.bpe-tokens[data-k="gpt2"] .t[data-s="0"]').first
        token_id = token.get_attribute("data-i")
        token.click()
        expect(page.get_by_role("heading", name="Merge forest", exact=True)).to_be_visible()
        page.wait_for_url(f"**token={token_id}**")
        assert "tokenizer=gpt2" in page.url
        _no_exception(page, "Merge forest from a clicked token")
        _shot(page, "12_clicked_token_forest")


# --------------------------------------------------------------------------------------------------
# Tokenize's panels are drawn without st.html's sanitiser (pages/_tokenize_text/markup.py): hostile text stays text

INERT = (
    '<img src=x onerror="window.__bpeRan=1"> </style><script>window.__bpeRan=2</script> '
    '" onmouseover="window.__bpeRan=3'
)


def test_hostile_text_in_the_unsanitised_panels_stays_text(server):
    """Text that would make an image with an error handler, close a style and run a script, or add an
    attribute, typed into Tokenize: the panels, id lists and cut view show it as text, hold no img or
    script element and no handler, nothing runs on load or on hover, and the page style is there once."""
    import urllib.parse

    from playwright.sync_api import expect

    query = urllib.parse.urlencode({"text": INERT, "tok": ["gpt2", "cl100k"]}, doseq=True)
    with _browser_page(server, "failure_inert") as page:
        page.goto(f"{server['url']}/tokenize_text?{query}")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        _settle(page)
        page.wait_for_function("document.querySelectorAll('.bpe-tokens[data-k]').length >= 2")
        page.wait_for_function("document.querySelectorAll('.bpe-cuts span').length > 3")
        blocks = ".bpe-tokens, .bpe-ids, .bpe-cuts"
        assert page.evaluate(f"() => document.querySelectorAll('{blocks.replace(', ', ' img, ')} img').length") == 0
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], [onerror], [onmouseover]').length") == 0
        inside = f"() => [...document.querySelectorAll('script')].filter(s => s.closest('{blocks}')).length"
        scripts = page.evaluate(inside)
        assert scripts == 0
        shown = page.locator(".bpe-tokens").first.inner_text().replace("␣", " ")
        assert "<img src=x onerror=" in shown and "</style><script>" in shown, shown[:200]
        page.locator('.bpe-tokens[data-k="gpt2"] .t').nth(3).hover()
        page.wait_for_timeout(500)  # a negative check: give a handler, were there one, the time to run
        assert page.evaluate("() => window.__bpeRan") is None
        sheets = page.evaluate(
            "() => [...document.querySelectorAll('style')]"
            ".filter(s => s.textContent.includes('.bpe-tokens .t {')).length"
        )
        assert sheets == 1  # once for the page, not once per panel
        _no_exception(page, "Tokenize, hostile text")


def _long_corpus(path: Path) -> Path:
    """About 10 MB of made-up words: the Lab's variants take long enough on it to be cancelled."""
    import random

    rng = random.Random(0)
    syllables = ["ka", "to", "ri", "mu", "sen", "lo", "va", "pe", "di", "gra", "ston", "el", "qu", "ix", "bar"]
    lines = (
        " ".join("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(12))
        for _ in range(120_000)
    )
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_lab_trains_in_a_process_of_its_own_and_cancel_keeps_the_previous_run(server, tmp_path):
    """The Lab trains its four default variants (the status box and the results), then a long
    training on a file is cancelled: the message, the previous run's results still there, Train
    enabled again, no exception."""
    from playwright.sync_api import expect

    corpus = _long_corpus(tmp_path / "words.txt")
    with _browser_page(server, "lab_failure") as page:
        page.goto(f"{server['url']}/lab")
        expect(page.get_by_role("heading", name="Lab: BPE variants", exact=True)).to_be_visible()
        _settle(page)
        page.get_by_role("button", name="Train 4 variants", exact=True).click()
        expect(page.get_by_text(re.compile(r"^Trained 4 variants in ")).first).to_be_visible()
        expect(page.get_by_role("button", name="Summary (LaTeX)")).to_be_visible()
        _settle(page)
        _no_exception(page, "Lab, trained")

        page.get_by_text("My files", exact=True).click()
        _settle(page)
        page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(corpus))
        expect(page.get_by_text("Trained on words.txt").first).to_be_visible()
        _settle(page)
        page.get_by_text("Parity-aware BPE", exact=True).click()
        _settle(page)
        vocab = page.get_by_label("Vocabulary size (the same for every variant: 256 bytes + merges)", exact=True)
        vocab.fill("50000")
        vocab.press("Enter")
        _settle(page)
        page.get_by_role("button", name="Train 3 variants", exact=True).click()
        expect(page.get_by_text("Training 3 variants at vocabulary size 50,000…").first).to_be_visible()
        page.get_by_role("button", name="Cancel training").click()
        _shows_text(page, "Training cancelled: nothing of it was kept, and the previous run below is as it was.")
        _settle(page)
        expect(page.get_by_role("button", name="Train 3 variants", exact=True)).to_be_enabled()
        expect(page.get_by_role("button", name="Summary (LaTeX)")).to_be_visible()  # the previous run's
        _no_exception(page, "Lab, cancelled")
        _shot(page, "lab_cancelled")
