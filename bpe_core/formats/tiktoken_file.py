"""``.tiktoken`` rank files: one ``<base64 token> <rank>`` line per token, the rank doubling as the id.
The format holds neither the pattern nor the special tokens, so loading takes them as arguments."""

from __future__ import annotations

import base64
import binascii
import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import read_tokenizer_file
from bpe_core.formats.gpt2_files import refuse_picky
from bpe_core.safe_io import write_atomic
from bpe_core.tokenizer import Tokenizer


def parse_tiktoken_ranks(text: str, *, what: str = ".tiktoken file") -> dict[bytes, int]:
    """token bytes -> rank from a ``.tiktoken`` text; ``what`` names it in errors.

    >>> parse_tiktoken_ranks("YQ== 0" + chr(10) + "Yg== 1")
    {b'a': 0, b'b': 1}
    """
    fields = text.split()
    lines = text.splitlines()
    try:  # the whole file at once (timed against line by line: bench/PERFORMANCE.md, "Figures behind choices") ...
        tokens = list(map(_b64_strict, fields[0::2]))
        ranks = dict(zip(tokens, map(int, fields[1::2]), strict=False))  # an odd count fails the check below
        if len(fields) == 2 * len(ranks) == 2 * (len(lines) - lines.count("")):
            return ranks
    except ValueError:
        pass
    return _parse_by_line(text, what=what)  # ... and line by line to say where it is wrong


if sys.version_info >= (3, 11):
    #: Strict base64 decoding of one field: binascii's own strict mode (no Python frame per token),
    #: which ``b64decode(validate=True)`` calls on these versions; both refuse the same fields.
    _b64_strict: Callable[[str], bytes] = functools.partial(binascii.a2b_base64, strict_mode=True)
else:

    def _b64_strict(field: str) -> bytes:
        return base64.b64decode(field, validate=True)


def _parse_by_line(text: str, *, what: str) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise BpeError(f"{what} line {number}: expected '<base64 token> <rank>', got {line[:80]!r}")
        try:
            token = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except ValueError:
            raise BpeError(f"{what} line {number}: bad base64 token or rank: {line[:80]!r}") from None
        if token in ranks:
            raise BpeError(f"{what} line {number}: token {token!r} appears twice")
        ranks[token] = rank
    return ranks


def dumps_tiktoken(tokenizer: Tokenizer) -> str:
    """The mergeable tokens as ``.tiktoken`` text (``base64 rank`` lines). The format holds neither
    the pattern nor special tokens: pass them again when loading. ValueError for tokenizers tiktoken
    cannot express (see ``Tokenizer.to_tiktoken``; a Picky BPE tokenizer among them)."""
    refuse_picky(tokenizer, "a .tiktoken file")
    tokenizer.to_tiktoken()  # refuse layouts tiktoken cannot express
    special_ids = set(tokenizer.special_tokens.values())
    lines = [
        f"{base64.b64encode(token).decode('ascii')} {token_id}"
        for token_id, token in sorted(tokenizer.vocab.items())
        if token_id not in special_ids
    ]
    return "\n".join(lines) + "\n"


def save_tiktoken(tokenizer: Tokenizer, path: str | os.PathLike[str]) -> None:
    """Write ``dumps_tiktoken`` to ``path`` atomically (``safe_io.write_atomic``: a regular file or a
    new name, never through a symbolic link, nothing partial left after a failure)."""
    write_atomic(path, dumps_tiktoken(tokenizer))


def load_tiktoken(
    path: str | os.PathLike[str],
    *,
    pattern: str | None = "gpt2",
    special_tokens: Mapping[str, int] | Sequence[str] = (),
    name: str | None = None,
) -> Tokenizer:
    """Read a ``.tiktoken`` file; the pattern and special tokens are not in the file, so give them."""
    path = os.fspath(path)
    try:
        text = read_tokenizer_file(path).decode("ascii")
    except UnicodeDecodeError as exc:
        raise BpeError(f"cannot read {path} as a .tiktoken file: {exc}") from None
    return Tokenizer.from_ranks(
        parse_tiktoken_ranks(text, what=path),
        special_tokens=special_tokens,
        pattern=pattern,
        name=name or Path(path).stem,
    )
