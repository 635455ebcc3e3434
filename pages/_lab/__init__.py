"""The Lab page's parts (``pages/lab.py``): ``choices`` (the variants and the corpus from the inputs,
pure), ``setup`` (the inputs), ``training`` (all variants under one progress view, the run kept),
``tables`` (the frames, pure), ``results`` (the comparison on held-out text and its downloads),
``examples`` (superwords, removed tokens, a text cut by each variant) and ``keeping`` (keep one
variant). Used by that page only."""
