"""Library messages as a page says them: ``in_words`` makes what ``bpe_core`` (or a library it runs)
raised into one sentence for a person, ending in one full stop, so the page can set its own sentence
after it; library internals (a C++ source position, an API's ``None``) are taken out. Draws nothing;
the result is plain text, which callers escape with ``md`` like any message.
"""

from __future__ import annotations

import re

#: A C++ library's own diagnostics (SentencePiece: "INTERNAL: src/sentencepiece_processor.cc(109)
#: [model_proto->ParseFromArray(...)]"): where in its source it failed, not what is wrong with the file.
_INTERNALS = re.compile(
    r"[:;,]?\s*(?:[A-Z_]{3,}:\s*)?[\w./\\-]+\.(?:cc|cpp|c|h|hpp)\(\d+\).*$", re.DOTALL | re.IGNORECASE
)
#: An API's way to say "nothing" (``pattern=None``), which a page has no field for.
_API_NONE = re.compile(r",? or None\b")


def in_words(error: object) -> str:
    """``error``'s message as one sentence for a page: internals out, one full stop at the end.

    >>> in_words(ValueError("pattern is empty: pass a regex, a preset name such as 'gpt2', or None"))
    "pattern is empty: pass a regex, a preset name such as 'gpt2'."
    >>> in_words("x.model is not a SentencePiece model: INTERNAL: src/sentencepiece_processor.cc(109) [a->b()]")
    'x.model is not a SentencePiece model.'
    >>> in_words("the file is empty.") + " Upload another."
    'the file is empty. Upload another.'
    """
    text = str(error).strip()
    text = _INTERNALS.sub("", text)
    text = _API_NONE.sub("", text)
    text = text.rstrip(" .:;,")
    return f"{text}." if text else "something went wrong."
