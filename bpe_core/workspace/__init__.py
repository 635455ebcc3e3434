"""What work with bpe_core keeps and runs beyond one call: the folder of saved tokenizers
(``library_folder``), training in a process of its own with progress and cancel (``jobs``, run by
``worker``), and a corpus written as files that ``train_files`` reads back as the same documents
(``documents``), and a long text encoded once and served a page at a time (``window``). The workbench
uses them; so can a script or a notebook. Nothing here draws or imports
streamlit."""
