"""The benchmark of bpe_core against HF tokenizers, rustbpe and tiktoken (``bench/benchmark.py`` is
the command; see bench/PERFORMANCE.md). A folder of the checkout, not part of the installed package."""
