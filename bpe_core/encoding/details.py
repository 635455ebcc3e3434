"""Per-token detail of an encoding: every token's id, bytes, character span in the text, whether it
holds part of a character and whether it is a special token (``TokenInfo``), as the Tokenize page and
the CLI's ``encode --details`` show them; and the last pre-token of a text, where tiktoken's
``encode_with_unstable`` starts.

It encodes nothing itself: the caller passes the segments between special tokens and the function
that encodes one piece, so the ids are the tokenizer's own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping

from bpe_core.bpe.tokens import TokenInfo, piece_token_infos
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.stages import StagedPreTokenizer

EncodePiece = Callable[[str], tuple[int, ...]]


def token_details(
    segments: Iterable[tuple[str, bool]],
    *,
    pretokenizer: PreTokenizer | StagedPreTokenizer,
    special_tokens: Mapping[str, int],
    vocab: Mapping[int, bytes],
    encode_piece: EncodePiece,
) -> list[TokenInfo]:
    """A ``TokenInfo`` for every token of the text cut into ``segments`` ((text, is_special) in order,
    special tokens already found), spans counted from the start of the first segment."""
    out: list[TokenInfo] = []
    position = 0
    for segment, is_special in segments:
        if is_special:
            token_id = special_tokens[segment]
            out.append(TokenInfo(token_id, vocab[token_id], position, position + len(segment), False, True))
        elif isinstance(pretokenizer, StagedPreTokenizer):  # spans through normalization
            out.extend(pretokenizer.token_infos(segment, encode_piece, vocab, offset=position))
        else:
            for start, end in pretokenizer.spans(segment):
                piece = segment[start:end]
                out.extend(piece_token_infos(piece, encode_piece(piece), vocab, offset=position + start))
        position += len(segment)
    return out


def last_piece(segments: Iterable[tuple[str, bool]], pretokenizer: PreTokenizer | StagedPreTokenizer) -> str | None:
    """The last pre-token of the text cut into ``segments``; None when it is empty or ends with a
    special token."""
    last = deque(segments, maxlen=1)
    last_segment, last_is_special = last[0] if last else ("", True)
    pieces = [] if last_is_special else pretokenizer.pieces(last_segment)
    return pieces[-1] if pieces else None
