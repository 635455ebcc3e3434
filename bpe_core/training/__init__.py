"""Training byte-level BPE: the public functions (``trainer``: ``train``, ``train_files``,
``train_from_counts``), pre-token counting (``counting``), count shards on disk (``count_shards``), counting
on Dask (``distributed``), and the merge engine every way of training runs on (``engine``: a run's
state, ``best()``, ``merge()``, the loop; what it is made of, ``pairs``; where a run starts, ``start``;
the tie rules, ``tie_rules``). Each variant is a policy of the engine: parity-aware training
(``parity``, its policy ``parity_policy`` and language choice ``parity_choice``), SuperBPE (``superbpe``:
a refusal and a start from a tokenizer), Picky BPE (``picky``, its policy ``picky_policy``). Training
written the readable way, with the traces and the textbook's BPE for teaching: ``_educational``.

Reading corpus files is ``bpe_core.corpora``'; encoding is the ``Tokenizer``'s.
"""
