"""Library messages as a page says them: ``in_words`` makes what ``bpe_core`` (or a library it runs)
raised into one sentence for a person, ending in one full stop, so the page can set its own sentence
after it; library internals (a C++ source position: ``bpe_core.errors.foreign_message``; an API's
``None``) are taken out. Draws nothing;
the result is plain text, which callers escape with ``md`` like any message.
"""

from __future__ import annotations

import re

from bpe_core.errors import foreign_message
from bpe_core.training.engine import STOP_CANCELLED, STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE
from bpe_core.training.parity_policy import STOP_LANGUAGE_EXHAUSTED

#: An API's way to say "nothing" (``pattern=None``), which a page has no field for.
_API_NONE = re.compile(r",? or None\b")


#: Why a training ended (``training["stop_reason"]``), as the pages say it.
STOPPED = {
    STOP_VOCAB_SIZE: "it reached the vocabulary size asked for",
    STOP_MIN_FREQUENCY: "no pair left occurs as often as the minimum pair frequency",
    STOP_NO_PAIRS: "no pair was left to merge",
    STOP_CANCELLED: "it was cancelled",
    STOP_LANGUAGE_EXHAUSTED: "a language had no pair left at the minimum pair frequency",
}


def stopped_in_words(reason: object) -> str:
    """Why a training ended, for a page (a reason it does not know is given as it is).

    >>> stopped_in_words("best pair count below min_frequency")
    'no pair left occurs as often as the minimum pair frequency'
    """
    return STOPPED.get(str(reason), str(reason))


def in_words(error: object) -> str:
    """``error``'s message as one sentence for a page: internals out, one full stop at the end.

    >>> in_words(ValueError("pattern is empty: pass a regex, a preset name such as 'gpt2', or None"))
    "pattern is empty: pass a regex, a preset name such as 'gpt2'."
    >>> in_words("x.model is not a SentencePiece model: INTERNAL: src/sentencepiece_processor.cc(109) [a->b()]")
    'x.model is not a SentencePiece model.'
    >>> in_words("the file is empty.") + " Upload another."
    'the file is empty. Upload another.'
    """
    text = _API_NONE.sub("", foreign_message(error))
    text = text.rstrip(" .:;,")
    return f"{text}." if text else "something went wrong."
