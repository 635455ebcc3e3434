"""The app's style sheets: the page-wide rules app.py draws and the sentences block, with the token
strips' style and font stacks, which are the library's (``bpe_core.display.styles``, shared with
notebooks). Constants only.
"""

from __future__ import annotations

from bpe_core.display.styles import MONO_FONTS, SCRIPT_FONTS, TOKEN_COLOURS, TOKEN_CSS, WORDS_CSS

__all__ = ["APP_CSS", "MONO_FONTS", "SCRIPT_FONTS", "SENTENCES_CSS", "TOKEN_COLOURS", "TOKEN_CSS", "WORDS_CSS"]

#: Page-wide CSS (app.py draws it on every page): chips of a multiselect wrap onto new lines and button
#: labels wrap, instead of being cut at the right edge of a narrow column.
APP_CSS = """<style>
[data-testid="stMultiSelect"] .react-aria-ComboBox > [role="group"] { height: auto !important;
  max-height: none !important; }
[data-testid="stMultiSelectTagsContainer"] { flex-wrap: wrap !important; height: auto !important;
  overflow: visible !important; mask-image: none !important; -webkit-mask-image: none !important; }
[data-testid="stMultiSelectTagsContainer"] > [role="group"] { flex-wrap: wrap !important; }
[data-testid="stButton"] button .stMarkdownEllipsis, [data-testid="stButton"] button .stMarkdownEllipsis p {
  white-space: normal !important; text-overflow: clip !important; overflow: visible !important; }
</style>"""
SENTENCES_CSS = (
    "<style>.cmp-summary p{margin:0.15rem 0;font-size:0.95rem}"
    ".cmp-summary{border-left:3px solid #4c6ef5;padding:0.2rem 0.7rem;margin:0.2rem 0 0.8rem}</style>"
)
