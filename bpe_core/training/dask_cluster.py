"""Reaching a Dask cluster for ``distributed``: importing ``dask.distributed`` (optional), starting a
local cluster or connecting to a scheduler, and checking that the workers and the scheduler run this
bpe_core, each step within a time limit and with an error that names its fix.

What it does not do: plan or count partitions (``distributed``).
"""

from __future__ import annotations

import gc
import logging
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from bpe_core import __version__
from bpe_core.errors import BpeError
from bpe_core.parallel import available_cpus
from bpe_core.pretokenization.pretokenizer import PreTokenizer

if TYPE_CHECKING:  # dask.distributed is optional: never imported at run time here
    from distributed import Client

INSTALL_HINT = "pip install -r requirements-distributed.txt (or pip install 'bpe-core[distributed]')"
#: Seconds to wait for a scheduler to answer and for it to have a worker.
CONNECT_TIMEOUT = 10.0
#: Seconds the workers and the scheduler get, at least, to answer the version check once connected.
CHECK_TIMEOUT = 60.0
_Answer = TypeVar("_Answer")


class DaskMissing(BpeError):
    """dask.distributed is not installed; the message names the install command."""


def import_distributed() -> ModuleType:
    """The ``distributed`` module, or DaskMissing naming the install command."""
    try:
        import distributed
    except ImportError:
        raise DaskMissing(f"counting on Dask needs dask.distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


def is_scheduler_address(value: str) -> bool:
    """Whether ``value`` reads as a Dask scheduler address (``scheme://...`` or ``host:port``), not a path.

    >>> [is_scheduler_address(v) for v in ("tcp://10.0.0.5:8786", "head-node:8786", "data/*.jsonl")]
    [True, True, False]
    """
    return "://" in value or re.fullmatch(r"[\w.-]+:\d+", value) is not None


def worker_version(pattern: str | None = None) -> str:
    """bpe_core's version on a worker (run there to check it can import bpe_core at all), with the
    pre-tokenizer of ``pattern`` built, so the first partition does not pay for it."""
    PreTokenizer.build(pattern)
    return __version__


@contextmanager
def dask_client(
    scheduler: str | Client | None = None,
    *,
    workers: int | None = None,
    timeout: float = CONNECT_TIMEOUT,
    pattern: str | None = None,
) -> Iterator[Client]:
    """A ``distributed.Client`` for the duration of a ``with``: a new ``LocalCluster`` of ``workers``
    processes (None: one per CPU) when ``scheduler`` is None, closed afterwards; a connection to the
    scheduler at an address (``"tcp://host:8786"``); or a ``Client`` the caller made, used as is.
    Every error names its fix: a bad address, no answer within ``timeout`` seconds, no worker, or a
    scheduler or worker without this bpe_core. Each worker builds ``pattern``'s pre-tokenizer up front."""
    distributed = import_distributed()
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise BpeError(f"workers must be a whole number of at least 1, got {workers!r}")
    if workers is not None and scheduler is not None:
        raise BpeError(
            "workers applies only to the local cluster bpe_core starts; a cluster's workers are the "
            "`dask worker` processes started for its scheduler"
        )
    if isinstance(scheduler, distributed.Client):
        _check_workers(scheduler, timeout, "the given Client's scheduler", pattern)
        yield scheduler
        return
    if scheduler is None:
        cluster = distributed.LocalCluster(
            n_workers=workers or available_cpus(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,  # a failed task is reported once, as one line, not as worker tracebacks
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP server: a free port, never a warning
        )
        _finalize_lost_clients()
        client = distributed.Client(cluster)
        try:
            _check_workers(client, timeout, "the local cluster", pattern)
            yield client
        finally:
            client.close()
            cluster.close()
        return
    client = _connect(distributed, scheduler, timeout)
    try:
        _check_workers(client, timeout, f"the scheduler at {scheduler}", pattern)
        yield client
    finally:
        client.close()


def _connect(distributed: ModuleType, address: object, timeout: float) -> Client:
    if not isinstance(address, str) or not address.strip():
        raise TypeError(
            f"scheduler must be an address such as 'tcp://host:8786', a distributed.Client or None, "
            f"not {type(address).__name__}"
        )
    _finalize_lost_clients()
    try:
        return distributed.Client(address, timeout=timeout)
    except ValueError as exc:  # no port, unknown scheme
        problem = f"{address!r} is not a Dask scheduler address ({exc}): give one such as tcp://host:8786"
    except OSError as exc:  # nobody answered
        problem = (
            f"no Dask scheduler answered at {address} within {timeout:g} s ({exc}): start one with "
            f"`dask scheduler` on that machine, check the host, port and firewall, or pass no address "
            f"for a local cluster"
        )
    # out of the except clause, nothing refers to the half-made Client any more: finalized now
    _finalize_lost_clients()
    raise BpeError(problem)


def _finalize_lost_clients() -> None:
    """Collect garbage now, so that a ``distributed.Client`` nobody holds any more (the half-made one
    a failed connection leaves, its event loop started) is closed here. Left to a later collection,
    its ``__del__`` may run inside the next Client's start, which holds the lock distributed's loop
    runner takes to stop a loop: the process then waits for ever (seen in this project's test run)."""
    gc.collect()


def _check_workers(client: Client, timeout: float, where: str, pattern: str | None) -> None:
    """At least one worker, every worker imports the same bpe_core, and so does the scheduler: else a
    ValueError that says so (tasks would otherwise wait forever, or fail one by one)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise BpeError(
            f"{where} has no worker after {timeout:g} s: start some with `dask worker <scheduler address>`"
        ) from None
    who = f"Dask workers of {where}"
    wait = max(timeout, CHECK_TIMEOUT)
    try:  # the scheduler unpickles what the client sends, so it needs bpe_core too
        versions = _answer_within(wait, who, lambda: client.run(worker_version, pattern))
        who = f"Dask scheduler ({where})"
        versions["the scheduler"] = _answer_within(wait, who, lambda: client.run_on_scheduler(worker_version, pattern))
    except BpeError:
        raise
    except Exception as exc:  # an ImportError there arrives here as a plain Exception
        raise BpeError(
            f"the {who} cannot run bpe_core ({exc}): install bpe_core {__version__} in every "
            "worker's and the scheduler's environment (pip install bpe-core, or the checkout on "
            "PYTHONPATH)"
        ) from None
    wrong = {address: version for address, version in versions.items() if version != __version__}
    if wrong:
        address, version = next(iter(wrong.items()))
        raise BpeError(
            f"{len(wrong)} Dask worker(s) of {where} run bpe_core {version} (e.g. {address}), this "
            f"client {__version__}: install the same version everywhere, so counts mean the same"
        )


def _answer_within(seconds: float, who: str, ask: Callable[[], _Answer]) -> _Answer:
    """``ask()``'s answer, or a BpeError once ``seconds`` have passed without one. Dask's ``run`` has no
    time limit of its own, and a worker that accepted the call but never answers (a stuck process, a
    network that drops replies) would otherwise hold the caller for ever. The asking thread is a daemon:
    left behind, it never keeps the interpreter from exiting."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["answer"] = ask()
        except BaseException as exc:  # handed to the caller, who raises it
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="bpe_core-dask-check", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise BpeError(
            f"the {who} did not answer a version check within {seconds:g} s: check that the workers and "
            f"the scheduler are running and reachable (their logs say why), or pass a longer timeout"
        )
    if "error" in outcome:
        raise outcome["error"]
    answer: _Answer = outcome["answer"]
    return answer
