"""The ``python -m bpe_core`` (``bpe-core``) command line: the parser and the small subcommands
(``main``), what they share (``common``), training and counting corpora (``corpus``) and parity-aware
training (``parity``).

Every subcommand calls the library; none holds an algorithm of its own.
"""
