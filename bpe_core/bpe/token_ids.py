"""Token ids from the caller: what counts as one, the largest one a format may hold, and the errors
that name a bad one.

An id is an integer: a Python ``int`` or anything with ``__index__`` (numpy's integers), but never a
``bool`` (``True`` would silently be id 1) nor a float (``1.0`` likewise). Every bad id is a
``ValueError``; an id of the wrong type is also a ``TypeError`` and an id (or token) the tokenizer
lacks also a ``KeyError``, the types tiktoken raises, so code written for either catches it. This
module checks ids and builds messages; it knows no tokenizer (the caller passes what it knows).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Container, Iterable

from bpe_core.errors import BpeError

#: The largest token id any tokenizer may have: tiktoken stores ids as unsigned 32-bit integers and
#: ``encode_to_numpy`` returns ``uint32``, so a larger id could not leave bpe_core intact.
MAX_TOKEN_ID = 2**32 - 1


class UnknownTokenError(BpeError, KeyError):
    """An id (or a token's text) the tokenizer does not have: bad input (``BpeError``), and a
    ``KeyError`` as tiktoken raises for it.

    >>> isinstance(UnknownTokenError("unknown token id 7"), KeyError)
    True
    """

    # KeyError would print the message in quotes, as the repr of a missing key.
    __str__ = BaseException.__str__


class TokenIdTypeError(TypeError):
    """An id that is not an integer (a float, a bool, a string): a ``TypeError`` as in tiktoken, the
    caller's mistake (the CLI and the app parse ids before they call)."""


def checked_id(token_id: object) -> int:
    """``token_id`` as a plain ``int``; ``TokenIdTypeError`` unless it is an integer other than bool.

    >>> checked_id(7)
    7
    >>> checked_id(True)
    Traceback (most recent call last):
    ...
    bpe_core.bpe.token_ids.TokenIdTypeError: unknown token id True: token ids are integers, not bool; pass int ids
    """
    if type(token_id) is int:
        return token_id
    if not isinstance(token_id, bool):
        try:
            return operator.index(token_id)  # type: ignore[arg-type]
        except TypeError:
            pass  # numpy's bool and floats land here too: they have no __index__
    hint = " (int(x) if its value is whole)" if isinstance(token_id, float) else ""
    raise TokenIdTypeError(
        f"unknown token id {token_id!r}: token ids are integers, not {type(token_id).__name__}; pass int ids{hint}"
    )


def id_list(ids: Iterable[int]) -> list[int] | tuple[int, ...]:
    """``ids`` as a list or tuple (a one-pass iterable is read once, so errors can name an id);
    ``TypeError`` for text or bytes, whose items would be taken for ids."""
    if type(ids) is list or type(ids) is tuple:
        return ids
    if isinstance(ids, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"ids must be a sequence of integer token ids, not {type(ids).__name__}: "
            "to decode UTF-8 bytes use bytes.decode, to encode text use encode"
        )
    if hasattr(ids, "tolist") and not isinstance(ids, (list, tuple)):
        as_list = ids.tolist()  # numpy arrays: plain ints (or floats and bools, refused later) at once
        if isinstance(as_list, list):
            return as_list
    try:
        return list(ids)
    except TypeError:
        raise TypeError(f"ids must be an iterable of integer token ids, not {type(ids).__name__}") from None


def plain_ids(ids: list[int] | tuple[int, ...]) -> bool:
    """Whether every id is exactly an ``int`` (no bool, float or numpy scalar), checked in one pass
    in C with no Python code per id. A dict lookup of such ids needs no other check: a negative,
    huge or unknown id is simply a missing key.

    >>> plain_ids([1, 2]), plain_ids([1, True]), plain_ids([1.0])
    (True, False, False)
    """
    return list(map(type, ids)).count(int) == len(ids)


def checked_ids(
    ids: Iterable[object], known: Container[int], *, unknown: Callable[[int], UnknownTokenError]
) -> list[int]:
    """``ids`` as plain ints, each in ``known``; the first bad one raises, naming its position
    (``unknown(id)`` builds the error for an integer that is not in ``known``).

    >>> checked_ids([3, 1.5], {3}, unknown=lambda i: UnknownTokenError(f"unknown token id {i}"))
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    bpe_core.bpe.token_ids.TokenIdTypeError: unknown token id 1.5 at position 1: token ids are integers,
    not float; pass int ids (int(x) if its value is whole)
    """
    out: list[int] = []
    for position, token_id in enumerate(ids):
        try:
            value = checked_id(token_id)
            if value not in known:
                raise unknown(value)
        except (TokenIdTypeError, UnknownTokenError) as exc:
            prefix = f"unknown token id {token_id!r}"
            message = str(exc)
            if message.startswith(prefix):
                message = f"{prefix} at position {position}{message[len(prefix) :]}"
            raise type(exc)(message) from None
        out.append(value)
    return out


def unknown_id_message(token_id: object, *, owner: str, max_id: int, count: int) -> str:
    """The message for an id the tokenizer ``owner`` lacks (its ids go up to ``max_id``).

    >>> unknown_id_message(999, owner="tiny", max_id=257, count=258)
    "unknown token id 999: 'tiny' has ids 0..257 (258 in all); check the ids come from this tokenizer"
    """
    gaps = "" if count == max_id + 1 else ", not every number need be one"
    if isinstance(token_id, int) and not 0 <= token_id <= MAX_TOKEN_ID:
        gaps += f"; ids are never negative nor above {MAX_TOKEN_ID}"
    return (
        f"unknown token id {token_id!r}: {owner!r} has ids 0..{max_id} ({count} in all{gaps}); "
        "check the ids come from this tokenizer"
    )
