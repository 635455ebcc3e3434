"""The documentation (README.md, docs/) stays true to the code: every subpackage and top-level module
has its API page, every test, benchmark or module file it names exists, and every ``bpe_core.…`` name
it gives in code quotes can be imported. ``mkdocs build --strict`` (in .ci/run) checks the links."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bpe_core"
API = ROOT / "docs" / "api"
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md", ROOT / "bench" / "PERFORMANCE.md"]


def _subpackages() -> list[str]:
    return sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))


def _top_level_modules() -> list[str]:
    return sorted(path.stem for path in PACKAGE.glob("*.py") if path.stem not in {"__init__", "__main__"})


@pytest.mark.parametrize("name", _subpackages())
def test_every_subpackage_has_an_api_page_rendering_all_its_modules(name):
    page = API / f"{name}.md"
    assert page.is_file(), f"docs/api/{name}.md is missing (and its entry in mkdocs.yml's nav)"
    assert f"::: bpe_core.{name}\n" in page.read_text(encoding="utf-8") + "\n"
    assert f"api/{name}.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_subpackage_pages_render_submodules():
    """One option renders a subpackage's modules, so a new module needs no edit of the docs."""
    assert re.search(r"^\s+show_submodules: true$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)


def test_every_top_level_module_is_on_the_package_page():
    page = (API / "bpe_core.md").read_text(encoding="utf-8")
    for name in _top_level_modules():
        assert f"::: bpe_core.{name}\n" in page, f"bpe_core.{name} is not rendered on docs/api/bpe_core.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_files_named_in_the_docs_exist(page):
    text = page.read_text(encoding="utf-8")
    for path in re.findall(r"\b((?:tests|bench|bpe_core|pages|docs)/[\w/.-]*\w\.(?:py|md|txt|json|toml))\b", text):
        assert (ROOT / path).exists(), f"{page.relative_to(ROOT)} names {path}, which does not exist"


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                target = getattr(target, attribute)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_bpe_core_names_in_the_docs_import(page):
    text = page.read_text(encoding="utf-8")
    names = {m for m in re.findall(r"`(bpe_core(?:\.\w+)+)(?:\(|`)", text) if "__main__" not in m}
    missing = sorted(name for name in names if not _resolves(name))
    assert not missing, f"{page.relative_to(ROOT)} names {missing}, which cannot be imported"
