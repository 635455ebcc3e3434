"""``python -m bpe_core parity``: standard against parity-aware BPE on parallel text, from the shell.

Trains both ways at one vocabulary size (``parity_report.compare_training``) on the built-in parallel
text (lines 1-90 trained on, 91-120 measured) or on the user's parallel files (one per language, one
sentence per line; the last quarter held out), prints the plain sentence and a table of held-out
premiums with their 95% intervals, and can save both tokenizers. Parity-aware training decides which
language is worst compressed on the training text itself (a parallel development text), or with
``--ratio`` on target compression rates. Parsing and printing only; ``main`` registers the subcommand
and turns its ValueErrors into one-line errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bpe_core.analysis.parity_report import PARITY, STANDARD, ParityComparison, compare_training
from bpe_core.cli.common import check_output, pattern_option, say, write_output
from bpe_core.corpora.samples import REFERENCE_ID, parallel_text, read_parallel_files
from bpe_core.errors import BpeError
from bpe_core.pretrained import catalogue
from bpe_core.training.parity import parse_ratio
from bpe_core.training.parity_choice import CONVENTIONS
from bpe_core.training.tie_rules import TIE_BREAKS

if TYPE_CHECKING:
    from bpe_core.cli.corpus import Subparsers
    from bpe_core.tokenizer import Tokenizer

#: Share of each file's lines held out for measuring (the last ones), as the app does.
HELDOUT_SHARE = 0.25
#: The pre-tokenization when --pattern is not given, as the app's.
DEFAULT_PATTERN = "o200k"


def split_sentences(
    sentences: Mapping[str, Sequence[str]], share: float = HELDOUT_SHARE
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(train, held out): the last ``share`` of every language's lines (at least one) held out.

    >>> split_sentences({"eng": ["a", "b", "c", "d"]})
    ({'eng': ['a', 'b', 'c']}, {'eng': ['d']})
    """
    count = len(next(iter(sentences.values())))
    if count < 2:
        raise BpeError("each file needs at least 2 sentences (better 100 or more), so that some can be held out")
    held = max(1, round(count * share))
    return (
        {k: list(v[: count - held]) for k, v in sentences.items()},
        {k: list(v[count - held :]) for k, v in sentences.items()},
    )


def premium_table(result: ParityComparison) -> str:
    """One line per language: each tokenizer's held-out premium with its 95% interval.

    Columns are the tokenizers (standard, parity-aware, then the others), rows the languages."""
    labels = list(result.fairness)
    header = ["language", *labels]
    body = []
    for language in result.heldout:
        cells = [result.names.get(language, language)]
        for label in labels:
            p = result.fairness[label].premiums[language]
            cells.append(f"{p.premium:.2f}x ({p.low:.2f}-{p.high:.2f})")
        body.append(cells)
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        for row in [header, *body]
    )


def _check(path: str | None) -> None:
    """Before any work: the output can be written (``common.check_output``)."""
    if path:
        check_output(path)


def _save(path: str | None, tokenizer: Tokenizer) -> None:
    if not path:
        return
    write_output(path, tokenizer.to_json())
    say(f"wrote {tokenizer.name!r} to {path}")


def cmd_parity(args: argparse.Namespace) -> int:
    pattern = pattern_option(args.pattern, default=DEFAULT_PATTERN)
    if not 0 <= args.global_share <= 1:
        raise BpeError(f"--global-share must be between 0 and 1 (e.g. 0.8), not {args.global_share}")
    _check(args.save_standard)
    _check(args.save_parity)
    if args.files:
        train, heldout = split_sentences(read_parallel_files(args.files))
    else:
        train, heldout = parallel_text(split="train"), parallel_text(split="heldout")
    reference = args.reference or (REFERENCE_ID if REFERENCE_ID in train else next(iter(train)))
    others = {spec: catalogue.resolve(spec) for spec in args.tokenizer or []}
    merges = max(args.vocab_size - 256, 0)
    options = {
        "variant": args.variant,
        "global_merges": round(merges * args.global_share),
        "window": args.window,
        "alpha": args.alpha,
        "convention": args.convention,
    }
    if args.ratio is not None:
        if not args.ratio.strip():
            raise BpeError(
                "--ratio is empty: give bytes, equal, or LANG=RATE for every language (e.g. eng=1,hin=2.6); "
                "leave --ratio out to decide by the development text"
            )
        options["ratio"] = parse_ratio(args.ratio, train)
    result = compare_training(
        train,
        heldout,
        args.vocab_size,
        reference=reference,
        others=others,
        parity_options=options,
        pattern=pattern,
        min_frequency=args.min_frequency,
        tie_break=args.tie_break,
    )
    say(result.sentence)
    for label in (STANDARD, PARITY):
        fairness = result.fairness[label]
        say(
            f"{label}: worst {fairness.max_premium:.2f}x ({result.names.get(fairness.worst, fairness.worst)}), "
            f"Gini {fairness.gini:.3f}"
        )
    for line in premium_table(result).splitlines():
        say(line)
    _save(args.save_standard, result.standard)
    _save(args.save_parity, result.parity)
    return 0


def add_parity_parser(sub: Subparsers, tokenizer_help: str) -> None:
    """Register ``parity`` on the subparsers ``sub`` of ``main.build_parser``."""
    p = sub.add_parser(
        "parity",
        help="standard against parity-aware BPE on parallel text, measured on held-out lines",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "files",
        nargs="*",
        help="parallel UTF-8 files, one per language, one sentence per line, the same "
        "line count (named by file name; the last quarter held out). Default: the built-in parallel text",
    )
    p.add_argument("--vocab-size", type=int, default=4000, help="the same for both trainings")
    p.add_argument(
        "--pattern", default=DEFAULT_PATTERN, help="gpt2, cl100k, o200k, none (no pre-tokenization), or a custom regex"
    )
    p.add_argument("--variant", choices=["base", "window"], default="window", help="parity-aware variant")
    p.add_argument("--global-share", type=float, default=0.8, help="share of merges by global frequency (hybrid)")
    p.add_argument("--window", type=int, default=100, help="moving window: parity merges looked back on")
    p.add_argument("--alpha", type=float, default=3.0, help="moving window: a language's share limit")
    p.add_argument("--min-frequency", type=int, default=2)
    p.add_argument(
        "--ratio",
        metavar="RATES",
        help="decide the worst-compressed language by target compression rates instead of the "
        "development text: LANG=RATE for every language (e.g. eng=1,hin=2.6), 'bytes' (rates "
        "proportional to each language's bytes of training text: equal token counts on parallel "
        "text) or 'equal'. Rates are in bytes per token (the pre-tokenizer's units), so equal rates "
        "do not mean equal token counts: Hindi needs about 2.6 times English's bytes per sentence",
    )
    p.add_argument(
        "--convention",
        choices=CONVENTIONS,
        default="huggingface",
        help="where Hugging Face's ParityBpeTrainer and the paper's code differ (exhausted "
        "languages, the window's bookkeeping), follow this one",
    )
    p.add_argument(
        "--tie-break",
        choices=TIE_BREAKS,
        default="lexicographic",
        help="huggingface: BpeTrainer's rule for standard BPE, ParityBpeTrainer's for parity-aware",
    )
    p.add_argument("--reference", help="the language premiums are relative to (default: eng, else the first)")
    p.add_argument("--tokenizer", "-t", action="append", help=tokenizer_help + " measured beside them (repeat)")
    p.add_argument("--save-standard", help="write the standard tokenizer here (bpe_core JSON)")
    p.add_argument("--save-parity", help="write the parity-aware tokenizer here (bpe_core JSON)")
    p.set_defaults(func=cmd_parity)
