"""The workbench's own choices about the built-in tokenizers: the order its pickers list them in
(``BUILTIN_ORDER``), those Tokenize and Compare open with (``OPENING``), and the warm-up that loads
those when the server starts, with the modules of the two pages imported ahead (``warm_up``).

Loading each built-in once per server, the background warm-up and which built-ins are installed are
``bpe_core.workspace.shared_builtins``' (the pages call it directly); this module only names the app's
lists. Draws nothing; the pickers are ``tokenizers``' and ``widgets``'.
"""

from __future__ import annotations

import threading

from bpe_core.pretrained import catalogue
from bpe_core.workspace import shared_builtins

#: The built-in tokenizers in the pickers' order (``bpe_core.pretrained.catalogue``): today's models first.
BUILTIN_ORDER = (
    "o200k",
    "llama3",
    "qwen3.5",
    "cl100k",
    "gpt2",
    "mistral",
    "deepseek4",
    "deepseek",
    "qwen",
    "o200k_harmony",
    "llama4",
)
#: What Tokenize and Compare open with, when installed (after a tokenizer trained in this session).
OPENING = ("o200k", "llama3", "qwen3.5", "cl100k", "gpt2")
#: What Tokenize imports (first) and Compare (after the loads), imported ahead by the warm-up: a second
#: or so of a fresh server's first visit to them.
TOKENIZE_IMPORTS = ("numpy", "pandas", "pages._ui.encoding", "pages._tokenize_text.linked")
COMPARE_IMPORTS = ("plotly.graph_objects", "pages._ui.charts", "pages._compare.measures")


def warm_up() -> threading.Thread:
    """Load the tokenizers Tokenize and Compare open with in a background thread started once per
    server (app.py's navigation calls this on every run; only the first starts it). The thread waits
    for the run that started it to end, so that the first page a visitor opens (Home, say) is drawn
    without sharing the interpreter with the load; a first visit to Tokenize or Compare then finds the
    tokenizers loaded, or loading (it waits for that one load)."""
    return shared_builtins.warm_up(OPENING, imports_first=TOKENIZE_IMPORTS, imports_after=COMPARE_IMPORTS)


def installed_builtins() -> dict[str, catalogue.Status]:
    """The installed built-ins by name, in ``BUILTIN_ORDER`` (then any other the catalogue lists)."""
    return shared_builtins.installed_builtins(BUILTIN_ORDER)
