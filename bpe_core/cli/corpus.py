"""``python -m bpe_core train`` and ``count``: corpora in, a tokenizer or count shards out.

``train INPUTS... -o tok.json`` trains on files, folders and glob patterns in any format ``datasets``
reads (text, JSONL, JSON arrays, Parquet, gzip/zstd), with a progress bar in bytes read and a one-line
summary of skipped bad rows on stderr; ``train --counts DIR... -o tok.json`` trains from count-shard
folders instead. ``count INPUTS... -o DIR`` writes the pre-token counts as a count-shard folder
(``count_shards``). Each command is built by its own function (``add_train_parser``,
``add_count_parser``) that returns its parser, so options can be added to one command, and counting
goes through ``count_inputs``. Parsing and printing only; ``main`` registers the commands and turns
their ValueErrors into one-line errors.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_core.cli import variants
from bpe_core.cli.common import ProgressBar, check_output, pattern_option, reading_options, say, write_output
from bpe_core.corpora.documents import BAD_ROW_CHOICES, BadRows
from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.training.count_shards import (
    ROWS_PER_SHARD,
    check_shard_folder,
    check_shards_settings,
    read_count_shards,
    shard_settings,
    write_count_shards,
)
from bpe_core.training.counting import WordCounts, count_files
from bpe_core.training.dask_cluster import is_scheduler_address
from bpe_core.training.distributed import count_on_dask
from bpe_core.training.tie_rules import TIE_BREAKS, TIE_RULES
from bpe_core.training.trainer import READING_DEFAULTS, TrainingSettings, merge_counts

if TYPE_CHECKING:
    from bpe_core.tokenizer import Tokenizer

    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

INPUTS_HELP = (
    "files, folders (every file under them) and glob patterns (quote them: 'data/**/*.jsonl'): text "
    "files (one document each), .jsonl/.ndjson, .json arrays and .parquet (one document per row), "
    ".gz/.zst compressed text, JSONL and JSON"
)
DEFAULT_PATTERN = "gpt2"


def pattern_arg(args: argparse.Namespace) -> str | None:
    """``--pattern`` as the library takes it (``common.pattern_option``; default gpt2)."""
    return pattern_option(args.pattern, default=DEFAULT_PATTERN)


def special_tokens_arg(args: argparse.Namespace) -> tuple[str, ...]:
    """``--special-token`` values checked (``validate_special_tokens``), the error naming the option.
    Bytes that are not UTF-8 on the command line arrive as lone surrogates, which are refused."""
    try:
        return validate_special_tokens(args.special_token or ())
    except BpeError as exc:
        raise BpeError(f"--special-token: {exc} (on the command line: give UTF-8 text)") from None


def add_counting_arguments(parser: argparse.ArgumentParser) -> None:
    """How corpus files are read (``reading_options``) and counted, the same in every command that counts."""
    parser.add_argument(
        "--text-field",
        default=READING_DEFAULTS["text_field"],
        help="the field (JSONL, JSON) or column (Parquet) that holds the text (default: text)",
    )
    parser.add_argument(
        "--bad-rows",
        choices=BAD_ROW_CHOICES,
        default=READING_DEFAULTS["on_bad_row"],
        help="rows without text (bad JSON or UTF-8, field missing, null or not a string): skip and "
        "report them (default), or stop at the first",
    )
    parser.add_argument("--workers", type=int, help="processes that count (default: automatic)")
    parser.add_argument(
        "--progress", action="store_true", help="draw the progress bar even when stderr is not a terminal"
    )


def add_reading_arguments(parser: argparse.ArgumentParser, *, inputs_required: bool = True) -> None:
    """The options of every command that reads a corpus: inputs, how to split, what is text, bad rows."""
    parser.add_argument("inputs", nargs="+" if inputs_required else "*", metavar="INPUTS", help=INPUTS_HELP)
    parser.add_argument("--pattern", help=f"gpt2, cl100k, o200k, none, or a custom regex (default {DEFAULT_PATTERN})")
    parser.add_argument("--special-token", action="append", help="a special token (repeat for several)")
    add_counting_arguments(parser)
    parser.add_argument(
        "--dask",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        type=_dask_address,
        help="count on Dask: a local cluster (--dask after the inputs, or --dask local), or the "
        "scheduler at ADDRESS (tcp://host:8786), whose workers see the same paths (pip install -r "
        "requirements-distributed.txt)",
    )
    parser.add_argument(
        "--dask-workers", type=int, metavar="N", help="the local cluster's processes (default: one per CPU)"
    )


def _dask_address(value: str) -> str:
    """``--dask``'s value: ``local`` or an address; argparse hands it the next word, which may be an input."""
    if value != "local" and not is_scheduler_address(value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a scheduler address (tcp://host:8786): for a local cluster put --dask after the "
            "inputs or write --dask local"
        )
    return value


def dask_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """``count_on_dask``'s scheduler and workers from ``--dask``/``--dask-workers``, or None without ``--dask``."""
    if args.dask is None:
        if args.dask_workers is not None:
            raise BpeError("--dask-workers sets the local Dask cluster's size: add --dask")
        return None
    if args.workers is not None:
        raise BpeError("--workers is for counting here; with --dask use --dask-workers (local cluster)")
    scheduler = None if args.dask == "local" else args.dask
    return {"scheduler": scheduler, "workers": args.dask_workers}


def report_bad_rows(count: int, examples: list[dict[str, Any]]) -> None:
    """The one-line summary of skipped bad rows on stderr (nothing when there were none)."""
    if count:
        say(f"warning: {BadRows(count, list(examples)).summary()}", file=sys.stderr)


def count_inputs(args: argparse.Namespace, progress: Callable[[str, int, int], None] | None) -> WordCounts:
    """Count the pre-tokens of ``args.inputs`` as the options say (the counting step of both commands):
    on Dask with ``--dask``, else here; the one place that chooses."""
    dask = dask_options(args)
    if dask is not None:
        return count_on_dask(
            args.inputs,
            pattern=pattern_arg(args),
            special_tokens=special_tokens_arg(args),
            **reading_options(args),
            progress=progress,
            **dask,
        )
    return count_files(
        args.inputs,
        pretokenizer=PreTokenizer.build(pattern_arg(args)),
        special_tokens=special_tokens_arg(args),
        workers=check_workers(args.workers),
        progress=progress,
        **reading_options(args),
    )


def _print_training(tokenizer: Tokenizer, output: str) -> None:
    training: dict[str, Any] = tokenizer.training  # as training wrote it just now
    corpus = training["corpus"]
    tokens = training["tokens_after_merge"][-1] if training["tokens_after_merge"] else corpus["bytes"]
    say(f"trained {tokenizer!r}")
    say(
        f"  corpus: {corpus['documents']:,} document(s), {corpus['characters']:,} characters, {corpus['bytes']:,} "
        f"bytes, {corpus['pretokens']:,} pre-tokens ({corpus['unique_pretokens']:,} unique)"
    )
    if corpus.get("bad_rows"):
        say(f"  bad rows skipped: {corpus['bad_rows']:,}")
    say(f"  merges: {training['merges_learned']:,} ({training['stop_reason']}) in {training['seconds']:.2f}s")
    if tokens and corpus["characters"]:
        say(
            f"  training text: {corpus['characters'] / tokens:.2f} characters/token, "
            f"{corpus['bytes'] / tokens:.2f} bytes/token"
        )
    say(f"  saved to {output}")


def _refuse_reading_options(args: argparse.Namespace) -> None:
    """``train --counts``: the options that say how to read a corpus have nothing to act on (the
    shards are counted already), so a non-default one is refused rather than silently ignored."""
    given = [
        option
        for option, used in (
            ("--text-field", args.text_field != READING_DEFAULTS["text_field"]),
            ("--bad-rows", args.bad_rows != READING_DEFAULTS["on_bad_row"]),
            ("--workers", args.workers is not None),
        )
        if used
    ]
    if given:
        raise BpeError(
            f"{given[0]} applies to reading a corpus; --counts folders are counted already: drop "
            f"{given[0]} (or give it to `count` when making the shards)"
        )


def warn_if_no_text(documents: int, characters: int, *, result: str) -> None:
    """A corpus without any text (no document, or only empty ones) gives an empty ``result``: legal,
    but almost surely a mistake (wrong folder, wrong --text-field), so it is said on stderr."""
    if not characters:
        say(
            f"warning: the corpus has no text: {documents:,} document(s), 0 characters, so {result}; check the "
            "inputs and --text-field",
            file=sys.stderr,
        )


def cmd_train(args: argparse.Namespace) -> int:
    check_output(args.output)  # before training, so a bad -o costs no training time
    dask = dask_options(args)
    if dask is not None and args.counts:
        raise BpeError("--dask counts INPUTS on a cluster; --counts folders are counted already: drop --dask")
    if bool(args.inputs) == bool(args.counts):
        raise BpeError(
            "give either INPUTS (files, folders, globs) or --counts DIR (count-shard folders), not both"
            if args.inputs
            else "give INPUTS (files, folders, globs) or --counts DIR to train on"
        )
    variant = variants.chosen_variant(args)  # SuperBPE or Picky BPE, else None
    bar = ProgressBar(force=args.progress, count_unit="bytes")
    started = time.perf_counter()  # the recorded seconds include reading or counting, as train_files' do
    pattern: str | None
    specials: Sequence[str]
    if variant == "superbpe":
        pattern, specials = None, ()  # its recipe's patterns; superbpe.train_superbpe_files checks the rest
    elif args.counts:
        _refuse_reading_options(args)
        expected: dict[str, Any] = {"pattern": pattern_arg(args)} if args.pattern is not None else {}
        if args.special_token:
            expected["special_tokens"] = list(special_tokens_arg(args))
        word_counts, shards = read_count_shards(args.counts)
        check_shards_settings(shards, expected)
        pattern, specials = shards["pattern"], shards["special_tokens"]
    else:
        pattern, specials = pattern_arg(args), special_tokens_arg(args)
    tie_break = variants.default_tie_break(args)
    settings = TrainingSettings(
        args.vocab_size, args.min_frequency, pattern, specials, tie_break, args.name or "trained"
    )
    if variant == "superbpe":
        tokenizer = variants.train_superbpe_command(args, bar)
    else:
        if not args.counts:
            word_counts = count_inputs(args, bar)  # after the settings were checked: a bad one costs no counting
        tokenizer = (
            variants.train_picky_command(args, word_counts, settings, bar, started)
            if variant == "picky"
            else merge_counts(word_counts, settings, progress=bar, started=started)
        )
    bar.close()
    tokenizer.name = args.name or default_name(args.inputs or args.counts, tokenizer.vocab_size)
    write_output(args.output, tokenizer.to_json())
    training: dict[str, Any] = tokenizer.training  # as training wrote it just now
    corpus = training["corpus"]
    report_bad_rows(corpus.get("bad_rows", 0), training.get("bad_row_examples", []))
    warn_if_no_text(
        corpus["documents"],
        corpus["characters"],
        result=f"the tokenizer has no merges ({tokenizer.vocab_size:,} tokens)",
    )
    _print_training(tokenizer, args.output)
    variants.print_variant(tokenizer)
    return 0


def default_name(inputs: Sequence[str], vocab_size: int) -> str:
    """A trained tokenizer's name when none is given: its corpus (the first input's name, and how many
    more) and the vocabulary it reached.

    >>> default_name(["data/shakespeare.txt"], 8000), default_name(["wiki/*.jsonl.gz", "code/"], 4000)
    ('shakespeare-8000', 'wiki-and-1-more-4000')
    """
    first = Path(str(inputs[0]).rstrip("/\\")) if inputs else Path("corpus")
    stem = re.sub(r"[*?\[\]]", "", first.name.split(".")[0]) or first.parent.name  # a glob: its folder
    stem = re.sub(r"[^\w-]+", "-", stem).strip("-") or "corpus"
    more = f"-and-{len(inputs) - 1}-more" if len(inputs) > 1 else ""
    return f"{stem}{more}-{vocab_size}"


def cmd_count(args: argparse.Namespace) -> int:
    check_output(args.output, folder=True)
    check_shard_folder(args.output)  # before counting, so a bad -o costs no counting time
    if args.rows_per_shard < 1:
        raise BpeError(f"--rows-per-shard must be at least 1 (e.g. {ROWS_PER_SHARD:,}), not {args.rows_per_shard}")
    settings = shard_settings(pattern=pattern_arg(args), special_tokens=special_tokens_arg(args))
    bar = ProgressBar(force=args.progress, count_unit="bytes")
    word_counts = count_inputs(args, bar)
    bar.close()
    manifest = write_count_shards(word_counts, args.output, settings=settings, rows_per_shard=args.rows_per_shard)
    report_bad_rows(word_counts.stats.bad_rows, word_counts.stats.bad_row_examples)
    stats = word_counts.stats
    warn_if_no_text(stats.documents, stats.characters, result="the count-shard folder holds no pre-tokens")
    say(
        f"counted {stats.documents:,} document(s), {stats.characters:,} characters, {stats.pretokens:,} pre-tokens "
        f"({manifest['unique_pretokens']:,} unique)"
    )
    say(
        f"  wrote {len(manifest['shards'])} shard(s) and {args.output}/manifest.json (pattern "
        f"{settings['pattern']!r}); train with: python -m bpe_core train --counts {args.output} --vocab-size N -o "
        "tokenizer.json"
    )
    return 0


def add_train_parser(sub: Subparsers) -> argparse.ArgumentParser:
    """Register ``train`` on ``main.build_parser``'s subparsers ``sub``; returns its parser."""
    p = sub.add_parser("train", help="train a tokenizer on corpus files, folders and globs, or on count shards")
    add_reading_arguments(p, inputs_required=False)
    p.add_argument(
        "--counts",
        nargs="+",
        metavar="DIR",
        help="train on count-shard folders (made by the count command) instead of INPUTS; their pattern "
        "and special tokens are used, and counts are added in the order given",
    )
    p.add_argument("--vocab-size", type=int, required=True, help="total ids: 256 bytes + special tokens + merges")
    p.add_argument(
        "--min-frequency", type=int, default=2, help="stop when the best pair occurs fewer times (default 2)"
    )
    p.add_argument(
        "--tie-break",
        choices=TIE_BREAKS,
        help="; ".join(f"{k}: {v}" for k, v in TIE_RULES.items())
        + " (default: lexicographic; huggingface for SuperBPE, as its reference)",
    )
    p.add_argument(
        "--name",
        help="the tokenizer's name (default: what it is, its corpus and the vocabulary it "
        "reached, e.g. shakespeare-8000)",
    )
    p.add_argument("--output", "-o", required=True, help="where to write the tokenizer (bpe_core JSON)")
    variants.add_variant_arguments(p)
    p.set_defaults(func=cmd_train)
    return p


def add_count_parser(sub: Subparsers) -> argparse.ArgumentParser:
    """Register ``count`` on ``main.build_parser``'s subparsers ``sub``; returns its parser."""
    p = sub.add_parser("count", help="count pre-tokens of corpus files into a count-shard folder (Parquet)")
    add_reading_arguments(p)
    p.add_argument(
        "--output", "-o", required=True, help="the count-shard folder to write (new, empty, or one to replace)"
    )
    p.add_argument(
        "--rows-per-shard",
        type=int,
        default=ROWS_PER_SHARD,
        help=f"pre-tokens per Parquet file (default {ROWS_PER_SHARD:,})",
    )
    p.set_defaults(func=cmd_count)
    return p


def add_corpus_parsers(sub: Subparsers) -> None:
    """Register ``train`` and ``count``."""
    add_train_parser(sub)
    add_count_parser(sub)
