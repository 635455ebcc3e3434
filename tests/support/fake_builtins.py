"""A process that has loaded no built-in tokenizer and started no warm-up, with ``bpe_core.load`` faked
and counted, for the tests of ``bpe_core.workspace.shared_builtins`` and of the workbench's first view."""

from __future__ import annotations

import threading

import pytest

import bpe_core
from bpe_core.pretrained import catalogue
from bpe_core.workspace import shared_builtins


class FakeTokenizer:
    """Stands in for a loaded built-in: the warm-up only asks it for a merge rank."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ranks_asked = 0

    def merge_rank_of(self, token_id: int) -> int | None:
        self.ranks_asked += 1
        return None


def fresh_builtins(monkeypatch: pytest.MonkeyPatch, *, failing: str) -> list[str]:
    """Nothing loaded, no warm-up started; loading the built-in ``name`` gives a ``FakeTokenizer``, or
    for ``failing`` a ValueError "<failing>'s file failed its hash check". Returns the list of the names
    loaded so far, in order (one entry per load)."""
    monkeypatch.setattr(shared_builtins, "BUILTINS", shared_builtins.SharedResults())
    monkeypatch.setattr(shared_builtins, "_warm_up_started", [])
    loads: list[str] = []
    guard = threading.Lock()

    def load(name: str) -> FakeTokenizer:
        with guard:
            loads.append(name)
        if name == failing:
            raise ValueError(f"{name}'s file failed its hash check")
        return FakeTokenizer(name)

    monkeypatch.setattr(bpe_core, "load", load)  # first: bpe_core.load is looked up in catalogue on first use
    monkeypatch.setattr(catalogue, "load", load)
    return loads
