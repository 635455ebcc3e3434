"""Tokenizers trained elsewhere: today's models by name, offline and hash-checked (``catalogue``,
reading pinned files from installed packages with ``package_files``, the tables of the merges proved
for a rank file kept on disk by ``model_cache``), and tokenizer files bpe_core does not run itself,
run read-only by the library that implements them (``external``).

Nothing here downloads anything.
"""
