"""The Compare page's parts (``pages/compare.py``): ``measures`` (its numbers, cached, and the frames
its charts draw), ``in_sample`` (the † on samples a tokenizer was trained on, and the held-out
source), ``versus`` (Train to see the difference), ``fairer`` and ``fairer_view`` (Train a fairer
tokenizer: its run and what it shows). Used by that page only."""
