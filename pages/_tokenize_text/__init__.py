"""The Tokenize page's parts (``pages/tokenize_text.py``): ``paging`` (previous / next and jumps
through a long text), ``linked`` (the linked hover and the click to the merge tree), ``markup`` (the
token panels drawn without ``st.html``'s second sanitiser), ``decode`` (the "Decode ids" box),
``dropout`` (the BPE-dropout expander: sampled segmentations), ``inputs`` (the text, tokenizers, toggles
and the URL), ``live`` (the text box followed as it is typed). Used by that page only."""
