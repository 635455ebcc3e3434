"""A corpus whose training lasts minutes, for tests that stop a training while it runs (Cancel, a
killed worker or server, a page closed): about 2.4 MB of made-up words of random letters, so that pairs
keep coming; trained to ``VOCAB`` ids it runs long after every such test has ended it."""

from __future__ import annotations

import random
import string

VOCAB = 200_000


def long_documents(lines: int = 40_000) -> list[str]:
    """One document of ``lines`` lines of twelve made-up words each (the same on every call)."""
    rng = random.Random(0)
    words = (
        " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(12))
        for _ in range(lines)
    )
    return ["\n".join(words)]
