"""The one build step pyproject.toml cannot declare: the wheel carries the workbench.

The workbench (``app.py``, ``pages/`` and ``.streamlit/config.toml``) stays where it is in the checkout;
building the library copies those files, unchanged, into ``bpe_core/_workbench/`` of the wheel, where
``bpe-core app`` (``bpe_core.cli.workbench``) starts them from. They are data there, not modules of
``bpe_core``: nothing in the library imports them. Everything else about the package is in
pyproject.toml. An editable install copies nothing (``bpe-core app`` then runs the checkout's own
app.py), and a source distribution takes the same files (MANIFEST.in).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: The folder inside the installed ``bpe_core`` that holds the workbench's files.
WORKBENCH = Path("bpe_core", "_workbench")


def workbench_files(root: Path) -> list[Path]:
    """The workbench's files, relative to ``root``: app.py, every module under pages/ and Streamlit's
    settings. A checkout without them cannot build a wheel whose ``bpe-core app`` works: refused."""
    app, pages, settings = root / "app.py", root / "pages", root / ".streamlit" / "config.toml"
    missing = [path.name for path in (app, pages, settings) if not path.exists()]
    if missing:
        raise SystemExit(f"cannot build bpe-core: {', '.join(missing)} missing from {root} (build from the checkout)")
    modules = sorted(path for path in pages.rglob("*.py") if "__pycache__" not in path.parts)
    return [path.relative_to(root) for path in (app, settings, *modules)]


class BuildWithWorkbench(build_py):
    """``build_py`` that also copies the workbench's files into ``bpe_core/_workbench/`` of the build."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            for relative in workbench_files(HERE):
                target = Path(self.build_lib) / WORKBENCH / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(HERE / relative, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs += [str(Path(self.build_lib) / WORKBENCH / relative) for relative in workbench_files(HERE)]
        return outputs


setup(cmdclass={"build_py": BuildWithWorkbench})
