"""bpe_core: exact, fast byte-level BPE tokenizers in Python.

>>> import bpe_core
>>> tokenizer = bpe_core.train(["low lower newer wider"] * 3, vocab_size=260)
>>> tokenizer.decode(tokenizer.encode("lower"))
'lower'
>>> bpe_core.load("gpt2").encode("Hello world")
[15496, 995]

This file only names the public API: train (``train``, ``train_files``, ``train_from_counts``,
``train_parity``), a ``Tokenizer`` (encode, decode, save, tiktoken's API), the built-in tokenizers and
tokenizer files by name or path (``load``; ``load_external`` for files bpe_core runs read-only;
``available``), the one error type (``BpeError``) and what a tokenizer reports (``MergeRecord``,
``TokenInfo``). The rest lives in the subpackages, by job: ``bpe``, ``pretokenization``, ``encoding``,
``formats``, ``training``, ``corpora``, ``pretrained``, ``analysis`` and ``cli``. No UI code lives in
this package: it imports neither streamlit, plotly nor pandas.
"""

__version__ = "0.1.0"

from bpe_core.bpe.tokens import MergeRecord, TokenInfo
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PRESETS
from bpe_core.pretrained.catalogue import available, load, load_external
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.parity import train_parity
from bpe_core.training.trainer import train, train_files, train_from_counts

__all__ = [
    "PRESETS",
    "BpeError",
    "MergeRecord",
    "TokenInfo",
    "Tokenizer",
    "__version__",
    "available",
    "load",
    "load_external",
    "train",
    "train_files",
    "train_from_counts",
    "train_parity",
]
