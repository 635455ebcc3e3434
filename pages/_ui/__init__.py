"""The UI modules the workbench's pages share (each used by more than one page), one job each.

``navigation`` (the app's pages; a page reached outside app.py's frame), ``state`` (session-state
keys, kept widget values, flash messages, page changes), ``builtins`` (the app's lists of built-in
tokenizers: the pickers' order, those the pages open with, and their warm-up), ``tokenizers`` (the
tokenizers a session can pick), ``uploads`` (uploaded files, read once), ``imports`` (tokenizer files
into the library), ``training_jobs`` (a training job's progress bar and Cancel button), ``keep`` (Save
and Discard of session tokenizers), ``exports`` (download buttons), ``encoding`` (page text encoded
once, cached), ``render`` (HTML of
tokens and all user text, escaped), ``charts`` (plotly figures), ``tables`` (pandas tables of merges
and tokenizers), ``widgets`` (the page header, tokenizer pickers, sentences, the training progress
bar). Helpers of one page live in that page's package (``pages/_compare/``...).
No BPE algorithm lives here: every computation is a call into ``bpe_core``; the services that draw
nothing (the library folder, training jobs and their worker, a corpus written as files, the text
window, the built-ins loaded once per server and warmed up in the background, tokenizer files read and
named for the library, the library's external tokenizer files) are
``bpe_core.workspace``'s, and the built-in sample texts ``bpe_core.corpora.samples``'.
"""
