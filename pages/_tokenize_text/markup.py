"""Drawing the token panels' HTML without ``st.html``'s sanitiser: the markup is ours, escaped by
``render`` (every piece of user text through ``html.escape``), so a second pass through DOMPurify in
the browser only costs time: most of the browser's script time on a page turn, in a Chrome trace
(bench/PERFORMANCE.md, "The Tokenize page in a browser"). Draws nothing else and builds no markup.

How. One ``st.components.v2`` component, registered once per process, mounted in the page's own DOM
(``isolate_styles=False``: the page's toggle style and the linked hover reach the panels). Its script,
a constant of this module with no user text in it, sets the container's ``innerHTML`` to the markup it
is given as data, and only when the markup changed (a rerun that sends the same panel leaves its
elements, and any hover highlight, alone). ``innerHTML`` never runs a ``<script>``; the markup holds
no tag, attribute or URL taken from user text (tested on hostile text in tests/app/test_markup.py),
so nothing in it can run or fetch either.

Only ``trusted_html`` strings reach the component: the page wraps what ``render``'s and ``linked``'s
builders return, and ``draw`` refuses a plain ``str`` (TypeError), so user text cannot be passed here
by mistake. Where components cannot be mounted (AppTest, an old front end), ``draw`` falls back to
``st.html`` with the same markup.
"""

from __future__ import annotations

import streamlit as st

MARKUP_JS = """
export default function(component) {
  const root = component.parentElement;
  if (root.__bpeMarkup === component.data) return;
  root.__bpeMarkup = component.data;
  root.innerHTML = component.data;
}
"""
_component = None


class TrustedHtml(str):
    """Markup built by this app's renderers from escaped text: the only kind ``draw`` accepts."""

    __slots__ = ()


def trusted_html(markup: str) -> TrustedHtml:
    """Mark ``markup`` as built by a renderer that escaped every piece of user text in it: call it
    only on what ``render``'s and ``linked``'s builders return."""
    return TrustedHtml(markup)


def _markup_component():
    """The component, registered once per process (registering again would warn)."""
    global _component
    if _component is None:
        _component = st.components.v2.component("bpe_markup", js=MARKUP_JS, isolate_styles=False)
    return _component


def draw(markup: TrustedHtml, *, key: str) -> None:
    """Draw ``markup`` (from ``trusted_html``) in the page, unsanitised; ``key`` names the slot, so
    a rerun with new markup updates the same element. TypeError for anything but ``TrustedHtml``.

    >>> draw("<b>x</b>", key="k")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    TypeError: draw takes markup from trusted_html (a renderer's escaped output), not a plain str: pass
    user text through render's builders or use st.html
    """
    if not isinstance(markup, TrustedHtml):
        raise TypeError(
            "draw takes markup from trusted_html (a renderer's escaped output), not a plain str: "
            "pass user text through render's builders or use st.html"
        )
    try:
        _markup_component()(key=key, data=str(markup))
    except Exception:  # a front end without components (AppTest): sanitised instead
        st.html(str(markup))
