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
``TokenInfo``), and tokenizers side by side in a notebook (``compare``; one tokenizer's is
``Tokenizer.show``). The rest lives in the subpackages, by job: ``bpe``, ``display``,
``pretokenization``, ``encoding``, ``formats``, ``training``, ``corpora``, ``pretrained``, ``analysis``
and ``cli``. No UI code lives in this package: it imports neither streamlit nor plotly, and pandas
only when ``compare``'s table is asked for a DataFrame.
"""

__version__ = "0.1.0"

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bpe_core.bpe.tokens import MergeRecord, TokenInfo
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PRESETS
from bpe_core.pretrained.catalogue import available, load, load_external
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.parity import train_parity
from bpe_core.training.trainer import train, train_files, train_from_counts

if TYPE_CHECKING:
    from bpe_core.display.comparison import Comparison


def compare(texts: str | Sequence[str] | Mapping[str, str], tokenizers: Any, **options: Any) -> "Comparison":
    """Texts under several tokenizers side by side: figures and token strips in a notebook, a table in a
    terminal, ``.to_pandas()`` (``bpe_core.display.comparison.compare``, whose keyword-only options it takes).

    >>> compare(["Hello world", "नमस्ते"], ["gpt2", "o200k"]).rows[0]["tokens"]
    2
    """
    from bpe_core.display.comparison import compare as side_by_side  # on first use: import bpe_core stays light

    return side_by_side(texts, tokenizers, **options)


__all__ = [
    "PRESETS",
    "BpeError",
    "MergeRecord",
    "TokenInfo",
    "Tokenizer",
    "__version__",
    "available",
    "compare",
    "load",
    "load_external",
    "train",
    "train_files",
    "train_from_counts",
    "train_parity",
]
