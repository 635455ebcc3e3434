"""Pages of the BPE workbench (run through ``streamlit run app.py``, each file as a script).

Each page file (``pages/<page>.py``) defines ``main()`` and calls it when Streamlit runs the file.
``pages/_ui/`` holds the UI modules several pages share; ``pages/_<page>/`` (``_compare``,
``_merge_forest``, ``_tokenize_text``, ``_train``) the helpers of one page. Only the files listed in
``pages/_ui/navigation.py`` are pages: Streamlit never takes a subfolder's module for a page.
"""
