"""Pages of the BPE workbench (run through ``streamlit run app.py``, each file as a script).

Each page file defines ``main()`` and calls it when Streamlit runs the file; ``pages/_ui/`` holds the
UI modules the pages share.
"""
