"""Pretrained tokenizers (transitional re-exports)."""

from .interop import cl100k, cl100k_available, cl100k_encoding, gpt2, gpt2_encoding  # noqa: F401
