"""The UI modules the workbench's pages share (each used by more than one page), one job each.

``navigation`` (the app's pages; a page reached outside app.py's frame), ``state`` (session-state
keys, kept widget values, flash messages, page changes), ``builtins`` (the built-in tokenizers: loaded
once per server, warmed up in the background), ``tokenizers`` (the tokenizers a session can pick),
``library_folder`` (the folder of saved tokenizers: files only, no UI), ``samples`` (built-in text),
``uploads`` (uploaded files, read once), ``imports`` (tokenizer files into the library),
``corpus_files`` (a corpus written as files to train on, the words of its progress bar, a trained
tokenizer's name), ``training_jobs`` and ``training_worker`` (training in a process of its own),
``keep`` (Save and Discard of session tokenizers), ``exports`` (download buttons), ``encoding`` and
``window`` (page text encoded once, cached; the drawn window's exact tokens), ``render`` (HTML of
tokens and all user text, escaped), ``charts`` (plotly figures), ``tables`` (pandas tables of merges
and tokenizers), ``widgets`` (the page header, tokenizer pickers, sentences, the training progress
bar). Helpers of one page live in that page's package (``pages/_compare/``...).
No BPE algorithm lives here: every computation is a call into ``bpe_core``.
"""
