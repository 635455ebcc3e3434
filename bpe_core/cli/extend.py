"""``python -m bpe_core extend``: a tokenizer you already use, extended on your corpus (``bpe_core.extend``).

``extend -t BASE INPUTS... --add N -o OUT`` continues BPE from BASE's merges on the corpus (files,
folders, globs in every format ``train`` reads) for N new tokens, keeping every id; ``--scripts``
restricts them to Unicode scripts, ``--first-id`` says where the new ids start, ``--superwords`` lets
them span words (SuperBPE's stage 2). It writes bpe_core JSON (``load`` reads it) or, with
``--format``, a ``tokenizer.json`` (the base's own file extended, when it was read from one) or
``.tiktoken`` ranks; ``--heldout`` measures the language's tokens per character (and, with
``--reference``, its premium) before and after, as a curve over the tokens added. Parsing and printing
only; the library does the work.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bpe_core.analysis.extension import ExtensionReport, extension_report
from bpe_core.cli.common import ProgressBar, check_output, read_input_text, reading_options, say, write_output
from bpe_core.cli.corpus import INPUTS_HELP, add_counting_arguments, report_bad_rows, warn_if_no_text
from bpe_core.errors import BpeError
from bpe_core.pretrained.catalogue import resolve
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.extension import extend
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from bpe_core.workspace.extension_files import FORMATS, base_tokenizer_json, extension_file

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _scripts(value: str | None) -> list[str] | None:
    if value is None:
        return None
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        raise BpeError(
            "--scripts is empty: give Unicode script names separated by commas, e.g. Devanagari or Han,Hiragana"
        )
    return names


def cmd_extend(args: argparse.Namespace) -> int:
    check_output(args.output)  # before any work, so a bad -o costs nothing
    heldout = read_input_text(args.heldout) if args.heldout else None
    if args.reference and not args.heldout:
        raise BpeError("--reference is the held-out text's translation: give --heldout FILE too")
    reference = read_input_text(args.reference) if args.reference else None
    base = resolve(args.tokenizer)
    if isinstance(base, ExternalTokenizer):
        raise BpeError(
            f"cannot extend {base.name!r}: it is a {base.kind}, which bpe_core runs read-only; extend a byte-level "
            "BPE tokenizer (the built-ins, a tokenizer.json of one, a .tiktoken file, one trained here)"
        )
    bar = ProgressBar(force=args.progress, count_unit="bytes")
    extended = extend(
        base,
        files=args.inputs,
        add=args.add,
        scripts=_scripts(args.scripts),
        superwords=args.superwords,
        first_id=args.first_id,
        min_frequency=args.min_frequency,
        tie_break=args.tie_break,
        progress=bar,
        name=args.name,
        workers=args.workers,
        **reading_options(args),
    )
    bar.close()
    base_json = base_tokenizer_json(args.tokenizer) if args.format == "huggingface" else None
    write_output(args.output, extension_file(args.format, base, extended, base_json=base_json))
    training: dict[str, Any] = extended.training
    corpus = training["corpus"]
    report_bad_rows(corpus.get("bad_rows", 0), training.get("bad_row_examples", []))
    warn_if_no_text(corpus["documents"], corpus["characters"], result="no token was added")
    _print_extension(base, extended)
    if heldout is not None:
        report = extension_report(base, extended, [heldout], reference=[reference] if reference else None)
        _print_report(report, args.heldout, args.reference)
    kept = " (the base's own tokenizer.json, with the new tokens)" if base_json and extended.rule == "bpe" else ""
    say(f"  saved to {args.output} as {args.format}{kept}")
    return 0


def _print_extension(base: Tokenizer, extended: Tokenizer) -> None:
    training: dict[str, Any] = extended.training
    record, corpus = training["extension"], training["corpus"]
    added = record["added"]
    ids = f"ids {record['first_id']:,}-{record['first_id'] + added - 1:,}" if added else "no new id"
    say(f"extended {base.name!r} ({base.vocab_size:,} ids) by {added:,} tokens: {ids} ({training['stop_reason']})")
    say(
        f"  corpus: {corpus['documents']:,} document(s), {corpus['characters']:,} characters, "
        f"{corpus['pretokens']:,} pre-tokens ({corpus['unique_pretokens']:,} unique)"
    )
    before = record["tokens_before"]
    after = training["tokens_after_merge"][-1] if training["tokens_after_merge"] else before
    if before:
        say(f"  corpus tokens: {before:,} -> {after:,} ({(after - before) / before:+.1%})")
    other = record["other_text"]
    scripts = ", ".join(other["scripts"]) or "any script"
    changed = other["pretokens_changed"]
    what = (
        f"{changed:,} of {other['pretokens']:,} pre-tokens changed"
        if changed is not None
        else f"tokens {other['tokens_before']:,} -> {other['tokens_after']:,} (superwords pre-tokenize anew)"
    )
    samples = ", ".join(other["changed_samples"][:6]) + ("..." if len(other["changed_samples"]) > 6 else "")
    say(
        f"  other text (the {other['samples']} built-in samples without {scripts}): {what}"
        + (f"; changed: {samples}" if samples else "")
    )


def _print_report(report: ExtensionReport, heldout: str, reference: str | None) -> None:
    before, after = report.before, report.after
    say(f"  held-out text ({heldout}): {report.characters:,} characters")
    say("    added  tokens  tokens/char" + ("  premium" if reference else ""))
    for point in report.curve:
        premium = f"  {point.premium:6.2f}x" if point.premium is not None else ""
        per_char = f"{point.tokens_per_character:11.3f}" if point.tokens_per_character is not None else "          -"
        say(f"    {point.added:5,}  {point.tokens:6,}  {per_char}{premium}")
    saving = report.saving
    say(
        f"    {before.tokens:,} -> {after.tokens:,} tokens"
        + (f" ({-saving:+.1%})" if saving is not None else "")
        + f"; within 1% of that from {report.flattens_at():,} new tokens; {len(report.unused):,} new tokens unused "
        f"here; the model's embedding gains {report.embedding_rows:,} rows"
    )


def add_extend_parser(sub: Subparsers, tokenizer_help: str) -> argparse.ArgumentParser:
    """Register ``extend`` on ``main.build_parser``'s subparsers ``sub``; returns its parser."""
    p = sub.add_parser(
        "extend", help="add tokens for your language to a tokenizer you already use, keeping every id it has"
    )
    p.add_argument("--tokenizer", "-t", required=True, help="the tokenizer to extend: " + tokenizer_help)
    p.add_argument("inputs", nargs="+", metavar="INPUTS", help=INPUTS_HELP)
    p.add_argument(
        "--add", type=int, required=True, help="how many new tokens to learn (at most; fewer when pairs run out)"
    )
    p.add_argument(
        "--scripts",
        help="new tokens only in these Unicode scripts, comma-separated (e.g. Devanagari or Han,Hiragana,Katakana): "
        "text with none of them then encodes exactly as before",
    )
    p.add_argument("--first-id", type=int, help="the first new id (default: after the highest id in use)")
    p.add_argument("--superwords", action="store_true", help="new tokens may span words (SuperBPE's stage 2)")
    p.add_argument(
        "--min-frequency", type=int, default=2, help="stop when the best pair occurs fewer times (default 2)"
    )
    p.add_argument(
        "--tie-break",
        choices=TIE_BREAKS,
        default="huggingface",
        help="; ".join(f"{k}: {v}" for k, v in TIE_RULES.items()) + " (default: huggingface)",
    )
    p.add_argument("--name", help="the new tokenizer's name (default: the base's, + the tokens added)")
    p.add_argument(
        "--format",
        choices=list(FORMATS),
        default="bpe_core",
        help="bpe_core JSON (default), huggingface (tokenizer.json; the base's own file extended when it was "
        "read from one) or tiktoken (.tiktoken ranks)",
    )
    p.add_argument("--output", "-o", required=True, help="where to write the extended tokenizer")
    p.add_argument("--heldout", metavar="FILE", help="text of the language not in INPUTS: print the curve on it")
    p.add_argument("--reference", metavar="FILE", help="--heldout's translation (e.g. English): print the premium")
    add_counting_arguments(p)
    p.set_defaults(func=cmd_extend)
    return p
