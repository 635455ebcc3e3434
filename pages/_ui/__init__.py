"""Shared UI modules of the BPE workbench's pages, one job each.

``state`` (session-state keys, kept widget values, flash messages, page changes), ``tokenizers`` (the
tokenizers a session can pick), ``samples`` (built-in text), ``uploads`` (uploaded files, read once),
``exports`` (download buttons), ``encoding`` (cached encoding of page text), ``render`` (HTML of
tokens, escaped), ``charts`` (plotly figures), ``tables`` (pandas tables of merges and tokenizers),
``widgets`` (the page header, tokenizer pickers, sentences, the training progress bar),
``comparison`` (the Compare page's numbers), ``versus`` (its training shortcut), ``markup`` (Tokenize's
escaped panels drawn without a second sanitiser) and the others the README lists ("How the code is
organised"). No BPE algorithm lives here: every computation is a call into ``bpe_core``.
"""
