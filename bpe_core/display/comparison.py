"""Several tokenizers side by side on the same texts, for a notebook and a terminal: ``bpe_core.compare``.

``compare(texts, tokenizers)`` encodes each text with each tokenizer (built-in names, file paths as
``bpe_core.load`` and ``load_external`` take them, or tokenizer objects) and returns a ``Comparison``:
a table per text with each tokenizer's figures beside its token strip (``view.TokenView``, the one
renderer) in Jupyter and VS Code, a plain table in a terminal, and ``to_pandas()`` for a DataFrame
when pandas is installed (imported then, never by ``import bpe_core``). The figures are
``analysis.metrics.measure``'s, so they are the library's own.

It does not plot, or compare languages over the built-in parallel samples (``analysis.metrics.compare``
and the CLI's ``compare`` do).
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core.analysis.metrics import measure
from bpe_core.display.styles import NOTEBOOK_CSS, TOKEN_CSS
from bpe_core.display.view import DEFAULT_LIMIT, TokenView, show
from bpe_core.errors import BpeError
from bpe_core.pretrained.catalogue import resolve

#: The figures of each (text, tokenizer), in the order of the table's columns.
COLUMNS = (
    "text",
    "tokenizer",
    "tokens",
    "characters",
    "bytes",
    "chars_per_token",
    "bytes_per_token",
    "relative_tokens",
)
#: Lines of tokens per tokenizer in the text form (the views hold them all).
TEXT_LINES = 3
_HEADINGS = ("tokenizer", "tokens", "characters per token", "bytes per token", "× first")


@dataclass(frozen=True, repr=False)
class Comparison:
    """``rows``: one dict per (text, tokenizer), texts in the outer loop, with ``COLUMNS`` as keys
    (``relative_tokens``: tokens over the first tokenizer's on the same text); ``views``: the
    ``TokenView`` of each row, in the same order."""

    texts: tuple[tuple[str, str], ...]  # (label, text)
    tokenizers: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    views: tuple[TokenView, ...]

    def to_pandas(self) -> Any:
        """The figures as a pandas DataFrame (one row per text and tokenizer, ``COLUMNS``); pandas is
        imported here, and its absence is a ``BpeError`` saying what to install."""
        try:
            import pandas
        except ImportError:
            raise BpeError("to_pandas needs pandas: pip install pandas (the rows are in .rows without it)") from None
        return pandas.DataFrame(list(self.rows), columns=list(COLUMNS))

    @property
    def dataframe(self) -> Any:
        """``to_pandas()``."""
        return self.to_pandas()

    def to_html(self) -> str:
        """Self-contained HTML: per text, a table with a row per tokenizer, its figures and its strip."""
        parts = [TOKEN_CSS, NOTEBOOK_CSS, '<div class="bpe-nb">']
        for number, (label, _) in enumerate(self.texts):
            heading = "".join(f"<th>{name}</th>" for name in _HEADINGS) + "<th class='s'>tokens as drawn</th>"
            parts.append(f'<h4>{html.escape(label)}</h4><table class="bpe-cmp"><tr>{heading}</tr>')
            for row, view in self._of_text(number):
                parts.append(f"<tr>{_cells(row)}<td class='s'>{view.strip_html()}{view.hidden_html()}</td></tr>")
            parts.append("</table>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_html_(self) -> str:  # what Jupyter and VS Code draw
        return self.to_html()

    def _of_text(self, number: int) -> list[tuple[dict[str, Any], TokenView]]:
        per_text = len(self.tokenizers)
        start = number * per_text
        return list(zip(self.rows[start : start + per_text], self.views[start : start + per_text], strict=True))

    def __str__(self) -> str:
        lines: list[str] = []
        width = max(len(name) for name in (*self.tokenizers, "tokenizer"))
        for number, (label, _) in enumerate(self.texts):
            lines.append(label)
            lines.append(
                f"  {'tokenizer':<{width}}  {'tokens':>8}  {'chars/token':>11}  {'bytes/token':>11}  {'× first':>7}"
            )
            for row, _view in self._of_text(number):
                figures = "  ".join(f"{_figure(row[key]):>11}" for key in ("chars_per_token", "bytes_per_token"))
                relative = _figure(row["relative_tokens"])
                lines.append(f"  {row['tokenizer']:<{width}}  {row['tokens']:>8,}  {figures}  {relative:>7}")
            for _row, view in self._of_text(number):
                shown = view.text_lines()
                lines.extend(f"  {view.name}: {line}" for line in shown[:TEXT_LINES])
                if len(shown) > TEXT_LINES:
                    lines.append(f"  {view.name}: … (str(table.views[i]) shows every token drawn)")
        return "\n".join(lines)

    def __repr__(self) -> str:  # what a terminal's Python and IPython print
        return str(self)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _cells(row: dict[str, Any]) -> str:
    figures = [_figure(row[key]) for key in ("chars_per_token", "bytes_per_token", "relative_tokens")]
    return f"<td>{html.escape(row['tokenizer'])}</td><td>{row['tokens']:,}</td>" + "".join(
        f"<td>{figure}</td>" for figure in figures
    )


def _text_labels(texts: str | Sequence[str] | Mapping[str, str]) -> list[tuple[str, str]]:
    if isinstance(texts, str):
        texts = [texts]
    if isinstance(texts, Mapping):
        pairs = [(str(label), text) for label, text in texts.items()]
    else:
        pairs = [(_excerpt(text), text) for text in texts]
    if not pairs:
        raise BpeError("compare needs at least one text: compare(['some text'], ['gpt2', 'o200k'])")
    for label, text in pairs:
        if not isinstance(text, str):
            raise BpeError(f"compare takes texts as str, not {type(text).__name__} ({label!r}): decode bytes first")
    return pairs


def _excerpt(text: object, size: int = 40) -> str:
    shown = " ".join(str(text).split())
    return shown if len(shown) <= size else shown[: size - 1] + "…"


def _tokenizer_labels(tokenizers: Any) -> list[tuple[str, Any]]:
    """(label, tokenizer) for each tokenizer given: names and paths loaded, objects as they are."""
    if isinstance(tokenizers, (str, os.PathLike)) or hasattr(tokenizers, "encode_with_details"):
        tokenizers = [tokenizers]
    given = list(tokenizers.items()) if isinstance(tokenizers, Mapping) else [(None, t) for t in tokenizers]
    if not given:
        raise BpeError("compare needs at least one tokenizer: a built-in name, a file path or a Tokenizer")
    out: list[tuple[str, Any]] = []
    for label, tokenizer in given:
        if isinstance(tokenizer, (str, os.PathLike)):
            label = label or os.fspath(tokenizer)
            tokenizer = resolve(tokenizer)
        elif not hasattr(tokenizer, "encode_with_details"):
            raise BpeError(
                f"compare takes built-in names, file paths or tokenizers, not {type(tokenizer).__name__}: "
                "e.g. compare(texts, ['gpt2', 'o200k', 'my_tokenizer.json'])"
            )
        label = str(label or getattr(tokenizer, "name", None) or type(tokenizer).__name__)
        taken = {name for name, _ in out}
        unique, number = label, 2
        while unique in taken:  # the same tokenizer twice, or two files of one name
            unique, number = f"{label} ({number})", number + 1
        out.append((unique, tokenizer))
    return out


def compare(
    texts: str | Sequence[str] | Mapping[str, str],
    tokenizers: Any,
    *,
    show_whitespace: bool = True,
    show_bytes: bool = False,
    limit: int | None = DEFAULT_LIMIT,
) -> Comparison:
    """``texts`` (one text, a list, or a mapping label → text) under each of ``tokenizers`` (a list of
    built-in names, file paths and tokenizer objects, or a mapping label → any of those), side by side:
    the figures of ``analysis.metrics.measure`` (tokens, characters, bytes, characters and bytes per
    token) and the token strips, drawing ``limit`` tokens of each (None: all). Special tokens' text
    counts as ordinary text, as ``encode_ordinary`` encodes it.

    >>> table = compare("Hello world", ["gpt2"])
    >>> table.rows[0]["tokens"], table.rows[0]["chars_per_token"]
    (2, 5.5)
    """
    pairs = _text_labels(texts)
    named = _tokenizer_labels(tokenizers)
    rows: list[dict[str, Any]] = []
    views: list[TokenView] = []
    for label, text in pairs:
        first: int | None = None
        for name, tokenizer in named:
            figures = measure(tokenizer, text)
            view = show(tokenizer, text, name=name, show_whitespace=show_whitespace, show_bytes=show_bytes, limit=limit)
            first = figures.tokens if first is None else first
            relative = figures.tokens / first if first else None
            values = (
                figures.tokens,
                figures.characters,
                figures.bytes,
                figures.chars_per_token,
                figures.bytes_per_token,
            )
            rows.append(dict(zip(COLUMNS, (label, name, *values, relative), strict=True)))
            views.append(view)
    return Comparison(tuple(pairs), tuple(name for name, _ in named), tuple(rows), tuple(views))
