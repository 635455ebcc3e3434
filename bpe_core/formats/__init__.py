"""Tokenizer files (transitional re-exports; being split into one module per format)."""

from ..interop import (  # noqa: F401
    from_huggingface_dict,
    load_any,
    load_gpt2_files,
    load_huggingface,
    load_tiktoken,
    loads_any,
    save_gpt2_files,
    save_huggingface,
    save_tiktoken,
    to_huggingface_dict,
)
from ..serialization import dumps, load, loads, save  # noqa: F401
