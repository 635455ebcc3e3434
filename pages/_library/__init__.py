"""The Library page's parts (``pages/library.py``): ``hub`` (the models in the local Hugging Face cache,
which every picker offers). Used by that page only."""
