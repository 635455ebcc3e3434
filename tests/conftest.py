"""Shared test setup: the project root and tests/support on sys.path, hypothesis profiles, a workbench folder.

The suite mirrors the package: ``bpe/``, ``display/``, ``pretokenization/``, ``encoding/``, ``formats/``,
``training/``, ``corpora/``, ``pretrained/``, ``analysis/`` and ``cli/`` hold the tests of the
``bpe_core`` subpackage of that name (``test_tokenizer.py``, ``test_parallel.py`` and
``test_progress.py`` those of its top-level modules); ``app/`` the workbench's pages (AppTest) and the
browser test; ``bench/`` the benchmark's tools on tiny data (no timing is asserted anywhere);
``project/`` the layout, packaging and README. ``support/`` holds the simple references and helpers
they share. File names say what a file checks; test file names are unique across folders.
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUPPORT = os.path.join(ROOT, "tests", "support")
for folder in (ROOT, SUPPORT):
    if folder not in sys.path:
        sys.path.insert(0, folder)

# The suite runs the engine users get (engine="auto": tiktoken's compiled engine once it is proved
# exact and text enough has come, else bpe_core's own); tests of bpe_core's Python encoder name
# engine="python", and tests/encoding/test_engines.py holds every engine against it.
os.environ.pop("BPE_CORE_ENGINE", None)

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture
def workspace_dir(tmp_path, monkeypatch):
    """A workbench folder of the test's own (BPE_WORKBENCH_DIR): the user's library is never touched."""
    folder = tmp_path / "workbench"
    monkeypatch.setenv("BPE_WORKBENCH_DIR", str(folder))
    return folder
