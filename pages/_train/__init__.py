"""The Train page's parts (``pages/train.py``): ``heldout`` (the held-out split and the evaluation on
it). Used by that page only."""
