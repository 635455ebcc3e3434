"""The Fairer training page's parts (``pages/fairer.py``): ``inputs`` (the parallel text and the
settings), ``run`` (the training under a progress bar, its result kept, and keeping both tokenizers),
``view`` (the result's cards, charts and table). Used by that page only."""
