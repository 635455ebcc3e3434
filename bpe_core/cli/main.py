"""The ``python -m bpe_core`` command line: list, train, count, extend, encode, decode, inspect, export,
compare, parity, lab, chat and app.

Every subcommand prints a one-line ``error: ...`` (exit status 2) instead of a traceback when the
input is bad or an output cannot be written; outputs are checked before any work starts, written
atomically, and a failed write leaves no temporary file behind. Tokenizers are named by a built-in
name (``list``) or a file path (bpe_core JSON, any ``tokenizer.json``, ``.tiktoken``, SentencePiece
``.model``; non-BPE ones run read-only, see ``external``). The library does the work; this module
only parses arguments, prints and writes files; ``train`` and ``count`` are ``cli.corpus``'s, ``extend``
``cli.extend``'s, ``parity`` ``cli.parity``'s, ``lab`` (and train's SuperBPE and Picky BPE options)
``cli.variants``', ``chat`` ``cli.chat``'s, ``app`` (start the workbench) ``cli.workbench``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bpe_core.analysis import metrics
from bpe_core.analysis.csv_export import csv_text
from bpe_core.cli.chat import add_chat_parser
from bpe_core.cli.common import check_output, read_input_text, say, write_output
from bpe_core.cli.corpus import add_corpus_parsers
from bpe_core.cli.extend import add_extend_parser
from bpe_core.cli.parity import add_parity_parser
from bpe_core.cli.variants import add_lab_parser
from bpe_core.cli.workbench import add_app_parser
from bpe_core.corpora.samples import Sample, load_samples
from bpe_core.display.marks import terminal_safe, token_display
from bpe_core.errors import BpeError, BpeWarning
from bpe_core.formats import gpt2_files, huggingface, tiktoken_file
from bpe_core.pretokenization.special_tokens import SpecialTokens
from bpe_core.pretrained import catalogue, hub_cache
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.tokenizer import Tokenizer

#: The files ``export --format gpt2`` writes into its folder.
GPT2_FILES = ("vocab.json", "merges.txt")


def resolve_tokenizer(spec: str) -> Tokenizer | ExternalTokenizer:
    """A built-in tokenizer's name (``gpt2``, ``cl100k``, ``o200k``, ``llama3``, ``qwen``, ... see
    ``catalogue``; one whose package is missing is a ValueError saying what to pip install) or a
    tokenizer file."""
    return catalogue.resolve(spec)  # an ExternalTokenizer for files bpe_core does not run itself


def _read_text(args: argparse.Namespace) -> str:
    if getattr(args, "text", None) is not None:
        return args.text
    return read_input_text(getattr(args, "file", None) or None)


def _allowed(value: str | None) -> SpecialTokens:
    if value is None:
        return frozenset()
    if value == "all":
        return "all"
    return frozenset(v for v in value.split(",") if v)


def cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = resolve_tokenizer(args.tokenizer)
    text = _read_text(args)
    ids = tokenizer.encode(text, allowed_special=_allowed(args.allowed_special))
    if args.format == "ids":
        print(" ".join(map(str, ids)))
    elif args.format == "json":
        print(json.dumps(ids))
    else:
        for info in tokenizer.encode_with_details(text, allowed_special=_allowed(args.allowed_special)):
            print(f"{info.id}\t{token_display(info.bytes)}")
    if args.stats:
        print(
            f"{len(ids)} tokens, {len(text)} characters, {len(text) / max(1, len(ids)):.2f} characters/token",
            file=sys.stderr,
        )
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    tokenizer = resolve_tokenizer(args.tokenizer)
    raw = args.ids if args.ids else read_input_text(None).replace(",", " ").replace("[", " ").replace("]", " ").split()
    ids: list[int] = []
    for item in raw:
        try:
            ids.append(int(item))
        except ValueError:
            raise BpeError(f"{_quoted(item)} is not a token id (ids are whole numbers)") from None
    sys.stdout.write(tokenizer.decode(ids))
    sys.stdout.write("\n")
    return 0


def tokenizer_arg(args: argparse.Namespace) -> str:
    """The tokenizer a command names with ``-t``; the older positional form still works, with a note on
    stderr (every subcommand takes ``-t`` now)."""
    given = args.tokenizer
    if args.tokenizer_positional is not None:
        if given is not None and given != args.tokenizer_positional:
            raise BpeError(f"two tokenizers named: -t {given} and {args.tokenizer_positional}; give one, with -t")
        say(
            f"note: give the tokenizer with -t ({args.command} -t {args.tokenizer_positional}); "
            "the form without -t still works",
            file=sys.stderr,
        )
        given = args.tokenizer_positional
    if given is None:
        raise BpeError(f"name the tokenizer with -t: {_TOKENIZER_HELP}")
    return given


def _add_tokenizer_arguments(p: argparse.ArgumentParser) -> None:
    """``-t``/``--tokenizer``, and the older positional TOKENIZER (kept working, see ``tokenizer_arg``)."""
    p.add_argument("--tokenizer", "-t", help=_TOKENIZER_HELP)
    p.add_argument("tokenizer_positional", nargs="?", metavar="TOKENIZER", help="the same, without -t (older form)")


def cmd_inspect(args: argparse.Namespace) -> int:
    if args.merges < 0:
        raise BpeError(f"--merges {args.merges} is negative: give how many merges to list (0 or more)")
    tokenizer = resolve_tokenizer(tokenizer_arg(args))
    say(repr(tokenizer))
    if isinstance(tokenizer, ExternalTokenizer):
        say(f"kind: {tokenizer.kind}")
        say(f"note: {tokenizer.note}")
    else:
        say(f"pattern: {tokenizer.pattern_name or tokenizer.pattern!r}")
    if tokenizer.special_tokens:
        say("special tokens: " + ", ".join(f"{t}={i}" for t, i in tokenizer.special_tokens.items()))
    if isinstance(tokenizer, ExternalTokenizer):
        say(f"merges: none ({tokenizer.why_no_merges})")
        return 0
    if tokenizer.training:
        say("trained with: " + _key_values(tokenizer.training.get("settings")))
        say("corpus: " + _key_values(tokenizer.training.get("corpus")))
        say(f"stopped: {tokenizer.training.get('stop_reason')}")
    if args.vocab:
        for line in tokenizer.vocab_dump().splitlines():
            say(line)
        return 0
    if tokenizer.rule == "picky":  # events, not ranked merges
        _print_picky_events(tokenizer, args.merges)
        return 0
    records = tokenizer.merge_records[: args.merges]
    if records:
        say(f"first {len(records)} merges (rank: left + right -> new id [count]):")
    vocab = tokenizer.vocab
    for r in records:
        count = "" if r.count is None else f"  [{r.count}]"
        say(
            f"  {r.rank}: [{token_display(vocab[r.left])}] + [{token_display(vocab[r.right])}] -> "
            f"{r.id} [{token_display(vocab[r.id])}]{count}"
        )
    return 0


def _quoted(text: str) -> str:
    """``repr`` of user text, cut to 60 characters."""
    return repr(text) if len(text) <= 60 else repr(text[:57]) + "..."


def _print_picky_events(tokenizer: Tokenizer, limit: int) -> None:
    events = tokenizer.picky_events
    removals = sum(kind == "remove" for kind, _, _ in events)
    say(f"Picky BPE: {len(events)} events ({len(events) - removals} merges, {removals} removals); first {limit}:")
    for step, (kind, token, parts) in enumerate(events[:limit]):
        shown = " + ".join(f"[{token_display(part)}]" for part in parts)
        arrow = f"{shown} -> [{token_display(token)}]" if kind == "merge" else f"[{token_display(token)}] -> {shown}"
        say(f"  {step}: {kind} {arrow}")


def _key_values(record: object) -> str:
    """``key=value, ...`` of a training record's object (nothing for anything else)."""
    return ", ".join(f"{k}={v}" for k, v in record.items()) if isinstance(record, dict) else ""


def cmd_export(args: argparse.Namespace) -> int:
    check_output(args.output, folder=args.format == "gpt2", files=GPT2_FILES)
    tokenizer = resolve_tokenizer(tokenizer_arg(args))
    if isinstance(tokenizer, ExternalTokenizer):
        raise BpeError(
            f"cannot export {tokenizer.name!r}: it is a {tokenizer.kind}, which bpe_core reads but "
            "does not run; only byte-level BPE tokenizers can be exported"
        )
    if args.format == "bpe_core":
        write_output(args.output, tokenizer.to_json())
    elif args.format == "huggingface":
        write_output(args.output, json.dumps(huggingface.to_huggingface_dict(tokenizer), ensure_ascii=False))
    elif args.format == "tiktoken":
        write_output(args.output, tiktoken_file.dumps_tiktoken(tokenizer))
    else:
        gpt2_files.save_gpt2_files(tokenizer, args.output)
    say(f"wrote {args.format} export of {tokenizer.name!r} to {args.output}")
    return 0


def _compare_samples(
    files: Sequence[str], reference: str | None
) -> tuple[list[Sample] | list[tuple[str, str]], str | None]:
    """Samples for ``compare``: the files given (label = file name), else the built-in ones; and the
    reference's id (a file among them, a built-in id, or English by default)."""
    if not files:
        return load_samples(), reference or "eng"
    samples = [(Path(file).name, read_input_text(file)) for file in files]
    if reference and Path(reference).is_file() and Path(reference).name not in [label for label, _ in samples]:
        samples.append((Path(reference).name, read_input_text(reference)))
    if reference and Path(reference).is_file():
        reference = Path(reference).name
    # Your own files are not parallel to the built-in English passage: no premium unless asked.
    return samples, reference


COMPARE_COLUMNS = [
    ("tokenizer", "tokenizer", "{}"),
    ("sample", "label", "{}"),
    ("tokens", "tokens", "{:,}"),
    ("chars/token", "chars_per_token", "{:.2f}"),
    ("bytes/token", "bytes_per_token", "{:.2f}"),
    ("premium", "premium", "{:.2f}x"),
    ("fertility", "fertility", "{:.2f}"),
    ("split words", "split_share", "{:.0%}"),
    ("renyi eff.", "renyi_efficiency", "{:.3f}"),
    ("unique", "unique_tokens", "{:,}"),
    ("avg rank", "avg_token_rank", "{:.1f}"),
    ("zipf slope", "zipf_slope", "{:.2f}"),
]


def format_compare_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows of ``metrics.compare`` as an aligned text table ("-" where not applicable)."""
    header = [title for title, _, _ in COMPARE_COLUMNS]
    body = [["-" if row.get(key) is None else fmt.format(row[key]) for _, key, fmt in COMPARE_COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def aligned(line: list[str]) -> str:  # the first two columns are text, the others numbers
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))

    lines = [aligned(line) for line in [header, *body]]
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> int:
    tokenizers: dict[str, Tokenizer | ExternalTokenizer] = {}
    for spec in args.tokenizer or ["gpt2"]:
        tokenizers[spec] = resolve_tokenizer(spec)
    samples, reference = _compare_samples(args.files, args.reference)
    rows = metrics.compare(tokenizers, samples, reference=reference)
    if args.csv:  # spreadsheet-safe: a file named =cmd... is text, never a formula
        sys.stdout.write(csv_text(list(rows[0]) if rows else [], rows))
        return 0
    for line in format_compare_table(rows).splitlines():
        say(line)
    if any(row["premium"] is not None for row in rows):
        for label in tokenizers:
            say(metrics.summary_sentence(rows, label))
    return 0


_TOKENIZER_HELP = (
    "a built-in name (gpt2, cl100k, o200k, llama3, qwen, ...: see the list command), a tokenizer file, "
    "or org/name[@revision] for a model in the Hugging Face cache"
)


def cmd_list(args: argparse.Namespace) -> int:
    """Every built-in tokenizer, with what to pip install for the ones that are missing."""
    for status in catalogue.available():
        print(f"{status.name:<14} {status.label if status.installed else catalogue.not_installed_message(status.name)}")
    print(
        "or a file: bpe_core JSON, tokenizer.json (any model; non-BPE ones run read-only by tokenizers), "
        ".tiktoken, SentencePiece .model (needs sentencepiece)"
    )
    try:
        cached = hub_cache.describe(hub_cache.cached_models())
        note = ":" if cached else " (none cached)"
    except BpeError:  # huggingface_hub is not installed
        cached, note = [], f" (needs huggingface_hub: {hub_cache.INSTALL_HINT})"
    print(f"or a model in the Hugging Face cache, as org/name[@revision]{note}")
    for line in cached:
        print(f"  {line}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bpe_core", description="Train and use byte-level BPE tokenizers.")
    sub = parser.add_subparsers(dest="command", required=True)

    add_corpus_parsers(sub)
    add_extend_parser(sub, _TOKENIZER_HELP)

    p = sub.add_parser("list", help="the built-in tokenizers -t takes, and what to install for missing ones")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("encode", help="encode text to token ids")
    p.add_argument("--tokenizer", "-t", default="gpt2", help=_TOKENIZER_HELP)
    p.add_argument("--text", help="the text (default: read FILE or standard input)")
    p.add_argument("file", nargs="?", help="a UTF-8 file to encode")
    p.add_argument("--allowed-special", help="'all' or comma-separated special tokens to encode as such")
    p.add_argument("--format", choices=["ids", "json", "tokens"], default="ids")
    p.add_argument("--stats", action="store_true", help="print counts to stderr")
    p.set_defaults(func=cmd_encode)

    p = sub.add_parser("decode", help="decode token ids to text")
    p.add_argument("--tokenizer", "-t", default="gpt2", help=_TOKENIZER_HELP)
    p.add_argument("ids", nargs="*", help="token ids (default: read them from standard input)")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("inspect", help="describe a tokenizer: settings, corpus, merges, vocab")
    _add_tokenizer_arguments(p)
    p.add_argument("--merges", type=int, default=20, help="how many merges to list (default 20)")
    p.add_argument("--vocab", action="store_true", help="print the whole vocabulary, minbpe style")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("export", help="write a tokenizer in another format")
    _add_tokenizer_arguments(p)
    p.add_argument(
        "--format",
        choices=["bpe_core", "huggingface", "tiktoken", "gpt2"],
        required=True,
        help="huggingface: tokenizer.json; tiktoken: .tiktoken ranks; gpt2: a folder with vocab.json + merges.txt",
    )
    p.add_argument("--output", "-o", required=True)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("compare", help="characters per token and premium of tokenizers over sample files")
    p.add_argument("files", nargs="*", help="UTF-8 files, one per language or program (default: the built-in samples)")
    p.add_argument("--tokenizer", "-t", action="append", help=_TOKENIZER_HELP + " (repeat; default gpt2)")
    p.add_argument(
        "--reference", help="the file (or built-in sample id) token counts are compared with (default: English)"
    )
    p.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    p.set_defaults(func=cmd_compare)
    add_parity_parser(sub, _TOKENIZER_HELP)
    add_lab_parser(sub)
    add_chat_parser(sub, _TOKENIZER_HELP)
    add_app_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_line
            return args.func(args)
    except BpeError as exc:  # bad input; anything else is a bug and keeps its traceback
        return _error(str(exc))
    except BrokenPipeError:  # e.g. `| head`: the reader left; nothing more to say
        _silence_stdout()
        return 1
    except OSError as exc:  # anything the checks above did not foresee, still as one line
        where = f" ({exc.filename})" if exc.filename else ""
        return _error(f"{exc.strerror or exc}{where}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _error(message: str) -> int:
    """The one-line error the command promises (newlines in a message folded, other control
    characters escaped: a message may quote a file or the user), exit status 2."""
    print(
        "error: " + terminal_safe(" ".join(line.strip() for line in message.splitlines() if line.strip())),
        file=sys.stderr,
    )
    return 2


def _warning_line(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """bpe_core's warnings (``BpeWarning``: a cache that cannot be used...) as one ``warning: ...``
    line on stderr, like the CLI's own; other libraries' warnings as Python shows them."""
    if issubclass(category, BpeWarning):
        print("warning: " + terminal_safe(str(message)), file=sys.stderr)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
