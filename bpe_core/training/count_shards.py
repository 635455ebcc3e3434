"""Pre-token counts as Parquet shards: write them, read and add them, train from them.

Counting is the map-reduce step of training (``counting``); its result, the pre-token counts, can be
kept on disk as a *count-shard folder*, made here (``write_count_shards``), by ``python -m bpe_core
count`` or by any other engine (Spark, Ray, Dask), and trained from later (``train_from_shards``,
``train --counts``), several folders at once: their counts are added exactly (Python integers) after
checking that they were made with the same settings. Training from shards gives the tokenizer that
training on the text directly gives, merge for merge, for every tie rule. This module reads and writes
shard folders; it does not read corpora (``datasets``) or count (``counting``).

The format (``FORMAT_VERSION`` 1), which other writers follow::

    DIR/manifest.json                 required, written last
    DIR/counts-00000.parquet, ...     the shards, read in the order the manifest lists them

    Each shard is a Parquet file with two columns (other columns are ignored):
      pretoken   string (UTF-8), no nulls   one pre-token, exactly as the pattern cut it from the text
                                           (special tokens were cut out before and never appear)
      count      int64, no nulls, >= 1      how often it occurs
    Rows are in order of first appearance in the corpus, shard after shard (the "first" tie rule
    depends on it). A pre-token may appear more than once (in one shard or several): its counts add.
    Optional key-value metadata, key "bpe_core.count_shards": the JSON object
      {"format", "format_version", "settings", "corpus", "run", "shard", "shards"}
    (as in the manifest; when present it must agree with the manifest).

    manifest.json:
      {"format": "bpe_core count shards",          required
       "format_version": 1,                        required
       "settings": {                               required: shards are added only when these agree
         "pattern": "gpt2" | "cl100k" | "o200k" | a regex (the `regex` module's syntax) | null (none),
         "special_tokens": ["<|endoftext|>", ...],
         "normalization": "none",                  bpe_core counts without normalization
         "bpe_core_version": "0.1.0"},             recorded, not compared
       "corpus": {"documents", "characters", "pretokens", "special_tokens_cut", "bad_rows",
                  "bad_row_examples"},             optional (documents and characters are then 0)
       "shards": [{"file": "counts-00000.parquet", "rows": 123}, ...],
                                                   optional: without it, every *.parquet in name order
       "run": "a random id",                       optional: ties the files' metadata to this manifest
       "unique_pretokens": 123, "total_count": 456}    informative
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import preset_name, replace_surrogates, resolve_pattern
from bpe_core.safe_io import create_new, publish, remove_quietly, temporary_name, write_atomic
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import CorpusStats, WordCounts
from bpe_core.training.engine import ProgressCallback
from bpe_core.training.shard_reading import (
    CORPUS_KEYS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MAX_COUNT,
    METADATA_KEY,
    ROW_GROUP_ROWS,
    SHARD_FILE,
    checked_settings,
    pyarrow_modules,
    read_count_shards,
    read_manifest,
)
from bpe_core.training.tie_rules import TieBreak
from bpe_core.training.trainer import TrainingSettings, merge_counts

SHARD_NAME = "counts-{:05d}.parquet"
ROWS_PER_SHARD = 1_000_000


def shard_settings(*, pattern: str | None = "gpt2", special_tokens: Sequence[str] = ()) -> dict:
    """The settings a shard folder records: the pattern (a preset's name, else its regex; None for no
    pattern), the special tokens cut out, the normalization (none) and this bpe_core's version.

    >>> shard_settings(pattern="gpt2")["pattern"], shard_settings(pattern=None)["normalization"]
    ('gpt2', 'none')
    """
    from bpe_core import __version__

    source = resolve_pattern(pattern)
    return {
        "pattern": preset_name(source) or source,
        "special_tokens": list(special_tokens),
        "normalization": "none",
        "bpe_core_version": __version__,
    }


def _corpus_record(stats: CorpusStats) -> dict:
    record = {key: getattr(stats, key) for key in CORPUS_KEYS}
    record["bad_row_examples"] = list(stats.bad_row_examples)
    return record


def check_shard_folder(directory: str | os.PathLike) -> None:
    """Check an output folder before any work: it must be new (in a folder that exists), empty, or a
    count-shard folder (whose shards are then replaced); ValueError saying what to do otherwise."""
    directory = os.fspath(directory)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise BpeError(f"cannot write count shards to {directory}: it is a file; give a folder with -o")
    parent = os.path.dirname(os.path.abspath(directory))
    if not os.path.isdir(parent):
        raise BpeError(f"cannot write count shards to {directory}: the folder {parent!r} does not exist; create it")
    if not os.path.isdir(directory):
        return
    names = [n for n in os.listdir(directory) if not n.startswith(".")]
    if all(n == MANIFEST or SHARD_FILE.match(n) for n in names):
        if MANIFEST in names:
            read_manifest(directory)  # a manifest.json of something else is not ours to replace
        return
    shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
    raise BpeError(
        f"cannot write count shards to {directory}: it holds other files ({shown}); give a new or "
        "empty folder, or a count-shard folder to replace"
    )


def _unique_rows(counts: Counter) -> tuple[list[str], list[int]]:
    """The rows to write: pre-tokens and counts in order; lone surrogates (possible only in counts made
    from Python strings) become U+FFFD, as training treats them, their counts added."""
    try:
        keys = list(counts)
        for key in keys:
            key.encode("utf-8")
        return keys, list(counts.values())
    except UnicodeEncodeError:
        merged: dict[str, int] = {}
        for key, value in counts.items():
            key = replace_surrogates(key)
            merged[key] = merged.get(key, 0) + value
        return list(merged), list(merged.values())


def write_count_shards(
    word_counts: WordCounts, directory: str | os.PathLike, *, settings: dict, rows_per_shard: int = ROWS_PER_SHARD
) -> dict:
    """Write ``word_counts`` as a count-shard folder (see the module docstring) and return its manifest.

    ``settings`` are ``shard_settings(...)`` for the pattern and special tokens that made the counts.
    ``directory`` must be new, empty or a count-shard folder (its shards are replaced); its parent must
    exist. ValueError for counts below 1 or above 2^63-1, a bad ``rows_per_shard``, or a folder that
    cannot be written (naming it).
    """
    pyarrow_modules()  # pyarrow missing: say so before anything else
    directory = os.fspath(directory)
    if not isinstance(rows_per_shard, int) or isinstance(rows_per_shard, bool) or rows_per_shard < 1:
        raise BpeError(
            f"rows_per_shard must be a positive whole number (e.g. {ROWS_PER_SHARD:,}), not {rows_per_shard!r}"
        )
    settings = checked_settings(settings, directory)
    keys, values = _unique_rows(word_counts.counts)
    if values and (min(values) < 1 or max(values) > MAX_COUNT):
        raise BpeError(
            f"pre-token counts must be between 1 and 2^63-1 to be written, got {min(values)} to {max(values)}"
        )
    check_shard_folder(directory)
    try:
        return _write_shard_files(directory, keys, values, settings, _corpus_record(word_counts.stats), rows_per_shard)
    except OSError as exc:  # a read-only, full or forbidden place: one line, never a bare errno text
        raise BpeError(
            f"cannot write the count shards to the folder {directory} ({exc.strerror or exc}): choose "
            "a folder you can write to (-o)"
        ) from None


def _write_shard_files(
    directory: str, keys: list[str], values: list[int], settings: dict, corpus: dict, rows_per_shard: int
) -> dict:
    """``write_count_shards``' writing, once everything is checked: the shards, then the manifest."""
    pyarrow, parquet = pyarrow_modules()
    os.makedirs(directory, exist_ok=True)
    remove_quietly(os.path.join(directory, MANIFEST))  # a crash below never leaves a manifest over mixed shards
    starts = range(0, len(keys), rows_per_shard)
    run = secrets.token_hex(8)
    shards = []
    for number, start in enumerate(starts):
        name = SHARD_NAME.format(number)
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "settings": settings,
            "corpus": corpus,
            "run": run,
            "shard": number,
            "shards": len(starts),
        }
        schema = pyarrow.schema(
            [
                pyarrow.field("pretoken", pyarrow.string(), nullable=False),
                pyarrow.field("count", pyarrow.int64(), nullable=False),
            ],
            metadata={METADATA_KEY: json.dumps(meta).encode()},
        )
        rows = slice(start, start + rows_per_shard)
        table = pyarrow.table([keys[rows], values[rows]], schema=schema)
        temporary = os.path.join(directory, temporary_name())
        try:
            with create_new(temporary) as out:  # never through a link planted at the temporary name
                parquet.write_table(table, out, row_group_size=ROW_GROUP_ROWS, compression="zstd")
            publish(temporary, os.path.join(directory, name), overwrite=True)
        finally:
            remove_quietly(temporary)
        shards.append({"file": name, "rows": table.num_rows})
    written = {s["file"] for s in shards}
    for stale in os.listdir(directory):
        if SHARD_FILE.match(stale) and stale not in written:
            remove_quietly(os.path.join(directory, stale))
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "settings": settings,
        "corpus": corpus,
        "shards": shards,
        "run": run,
        "unique_pretokens": len(keys),
        "total_count": sum(values),
    }
    write_atomic(os.path.join(directory, MANIFEST), json.dumps(manifest, ensure_ascii=False, indent=1))
    return manifest


def train_from_shards(
    directories: str | os.PathLike | Iterable[str | os.PathLike],
    vocab_size: int,
    *,
    min_frequency: int = 2,
    tie_break: TieBreak = "lexicographic",
    progress: ProgressCallback | None = None,
    name: str = "trained",
) -> Tokenizer:
    """Train from count-shard folders (``read_count_shards``) with ``train``'s keywords but
    ``workers``: the pattern and special tokens are the shards' (``check_shards_settings`` holds
    expected ones against them). The tokenizer is the one ``train_files`` makes on the text that was
    counted."""
    started = time.perf_counter()  # the recorded seconds include reading the shards
    word_counts, settings = read_count_shards(directories)
    checked = TrainingSettings(
        vocab_size, min_frequency, settings["pattern"], settings["special_tokens"], tie_break, name
    )
    return merge_counts(word_counts, checked, progress=progress, started=started)


def check_shards_settings(settings: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    """``BpeError`` naming both values when an ``expected`` ``"pattern"`` or ``"special_tokens"`` (those
    given) differs from the ``settings`` of ``read_count_shards``: training uses the shards'.

    >>> check_shards_settings({"pattern": "gpt2", "special_tokens": []}, {"pattern": "o200k"})
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    bpe_core.errors.BpeError: the shards were counted with pattern 'gpt2', not 'o200k': training uses the
    shards' pattern; leave it out (or count again with 'o200k')
    """
    for key, value in expected.items():
        mine = shard_settings(pattern=value)["pattern"] if key == "pattern" else list(value or ())
        theirs = settings[key]
        if (sorted(mine) != sorted(theirs)) if key == "special_tokens" else mine != theirs:
            raise BpeError(
                f"the shards were counted with {key} {theirs!r}, not {mine!r}: training uses the "
                f"shards' {key}; leave it out (or count again with {mine!r})"
            )
