"""An ordered map over worker processes, for the map steps of counting and of batch encoding.

A worker is a plain ``python -c`` subprocess that reads length-prefixed pickled messages on stdin
and writes one pickled reply per task on stdout. Not multiprocessing: nothing re-imports the
caller's ``__main__``, and it behaves the same from scripts, threads, notebooks and Streamlit.

``ordered_map(function, tasks, ...)`` hands tasks to a pool, computes tasks in this process while the
workers start, and yields ``function(context, task)`` in task order. ``function`` and the context's
``setup`` are module-level functions, sent by reference (pickle names them; the worker imports their
module itself), so this module knows nothing of the work and imports nothing from bpe_core. If
workers cannot start or die, the tasks they did not hand back are computed here, so the result never
depends on whether the workers ran. Workers end quietly, without a traceback, when their parent dies.
"""

from __future__ import annotations

import collections
import gc
import itertools
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from bpe_core.errors import BpeError

_WORKER_CODE = "from bpe_core.parallel import worker_main; worker_main()"


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_workers(workers: int | None) -> int | None:
    if workers is None:
        return None
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise BpeError(f"workers must be a positive integer or None (automatic), got {workers!r}")
    return workers


def worker_count(requested: int, tasks: int) -> int:
    """How many workers to start: never more than asked for, than there are tasks, or than CPUs
    (a worker beyond those only costs its start-up).

    >>> worker_count(40, 1)
    1
    >>> worker_count(40, 0)
    0
    """
    return max(0, min(requested, tasks, available_cpus()))


def batches(parts: Iterable[str], size: int) -> Iterator[list[str]]:
    """``parts`` in consecutive tasks of about ``size`` characters (each at least ``size``, but the last)."""
    batch: list[str] = []
    chars = 0
    for part in parts:
        batch.append(part)
        chars += len(part)
        if chars >= size:
            yield batch
            batch = []
            chars = 0
    if batch:
        yield batch


class WorkerFailed(Exception):
    pass


class Worker:
    """One worker process (see the module docstring). Messages are written by a thread of its own, so
    sending never blocks the caller: a worker can hold its next task while the caller is busy (or
    not scheduled), and no pipe can fill both ways into a deadlock (the caller only ever waits to
    read)."""

    def __init__(self) -> None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        if self.process.stdin is None or self.process.stdout is None:  # both are pipes: cannot happen
            self.process.kill()
            raise WorkerFailed("the worker has no pipes")
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        self.in_flight = 0  # tasks sent whose result has not been read
        self.answered = False  # whether a result was read (it has started)
        # Room for a whole task in the pipe (Linux), so the writer rarely waits for the worker.
        try:
            import fcntl

            for stream in (self.stdin, self.stdout):
                fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        except (ImportError, AttributeError, OSError):
            pass
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_all, daemon=True)
        self._writer.start()

    def _write_all(self) -> None:
        stdin = self.stdin
        try:
            while True:
                data = self._outbox.get()
                if data is None:
                    break
                stdin.write(len(data).to_bytes(8, "little") + data)
                stdin.flush()
        except (OSError, ValueError):
            pass  # the worker died: ``receive`` says so
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def send(self, message: object) -> None:
        """Queue ``message`` for the worker (pickled here, written by the writer thread)."""
        self._outbox.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def receive(self) -> Any:
        data = _read_message(self.stdout)
        if data is None:
            raise WorkerFailed("worker exited")
        self.answered = True
        status, value = pickle.loads(data)
        if status == "error":
            raise value
        if status == "progress":  # from ``call_in_child``'s function: handed to its progress callback
            return _Progress(value)
        return value

    def close(self) -> None:
        while True:  # tasks not yet written are dropped
            try:
                self._outbox.get_nowait()
            except queue.Empty:
                break
        self._outbox.put(None)
        self._writer.join(5)
        if self._writer.is_alive():  # stuck writing to a worker that does not read
            self.process.kill()
            self._writer.join()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stdout.close()


#: Tasks a worker holds at once: the one it computes and the next, so it never waits for the caller.
TASKS_PER_WORKER = 2


# long on purpose: one scheduler whose state (the queue, the workers' loads, a pending task) every phase shares.
def ordered_map(
    function: Callable[[Any, Any], Any],
    tasks: Iterable,
    *,
    workers: int,
    setup: Callable[[Any], Any] | None = None,
    setup_argument: Any = None,
    context: Any = None,
    share: bool = False,
) -> Iterator:
    """``function(context, task)`` for each task, in order, computed by ``workers`` processes and by
    this process while they start (``share``: also whenever no worker's result is waiting and few
    tasks are queued, so that this process is one of the computing processes, not only their dispatcher).

    In this process the given ``context`` is used; each worker builds its own once, as
    ``setup(setup_argument)`` (None without ``setup``). ``function`` and ``setup`` must be module-level
    functions so that a worker can import them by name.

    Each worker holds up to ``TASKS_PER_WORKER`` tasks (a new one goes to the least loaded worker);
    results are read in task order. If workers cannot be started or die, the tasks they did not hand
    back, and the rest, are computed here. At most ``worker_count(workers, number of tasks)``
    processes start: the first tasks are read ahead to know whether there are fewer tasks than
    workers.
    """
    check_workers(workers)

    def run_here(task: Any) -> Any:
        return function(context, task)

    pool: list[Worker] = []
    # Tasks in order: [worker, task, None] while a worker has it, [None, task, result] once done here.
    queue_: collections.deque[list] = collections.deque()
    pending = None  # a task taken from `tasks` but not yet in `queue_`
    tasks = iter(tasks)
    ahead = list(itertools.islice(tasks, min(workers, available_cpus())))
    workers = worker_count(workers, len(ahead))
    tasks = itertools.chain(ahead, tasks)
    # Tasks queued at once when this process shares the work: room for its own beside the workers' (so it
    # seldom waits for theirs), and a bound on the results it holds when a worker is slow.
    held_most = 2 * (workers + 1) * TASKS_PER_WORKER
    try:
        try:
            for _ in range(workers):
                pool.append(Worker())
                pool[-1].send((function, setup, setup_argument))
        except OSError:
            if not pool:
                raise WorkerFailed("cannot start workers") from None
        while True:
            if pending is None:
                pending = next(tasks, None)
                if pending is None:
                    break
            worker = min(pool, key=_load) if pool else None
            if worker is not None and worker.in_flight < TASKS_PER_WORKER:
                queue_.append([worker, pending, None])
                worker.in_flight += 1
                worker.send(pending)
                pending = None
            elif queue_[0][0] is None:
                yield queue_.popleft()[2]
            elif (not any(w.answered for w in pool) or (share and len(queue_) < held_most)) and not _any_ready(pool):
                # Work here until the first worker answers (they take a moment to start), or throughout
                # while few results wait here behind a worker's (a stalled worker must not let them pile up).
                queue_.append([None, pending, run_here(pending)])
                pending = None
            else:
                yield _receive_first(queue_)
        while queue_:
            if queue_[0][0] is None:
                yield queue_.popleft()[2]
            else:
                yield _receive_first(queue_)
    except WorkerFailed:
        # Compute here whatever the workers did not hand back, then the rest, in order.
        for worker, task, result in queue_:
            yield result if worker is None else run_here(task)
        if pending is not None:
            yield run_here(pending)
        for task in tasks:
            yield run_here(task)
    finally:
        for worker in pool:
            worker.close()


class _Progress(tuple):
    """A progress report from a worker (``call_in_child``), not a result."""


def call_in_child(
    function: Callable[[Callable[..., None] | None, Any], Any],
    argument: Any,
    *,
    progress: Callable[..., None] | None = None,
) -> Any:
    """``function(report, argument)`` computed in a fresh worker process, whose memory goes back to the
    system when it ends (a step that frees what it built still leaves this process larger); each
    ``report(*args)`` there calls ``progress(*args)`` here (``report`` is None without ``progress``).
    ``function`` is a module-level function; ``argument`` and its result are pickled. Computed here
    (``report`` then being ``progress``) if no worker can start or it dies; an exception raised there
    is raised here, and one raised by ``progress`` (a cancel) stops the worker at once and goes on.
    """
    try:
        worker = Worker()
    except (OSError, WorkerFailed):
        return function(progress, argument)
    try:
        worker.send((function, _progress_sender if progress is not None else None, None))
        worker.send(argument)
        while True:
            reply = worker.receive()
            if not isinstance(reply, _Progress):
                return reply
            if progress is not None:
                progress(*reply)
    except WorkerFailed:
        worker.process.kill()
        return function(progress, argument)
    except BaseException:
        worker.process.kill()  # stopped by the caller (a cancel raised from progress, Ctrl-C): at once
        raise
    finally:
        worker.close()


#: In a worker: where its replies go (``worker_main``), for ``_progress_sender``'s reports.
_replies: IO[bytes] | None = None


def _progress_sender(_: Any) -> Callable[..., None]:
    """In a worker (``call_in_child``'s setup): ``report(*args)``, each sent to the caller as it comes."""
    stream = _replies

    def report(*args: Any) -> None:
        if stream is not None:
            _reply(stream, pickle.dumps(("progress", args), protocol=pickle.HIGHEST_PROTOCOL))

    return report


def _load(worker: Worker) -> int:
    return worker.in_flight


def _receive_first(queue_: collections.deque) -> Any:
    """The first queued task's result, read from its worker (the entry leaves the queue once read)."""
    worker = queue_[0][0]
    result = worker.receive()
    worker.in_flight -= 1
    queue_.popleft()
    return result


def _any_ready(pool: list[Worker]) -> bool:
    """Whether some worker has output waiting (False where pipes cannot be polled)."""
    if os.name != "posix":
        return True
    import select

    try:
        ready, _, _ = select.select([w.stdout for w in pool], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(ready)


def _read_message(stream: IO[bytes]) -> bytes | None:
    """One length-prefixed message, or None when the stream ends before it is whole."""
    header = stream.read(8)
    if len(header) < 8:
        return None
    size = int.from_bytes(header, "little")
    data = stream.read(size)
    return data if len(data) == size else None


def _end_with_parent(parent: int, interval: float = 1.0) -> None:
    """Watch the parent from a daemon thread: once it is gone (killed, even with SIGKILL: the worker
    is handed to another parent), end this worker at once, quietly, instead of finishing a task
    nobody will read."""

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _reply(stdout: IO[bytes], data: bytes) -> None:
    """Send one reply; if the parent has gone (a broken pipe), end quietly: no traceback, no
    complaint at exit about a buffer that cannot be flushed."""
    try:
        stdout.write(len(data).to_bytes(8, "little") + data)
        stdout.flush()
    except (OSError, ValueError):
        os._exit(0)


def worker_main() -> None:
    """The loop run by a worker process (see ``Worker``): one setup message ``(function, setup,
    setup_argument)``, then one reply per task. A failed setup is raised again for every task, so the
    caller sees it. A worker ends quietly when its parent dies (``_end_with_parent``, ``_reply``) and
    leaves Ctrl-C to the parent, which then closes it."""
    if os.name == "posix":
        _end_with_parent(os.getppid())
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # not the main thread, or no such signal here
        pass
    global _replies
    stdin = sys.stdin.buffer
    stdout = _replies = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the result stream
    first = _read_message(stdin)
    if first is None:
        return
    failure: Exception | None = None
    try:
        function, setup, setup_argument = pickle.loads(first)
        context = setup(setup_argument) if setup is not None else None
    except Exception as exc:
        failure = exc
    while True:
        message = _read_message(stdin)
        if message is None:
            return
        try:
            if failure is not None:
                raise failure
            # No cyclic garbage collection during a task: the map steps make many short-lived
            # lists and no cycles (the time it saves: bench/PERFORMANCE.md, "Figures behind choices in the code").
            gc.disable()
            reply = ("ok", function(context, pickle.loads(message)))
        except Exception as exc:  # sent back and raised by the caller, e.g. a regex timeout
            reply = ("error", exc)
        finally:
            gc.enable()
        try:
            data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            data = pickle.dumps(("error", RuntimeError(f"worker failed: {exc!r}")))
        _reply(stdout, data)
