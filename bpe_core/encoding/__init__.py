"""Encoding text fast: bpe_core's own encoder with its caches (``encoder``), tiktoken's compiled engine
for a bpe_core tokenizer (``tiktoken_engine``), batches over worker processes and threads
(``batch``), and the rest of ``tiktoken.Encoding``'s surface as a mixin of ``Tokenizer``
(``tiktoken_surface``).

The ``Tokenizer`` ties these together; nothing here trains or reads files.
"""
