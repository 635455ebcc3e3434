"""The one exception type bpe_core raises for bad input, so that callers (the CLI, the app) catch one,
and the one warning category it gives (``BpeWarning``).

``BpeError`` is a ``ValueError``: a setting, a text, a file or an id bpe_core cannot take, with a
message that says what is wrong and what to do. Errors of the libraries bpe_core uses are turned
into it where they come in, their own words kept and the C++ source position a native library appends
taken out (``foreign_message``). Anything else bpe_core raises (``TypeError`` for an argument of the wrong
type, ``AttributeError``...) is a caller's mistake or a bug, and is left to show its traceback.
"""

from __future__ import annotations

import re

#: Where in its C++ source a native library failed (SentencePiece: "INTERNAL:
#: src/sentencepiece_processor.cc(109) [model_proto->ParseFromArray(...)]"), to the end of the message:
#: where the library failed, not what is wrong with the input.
_NATIVE_SOURCE = re.compile(
    r"[:;,]?\s*(?-i:[A-Z_]{3,}:\s*)?[\w./\\-]+\.(?:cc|cpp|c|h|hpp)\(\d+\).*$", re.DOTALL | re.IGNORECASE
)


class BpeError(ValueError):
    """Bad input to bpe_core; the message names the input and the fix.

    >>> try:
    ...     raise BpeError("vocab_size must be at least 256, got 10")
    ... except ValueError as caught:
    ...     print(caught)
    vocab_size must be at least 256, got 10
    """


class BpeWarning(UserWarning):
    """Something bpe_core could not use, worked around with the same result (a model cache that cannot
    be read or written: loading goes on without it). The CLI prints it as one ``warning: ...`` line."""


def foreign_message(error: object) -> str:
    """Another library's error message as bpe_core passes it on: its own words, without the C++ source
    position a native library appends (empty when that is all it says).

    >>> foreign_message(RuntimeError("INTERNAL: src/sentencepiece_processor.cc(109) [a->b()]"))
    ''
    >>> foreign_message(OSError("not a model: src/sentencepiece_processor.cc(109) [proto->Parse()]"))
    'not a model'
    """
    return _NATIVE_SOURCE.sub("", str(error)).strip()
