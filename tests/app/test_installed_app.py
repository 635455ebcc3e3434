"""The workbench as a user installs it: ``pip install "bpe-core[app]"`` from a wheel built from this
checkout, into a fresh venv, then ``bpe-core app`` started from an empty temporary folder and opened in
Chromium. Every page is served from the installed copy, with the checkout's settings (fonts, toolbar)
and sample texts.

.ci/run builds the wheel, installs it into a fresh venv and names that venv's ``bpe-core`` in
``BPE_CORE_INSTALLED_APP``; without that variable (a developer's run) the test skips. The server runs
without the checkout on its path (no PYTHONPATH, another working folder), and the test checks that
the app it runs is the one inside the installed package. Helpers from test_browser.py.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "app"))

from test_browser import (  # noqa: E402
    ALL_PAGES,
    _browser_page,
    _free_port,
    _nav,
    _needs_a_browser,
    _no_exception,
    _settle,
    _shot,
    _stop_server,
    _wait_healthy,
)

#: The ``bpe-core`` command of a fresh venv holding the wheel and its app extra (set by .ci/run).
INSTALLED_ENV_VAR = "BPE_CORE_INSTALLED_APP"
#: Each page's title in the menu and the heading it shows.
HEADINGS = {
    "Home": "BPE workbench",
    "Train": "Train a tokenizer",
    "Tokenize": "Tokenize",
    "Merge forest": "Merge forest",
    "Step through": "Step through training",
    "Library": "Tokenizer library",
    "Compare": "Compare tokenizers across languages and code",
    "Fairer training": "Train a fairer tokenizer",
    "Languages side by side": "Languages side by side",
    "Extend": "Extend a tokenizer",
    "Vocabulary diff": "Vocabulary diff",
    "Lab": "Lab: BPE variants",
}


def test_every_page_in_the_menu_has_its_heading_here():
    """Runs without the installed app, so that a new page is noticed in every developer's run."""
    assert set(HEADINGS) == set(ALL_PAGES)


def _installed_command() -> Path:
    value = os.environ.get(INSTALLED_ENV_VAR, "")
    if not value:
        pytest.skip(f"{INSTALLED_ENV_VAR} is not set: .ci/run sets it to a fresh venv's bpe-core")
    command = Path(value)
    if not command.is_file():
        pytest.fail(f"{INSTALLED_ENV_VAR}={value} is not a file")
    return command


@contextlib.contextmanager
def _serving_installed(command: Path, folder: Path):
    """``bpe-core app`` started in ``folder`` (which holds nothing of the checkout) on a free port."""
    browser_path = _needs_a_browser()
    port = _free_port()
    workspace = folder / "workbench"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env["BPE_WORKBENCH_DIR"] = str(workspace)
    options = ["--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1"]
    options += ["--server.fileWatcherType", "none"]
    with open(folder / "streamlit.log", "w") as log:
        process = subprocess.Popen(
            [str(command), "app", *options],
            cwd=folder,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, process)
            yield {"url": url, "chromium": browser_path, "pid": process.pid}
        finally:
            _stop_server(process)


def _command_line(pid: int) -> list[str]:
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return [part.decode() for part in handle.read().split(b"\0") if part]


def test_the_installed_app_serves_every_page_from_any_folder(tmp_path):
    """The installed ``bpe-core app`` (Streamlit in its place) runs the package's own copy of app.py; every
    page of the menu opens with its heading and no exception; the settings of .streamlit/config.toml hold
    (script fonts, no Deploy button); the sample texts are there (Compare's chart, Tokenize's panels)."""
    from playwright.sync_api import expect

    command = _installed_command()
    with _serving_installed(command, tmp_path) as served:
        if os.path.exists(f"/proc/{served['pid']}/cmdline"):
            argv = _command_line(served["pid"])
            app = next(part for part in argv if part.endswith("app.py"))
            assert Path(app).parent.name == "_workbench" and "site-packages" in Path(app).parts, argv
            assert not Path(app).is_relative_to(ROOT), argv
        with _browser_page(served, "failure_installed") as page:
            page.goto(served["url"])
            expect(page.get_by_role("heading", name="BPE workbench", exact=True)).to_be_visible()
            _settle(page)
            nav = page.locator('[data-testid="stSidebarNav"]')
            assert nav.get_by_role("link").count() == len(ALL_PAGES)
            assert page.get_by_text("Deploy", exact=True).count() == 0  # client.toolbarMode = "minimal"
            body = page.evaluate("() => getComputedStyle(document.body).fontFamily")
            assert "Noto Sans CJK SC" in body, body  # theme.font
            for title in ALL_PAGES:
                _nav(page, title, HEADINGS[title])
                assert page.get_by_text("Page not found").count() == 0, title
                _no_exception(page, f"{title} (installed)")
                if title == "Tokenize":
                    page.wait_for_function("document.querySelectorAll('.bpe-tokens span.t').length > 10")
                if title == "Compare":
                    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
            _shot(page, "11_installed_app")
