"""A Hugging Face hub cache written by hand, the way ``huggingface_hub`` writes it (its "Understand
caching" guide): ``models--org--name/blobs/<hash>`` holds each file's bytes once,
``snapshots/<commit>/<file>`` is a relative symbolic link to its blob, and ``refs/<branch or tag>`` holds
the commit a name points at (no newline). Tests fill it with files the project already has; nothing is
downloaded."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path


def repo_folder(cache: Path, repo_id: str) -> Path:
    return cache / ("models--" + repo_id.replace("/", "--"))


def add_snapshot(
    cache: Path, repo_id: str, files: Mapping[str, bytes], *, refs: Iterable[str] = ("main",), commit: str | None = None
) -> str:
    """Put ``files`` (path in the repository -> bytes) in ``cache`` as the snapshot of one commit of
    ``repo_id``, with ``refs`` pointing at it; returns the commit (40 hex digits)."""
    repo = repo_folder(cache, repo_id)
    if commit is None:
        seed = repo_id.encode() + b"".join(name.encode() + data for name, data in sorted(files.items()))
        commit = hashlib.sha1(seed).hexdigest()
    for name, data in files.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = repo / "snapshots" / commit / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    for ref in refs:
        path = repo / "refs" / ref
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(commit, encoding="ascii")
    return commit
