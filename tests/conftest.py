"""Shared test setup: the project root and tests/support on sys.path, hypothesis profiles, a workbench folder.

The suite is grouped by what it checks: ``core/`` (training, encoding, metrics, CLI, seeds),
``formats/`` (files and other tools' formats), ``app/`` (AppTest pages and the browser test),
``speed/`` (the fast paths agree with the plain ones; the benchmark runs). ``support/`` holds the
simple references and helpers they share.
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
# engine="python", and tests/core/test_engine.py holds every engine against it.
os.environ.pop("BPE_CORE_ENGINE", None)

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
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
