"""What work with bpe_core keeps and runs beyond one call: the folder of saved tokenizers
(``library_folder``) and its external tokenizers (``external_files``), training in a process of its own
with progress and cancel (``jobs``, run by ``worker``), a corpus written as files that ``train_files``
reads back as the same documents (``documents``), a long text encoded once and served a page at a time
(``window``), the built-in tokenizers loaded once per process, shared by every thread and warmed up in
the background (``shared_builtins``); tokenizer files made into named tokenizers for the library
whatever their format (``tokenizer_files``). The workbench uses them; so can a script or a notebook.
Nothing here draws or imports streamlit."""
