"""The BPE variants from the shell: ``train --superbpe-transition`` and ``train --picky-threshold``,
and ``python -m bpe_core lab``, which trains several variants on one corpus and compares them.

``train ... --superbpe-transition 0.8`` trains SuperBPE (its recipe sets both pre-tokenizations, so
``--pattern`` is refused; it reads the inputs twice, once per stage, so ``--counts`` and ``--dask``
are refused); ``train ... --picky-threshold 0.9`` trains Picky BPE on the counts (inputs, ``--counts``
or ``--dask`` alike). ``lab`` trains the variants of ``--variants`` at one ``--vocab-size`` on the
built-in parallel text (or the files given, a tenth of each held out) and prints the comparison of
``analysis.variants`` on held-out text; ``--csv`` and ``--latex`` write it. Parsing and printing only;
``corpus`` calls the train hooks and ``main`` registers ``lab``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_core.analysis.heldout import split_heldout
from bpe_core.analysis.variants import (
    DEFAULT_PATTERN,
    HeldOutSample,
    VariantComparison,
    builtin_heldout,
    compare_variants,
    parse_variants,
    train_variants,
)
from bpe_core.cli.common import ProgressBar, check_output, pattern_option, reading_options, write_output
from bpe_core.corpora.samples import parallel_text
from bpe_core.errors import BpeError
from bpe_core.parallel import check_workers
from bpe_core.training.picky import picky_training
from bpe_core.training.superbpe import RECIPES, train_superbpe_files

if TYPE_CHECKING:
    from bpe_core.tokenizer import Tokenizer
    from bpe_core.training.counting import WordCounts
    from bpe_core.training.tie_rules import TieBreak
    from bpe_core.training.trainer import TrainingSettings

SUPERBPE_HELP = (
    "train SuperBPE (Liu et al., COLM 2025, arXiv 2503.13423): ordinary BPE up to this share of --vocab-size "
    "(0.8) or number of merges (25000), then merges across spaces (superwords such as ' of the', at most 4 words, "
    "never ': ') with the paper's stage-2 pre-tokenization; --pattern is set by --superbpe-recipe"
)
PICKY_HELP = (
    "train Picky BPE (Chizhov et al., EMNLP 2024, arXiv 2409.04599): after each merge, remove a parent token "
    "whose IoS (its share of occurrences inside that merge) is above this threshold (0.9 in the paper; 1 removes "
    "nothing); the tokenizer encodes by replaying merges and removals and is saved as bpe_core JSON only"
)


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """``train``'s options for SuperBPE and Picky BPE."""
    parser.add_argument("--superbpe-transition", type=_transition, metavar="T", help=SUPERBPE_HELP)
    parser.add_argument(
        "--superbpe-recipe",
        choices=list(RECIPES),
        default="paper",
        help="paper: the paper's tokenizers' pre-tokenization (default); 2025-11: the repository's "
        "later one (o200k-like stage 1, numbers and symbol runs split in stage 2)",
    )
    parser.add_argument("--picky-threshold", type=float, metavar="T", help=PICKY_HELP)


def _transition(value: str) -> float | int:
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is neither a share (0.8) nor a number of merges") from None


def chosen_variant(args: argparse.Namespace) -> str | None:
    """``"superbpe"``, ``"picky"`` or None (plain BPE) from ``train``'s options, refusing options
    that cannot go together."""
    superbpe, picky = args.superbpe_transition is not None, args.picky_threshold is not None
    if superbpe and picky:
        raise BpeError("--superbpe-transition and --picky-threshold train different variants: give one")
    if superbpe:
        for option, given in (
            ("--pattern", args.pattern is not None),
            ("--counts", bool(args.counts)),
            ("--dask", args.dask is not None),
        ):
            if given:
                raise BpeError(f"SuperBPE reads INPUTS twice with its recipe's own patterns: drop {option}")
    return "superbpe" if superbpe else "picky" if picky else None


def default_tie_break(args: argparse.Namespace) -> TieBreak:
    """``--tie-break`` or the variant's default: SuperBPE follows its reference (Hugging Face's trainer)."""
    if args.tie_break is not None:
        return args.tie_break
    return "huggingface" if args.superbpe_transition is not None else "lexicographic"


def train_superbpe_command(args: argparse.Namespace, bar: ProgressBar) -> Tokenizer:
    return train_superbpe_files(
        args.inputs,
        args.vocab_size,
        transition=args.superbpe_transition,
        recipe=args.superbpe_recipe,
        min_frequency=args.min_frequency,
        special_tokens=args.special_token or (),
        tie_break=default_tie_break(args),
        progress=bar,
        name=args.name or "superbpe",
        workers=check_workers(args.workers),
        **reading_options(args),
    )


def train_picky_command(
    args: argparse.Namespace, word_counts: WordCounts, settings: TrainingSettings, bar: ProgressBar, started: float
) -> Tokenizer:
    result = picky_training(word_counts, settings, threshold=args.picky_threshold, progress=bar, started=started)
    return result.tokenizer()


def print_variant(tokenizer: Tokenizer) -> None:
    """The variant's own line after ``train``'s summary."""
    superbpe = tokenizer.training.get("superbpe")
    if isinstance(superbpe, dict):
        print(
            f"  SuperBPE: {superbpe['inherited_merges']:,} merges inherited from stage 1, {superbpe['new_merges']:,} "
            f"in stage 2 ({superbpe['forbidden_pairs']:,} pairs refused by the 4-word and ': ' rules)"
        )
    picky = tokenizer.training.get("picky")
    if isinstance(picky, dict):
        print(
            f"  Picky BPE: {picky['removals']:,} removals, {picky['restores']:,} restores (threshold "
            f"{picky['threshold']})"
        )


# --------------------------------------------------------------------------------------------------
# lab


def _lab_corpus(files: list[str]) -> tuple[dict[str, list[str]], list[HeldOutSample]]:
    """(training texts by source, held-out samples): the built-in parallel text's lines 1-90 and its
    held-out lines, code and data samples; or each file with a tenth of its lines held out, and the
    built-in samples."""
    if not files:
        return parallel_text(split="train"), builtin_heldout()
    texts: dict[str, list[str]] = {}
    held: list[HeldOutSample] = []
    for file in files:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise BpeError(f"{file} is not valid UTF-8 (byte offset {exc.start})") from None
        except OSError as exc:
            raise BpeError(f"cannot read {file}: {exc.strerror}") from None
        split = split_heldout([text], fraction=0.1, seed=0, by="line")
        name = Path(file).name
        texts[name] = split.train
        held.append(HeldOutSample(name, f"{name} (held out)", "held-out", "".join(split.heldout)))
    return texts, held + builtin_heldout()


SUMMARY_COLUMNS = [
    ("variant", "variant", "{}"),
    ("text", "sample", "{}"),
    ("tokens/byte", "tokens_per_byte", "{:.3f}"),
    ("saved vs BPE", "saved_vs_bpe", "{:+.1%}"),
    ("renyi eff.", "renyi_efficiency", "{:.3f}"),
    ("unique", "unique_tokens", "{:,}"),
    ("avg rank", "avg_token_rank", "{:.0f}"),
    ("fertility", "fertility", "{:.2f}"),
    ("zipf slope", "zipf_slope", "{:.2f}"),
    ("superwords", "superword_share", "{:.1%}"),
]


def summary_table(comparison: VariantComparison) -> str:
    """The summary as an aligned text table ("-" where a value does not apply)."""
    header = [title for title, _, _ in SUMMARY_COLUMNS]
    body = [
        ["-" if row[key] is None else fmt.format(row[key]) for _, key, fmt in SUMMARY_COLUMNS]
        for row in comparison.summary
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in [header, *body]
    )


def _examples(comparison: VariantComparison) -> list[str]:
    lines = []
    for variant, found in comparison.superwords.items():
        shown = ", ".join(f"[{text}] {count}" for text, count in found)
        lines.append(f"superwords of {variant} (held-out count): {shown or 'none on these texts'}")
    for variant, removed in comparison.removed.items():
        lines.append(f"tokens removed by {variant}: " + ", ".join(f"[{token}]" for token in removed))
    return lines


def cmd_lab(args: argparse.Namespace) -> int:
    variants = parse_variants(args.variants)
    for path in (args.csv, args.latex):
        if path:
            check_output(path)
    if args.save_dir and not Path(args.save_dir).is_dir():
        raise BpeError(f"--save-dir {args.save_dir!r} is not a folder: create it first")
    if args.files and any(v.kind == "parity" for v in variants):
        raise BpeError(
            "parity-aware BPE needs parallel text (the same sentences in each language): run lab without "
            "files for the built-in parallel text, or use the parity command with your parallel files"
        )
    texts, samples = _lab_corpus(args.files)
    started = time.perf_counter()
    pattern = pattern_option(args.pattern, default="none") if args.pattern is not None else DEFAULT_PATTERN
    tokenizers = train_variants(texts, args.vocab_size, variants, pattern=pattern, min_frequency=args.min_frequency)
    comparison = compare_variants(tokenizers, samples, baseline="BPE")
    print(
        f"{len(tokenizers)} variants at vocab size {args.vocab_size:,}, trained on "
        f"{sum(map(len, texts.values())):,} documents in {time.perf_counter() - started:.1f}s; measured on "
        f"{len(samples)} held-out texts"
    )
    print(summary_table(comparison))
    for line in _examples(comparison):
        print(line)
    _write(args, comparison, tokenizers)
    return 0


def _write(args: argparse.Namespace, comparison: VariantComparison, tokenizers: dict[str, Any]) -> None:
    if args.csv:
        write_output(args.csv, comparison.to_csv())
        print(f"wrote {len(comparison.rows)} rows to {args.csv}")
    if args.latex:
        write_output(args.latex, comparison.to_latex())
        print(f"wrote the LaTeX table to {args.latex}")
    for label, tokenizer in tokenizers.items() if args.save_dir else ():
        path = Path(args.save_dir) / ("".join(c if c.isalnum() or c in ".-" else "_" for c in label) + ".json")
        write_output(str(path), tokenizer.to_json())
        print(f"wrote {label!r} to {path}")


def add_lab_parser(sub: Any) -> None:
    """Register ``lab`` on the subparsers ``sub`` of ``main.build_parser``."""
    p = sub.add_parser(
        "lab",
        help="train BPE, SuperBPE, Picky BPE and parity-aware BPE on one corpus and compare "
        "them on held-out text per language and programming language",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "files",
        nargs="*",
        help="UTF-8 training files (a tenth of each file's lines held out). Default: "
        "the built-in parallel text (lines 1-90 of 21 languages; lines 91-120 held out)",
    )
    p.add_argument(
        "--variants",
        default="bpe,superbpe:0.8,picky:0.9,parity",
        help="2 to 6 of: bpe, superbpe:T (T a share of the vocabulary or a number of merges; SuperBPE, "
        "Liu et al. 2025), picky:T (IoS threshold; Picky BPE, Chizhov et al. 2024), parity (parity-aware "
        "BPE, Foroutan et al. 2025)",
    )
    p.add_argument("--vocab-size", type=int, default=2000, help="the same for every variant")
    p.add_argument(
        "--pattern",
        help="pre-tokenization of every variant but SuperBPE: gpt2, cl100k, o200k, none or a "
        "regex (default: SuperBPE's stage-1 pattern, so that BPE is SuperBPE's baseline)",
    )
    p.add_argument("--min-frequency", type=int, default=2)
    p.add_argument("--csv", help="write every row (variant x held-out text) as CSV here")
    p.add_argument("--latex", help="write the summary (natural, code, all) as a LaTeX table here")
    p.add_argument("--save-dir", help="save each tokenizer as bpe_core JSON in this folder")
    p.set_defaults(func=cmd_lab)
