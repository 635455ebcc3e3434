"""Tokenizer files: bpe_core's own JSON and other tools' formats, one module per format.

* ``bpe_json``: bpe_core's own file, versioned and lossless (``Tokenizer.save``, ``bpe_core.load``);
* ``bytelevel``: GPT-2's printable byte alphabet, shared by the next two;
* ``gpt2_files``: GPT-2's ``vocab.json`` + ``merges.txt``;
* ``huggingface``: Hugging Face ``tokenizer.json``;
* ``tiktoken_file``: ``.tiktoken`` rank files;
* ``oniguruma``: Hugging Face's ``Split`` regexes read into Python ``regex`` syntax;
* ``detect``: any of these recognised by content.

Import the module of the format you need (``from bpe_core.formats.huggingface import save_huggingface``).
This package imports nothing itself: ``bpe_json`` sits below ``Tokenizer``, the other formats above it.
"""
