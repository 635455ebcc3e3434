"""Tokenize follows typing: the text box applies what is typed after a short pause, as Ctrl+Enter
would, so the strips, counts and table follow without a key press. Draws nothing visible; does not
read or change the text (Streamlit's own text area keeps it, with its URL, its session state and its
AppTest face).

How. ``st.text_area`` applies its value on Ctrl+Enter or when it loses focus; unlike ``st.text_input``
it has no ``live`` option (Streamlit 1.67). One small script, a constant of this module with no user
text in it, is mounted as an ``st.components.v2`` component in the page's own DOM (as
``linked``'s). It listens on the document for ``input`` events from the text area whose widget key is
``key`` (Streamlit marks a keyed widget's container with the class ``st-key-<key>``, every character
but letters, digits, ``_`` and ``-`` as ``-``) and, once the typing has paused for ``pause_ms``, sends
the text area the key press that applies it (Ctrl+Enter, which the text area's own handler takes as
"apply now": nothing is sent if the value did not change). While an input method is composing a
character nothing is applied (the composition's end counts as typing). While the page's script is
still running the previous text, the key press waits for the run to end, so a person typing into a
long text asks for one run at a time and never queues runs that other people's sessions would wait
behind.
"""

from __future__ import annotations

import re

import streamlit as st

#: Milliseconds without typing before the text is applied (``st.text_input``'s ``live=True`` waits 250).
PAUSE_MS = 300

FOLLOW_JS = """
export default function(component) {
  const settings = component.data || {};
  window.__bpeFollowSettings = settings;
  if (window.__bpeFollow) return;
  window.__bpeFollow = true;
  let timer = null;
  const busy = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute('data-test-script-state');
    return state === 'running' || state === 'rerunRequested';
  };
  const apply = area => {
    timer = null;
    if (!area.isConnected) return;
    if (busy()) { timer = setTimeout(() => apply(area), 100); return; }
    const apply_now = {key: 'Enter', code: 'Enter', ctrlKey: true, bubbles: true, cancelable: true};
    area.dispatchEvent(new KeyboardEvent('keydown', apply_now));
  };
  const typed = event => {
    const area = event.target;
    const wanted = window.__bpeFollowSettings.selector;
    if (!wanted || !(area instanceof HTMLTextAreaElement) || !area.closest(wanted)) return;
    clearTimeout(timer);
    timer = null;
    if (event.isComposing) return;
    timer = setTimeout(() => apply(area), window.__bpeFollowSettings.pause);
  };
  document.addEventListener('input', typed, true);
  document.addEventListener('compositionend', typed, true);
}
"""
_component = None


def key_class(key: str) -> str:
    """The class Streamlit gives the container of the widget keyed ``key``.

    >>> key_class("tokenize.text")
    'st-key-tokenize-text'
    """
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def _follow_component():
    """The component, registered once per process (registering again would warn)."""
    global _component
    if _component is None:
        _component = st.components.v2.component("bpe_follow_typing", js=FOLLOW_JS)
    return _component


def follow_typing(key: str, *, pause_ms: int = PAUSE_MS) -> None:
    """Make the text area keyed ``key`` apply its text ``pause_ms`` after the last keystroke. Call once
    per run (before or after the text area). Where components cannot be mounted (an old front end),
    the text area keeps its Ctrl+Enter."""
    settings = {"selector": "." + key_class(key), "pause": int(pause_ms)}
    mount = f"{key}.follow"
    st.html(f"<style>.{key_class(mount)}{{display:none}}</style>")  # a style only: no gap under the text area
    try:
        _follow_component()(key=mount, data=settings)
    except Exception:  # a front end without components: Ctrl+Enter still applies the text
        return
