"""Charts built by many browser sessions at once: every plotly figure is built under ``charts.PLOTLY_LOCK``
(plotly's validator cache and lazily created properties are not thread-safe), and concurrent builds
from a cold validator cache give the same figures as one build alone."""

from __future__ import annotations

import json
import threading

import pandas as pd
import pytest
from plotly.validator_cache import ValidatorCache

from pages._compare import report
from pages._train import heldout
from pages._ui import charts


def _builds() -> dict[str, object]:
    """One figure of each kind the pages build through the shared builders."""
    grid = pd.DataFrame({"gpt2": [1.0, 2.5], "o200k": [1.2, None]}, index=["English", "हिन्दी"])
    lines = charts.lines({"English": ([1, 2, 3], [1.0, 1.1, 1.2]), "عربي": ([1, 2, 3], [2.0, 1.9, 1.7])}, "k %{x}", 300)
    frame = pd.DataFrame({"tokenizer": ["gpt2", "o200k"], "chars_per_token": [3.1, float("nan")]})
    long = pd.DataFrame(
        {
            "tokenizer": ["gpt2", "o200k"] * 2,
            "label": ["English", "English", "हिन्दी", "हिन्दी"],
            "premium": [1.0, 1.0, 2.5, 1.4],
        }
    )
    bars = charts.grouped_bars(long, "premium", ["gpt2", "o200k"], ["English", "हिन्दी"], "premium", "tokens")
    charts.add_parity_line(bars, "English")
    return {
        "heatmap": charts.heatmap(grid, "premium", higher_is_better=False),
        "spotlight": charts.spotlight(lines, ["English"]),
        "line": charts.line([0, 1, 2], [9, 7, 6], name="symbols", title="t", x_title="x", y_title="y", height=280),
        "count bars": charts.count_bars([1, 2, 2, 3], "length", "tokens", "lengths"),
        "held-out": heldout._figure(frame, {"gpt2": "#e03131"}),
        "bars": bars,
        "report": report._figure_html(0, bars),
    }


def test_every_validator_lookup_of_the_builders_happens_under_the_lock(monkeypatch):
    lookups: list[bool] = []
    original = ValidatorCache.get_validator

    def spy(parent_path, prop_name):
        # another thread tries the lock: it must be held by the thread doing the lookup
        free = []
        probe = threading.Thread(target=lambda: free.append(charts.PLOTLY_LOCK.acquire(blocking=False)))
        probe.start()
        probe.join()
        if free[0]:
            charts.PLOTLY_LOCK.release()
        lookups.append(not free[0])
        return original(parent_path, prop_name)

    monkeypatch.setattr(ValidatorCache, "_cache", {})  # cold: every property is looked up again
    monkeypatch.setattr(ValidatorCache, "get_validator", staticmethod(spy))
    _builds()
    assert lookups, "the builders looked nothing up: the spy is not reached"
    assert all(lookups), f"{lookups.count(False)} of {len(lookups)} validator lookups ran without the lock"


@pytest.mark.parametrize("threads", [8])
def test_charts_built_by_many_sessions_at_once_equal_one_built_alone(monkeypatch, threads):
    alone = {name: figure if isinstance(figure, str) else figure.to_dict() for name, figure in _builds().items()}
    monkeypatch.setattr(ValidatorCache, "_cache", {})
    start = threading.Event()
    results: list[dict] = []
    errors: list[BaseException] = []

    def session() -> None:
        start.wait()
        try:
            built = _builds()
            results.append({name: f if isinstance(f, str) else f.to_dict() for name, f in built.items()})
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    workers = [threading.Thread(target=session) for _ in range(threads)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(timeout=120)
    assert not any(worker.is_alive() for worker in workers), "a build never ended"
    assert not errors, errors[0]
    assert len(results) == threads
    for result in results:
        assert result.keys() == alone.keys()
        for name in alone:
            if name == "report":  # its div id is fixed by the index: equal text
                assert result[name] == alone[name]
            else:
                # as JSON, where a missing value (NaN) equals itself
                assert json.dumps(result[name]["data"], sort_keys=True) == json.dumps(
                    alone[name]["data"], sort_keys=True
                )
