"""Corpora as people keep them: UTF-8 text files read block by block (``text_files``), the bytes and
rows of one file in bounded memory (``streams``: gzip, zstd, JSONL, JSON arrays, Parquet), the
documents of many files (``documents``), a corpus file given as bytes read into documents with the
fields that hold text (``corpus_bytes``), and the built-in sample texts (``samples``, with the data
folder ``sample_texts/``).

It does not pre-tokenize or count: that is ``bpe_core.training``'s.
"""
