"""What an extension changed in text it was not made for: the built-in samples (21 languages, code in
27 languages, data and markup) that hold no character of the extension's scripts, encoded by the
base and by the extension, and compared pre-token by pre-token.

With ``scripts`` given to ``extend`` this is the proof at work (no new token can occur in such text,
so nothing changes: ``scripts``); without it, the scripts are the corpus's own
(``scripts.dominant_scripts``) and the figures say how much other text the new tokens reach, e.g.
Latin-script words of an English quotation in a Hindi corpus that became tokens. This module trains
nothing; ``extension`` calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bpe_core.corpora.samples import load_samples
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.scripts import ScriptRule


def other_text_changes(
    base: Tokenizer, extended: Tokenizer, scripts: Sequence[str], *, same_pattern: bool = True
) -> dict[str, Any]:
    """On the built-in samples with no character of ``scripts`` (all of them when it is empty): how
    many there are, which encode differently, their pre-tokens under ``base``'s pre-tokenization and
    how many of those ``extended`` encodes differently (None when the two pre-tokenize differently,
    as with superwords), and their tokens before and after.

    >>> import bpe_core
    >>> gpt2 = bpe_core.load("gpt2")
    >>> found = other_text_changes(gpt2, gpt2, ["Devanagari"])
    >>> found["samples"], found["changed_samples"], found["pretokens_changed"]
    (61, [], 0)
    """
    in_text = ScriptRule(scripts).in_text if scripts else (lambda text: False)
    samples = [sample for sample in load_samples() if not in_text(sample.text)]
    texts = [sample.text for sample in samples]
    before = base.encode_ordinary_batch(texts, workers=1)
    after = extended.encode_ordinary_batch(texts, workers=1)
    changed = [sample.id for sample, old, new in zip(samples, before, after, strict=True) if old != new]
    pretokens = 0
    pretokens_changed: int | None = None
    if same_pattern:
        pieces = [piece for text in texts for piece in base.pretokenizer.pieces(text)]
        distinct = list(dict.fromkeys(pieces))
        old_ids = base.encode_ordinary_batch(distinct, workers=1)
        new_ids = extended.encode_ordinary_batch(distinct, workers=1)
        differs = {piece for piece, old, new in zip(distinct, old_ids, new_ids, strict=True) if old != new}
        pretokens = len(pieces)
        pretokens_changed = sum(piece in differs for piece in pieces)
    return {
        "scripts": list(scripts),
        "samples": len(samples),
        "changed_samples": changed,
        "pretokens": pretokens,
        "pretokens_changed": pretokens_changed,
        "tokens_before": sum(map(len, before)),
        "tokens_after": sum(map(len, after)),
    }
