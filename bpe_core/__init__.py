"""bpe_core: exact, fast byte-level BPE tokenizers in Python.

>>> import bpe_core
>>> tokenizer = bpe_core.train(["low lower newer wider"] * 3, vocab_size=260)
>>> tokenizer.decode(tokenizer.encode("lower"))
'lower'
>>> bpe_core.load("gpt2").encode("Hello world")
[15496, 995]

This file only names the public API: train (``train``, ``train_files``, ``train_from_counts``,
``train_parity``), extend a tokenizer you already use (``extend``), a ``Tokenizer`` (encode, decode,
save, tiktoken's API), the built-in tokenizers and tokenizer files by name or path (``load``;
``load_external`` for files bpe_core runs read-only; ``available``), the one error type (``BpeError``)
and warning category (``BpeWarning``: ``warnings.filterwarnings`` takes it) and what a tokenizer reports
(``MergeRecord``, ``TokenInfo``), and tokenizers side by side in a notebook (``compare``; one
tokenizer's is ``Tokenizer.show``). The rest lives in the subpackages, by job: ``bpe``, ``display``,
``pretokenization``, ``encoding``, ``formats``, ``training``, ``corpora``, ``pretrained``, ``analysis``,
``workspace`` and ``cli``. No UI code lives in this package: it imports neither streamlit nor plotly,
and pandas only when ``compare``'s table is asked for a DataFrame.

``import bpe_core`` imports nothing else: each name is imported from its module on first use (PEP 562's
module ``__getattr__``), so a script, a command or a worker process pays only for what it uses
(``tests/project/test_import_cost.py`` names what the import may load).
"""

from __future__ import annotations

__version__ = "0.1.0"

#: Each public name -> the module that defines it.
_HOMES = {
    "PRESETS": "bpe_core.pretokenization.pretokenizer",
    "BpeError": "bpe_core.errors",
    "BpeWarning": "bpe_core.errors",
    "MergeRecord": "bpe_core.bpe.tokens",
    "TokenInfo": "bpe_core.bpe.tokens",
    "Tokenizer": "bpe_core.tokenizer",
    "available": "bpe_core.pretrained.catalogue",
    "compare": "bpe_core.display.comparison",
    "extend": "bpe_core.training.extension",
    "load": "bpe_core.pretrained.catalogue",
    "load_external": "bpe_core.pretrained.catalogue",
    "train": "bpe_core.training.trainer",
    "train_files": "bpe_core.training.trainer",
    "train_from_counts": "bpe_core.training.trainer",
    "train_parity": "bpe_core.training.parity",
}

TYPE_CHECKING = False  # typing's own constant would import typing; mypy reads this one the same
if TYPE_CHECKING:
    from bpe_core.bpe.tokens import MergeRecord, TokenInfo
    from bpe_core.display.comparison import compare
    from bpe_core.errors import BpeError, BpeWarning
    from bpe_core.pretokenization.pretokenizer import PRESETS
    from bpe_core.pretrained.catalogue import available, load, load_external
    from bpe_core.tokenizer import Tokenizer
    from bpe_core.training.extension import extend
    from bpe_core.training.parity import train_parity
    from bpe_core.training.trainer import train, train_files, train_from_counts


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use and kept here after."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'bpe_core' has no attribute {name!r}")
    value = getattr(__import__(home, fromlist=[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "PRESETS",
    "BpeError",
    "BpeWarning",
    "MergeRecord",
    "TokenInfo",
    "Tokenizer",
    "__version__",
    "available",
    "compare",
    "extend",
    "load",
    "load_external",
    "train",
    "train_files",
    "train_from_counts",
    "train_parity",
]
