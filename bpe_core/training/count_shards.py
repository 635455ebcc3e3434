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
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bpe_core.corpora.streams import import_pyarrow, is_text_type
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import preset_name, replace_surrogates, resolve_pattern
from bpe_core.safe_io import TOKENIZER_FILE_LIMIT, json_value, read_limited, remove_quietly, write_atomic
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import CorpusStats, WordCounts
from bpe_core.training.engine import ProgressCallback
from bpe_core.training.tie_rules import TieBreak
from bpe_core.training.trainer import TrainingSettings, merge_counts

FORMAT = "bpe_core count shards"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
METADATA_KEY = b"bpe_core.count_shards"
SHARD_NAME = "counts-{:05d}.parquet"
ROWS_PER_SHARD = 1_000_000
ROW_GROUP_ROWS = 131_072
MAX_COUNT = 2**63 - 1  # int64, the shards' count column
COMPARED_SETTINGS = ("pattern", "special_tokens", "normalization")
_SHARD_FILE = re.compile(r"counts-\d{5,}\.parquet\Z")
_CORPUS_KEYS = ("documents", "characters", "pretokens", "special_tokens_cut", "bad_rows")


def _pyarrow() -> tuple[Any, Any]:  # (pyarrow, pyarrow.parquet): neither has type information
    return import_pyarrow("count shards are Parquet files, which need pyarrow")


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
    record = {key: getattr(stats, key) for key in _CORPUS_KEYS}
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
    if all(n == MANIFEST or _SHARD_FILE.match(n) for n in names):
        if MANIFEST in names:
            _read_manifest(directory)  # a manifest.json of something else is not ours to replace
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
    _pyarrow()  # pyarrow missing: say so before anything else
    directory = os.fspath(directory)
    if not isinstance(rows_per_shard, int) or isinstance(rows_per_shard, bool) or rows_per_shard < 1:
        raise BpeError(
            f"rows_per_shard must be a positive whole number (e.g. {ROWS_PER_SHARD:,}), not {rows_per_shard!r}"
        )
    settings = _checked_settings(settings, directory)
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
    pyarrow, parquet = _pyarrow()
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
        temporary = os.path.join(directory, f".{name}.{run}.tmp")
        try:
            parquet.write_table(table, temporary, row_group_size=ROW_GROUP_ROWS, compression="zstd")
            os.replace(temporary, os.path.join(directory, name))
        finally:
            remove_quietly(temporary)
        shards.append({"file": name, "rows": table.num_rows})
    written = {s["file"] for s in shards}
    for stale in os.listdir(directory):
        if _SHARD_FILE.match(stale) and stale not in written:
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


# ------------------------------------------------------------------------------------------------
# reading


def _checked_settings(settings: object, where: str) -> dict:
    """``settings`` with the compared keys present and well typed (the pattern as a preset's name or
    its regex); ValueError naming ``where`` otherwise."""
    if not isinstance(settings, dict) or any(key not in settings for key in COMPARED_SETTINGS):
        raise BpeError(f"{where}: the settings must give {', '.join(COMPARED_SETTINGS)} (see shard_settings)")
    pattern, specials, normalization = (settings[key] for key in COMPARED_SETTINGS)
    if pattern is not None and not isinstance(pattern, str):
        raise BpeError(f"{where}: settings.pattern must be a preset name, a regex or null, not {pattern!r}")
    if not isinstance(specials, list) or not all(isinstance(t, str) and t for t in specials):
        raise BpeError(f"{where}: settings.special_tokens must be a list of non-empty strings, not {specials!r}")
    if normalization != "none":
        raise BpeError(
            f"{where}: counted with normalization {normalization!r}, which this bpe_core does not "
            "apply when it trains; count again without normalization ('none')"
        )
    source = resolve_pattern(pattern)
    return {**settings, "pattern": preset_name(source) or source, "special_tokens": list(specials)}


def _read_manifest(directory: str) -> dict:
    path = os.path.join(directory, MANIFEST)
    if not os.path.isdir(directory):
        raise BpeError(f"{directory} is not a folder of count shards (made by python -m bpe_core count)")
    if not os.path.lexists(path):
        raise BpeError(
            f"{directory} has no {MANIFEST}: it is not a count-shard folder (made by python -m "
            "bpe_core count), or its writing did not finish; count again"
        ) from None
    try:
        manifest = json_value(read_limited(path, limit=TOKENIZER_FILE_LIMIT, what=f"a {MANIFEST}"))
    except ValueError as exc:
        raise BpeError(f"{path} cannot be read: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BpeError(f'{path} is not a count-shard manifest (its "format" is not {FORMAT!r})')
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise BpeError(
            f"{path} has format_version {version!r}; this bpe_core reads version {FORMAT_VERSION} "
            "(upgrade bpe_core, or count again)"
        )
    manifest["settings"] = _checked_settings(manifest.get("settings"), path)
    return manifest


def _shard_files(directory: str, manifest: dict) -> list[tuple[str, int | None]]:
    """``(path, rows or None)`` of each shard, in the manifest's order (else every *.parquet by name)."""
    listed = manifest.get("shards")
    if listed is None:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".parquet") and not n.startswith("."))
        return [(os.path.join(directory, n), None) for n in names]
    if not isinstance(listed, list) or not all(isinstance(s, dict) and isinstance(s.get("file"), str) for s in listed):
        raise BpeError(f'{directory}/{MANIFEST}: "shards" must be a list of {{"file": name, "rows": n}}')
    found = []
    for shard in listed:
        name, rows = shard["file"], shard.get("rows")
        if os.path.basename(name) != name or name in ("", ".", ".."):
            raise BpeError(f"{directory}/{MANIFEST}: shard {name!r} must be a file name inside the folder")
        if rows is not None and not _is_count(rows):
            raise BpeError(
                f'{directory}/{MANIFEST}: shard {name!r} has "rows": {rows!r}; a row count is a whole '
                "number from 0 (or leave it out)"
            )
        found.append((os.path.join(directory, name), rows))
    return found


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def _open_shard(path: str, rows: int | None, manifest: dict) -> Any:  # a pyarrow ParquetFile
    """The ParquetFile of one shard, its columns and metadata checked against the manifest."""
    pyarrow, parquet = _pyarrow()
    try:
        handle = parquet.ParquetFile(path)
    except FileNotFoundError:
        raise BpeError(f"{path} is missing: the manifest lists it; count again") from None
    except (pyarrow.ArrowException, OSError) as exc:
        raise BpeError(f"{path} is not a readable Parquet file ({exc}); count again") from None
    schema = handle.schema_arrow
    columns = (("pretoken", is_text_type, "a string"), ("count", pyarrow.types.is_integer, "an integer"))
    for column, test, kind in columns:
        if column not in schema.names:
            raise BpeError(
                f"{path} has no column {column!r} (its columns: {', '.join(schema.names[:8])}): a count "
                "shard has the columns pretoken (string) and count (int64)"
            )
        if not test(schema.field(column).type):
            raise BpeError(f"{path}: column {column!r} holds {schema.field(column).type}, not {kind}")
    if rows is not None and handle.metadata.num_rows != rows:
        raise BpeError(
            f"{path} has {handle.metadata.num_rows:,} rows but the manifest says {rows:,}: the folder "
            "was changed or its writing interrupted; count again"
        )
    own = (schema.metadata or {}).get(METADATA_KEY)
    if own is not None:
        try:
            meta = json_value(own)
        except ValueError as exc:
            raise BpeError(f"{path}: its bpe_core metadata is not valid JSON ({exc})") from None
        if (
            not isinstance(meta, dict)
            or _checked_settings(meta.get("settings"), path) != manifest["settings"]
            or (manifest.get("run") and meta.get("run") != manifest["run"])
        ):
            raise BpeError(
                f"{path} belongs to another count (its settings or run differ from {MANIFEST}'s): "
                "do not mix shard folders; count again"
            )
    return handle


def _add_shard(handle: Any, path: str, counts: Counter) -> int:  # handle: a pyarrow ParquetFile
    """Add one shard's rows to ``counts`` (in row order), row group by row group; the sum of its counts."""
    pyarrow, _ = _pyarrow()
    total = 0
    get = counts.get
    row = 0
    try:
        for batch in handle.iter_batches(batch_size=ROW_GROUP_ROWS, columns=["pretoken", "count"], use_threads=False):
            pretokens, numbers = batch.column(0), batch.column(1)
            if pretokens.null_count or numbers.null_count:
                raise BpeError(f"{path}: a row near row {row + 1:,} has no pretoken or no count (null)")
            pretokens, numbers = pretokens.to_pylist(), numbers.to_pylist()
            if numbers and min(numbers) < 1:
                bad = next(i for i, n in enumerate(numbers) if n < 1)
                raise BpeError(
                    f"{path} row {row + bad + 1:,}: count {numbers[bad]} for {pretokens[bad]!r}; counts "
                    "must be at least 1"
                )
            for pretoken, number in zip(pretokens, numbers, strict=True):
                counts[pretoken] = get(pretoken, 0) + number
            total += sum(numbers)
            row += len(numbers)
    except (pyarrow.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise BpeError(
            f"{path} cannot be read near row {row + 1:,} ({exc}): the file is damaged; count again"
        ) from None
    return total


def _disagreement(first: dict, other: dict) -> str | None:
    for key in COMPARED_SETTINGS:
        a, b = first[key], other[key]
        if key == "special_tokens":
            a, b = sorted(a), sorted(b)
        if a != b:
            return key
    return None


def read_count_shards(directories: str | os.PathLike | Iterable[str | os.PathLike]) -> tuple[WordCounts, dict]:
    """The pre-token counts of one or more count-shard folders, added exactly in the order given (so
    order of first appearance runs through the folders in turn), and the settings they share.

    ValueError when a folder is not a count-shard folder, a shard is missing, damaged or foreign, a
    count is below 1, the folders' settings differ (naming the setting and both values), or the counts
    add up to more than 2^63-1 pre-tokens. A folder named twice (the same real path) is read once, as
    a file named twice is, so its counts are never added twice.
    """
    given = [directories] if isinstance(directories, (str, os.PathLike)) else directories
    unique: dict[str, str] = {}
    for name in given:
        directory = os.fspath(name)
        unique.setdefault(os.path.realpath(directory), directory)
    folders = list(unique.values())
    if not folders:
        raise BpeError("give at least one count-shard folder (made by python -m bpe_core count)")
    result = WordCounts()
    settings: dict | None = None
    total = 0
    for directory in folders:
        manifest = _read_manifest(directory)
        if settings is None:
            settings, first = manifest["settings"], directory
        elif (key := _disagreement(settings, manifest["settings"])) is not None:
            raise BpeError(
                f"{directory} was counted with {key} {manifest['settings'][key]!r} but {first} with "
                f"{settings[key]!r}: shards add up only when their {key} agree; count them again with "
                "the same settings"
            )
        folder_total = 0
        for path, rows in _shard_files(directory, manifest):
            handle = _open_shard(path, rows, manifest)
            try:
                folder_total += _add_shard(handle, path, result.counts)
            finally:
                handle.close()
        total += folder_total
        if total > MAX_COUNT:
            raise BpeError(
                f"the counts add up to {total:,} pre-tokens, more than 2^63-1 ({MAX_COUNT:,}), which "
                "pair counts and int64 shards cannot hold; train on fewer folders"
            )
        _add_corpus(result.stats, manifest.get("corpus"), folder_total, os.path.join(directory, MANIFEST))
    return result, dict(settings or {})


def _add_corpus(stats: CorpusStats, corpus: object, counted: int, where: str) -> None:
    """Add one folder's corpus record to ``stats``; its pre-tokens are its counts' sum, ``counted``.
    A count that is negative or not a whole number is refused (``where`` names the manifest)."""
    corpus = corpus if isinstance(corpus, dict) else {}
    other = CorpusStats()
    for key in _CORPUS_KEYS:
        value = corpus.get(key, 0)
        if not _is_count(value):
            raise BpeError(
                f"{where}: corpus.{key} is {value!r}; counts are whole numbers from 0: the manifest was "
                "damaged or edited; count again"
            )
        setattr(other, key, value)
    other.pretokens = counted
    examples = corpus.get("bad_row_examples")
    other.bad_row_examples = [e for e in examples if isinstance(e, dict)] if isinstance(examples, list) else []
    stats.add(other)


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
