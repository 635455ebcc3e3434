"""Reading count-shard folders (the format is ``count_shards``'): their manifests and shards checked,
and their counts added exactly, after checking that every folder was counted with the same settings
(``read_count_shards``). This module does not write shards nor train (``count_shards``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bpe_core.corpora.streams import import_pyarrow, is_text_type
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import preset_name, resolve_pattern
from bpe_core.safe_io import TOKENIZER_FILE_LIMIT, json_value, read_limited
from bpe_core.training.counting import CorpusStats, WordCounts

FORMAT = "bpe_core count shards"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
METADATA_KEY = b"bpe_core.count_shards"
ROW_GROUP_ROWS = 131_072
MAX_COUNT = 2**63 - 1  # int64, the shards' count column
COMPARED_SETTINGS = ("pattern", "special_tokens", "normalization")
SHARD_FILE = re.compile(r"counts-\d{5,}\.parquet\Z")
CORPUS_KEYS = ("documents", "characters", "pretokens", "special_tokens_cut", "bad_rows")


def pyarrow_modules() -> tuple[Any, Any]:  # (pyarrow, pyarrow.parquet): neither has type information
    return import_pyarrow("count shards are Parquet files, which need pyarrow")


def checked_settings(settings: object, where: str) -> dict:
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


def read_manifest(directory: str) -> dict:
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
    manifest["settings"] = checked_settings(manifest.get("settings"), path)
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
    pyarrow, parquet = pyarrow_modules()
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
            or checked_settings(meta.get("settings"), path) != manifest["settings"]
            or (manifest.get("run") and meta.get("run") != manifest["run"])
        ):
            raise BpeError(
                f"{path} belongs to another count (its settings or run differ from {MANIFEST}'s): "
                "do not mix shard folders; count again"
            )
    return handle


def _add_shard(handle: Any, path: str, counts: Counter) -> int:  # handle: a pyarrow ParquetFile
    """Add one shard's rows to ``counts`` (in row order), row group by row group; the sum of its counts."""
    pyarrow, _ = pyarrow_modules()
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
        manifest = read_manifest(directory)
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
    for key in CORPUS_KEYS:
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
