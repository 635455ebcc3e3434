"""What the AppTest suites share: the app's path, a run that fails on any exception shown, and the
text of elements. (Their workbench folder, the ``workspace_dir`` fixture, is in conftest.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def opened(page: str, *, timeout: float) -> AppTest:
    """A new session of the app (its first run through ``app.py``), then on ``page`` (a path such as
    ``pages/compare.py``), each run checked by ``run``; ``timeout`` seconds per run."""
    at = run(AppTest.from_file(APP, default_timeout=timeout))
    at.switch_page(page)
    return run(at)


def texts(elements) -> list[str]:
    return [str(e.value) for e in elements]


def drawn_html(at: AppTest) -> list[str]:
    """Every HTML body the page draws: ``st.html`` elements, then the markup drawn unsanitised by
    ``pages/_tokenize_text/markup.draw`` (Tokenize's token panels, id lists and cut view)."""
    bodies = [str(e.value) for e in at.get("html")]
    return bodies + [
        json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name == "bpe_markup"
    ]


def compare_table(at: AppTest):
    """Compare's full table as one frame: its views (the sample and the tokenizer, then a few columns
    each: pages/_compare/table.py) side by side, in the table's row order."""
    import pandas as pd

    views = [frame.value for frame in at.dataframe if {"label", "tokenizer"} <= set(frame.value.columns)]
    assert views, "no view of the full table on the page"
    merged = views[0].reset_index(drop=True)
    for view in views[1:]:
        view = view.reset_index(drop=True)
        assert view[["label", "tokenizer"]].equals(merged[["label", "tokenizer"]]), "the views' rows differ"
        merged = pd.concat([merged, view.drop(columns=["label", "tokenizer"])], axis=1)
    return merged
