"""``python -m bpe_core chat``: a conversation as a model reads it, in its chat format
(``bpe_core.pretrained.chat_formats``), printed as ids, as the text with its special tokens, or as one
token a line.

The turns are given in order with ``--system``, ``--user`` and ``--assistant`` (each repeatable), or as
a JSON file of ``{"role": ..., "content": ...}`` objects (``--messages``, ``-`` for standard input), the
form chat APIs use. This module parses and prints; the formats are the library's.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bpe_core.cli.common import read_input_text
from bpe_core.display.marks import token_display
from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import parse_json
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.chat_formats import FORMATS, ChatFormat, Message, chat_format, formats_for
from bpe_core.tokenizer import Tokenizer


class _Turn(argparse.Action):
    """``--system``/``--user``/``--assistant TEXT``: one turn, kept in the order given."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        turns = list(getattr(namespace, "turns", None) or [])
        turns.append(Message(self.const, values))
        namespace.turns = turns


def _from_json(source: str) -> list[Message]:
    """The messages of a JSON array of ``{"role", "content"}`` objects (a file, or ``-``: standard input)."""
    where = "standard input" if source == "-" else source
    data = parse_json(read_input_text(None if source == "-" else source), source=where)
    if not isinstance(data, list):
        raise BpeError(f"{where} holds {type(data).__name__}: give a JSON array of {{'role', 'content'}} objects")
    messages = []
    for number, item in enumerate(data, 1):
        if not isinstance(item, dict) or not isinstance(item.get("content"), str) or "role" not in item:
            raise BpeError(f"{where}: message {number} is not an object with a 'role' and a text 'content'")
        messages.append(Message(str(item["role"]), item["content"]))
    return messages


def _format_for(name: str, asked: str | None) -> ChatFormat:
    if asked is not None:
        return chat_format(asked)
    found = formats_for(catalogue.ALIASES.get(name, name))
    if not found:
        with_formats = sorted({t for f in FORMATS.values() for t in f.tokenizers})
        raise BpeError(
            f"no chat format is known for {name!r}: chat formats are for {', '.join(with_formats)} "
            "(or name one with --format)"
        )
    return found[0]


def cmd_chat(args: argparse.Namespace) -> int:
    if args.messages and args.turns:
        raise BpeError("give the turns with --system/--user/--assistant or with --messages, not both")
    messages = _from_json(args.messages) if args.messages else list(args.turns or [])
    if not messages:
        raise BpeError("no conversation: give turns with --user (and --system, --assistant) or --messages FILE")
    fmt = _format_for(args.tokenizer, args.format)
    tokenizer = catalogue.resolve(args.tokenizer)
    if not isinstance(tokenizer, Tokenizer):
        raise BpeError(f"{args.tokenizer} is run read-only ({tokenizer.kind}): chat formats need a bpe_core tokenizer")
    text, infos = fmt.encode_with_details(tokenizer, messages)
    if args.show == "text":
        sys.stdout.write(text + "\n")
    elif args.show == "tokens":
        for info in infos:
            print(f"{info.id}\t{token_display(info.bytes)}")
    else:
        print(" ".join(str(info.id) for info in infos))
    specials = sum(info.special for info in infos)
    print(f"{len(infos)} tokens ({specials} special) in the {fmt.label} format", file=sys.stderr)
    return 0


def add_chat_parser(sub: Any, tokenizer_help: str) -> None:
    """Register ``chat`` on the subparsers ``sub`` of ``main.build_parser``."""
    p = sub.add_parser("chat", help="a conversation in a model's chat format: its ids, text or tokens")
    p.add_argument("--tokenizer", "-t", required=True, help=tokenizer_help)
    p.add_argument("--format", choices=list(FORMATS), help="the chat format (default: the tokenizer's own)")
    for role in ("system", "user", "assistant"):
        p.add_argument(f"--{role}", action=_Turn, const=role, metavar="TEXT", help=f"a {role} turn (repeat, in order)")
    p.add_argument("--messages", metavar="FILE", help="a JSON array of {role, content} objects ('-': standard input)")
    p.add_argument("--show", choices=["ids", "text", "tokens"], default="ids", help="what to print (default ids)")
    p.set_defaults(func=cmd_chat, turns=None)
