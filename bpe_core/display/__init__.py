"""Tokens as a person reads them, written once for the library, the command line, the app and notebooks.

``marks``: the plain-text convention (whitespace marks, ``\\xNN`` only for bytes that are not text,
text made safe for a terminal). ``glyphs``: tokens as text that names characters (grapheme clusters
whole, reading direction, ⟨न 1–2/3⟩ for part of a character, never ``\\xNN``); ``pieces``: a token type
named among its occurrences (bytes many characters share are named by none of them). ``strip``: the one HTML
token strip, with its style sheet in ``styles``. ``view``: ``Tokenizer.show``'s object, drawn as that
strip in Jupyter and VS Code and as text in a terminal. ``comparison``: ``bpe_core.compare``, several
tokenizers side by side with their figures. Nothing here imports streamlit, plotly or (but lazily,
for ``Comparison.to_pandas``) pandas.
"""
