"""Pre-tokenization: cutting text into pieces before BPE. The regex presets and ``PreTokenizer``
(``pretokenizer``), tiktoken's Unicode classes pinned (``unicode_classes``), custom patterns' time
budget and streaming (``custom_patterns``), Hugging Face's normalizers (``normalization``) and
multi-stage pipelines (``stages``), and special tokens (``special_tokens``).

It does no BPE and reads no files.
"""
