"""MkDocs hook: doctest examples in docstrings (``>>>`` lines and their output) become ``pycon`` code
blocks, so the API reference shows them as code rather than as nested Markdown quotes. Text inside
fenced code blocks is left alone."""

from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

FENCE = re.compile(r"^\s*(```|~~~)")


class DoctestFences(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        in_fence = in_doctest = False
        for line in lines:
            if FENCE.match(line) and not in_doctest:
                in_fence = not in_fence
            elif not in_fence and not in_doctest and line.lstrip().startswith(">>>"):
                in_doctest = True
                out.append("```pycon")
            elif in_doctest and not line.strip():
                in_doctest = False
                out.append("```")
            out.append(line)
        if in_doctest:
            out.append("```")
        return out


class DoctestFencesExtension(Extension):
    def extendMarkdown(self, md) -> None:  # Python-Markdown calls it by this name
        # Before the fenced-code preprocessor (priority 25), so the fences added here are read as fences.
        md.preprocessors.register(DoctestFences(md), "doctest_fences", 30)


@event_priority(100)  # before mkdocstrings reads the Markdown extensions
def on_config(config):
    config.markdown_extensions.append(DoctestFencesExtension())
    return config
