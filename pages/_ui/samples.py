"""Built-in sample text for the pages: the samples themselves, the default tokenizer's training text,
and a stretch of text for previews. Reads ``bpe_core.corpora.samples``; draws nothing, imports no streamlit."""

from __future__ import annotations

from bpe_core.corpora.samples import Sample, load_samples

#: Characters of built-in text the default tokenizer is trained on.
DEFAULT_CORPUS_CHARS = 60_000


def sample_texts() -> list[Sample]:
    """Every built-in sample, natural languages first (``bpe_core.corpora.samples`` caches them)."""
    return load_samples()


def default_corpus() -> tuple[str, list[str]]:
    """The text the default tokenizer is trained on: (description, documents)."""
    documents: list[str] = []
    total = 0
    for sample in sample_texts():
        if total >= DEFAULT_CORPUS_CHARS:
            break
        text = sample.text[: DEFAULT_CORPUS_CHARS - total]
        documents.append(text)
        total += len(text)
    label = f"built-in samples ({len(documents)} document(s), {total:,} characters)"
    return label, documents


def sample_text(max_chars: int = 3_000) -> str:
    """A stretch of built-in sample text for previews."""
    return "\n\n".join(s.text for s in sample_texts())[:max_chars]
