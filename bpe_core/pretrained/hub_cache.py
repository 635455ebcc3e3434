"""Models already in the local Hugging Face cache, by their hub name: ``"org/name"`` or ``"org/name@rev"``.

``find("Qwen/Qwen3-8B")`` gives the model's tokenizer file as ``huggingface_hub`` cached it
(``~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/<commit>/tokenizer.json``), offline:
``tokenizer.json`` first, else ``tokenizer.model`` (SentencePiece, or a rank file as Meta ships Llama 3's),
else a ``*.tiktoken`` rank file. ``load`` reads it as ``bpe_core.load`` reads a file (a byte-level BPE
``tokenizer.json`` becomes a bpe_core ``Tokenizer``; other kinds run read-only, see ``external``), named
after the model; a rank file identical to a built-in's is that built-in (a ``.tiktoken`` file carries no
pattern or special tokens; the built-in knows them). ``cached_models()`` lists every cached model that
has such a file.

The cache is read with ``huggingface_hub``'s own functions (``try_to_load_from_cache``, which resolves a
branch or tag through the cache's ``refs``, and ``scan_cache_dir``), so the folder is the one it uses:
``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``, as ``huggingface_hub``
reads them when it is first imported. ``huggingface_hub`` is optional: it is imported only here, only
when a hub name is asked for. Nothing is ever downloaded: a model that is not cached is a ``BpeError``
naming the command that would download its tokenizer (``hf download org/name tokenizer.json``), for the
user to run or not.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeGuard

from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import read_tokenizer_file
from bpe_core.tokenizer import Tokenizer

if TYPE_CHECKING:
    from bpe_core.pretrained.external import ExternalTokenizer

#: The tokenizer files looked for in a model's snapshot, in order; then any ``*.tiktoken`` at its top.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model")
#: ``org/name`` with an optional ``@revision``: the hub's rules for names (letters, digits, ``-_.``).
_NAME = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9_])(?:@(?P<revision>[\w./-]+))?$", re.ASCII)
INSTALL_HINT = "pip install huggingface_hub"


@dataclass(frozen=True)
class CachedModel:
    """A model's tokenizer file in the cache: ``repo_id`` at ``revision`` (as asked: a branch, tag or
    commit; ``main`` by default) is the snapshot ``commit``; ``file`` is the file's name in the model's
    repository and ``path`` where the cache keeps it."""

    repo_id: str
    revision: str
    commit: str
    file: str
    path: Path

    @property
    def name(self) -> str:
        """What ``load`` takes for it: ``org/name``, with ``@revision`` unless it is ``main``."""
        return self.repo_id if self.revision == "main" else f"{self.repo_id}@{self.revision}"


def is_hub_name(name: object) -> TypeGuard[str]:
    """Whether ``name`` reads as a hub model (``org/name`` or ``org/name@rev``) rather than a file: it
    has one ``/``, does not end like a tokenizer file and is not a path that exists.

    >>> is_hub_name("Qwen/Qwen3-8B"), is_hub_name("openai/gpt-oss-20b@main"), is_hub_name("models/my.json")
    (True, True, False)
    """
    if not isinstance(name, str) or os.path.exists(name) or name.endswith((".json", ".model", ".tiktoken")):
        return False
    return _NAME.match(name) is not None


def split_name(name: str) -> tuple[str, str | None]:
    """``("org/name", "rev")`` from ``org/name@rev`` (``None`` without a revision); ``BpeError`` for a
    name that is not a hub name."""
    match = _NAME.match(name)
    if match is None:
        raise BpeError(f"{name!r} is not a Hugging Face model name: write it as org/name or org/name@revision")
    return match["repo"], match["revision"]


def _hub(name: str | None = None) -> ModuleType:
    """``huggingface_hub``, or the ``BpeError`` saying to install it (about ``name``, when one was asked for)."""
    try:
        import huggingface_hub
        import huggingface_hub.constants  # a submodule the package's lazy attributes do not name
    except ImportError:
        asked = f"{name}: no such file, and finding it as a model" if name else "Finding models"
        raise BpeError(
            f"{asked} in the Hugging Face cache (org/name) needs huggingface_hub, which is not installed: "
            f"{INSTALL_HINT}"
        ) from None
    return huggingface_hub


def cache_folder(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The hub cache read: ``cache_dir`` if given, else ``huggingface_hub``'s (see the module docstring)."""
    return Path(cache_dir) if cache_dir is not None else Path(_hub().constants.HF_HUB_CACHE)


def download_command(repo_id: str, revision: str | None = None, file: str = "tokenizer.json") -> str:
    """The command that would put ``repo_id``'s tokenizer in the cache (bpe_core never runs it).

    >>> download_command("Qwen/Qwen3-8B")
    'hf download Qwen/Qwen3-8B tokenizer.json'
    """
    at = f" --revision {revision}" if revision else ""
    return f"hf download {repo_id} {file}{at}"


def find(name: str, *, cache_dir: str | os.PathLike[str] | None = None) -> CachedModel:
    """The tokenizer file of the cached model ``name`` (``org/name`` or ``org/name@rev``), offline;
    ``BpeError`` saying what is cached instead and how to download it when it is not there."""
    repo_id, revision = split_name(name)
    hub = _hub(name)
    folder = cache_folder(cache_dir)
    for file in TOKENIZER_FILES:  # huggingface_hub resolves the branch or tag through the cache's refs
        found = hub.try_to_load_from_cache(repo_id, file, cache_dir=folder, revision=revision or "main")
        if isinstance(found, str):
            return CachedModel(repo_id, revision or "main", _commit_of(Path(found), file), file, Path(found))
    return _find_by_scanning(hub, folder, repo_id, revision)


def _commit_of(path: Path, file: str) -> str:
    """The snapshot folder's name (a commit hash) of ``path``, the cached ``file``."""
    return path.parents[len(Path(file).parts) - 1].name


def _scan(hub: ModuleType, folder: Path) -> Any:
    try:
        return hub.scan_cache_dir(folder)
    except hub.CacheNotFound:
        return None


def _revisions(repo: Any) -> list[Any]:
    """The repo's cached revisions, those with a branch or tag name first, then by commit."""
    return sorted(repo.revisions, key=lambda r: (not r.refs, sorted(r.refs), r.commit_hash))


def _pick_revision(repo: Any, revision: str | None) -> Any | None:
    """The cached revision that ``revision`` names (a ref, a commit or a commit's first 7+ characters)."""
    wanted = revision or "main"
    for candidate in _revisions(repo):
        if wanted in candidate.refs or candidate.commit_hash == wanted:
            return candidate
    if revision and len(revision) >= 7 and re.fullmatch(r"[0-9a-f]+", revision):
        matches = [r for r in repo.revisions if r.commit_hash.startswith(revision)]
        if len(matches) == 1:
            return matches[0]
    return None


def _tokenizer_file(revision: Any) -> str | None:
    """The tokenizer file of a cached revision (its path inside the repository), in ``find``'s order."""
    files = {Path(f.file_path).relative_to(revision.snapshot_path).as_posix() for f in revision.files}
    for file in TOKENIZER_FILES:
        if file in files:
            return file
    ranks = sorted(file for file in files if "/" not in file and file.endswith(".tiktoken"))
    return ranks[0] if ranks else None


def _find_by_scanning(hub: ModuleType, folder: Path, repo_id: str, revision: str | None) -> CachedModel:
    """``find`` for what ``try_to_load_from_cache`` cannot name: a ``*.tiktoken`` file, a commit's first
    characters; otherwise the error, saying what the cache holds of the model."""
    info = _scan(hub, folder)
    repo = next((r for r in info.repos if r.repo_type == "model" and r.repo_id == repo_id), None) if info else None
    at = f" at revision {revision}" if revision else ""
    if repo is None:
        command = download_command(repo_id, revision)
        raise BpeError(
            f"{repo_id}{'@' + revision if revision else ''}: no such file, and no model {repo_id} in the Hugging "
            f"Face cache ({folder}): download its tokenizer with `{command}` (or `huggingface-cli "
            f"{command.removeprefix('hf ')}`), then try again; bpe_core never downloads"
        )
    picked = _pick_revision(repo, revision)
    if picked is None:
        cached = ", ".join(_describe(r) for r in _revisions(repo))
        raise BpeError(
            f"{repo_id} is cached, but not{at or ' at main'} (cached: {cached}): name one as {repo_id}@<revision>, "
            f"or download it with `{download_command(repo_id, revision)}`"
        )
    file = _tokenizer_file(picked)
    if file is None:
        raise BpeError(
            f"{repo_id} is cached{at} without a tokenizer file (tokenizer.json, tokenizer.model or *.tiktoken): "
            f"download it with `{download_command(repo_id, revision)}`"
        )
    return CachedModel(repo_id, revision or "main", picked.commit_hash, file, Path(picked.snapshot_path) / file)


def _describe(revision: Any) -> str:
    names = ", ".join(sorted(revision.refs))
    return f"{names} ({revision.commit_hash[:12]})" if names else revision.commit_hash[:12]


def cached_models(*, cache_dir: str | os.PathLike[str] | None = None) -> list[CachedModel]:
    """Every model in the cache with a tokenizer file, by name: one entry per cached revision (named by
    its branch or tag, ``main`` first, else by its commit). Empty when there is no cache folder."""
    hub = _hub()
    info = _scan(hub, cache_folder(cache_dir))
    found: list[CachedModel] = []
    for repo in sorted(info.repos if info else (), key=lambda r: r.repo_id.lower()):
        if repo.repo_type != "model":
            continue
        for revision in _revisions(repo):
            file = _tokenizer_file(revision)
            if file is not None:
                ref = "main" if "main" in revision.refs else min(revision.refs, default=revision.commit_hash)
                path = Path(revision.snapshot_path) / file
                found.append(CachedModel(repo.repo_id, ref, revision.commit_hash, file, path))
    return found


def load_model(
    model: CachedModel,
    *,
    builtins: Mapping[str, Any] | None = None,
    load_builtin: Callable[[str], Tokenizer] | None = None,
) -> Tokenizer | ExternalTokenizer:
    """The tokenizer in ``model``'s file, named ``model.name``: a bpe_core ``Tokenizer`` when bpe_core runs
    the file itself, else an ``ExternalTokenizer``. A rank file (``.tiktoken``, or a ``tokenizer.model``
    that is one) whose SHA-256 is a built-in's (``builtins``: the catalogue's, each with its ``sha256``) is
    that built-in, by ``load_builtin``: it knows the pattern and special tokens the file does not hold."""
    from bpe_core.pretrained.external import loads_file  # a hub model: read by its format

    raw = read_tokenizer_file(model.path)
    if builtins and load_builtin and not model.file.endswith(".json"):
        builtin_name = builtin_with_file(raw, builtins)
        if builtin_name is not None:
            return load_builtin(builtin_name)
    tokenizer: Tokenizer | ExternalTokenizer = loads_file(raw, source=f"{model.name}/{model.file}", name=model.name)
    tokenizer.name = model.name
    return tokenizer


def builtin_with_file(raw: bytes, builtins: Mapping[str, Any]) -> str | None:
    """The name of the built-in (of ``builtins``, each with its pinned ``sha256``) whose rank file is
    ``raw``, byte for byte; None when none is.

    >>> from types import SimpleNamespace
    >>> builtin_with_file(b"x", {"a": SimpleNamespace(sha256=hashlib.sha256(b"x").hexdigest())})
    'a'
    """
    digest = hashlib.sha256(raw).hexdigest()
    return next((name for name, builtin in builtins.items() if builtin.sha256 == digest), None)


def load(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    builtins: Mapping[str, Any] | None = None,
    load_builtin: Callable[[str], Tokenizer] | None = None,
) -> Tokenizer | ExternalTokenizer:
    """``load_model(find(name))``: the cached model ``name``'s tokenizer, offline."""
    return load_model(find(name, cache_dir=cache_dir), builtins=builtins, load_builtin=load_builtin)


def load_external(name: str, *, cache_dir: str | os.PathLike[str] | None = None) -> ExternalTokenizer:
    """The cached model ``name``'s tokenizer file run read-only by the library that implements it
    (``bpe_core.load_external`` for a hub name)."""
    model = find(name, cache_dir=cache_dir)
    from bpe_core.pretrained.external import load_external_file

    tokenizer = load_external_file(model.path)
    tokenizer.name = model.name
    return tokenizer


def describe(models: Iterable[CachedModel]) -> list[str]:
    """One line per cached model, for a listing: its name, file and commit.

    >>> describe([CachedModel("Qwen/Qwen3-8B", "main", "a" * 40, "tokenizer.json", Path("x"))])
    ['Qwen/Qwen3-8B  tokenizer.json  aaaaaaaaaaaa']
    """
    return [f"{model.name}  {model.file}  {model.commit[:12]}" for model in models]
