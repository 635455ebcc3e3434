"""Linked token views: hovering a token lights up the same characters in every tokenizer's panel and
in the id lists at once, and clicking a token opens its merge tree. Does not draw the panels
(``render``) nor choose the window (``window``).

How. Every token box carries its character span and id as numbers (``data-s``, ``data-e``,
``data-i``, written by ``render.render_tokens_html``) and each panel its tokenizer's key (``data-k``,
escaped). ``st.html`` runs no JavaScript, and CSS alone would need one ``:has()`` rule per character
of the window (tens of kB of style per page). So one small script, a constant of this module with no
user text in it, is mounted once per page as an ``st.components.v2`` component (not in an iframe:
it sees the page's document; Streamlit 1.67). It listens on the document: on ``mouseover`` it marks
(class ``hl``) every box in ``.bpe-tokens`` and ``.bpe-ids`` whose span overlaps the hovered one,
on ``click`` (with no text selected, so selecting text still works) it sends the panel's tokenizer
key and the token id to Python as a trigger value, and the page switches to the Merge forest with
``?tokenizer=<key>&token=<id>``. User text never reaches the script: it reads only the numeric
attributes and the key, and hands them back as data.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from bpe_core import TokenInfo
from pages._ui.render import span_data

LINKED_JS = """
export default function(component) {
  window.__bpeLinkedSend = component.setTriggerValue;
  if (window.__bpeLinked) return;
  window.__bpeLinked = true;
  let lit = [];
  const clear = () => { lit.forEach(e => e.classList.remove('hl')); lit = []; };
  const spanOf = e => [Number(e.dataset.s), Number(e.dataset.e)];
  document.addEventListener('mouseover', event => {
    const box = event.target.closest && event.target.closest('.bpe-tokens [data-s], .bpe-ids [data-s]');
    clear();
    if (!box) return;
    const [s, e] = spanOf(box);
    for (const other of document.querySelectorAll('.bpe-tokens [data-s], .bpe-ids [data-s]')) {
      const [s2, e2] = spanOf(other);
      if (other === box || (s2 < e && s < e2) || (s === e && s2 === s && e2 === e)) {
        other.classList.add('hl'); lit.push(other);
      }
    }
  });
  document.addEventListener('click', event => {
    const box = event.target.closest && event.target.closest('[data-i]');
    const panel = box && box.closest('.bpe-tokens[data-k], .bpe-ids[data-k]');
    if (!panel || String(window.getSelection()).length) return;
    window.__bpeLinkedSend('open', {tokenizer: panel.dataset.k, token: Number(box.dataset.i)});
  });
}
"""
IDS_CSS = (
    "<style>.bpe-ids{font-family:ui-monospace,monospace;font-size:0.8rem;line-height:1.7;max-height:12rem;"
    "overflow:auto;overflow-wrap:anywhere}.bpe-ids span{padding:0 2px;border-radius:3px}"
    ".bpe-ids [data-i]{cursor:pointer}.bpe-ids .hl{outline:2px solid #1c7ed6;background:#74c0fc}</style>"
)
_component = None


def _linked_component():
    """The component, registered once per process (registering again would warn)."""
    global _component
    if _component is None:
        _component = st.components.v2.component("bpe_linked_tokens", js=LINKED_JS)
    return _component


def linked_views(*, key: str) -> dict | None:
    """Mount the linked-hover script; the token clicked since the last run as ``{"tokenizer": key,
    "token": id}``, or None."""
    try:
        result = _linked_component()(key=key, on_open_change=lambda: None)
    except Exception:  # a front end without components (AppTest): no hover, no click
        return None
    clicked = getattr(result, "open", None)
    return clicked if isinstance(clicked, dict) else None


def open_merge_tree(clicked: dict | None, known: Sequence[str]) -> None:
    """Switch to the Merge forest showing the clicked token's tree (``?tokenizer=&token=``), when
    the click names a tokenizer on this page and an integer id."""
    if not clicked or clicked.get("tokenizer") not in known or not isinstance(clicked.get("token"), int):
        return
    st.switch_page(
        "pages/merge_forest.py", query_params={"tokenizer": clicked["tokenizer"], "token": str(clicked["token"])}
    )


def _id_span(info: TokenInfo) -> str:
    return f"<span{span_data(info)}>{info.id}</span>"


def ids_html(infos: Sequence[TokenInfo], key: str | None, *, style: bool = True) -> str:
    """The ids of ``infos`` as a list of numbers, each with its token's span (linked to the panels);
    without ``style``, no ``IDS_CSS`` (the page draws it once)."""
    panel = f' data-k="{html.escape(key, quote=True)}"' if key else ""
    return f'{IDS_CSS if style else ""}<div class="bpe-ids"{panel}>{", ".join(map(_id_span, infos))}</div>'
