"""Paging through a long text: previous / next, a page number box, and jumps to a character or a
line. Draws the controls and returns the window [start, end) of characters to draw; the pages
themselves are ``window.page_starts``. Keeps no text and encodes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from bpe_core.workspace import window


def line_start(text: str, line: int) -> int:
    """The character offset where line ``line`` (from 1) starts; the last line's start when the text
    has fewer lines.

    >>> line_start("a\\nbc\\nd", 3)
    5
    """
    position = 0
    for _ in range(max(0, line - 1)):
        newline = text.find("\n", position)
        if newline < 0:
            break
        position = newline + 1
    return position


def _step(key: str, delta: int, pages: int) -> None:
    st.session_state[key] = min(pages, max(1, int(st.session_state.get(key) or 1) + delta))


def _jump(key: str, box: str, starts: Sequence[int], text: str, unit: str) -> None:
    """Turn to the page holding the character (or line) typed in ``box``."""
    target = st.session_state.get(box)
    if target is None:
        return
    position = int(target) - 1 if unit == "character" else line_start(text, int(target))
    st.session_state[key] = window.page_of(starts, min(max(position, 0), max(len(text) - 1, 0))) + 1


def page_controls(text: str, starts: Sequence[int], *, key: str) -> tuple[int, int]:
    """Draw the paging controls (only when the text has more than one page) and return the drawn
    window [start, end). ``key`` is the page number's session key (from 1; kept within range)."""
    pages = len(starts)
    current = min(pages, max(1, int(st.session_state.get(key) or 1)))
    st.session_state[key] = current
    if pages > 1:
        columns = st.columns([0.8, 1.1, 0.8, 1.5, 1.5], vertical_alignment="bottom")
        columns[0].button(
            "◀ Previous",
            key=f"{key}.prev",
            on_click=_step,
            args=(key, -1, pages),
            disabled=current == 1,
            width="stretch",
        )
        columns[1].number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, step=1, key=key)
        columns[2].button(
            "Next ▶",
            key=f"{key}.next",
            on_click=_step,
            args=(key, 1, pages),
            disabled=current == pages,
            width="stretch",
        )
        for column, unit in zip(columns[3:], ("character", "line"), strict=True):
            box = f"{key}.{unit}"
            column.number_input(
                "Go to character" if unit == "character" else "Go to line",
                min_value=1,
                step=1,
                value=None,
                key=box,
                placeholder=f"a {unit} number",
                on_change=_jump,
                args=(key, box, starts, text, unit),
            )
        current = int(st.session_state[key])
    start = starts[current - 1]
    end = starts[current] if current < pages else len(text)
    if pages > 1:
        first_line = text.count("\n", 0, start) + 1
        last_line = first_line + text.count("\n", start, max(start, end - 1))
        st.caption(
            f"Page {current:,} of {pages:,}: characters {start + 1:,}–{end:,} of {len(text):,}, "
            f"lines {first_line:,}–{last_line:,}. Tokens are those of the whole text; counts cover the whole text."
        )
    return start, end
