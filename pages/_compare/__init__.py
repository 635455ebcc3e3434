"""The Compare page's parts (``pages/compare.py``): ``measures`` (its numbers, cached, and the frames
its charts draw), ``in_sample`` (the † on samples a tokenizer was trained on, and the held-out
source), ``versus`` (Train to see the difference), ``curves`` (compression against vocabulary size),
``report`` (a run as one HTML file), ``table`` (the full table, in views that fit the page). Used by
that page only (Train a fairer tokenizer is a page of its own: ``pages/fairer.py``)."""
