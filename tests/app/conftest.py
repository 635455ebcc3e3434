"""The app tests' shared fixtures: the whole app (``app.py``) started by AppTest in a workbench folder of
the test's own, its first run checked for exceptions; ``interrupted``, a page's run stopped while its
training job goes on."""

import pytest
from apptest_support import APP, run
from streamlit.testing.v1 import AppTest


@pytest.fixture
def app(workspace_dir):
    return run(AppTest.from_file(APP, default_timeout=180))


class Interruption:
    """While ``armed``, the page's run is stopped at its second look at a running job, as a click
    anywhere on the page stops it in a browser: the job goes on. Disarmed after each stop."""

    def __init__(self) -> None:
        self.armed, self.looks = False, 0


@pytest.fixture
def interrupted(monkeypatch):
    import streamlit as st  # the page's own module: st.stop() stops the page's run

    from bpe_core.workspace.jobs import WorkerJob

    interruption = Interruption()
    original = WorkerJob.state

    def state_then_stop(self):
        if interruption.armed:
            interruption.looks += 1
            if interruption.looks == 2:
                interruption.armed, interruption.looks = False, 0
                st.stop()
        return original(self)

    monkeypatch.setattr(WorkerJob, "state", state_then_stop)
    return interruption
