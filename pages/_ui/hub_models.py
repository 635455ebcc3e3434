"""The models in this machine's Hugging Face cache, for the tokenizer pickers and the Library page
(``bpe_core.pretrained.hub_cache``): listed without loading anything (a scan of the cache, again at most
every 30 seconds), each loaded once for the whole server when first asked for
(``bpe_core.workspace.shared_builtins.hub_tokenizer``). A cached model bpe_core
runs itself is a ``Tokenizer`` like any other; one it runs read-only (WordPiece, SentencePiece...) is an
``ExternalTokenizer``, which pages that need merges refuse with a message (``needing_merges``).

Draws nothing; the pickers' list is ``tokenizers``'. Never downloads: the cache is read as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.errors import BpeError
from bpe_core.pretrained import hub_cache
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.pretrained.hub_cache import CachedModel
from bpe_core.workspace.shared_builtins import hub_tokenizer

#: The key prefix of a cached model's choice (``hf:org/name``, ``hf:org/name@rev``): it goes into URLs.
KEY_PREFIX = "hf:"


def cached_models() -> list[CachedModel]:
    """The models in the Hugging Face cache that have a tokenizer file; none without huggingface_hub."""
    try:
        folder = hub_cache.cache_folder()
    except BpeError:  # huggingface_hub is not installed
        return []
    return _scanned(str(folder))


@st.cache_data(ttl=30, show_spinner=False)
def _scanned(folder: str) -> list[CachedModel]:
    try:
        return hub_cache.cached_models(cache_dir=folder)
    except (BpeError, OSError):  # a cache folder that cannot be read: nothing to offer
        return []


def loader(model: CachedModel) -> Callable[[], Tokenizer]:
    """What a ``TokenizerChoice`` calls to get the model (an ``ExternalTokenizer`` stands in for a
    ``Tokenizer`` as for external files: see ``tokenizers``)."""
    return lambda: hub_tokenizer(model)  # type: ignore[return-value]


def needing_merges(choice):
    """``choice`` as offered on a page that draws merges: a cached model that turns out to be run
    read-only says so when loaded (the page shows the message) instead of being drawn."""
    if not choice.key.startswith(KEY_PREFIX):
        return choice
    load = choice.loader

    def checked() -> Tokenizer:
        tokenizer = load()
        if isinstance(tokenizer, ExternalTokenizer):
            raise BpeError(f"it is a {tokenizer.kind}: it has no merge list (see Tokenize and Compare for it)")
        return tokenizer

    return dataclasses.replace(choice, loader=checked)
