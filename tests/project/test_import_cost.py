"""What importing bpe_core costs, named module by module: ``python -X importtime`` run in a fresh
interpreter lists every module an import loads, and the heavy ones (the file formats, the built-in
catalogue, analysis, training, regex compilation, numpy, pyarrow, tokenizers) must wait for first use.
No timing is asserted (bench/load_bench.py measures the time against tiktoken's); the names are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules that ``import bpe_core`` must not load: each costs milliseconds to tens of milliseconds and
#: is needed only by some uses.
HEAVY = (
    "regex",
    "numpy",
    "pyarrow",
    "tokenizers",
    "tiktoken",
    "sentencepiece",
    "json",
    "dataclasses",
    "concurrent.futures",
    "subprocess",
    "bpe_core.tokenizer",
    "bpe_core.formats",
    "bpe_core.pretrained",
    "bpe_core.analysis",
    "bpe_core.training",
    "bpe_core.corpora",
    "bpe_core.pretokenization",
    "bpe_core.encoding",
    "bpe_core.cli",
    "bpe_core.workspace",
)

#: What loading a built-in tiktoken-ranks tokenizer and encoding a line must still not load.
NOT_FOR_A_BUILTIN = (
    "numpy",
    "pyarrow",
    "tokenizers",
    "sentencepiece",
    "zipfile",
    "bpe_core.formats.huggingface",
    "bpe_core.pretrained.external",
    "bpe_core.analysis",
    "bpe_core.training",
    "bpe_core.corpora",
    "bpe_core.encoding.batch",
    "bpe_core.parallel",
    "bpe_core.cli",
    "bpe_core.workspace",
)


def imported(code: str) -> list[str]:
    """The modules ``python -X importtime -c code`` loads beyond a bare interpreter's, in order."""

    def modules(source: str) -> list[str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", source], capture_output=True, text=True, env=env, check=True
        )
        lines = [line for line in done.stderr.splitlines() if line.startswith("import time:") and "|" in line]
        return [line.rsplit("|", 1)[1].strip() for line in lines[1:]]  # the first line is the header

    bare = set(modules("pass"))
    return [name for name in modules(code) if name not in bare]


def loaded(names: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [name for name in names if any(name == p or name.startswith(p + ".") for p in prefixes)]


def test_import_bpe_core_loads_nothing_heavy():
    names = imported("import bpe_core")
    assert "bpe_core" in names, names  # the listing works
    assert loaded(names, HEAVY) == [], f"import bpe_core loads {loaded(names, HEAVY)} (everything: {names})"
    assert [name for name in names if name.startswith("bpe_core")] == ["bpe_core"], names


def test_each_public_name_is_imported_on_first_use():
    names = imported("import bpe_core; bpe_core.BpeError; bpe_core.Tokenizer")
    assert {"bpe_core.errors", "bpe_core.tokenizer"} <= set(names)
    assert loaded(names, ("bpe_core.pretrained", "bpe_core.training", "bpe_core.analysis")) == [], names


def test_loading_a_builtin_and_encoding_loads_only_what_it_uses():
    from bpe_core.pretrained import catalogue

    if not catalogue.is_installed("cl100k"):
        pytest.skip("cl100k's package is not installed")
    names = imported("import bpe_core; bpe_core.load('cl100k').encode('Hello world, ça va? 你好')")
    assert "bpe_core.pretrained.catalogue" in names
    unwanted = loaded(names, NOT_FOR_A_BUILTIN)
    assert unwanted == [], f"load('cl100k') + encode loads {unwanted}"


def test_the_public_names_still_resolve():
    import bpe_core

    for name in bpe_core.__all__:
        assert getattr(bpe_core, name) is not None, name
    assert set(bpe_core.__all__) <= set(dir(bpe_core))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        bpe_core.nope  # noqa: B018
