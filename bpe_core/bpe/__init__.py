"""The BPE algorithm itself, on one piece of bytes: the readable reference (``reference``), the fast
variants the ``Tokenizer`` runs (``fast``), what tiktoken-style ranks hold (``ranks``), the checks of a
vocabulary and its merges (``vocabulary``), token ids from callers (``token_ids``), what a tokenizer
reports about its tokens (``tokens``) and textbook character-level BPE (``textbook``).

It knows nothing of text splitting, special tokens, files or training corpora.
"""
