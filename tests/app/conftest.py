"""The app tests' shared fixture: the whole app (``app.py``) started by AppTest in a workbench folder of
the test's own, its first run checked for exceptions."""

import pytest
from apptest_support import APP, run
from streamlit.testing.v1 import AppTest


@pytest.fixture
def app(workspace_dir):
    return run(AppTest.from_file(APP, default_timeout=180))
