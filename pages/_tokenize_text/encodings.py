"""The chosen tokenizers of one Tokenize view, each loaded and the text encoded with it when first asked
(``ensure``), so that the page draws a tokenizer's panel as soon as that one is ready instead of after
all of them: the browser draws the first panels while the server still loads the others.

One object per script run, used by that run's thread only: it holds no lock. What is shared across
sessions lies below it and has its own (``bpe_core.workspace.shared_builtins`` for the built-ins, ``st.cache_resource``
for library files, ``encode_digest`` and ``cuts_of``). Draws nothing: the page shows ``errors``.
"""

from __future__ import annotations

import numpy as np

from bpe_core import Tokenizer
from pages._ui.encoding import Encoded, Page, cuts_of, encode_digest
from pages._ui.tokenizers import TokenizerChoice


class Encodings:
    """``keys``' tokenizers (from ``choices``) and their encodings of ``page.text``, filled by ``ensure``.
    ``encoded``, ``loaded`` and ``cuts`` list the ready ones in ``keys``' order, whatever the order
    they were asked in; ``errors`` the message of each one that did not load or encode."""

    def __init__(self, choices: dict[str, TokenizerChoice], keys: list[str], page: Page, treat_special: bool) -> None:
        self.keys = list(keys)
        self._choices = choices
        self._page = page
        self._special = treat_special
        self._encoded: dict[str, Encoded] = {}
        self._loaded: dict[str, Tokenizer] = {}
        self._cuts: dict[str, np.ndarray] = {}
        self.errors: dict[str, str] = {}

    def ensure(self, key: str) -> bool:
        """Load ``key``'s tokenizer and encode the text (once); whether that worked (else ``errors[key]``)."""
        if key in self._encoded:
            return True
        if key in self.errors:
            return False
        choice, page = self._choices[key], self._page
        try:
            tokenizer = choice.get()
            encoded = encode_digest(choice.fingerprint, page.digest, self._special, tokenizer, page.text)
        except ValueError as exc:  # bpe_core's errors, and an external library's wrapped by bpe_core
            self.errors[key] = str(exc)
            return False
        self._loaded[key], self._encoded[key] = tokenizer, encoded
        self._cuts[key] = cuts_of(choice.fingerprint, page.digest, self._special, encoded, page.index)
        return True

    def ensure_all(self) -> None:
        for key in self.keys:
            self.ensure(key)

    def _ready(self, found: dict) -> dict:
        return {key: found[key] for key in self.keys if key in found}

    @property
    def encoded(self) -> dict[str, Encoded]:
        return self._ready(self._encoded)

    @property
    def loaded(self) -> dict[str, Tokenizer]:
        return self._ready(self._loaded)

    @property
    def cuts(self) -> dict[str, np.ndarray]:
        return self._ready(self._cuts)
