"""Helpers of the "Languages side by side" page (``pages/languages.py``): ``strips`` (the rows as HTML
and as a self-made SVG). Used by that page only."""
