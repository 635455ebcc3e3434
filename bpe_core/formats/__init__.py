"""Tokenizer files: bpe_core's own JSON and other tools' formats, one module per format.

* ``bytelevel``: GPT-2's printable byte alphabet, shared by the next two;
* ``gpt2_files``: GPT-2's ``vocab.json`` + ``merges.txt``;
* ``huggingface``: Hugging Face ``tokenizer.json``;
* ``tiktoken_file``: ``.tiktoken`` rank files;
* ``detect``: any of these (and bpe_core JSON) recognised by content.

bpe_core's own JSON file is read and written by ``Tokenizer.save``/``load``/``to_json``/``from_json``
(see ``bpe_core.bpe_json``); ``dumps`` and ``loads`` here are the same for symmetry with the others.
"""

from __future__ import annotations

from ..tokenizer import Tokenizer
from .detect import load_any, loads_any
from .gpt2_files import load_gpt2_files, save_gpt2_files
from .huggingface import from_huggingface_dict, load_huggingface, save_huggingface, to_huggingface_dict
from .tiktoken_file import dumps_tiktoken, load_tiktoken, save_tiktoken

__all__ = [
    "dumps",
    "dumps_tiktoken",
    "from_huggingface_dict",
    "load_any",
    "load_gpt2_files",
    "load_huggingface",
    "load_tiktoken",
    "loads",
    "loads_any",
    "save_gpt2_files",
    "save_huggingface",
    "save_tiktoken",
    "to_huggingface_dict",
]


def dumps(tokenizer: Tokenizer) -> str:
    """bpe_core's JSON file as text (``tokenizer.to_json()``)."""
    return tokenizer.to_json()


def loads(text: str, *, source: str = "<string>") -> Tokenizer:
    """A tokenizer from bpe_core's JSON text (``Tokenizer.from_json``)."""
    return Tokenizer.from_json(text, source=source)
