"""Training byte-level BPE: the public functions (``trainer``: ``train``, ``train_files``,
``train_from_counts``), pre-token counting (``counting``), count shards on disk (``count_shards``), counting
on Dask (``distributed``), the merge loop and its tie rules (``merge_loop``, ``tie_rules``), the parts
both merge loops share (``merge_core``), parity-aware training (``parity``, its language choice
``parity_choice``, ``parity_loop``), training written the readable way (``reference``) and the
step-by-step trace for teaching (``trace``).

Reading corpus files is ``bpe_core.corpora``'; encoding is the ``Tokenizer``'s.
"""
