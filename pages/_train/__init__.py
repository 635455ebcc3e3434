"""The Train page's parts (``pages/train.py``): ``corpus`` (the corpus inputs, each structured file read
from its own text field), ``settings`` (the settings, each checked where it is typed) and ``heldout``
(the held-out split and the evaluation on it). Used by that page only."""
