"""Shared test setup: the project root on sys.path, hypothesis profiles, a workbench folder."""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

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
