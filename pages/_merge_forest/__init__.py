"""The Merge forest page's tabs (``pages/merge_forest.py``), one module each: ``index`` (the picked
tokenizer and its forest index), ``link`` (``?tokenizer=&token=`` deep links), ``token``, ``contexts``,
``search``, ``merges``, ``first_k``, ``overview``, ``unused``; ``picky`` (a Picky BPE tokenizer: its tokens
and removals, no forest). Used by that page only."""
