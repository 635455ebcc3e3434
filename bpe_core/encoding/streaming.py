"""Encoding text that arrives in chunks (``Tokenizer.encode_iterable``): ids are yielded as soon as
the pieces that make them are settled, without ever joining the input, and equal the encoding of
the joined text.

With a preset pattern only the unfinished tail is kept between chunks (the last few pre-tokens, and
room for the start of a special token); a custom pattern streams under ``custom_patterns``' cut rule;
a ``Pipeline`` (``StagedPreTokenizer``) keeps the text since the last special token. The splitting
is ``pretokenizer.stream_pieces``'; this module only turns its pieces into ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from bpe_core.pretokenization.pretokenizer import PreTokenizer, stream_pieces
from bpe_core.pretokenization.special_tokens import check_disallowed
from bpe_core.pretokenization.stages import StagedPreTokenizer


def encode_stream(
    texts: Iterable[str],
    *,
    pretokenizer: PreTokenizer | StagedPreTokenizer,
    special_regex: re.Pattern[str] | None,
    special_tokens: Mapping[str, int],
    disallowed: set[str],
    encode_piece: Callable[[str], tuple[int, ...]],
    encode_ordinary: Callable[[str], list[int]],
) -> Iterator[int]:
    """The ids of the concatenation of ``texts``, lazily: special tokens matching ``special_regex``
    become their ids, text matching a ``disallowed`` one raises, the rest is split by ``pretokenizer``
    and each piece encoded by ``encode_piece`` (a pipeline's segments by ``encode_ordinary``)."""
    guard = max((len(t) for t in special_tokens), default=0)
    check = (lambda buffer: check_disallowed(buffer, disallowed)) if disallowed else None
    splitter: PreTokenizer | StagedPreTokenizer = pretokenizer
    encode: Callable[[str], Iterable[int]] = encode_piece
    if isinstance(splitter, StagedPreTokenizer):  # it may look anywhere: whole segments
        splitter, encode = PreTokenizer.build(None), encode_ordinary
    for piece, is_special in stream_pieces(texts, splitter, special_regex, guard=guard, check=check):
        if is_special:
            yield special_tokens[piece]
        else:
            yield from encode(piece)
