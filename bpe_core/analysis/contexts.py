"""Where a token occurs: example contexts of one token in a corpus, found by encoding it, bounded.

``token_contexts(tokenizer, texts, token_id, limit=10, max_chars=...)`` scans the documents in
order, stops after ``limit`` occurrences or ``max_chars`` characters, and returns each occurrence
with the text around it. Only parts of the text that hold the token's bytes are encoded, and they
are cut where the pre-tokenizer allows (``pretokenize.safe_cut_regex``: the presets), so a part
encodes to exactly the tokens the whole document gives there; with a custom pattern or none a
document is encoded whole (up to ``max_chars``).

It does not keep corpora (the app keeps a session tokenizer's training text) or draw anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import cut_at_safe_cuts, safe_cut_regex

if TYPE_CHECKING:
    from bpe_core.tokenizer import Tokenizer

#: Characters per part when a document is cut at safe cuts before looking for the token.
PART_CHARS = 4_096


@dataclass(frozen=True)
class TokenContext:
    """One occurrence: ``document`` (index among the texts), the token's character span in it
    (``start``, ``end``: whole characters, even when the token holds part of one), and the text
    ``before`` it, of it (``token``) and ``after`` it."""

    document: int
    start: int
    end: int
    before: str
    token: str
    after: str


def token_contexts(
    tokenizer: Tokenizer,
    texts: Iterable[str],
    token_id: int,
    *,
    limit: int = 10,
    max_chars: int = 2_000_000,
    width: int = 60,
) -> list[TokenContext]:
    """Up to ``limit`` places where encoding ``texts`` gives ``token_id``, with ``width`` characters
    either side (within the document), scanning at most ``max_chars`` characters of text in all.
    Special tokens' text is encoded as ordinary text (training cuts special tokens out).

    >>> import bpe_core
    >>> tok = bpe_core.train(["the cat sat on the mat"] * 3, 270, min_frequency=1)
    >>> the = tok.encode_single_token(" the")
    >>> [(c.before, c.token, c.after) for c in token_contexts(tok, ["a cat, the hat"], the, width=5)]
    [(' cat,', ' the', ' hat')]
    """
    for name, value in (("limit", limit), ("max_chars", max_chars), ("width", width)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise BpeError(f"{name} must be a non-negative integer, got {value!r}")
    if isinstance(texts, str):
        texts = [texts]
    needle = tokenizer.decode_single_token_bytes(token_id)
    found: list[TokenContext] = []
    budget = max_chars
    cut_regex = safe_cut_regex(tokenizer.pattern)
    for document, text in enumerate(texts):
        if len(found) >= limit or budget <= 0:
            break
        text = text[:budget]
        budget -= len(text)
        offset = 0
        for part in cut_at_safe_cuts(text, cut_regex, PART_CHARS):
            if len(found) >= limit:
                break
            if _may_hold(part, needle):
                for info in tokenizer.encode_with_details(part, disallowed_special=()):
                    if info.id == token_id and len(found) < limit:
                        start, end = offset + info.start, offset + info.end
                        found.append(
                            TokenContext(
                                document,
                                start,
                                end,
                                text[max(0, start - width) : start],
                                text[start:end],
                                text[end : end + width],
                            )
                        )
            offset += len(part)
    return found


def _may_hold(part: str, needle: bytes) -> bool:
    """Whether ``part`` holds the bytes ``needle`` (as text when they are whole UTF-8)."""
    try:
        return needle.decode("utf-8") in part
    except UnicodeDecodeError:
        return needle in part.encode("utf-8", "surrogatepass")
