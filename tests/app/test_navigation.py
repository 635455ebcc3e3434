"""How a page is reached and where its code lives.

A page opened first in a session, before any session ran app.py, runs in Streamlit's legacy
``pages/`` mode (AppTest starts every session in it, as a fresh server does); it must still be drawn
inside app.py's frame (``pages/_ui/navigation.py`` says why and how). These tests fail if Streamlit
stops leaving that mode on ``st.navigation``. The browser test checks the same on a fresh server.

The layout: the pages are exactly the files ``pages/*.py``, each at its file name's URL; a module of
``pages/_<page>/`` serves that page only, and the shared modules of ``pages/_ui/`` import no page's own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from apptest_support import APP, ROOT, run, texts
from streamlit.testing.v1 import AppTest

PAGES = ROOT / "pages"
FRAME_NOTE = "Tokenizer library:"  # app.py's sidebar note: drawn only when app.py framed the run


def page_files() -> list[Path]:
    return sorted(path for path in PAGES.glob("*.py") if path.name != "__init__.py")


@pytest.mark.parametrize(
    ("page", "query", "drawn"),
    [
        ("pages/library.py", {}, "Tokenizer library"),
        ("pages/merge_forest.py", {"tokenizer": "gpt2", "token": "262"}, "Merge forest"),
    ],
)
def test_a_page_opened_first_is_drawn_inside_app_py(workspace_dir, page, query, drawn):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params = dict(query)
    at.switch_page(page)  # the session's first run, on this page's URL
    run(at)
    assert drawn in texts(at.title)
    assert any(FRAME_NOTE in caption for caption in texts(at.sidebar.caption)), "drawn without app.py's frame"
    if query:  # the URL's query string survives the rerun through app.py: the link's token is open
        assert {m.label: m.value for m in at.metric}["id"] == "262"


def _list_the_pages() -> None:  # an AppTest script: st.Page needs a script run
    import streamlit as st

    from pages._ui.navigation import app_pages

    st.session_state["listed"] = [(page.url_path, page.title) for page in app_pages()]


def test_the_pages_are_the_page_files_each_at_its_file_name():
    at = run(AppTest.from_function(_list_the_pages))
    listed = at.session_state["listed"]
    assert listed[0] == ("", "Home")  # the default page is served at /
    urls = {url for url, _ in listed[1:]} | {"home"}
    assert urls == {path.stem for path in page_files()}
    assert len(listed) == len(page_files())


def _imports_of(path: Path) -> set[str]:
    """The ``pages...`` modules ``path`` imports (``from . import x`` resolved to its package)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("pages.")}


def test_a_page_package_serves_its_own_page_only():
    packages = sorted(
        path for path in PAGES.iterdir() if path.is_dir() and path.name.startswith("_") and path.name != "_ui"
    )
    assert packages, "no page package found"
    for package in packages:
        page = PAGES / f"{package.name[1:]}.py"
        assert page.is_file(), f"{package.relative_to(ROOT)} is named after no page"
        assert (package / "__init__.py").is_file()
    users: dict[str, set[str]] = {}
    for path in [ROOT / "app.py", *sorted(PAGES.rglob("*.py"))]:
        for name in _imports_of(path):
            parts = name.split(".")
            if len(parts) >= 2 and parts[1].startswith("_") and parts[1] != "_ui":
                users.setdefault(parts[1], set()).add(path.relative_to(ROOT).as_posix())
    for package, importers in users.items():
        allowed = {f"pages/{package[1:]}.py"}
        outside = {user for user in importers if user not in allowed and not user.startswith(f"pages/{package}/")}
        assert not outside, f"pages/{package}/ is used by {sorted(outside)}: move the shared part to pages/_ui/"


def test_a_shared_module_is_shared():
    """Each module of ``pages/_ui/`` is used by at least two pages (directly or through other shared
    modules and page packages), else it belongs in its page's package."""
    page_of = {}
    for path in [*page_files(), *sorted(PAGES.glob("_*/*.py"))]:
        relative = path.relative_to(PAGES)
        owner = relative.stem if len(relative.parts) == 1 else relative.parts[0][1:]
        if relative.parts[0] != "_ui":
            page_of[path] = owner
    graph = {path: _imports_of(path) for path in sorted(PAGES.rglob("*.py"))}
    shared = [path for path in sorted((PAGES / "_ui").glob("*.py")) if path.name != "__init__.py"]

    def module(path: Path) -> str:
        return ".".join(path.relative_to(ROOT).with_suffix("").parts)

    def pages_using(target: str, seen: set[str]) -> set[str]:
        found = set()
        for path, imported in graph.items():
            if target in imported and module(path) not in seen:
                if path in page_of:
                    found.add(page_of[path])
                else:
                    found |= pages_using(module(path), seen | {module(path)})
        return found

    for path in shared:
        users = pages_using(module(path), {module(path)})
        assert len(users) >= 2, f"pages/_ui/{path.name} serves {sorted(users)} only: move it to that page's package"
