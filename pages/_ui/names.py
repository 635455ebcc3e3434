"""Tokenizer names as they are typed: what the library will make of a typed name, said under the field
before the Save, Rename or Train button is pressed (``name_note``). The rules are the library's
(``bpe_core.workspace.library_folder.sanitize_name``); this module only says them in the page's words.
Draws nothing itself; returns the message and whether the name can be used.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_core.workspace.library_folder import sanitize_name

from .render import markdown_text as md

#: What a library name may hold, as the pages say it.
NAME_RULE = (
    "letters, digits, spaces, '.', '_' and '-' (at least one letter or digit; no / \\ : * ? \" < > |, "
    "no leading dot, at most 80 characters)"
)


@dataclass(frozen=True)
class NameNote:
    """What to say under a name field: ``message`` (Markdown, user text escaped) shown as ``kind``
    ("error": the button stays disabled, "warning": it works and saves ``saved_as``)."""

    kind: str
    message: str
    usable: bool
    saved_as: str | None = None


def name_note(typed: str) -> NameNote | None:
    """What the library makes of ``typed``: None when it saves the name as typed (or nothing is typed:
    the caller says what an empty field means); an error when no name can be made of it; a warning
    naming the name it becomes when the library has to change it.

    >>> name_note("my-bpe") is None
    True
    >>> name_note("../evil").saved_as
    '_evil'
    >>> name_note("///").usable
    False
    """
    if not typed.strip():
        return None
    try:
        clean = sanitize_name(typed)
    except ValueError:
        return NameNote(
            "error", f"‘{md(typed)}’ cannot name a tokenizer: use {md(NAME_RULE)}.", usable=False, saved_as=None
        )
    if clean == typed.strip():
        return None
    message = f"It will be saved as **{md(clean)}**: a library name holds {md(NAME_RULE)}."
    return NameNote("warning", message, usable=True, saved_as=clean)


def show_name_note(typed: str, container) -> bool:
    """Draw ``name_note(typed)`` in ``container`` (``st`` or a column); whether the name can be used
    (an empty one counts as usable: the caller decides what it means)."""
    note = name_note(typed)
    if note is None:
        return True
    getattr(container, note.kind)(note.message)  # plain: name_note escapes the typed name
    return note.usable
