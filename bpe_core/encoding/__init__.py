"""Encoding text fast: what a tokenizer encodes and decodes with (``codec``: its model, pre-tokenizer,
special tokens and engines), bpe_core's own encoder with its caches (``encoder``), tiktoken's compiled
engine for a bpe_core tokenizer (``tiktoken_engine``), batches over worker processes and threads
(``batch``), and ``tiktoken.Encoding``'s surface as a thin layer over a codec (``tiktoken_surface``).

The ``Tokenizer`` is that surface with bpe_core's own views and files; nothing here trains or reads files.
"""
