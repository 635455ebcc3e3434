"""Home's parts (``pages/home.py``): ``glance`` (one sentence in six languages as token strips, with
their cost) and ``glance_data`` (its cuts, stored). Used by that page only."""
