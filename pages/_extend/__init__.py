"""The Extend page's parts (``pages/extend.py``): ``inputs`` (the model, the language, the corpus and the
settings, each checked where typed), ``run`` (the extension in a process of its own, then measured) and
``view`` (before and after, the curve, the new tokens, the files). Used by that page only."""
