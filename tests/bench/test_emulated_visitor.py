"""The sessions benchmark's emulated visitor against a real server: it fetches what a browser fetched,
runs pages over Streamlit's protocol until each script run is over, and reports a page that raises
(so a benchmark never times an error page). No timing is asserted."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("websockets")  # comes with streamlit

from bench.app_server import serving
from bench.emulated_visitor import Barrier, EmulatedVisitor

FAILING_PAGE = """
import streamlit as st
st.title("Before the error")
raise ValueError("the page's own error")
"""


def test_a_visitor_fetches_the_files_and_runs_the_page_to_its_end():
    with serving("bench/bare_app.py") as url:
        visitor = EmulatedVisitor(url, ["/", "/_stcore/health", "/no-such-file"], [""])
        seconds = asyncio.run(visitor.visit())
    assert list(seconds) == [""]
    assert seconds[""] > 0


def test_a_page_that_raises_is_an_error_naming_it(tmp_path):
    page = tmp_path / "failing_app.py"
    page.write_text(FAILING_PAGE, encoding="utf-8")
    with serving(page) as url:
        with pytest.raises(RuntimeError, match="ValueError: the page's own error"):
            asyncio.run(EmulatedVisitor(url, [], [""]).visit())


def test_a_barrier_lets_everyone_go_only_when_the_last_arrives():
    async def scenario() -> list[str]:
        barrier = Barrier(3)
        events: list[str] = []

        async def member(name: str, delay: float) -> None:
            await asyncio.sleep(delay)
            events.append(f"{name} arrives")
            await barrier.wait()
            events.append(f"{name} goes")

        await asyncio.gather(member("a", 0), member("b", 0.01), member("c", 0.05))
        return events

    events = asyncio.run(scenario())
    assert events[:3] == ["a arrives", "b arrives", "c arrives"]
    assert sorted(events[3:]) == ["a goes", "b goes", "c goes"]
