"""Pages of the BPE workbench (run through ``streamlit run app.py``; not imported as modules).

``pages/_common.py`` holds the UI helpers every page shares.
"""
