"""A visitor whose browser runs on another machine, emulated: it asks the server for what a Chromium
visit asked for (the same static files, over at most six connections as a browser does), then opens a
session over Streamlit's own websocket protocol and runs the same pages one after another, receiving
every message each script run sends. It draws nothing: what it costs the server is what a visitor
costs it, what it costs this machine's CPUs beyond that is only the receiving.

``sessions_bench`` sets these beside one timed Chromium visit, so that nine people at once load the
server as nine browsers would while only one browser shares the server's two CPUs (on a real server
the nine browsers are on nine laptops). ``recorded_requests`` collects a Chromium page's requests;
``EmulatedVisitor.visit`` replays them and runs the pages. Times nothing a person sees (the Chromium
visit does that); measures only how long the server took to serve the emulated visitor.
"""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

#: Streamlit's websocket route and subprotocol (``streamlit.web.server``'s, version 1.67).
STREAM_PATH = "/_stcore/stream"
SUBPROTOCOL = "streamlit"
#: Connections a browser opens to one host at once (HTTP/1.1).
BROWSER_CONNECTIONS = 6


def recorded_requests(page, origin: str) -> list[str]:
    """A list that fills, as ``page`` (a Playwright page) loads, with the path of every GET it sends to
    ``origin``, except the websocket (the emulated visitor opens its own)."""
    paths: list[str] = []

    def keep(request) -> None:
        parts = urlsplit(request.url)
        if request.method == "GET" and request.url.startswith(origin) and parts.path != STREAM_PATH:
            paths.append(parts.path + (f"?{parts.query}" if parts.query else ""))

    page.on("request", keep)
    return paths


@dataclass
class EmulatedVisitor:
    """``url`` is the server's; ``paths`` what a Chromium visit asked for (``recorded_requests``);
    ``pages`` the pages' URL paths to run in order (the first one is opened, the next ones reached
    from the menu, in one session)."""

    url: str
    paths: Sequence[str]
    pages: Sequence[str]
    seconds: dict[str, float] = field(default_factory=dict)

    async def visit(self, between: Callable[[], Awaitable[object]] | None = None) -> dict[str, float]:
        """Fetch the files, then run each page; the seconds from the start to each page's script run
        being over (the first page's include the files), by page path. ``between`` is awaited before
        each page after the first, untimed (to start a page at the same moment as other visitors).
        ``RuntimeError`` when a script run ends with an error or the server fails."""
        import websockets

        started = time.perf_counter()
        await self._fetch_files()
        stream = self.url.replace("http", "ws", 1) + STREAM_PATH
        async with websockets.connect(stream, subprotocols=[SUBPROTOCOL], max_size=None) as socket:
            hashes: dict[str, str] = {}
            for number, page in enumerate(self.pages):
                if number and between is not None:
                    await between()
                    started = time.perf_counter()
                state = {"page_name": page} if number == 0 else {"page_script_hash": hashes[page]}
                hashes.update(await _run_page(socket, state))
                self.seconds[page] = time.perf_counter() - started
                started = time.perf_counter()
        return self.seconds

    async def _fetch_files(self) -> None:
        """Every recorded path, received whole and left compressed (a browser's decoding is its own
        machine's work, not the server's), at most ``BROWSER_CONNECTIONS`` at a time."""
        connections = asyncio.Semaphore(BROWSER_CONNECTIONS)

        def fetch(path: str) -> int:
            request = urllib.request.Request(self.url + path, headers={"Accept-Encoding": "gzip, deflate, br"})
            try:
                with urllib.request.urlopen(request, timeout=600) as answer:
                    answer.read()
                    return answer.status
            except urllib.error.HTTPError as refused:
                return refused.code

        async def one(path: str) -> int:
            async with connections:
                return await asyncio.to_thread(fetch, path)

        statuses = await asyncio.gather(*(one(path) for path in self.paths))
        # a 404 is what the browser got too (its frontend probes for the server's base path)
        failed = [path for path, status in zip(self.paths, statuses, strict=True) if status >= 500]
        if failed:
            raise RuntimeError(f"the server failed on {len(failed)} of the files, e.g. {failed[0]}")


class Barrier:
    """Lets ``count`` visitors go on together: each awaits ``wait()``, and all are released when the
    last arrives (``asyncio.Barrier`` needs Python 3.11)."""

    def __init__(self, count: int) -> None:
        self._count = count
        self._arrived = 0
        self._all_here = asyncio.Event()

    async def wait(self) -> None:
        self._arrived += 1
        if self._arrived >= self._count:
            self._all_here.set()
        await self._all_here.wait()


async def _run_page(socket, state: dict[str, str]) -> dict[str, str]:
    """Ask for one script run (``state``: the page, as the browser names it), read every message until
    it is over; the app's pages as {URL path: script hash} (from its navigation message)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    request = BackMsg()
    request.rerun_script.query_string = ""
    for name, value in state.items():
        setattr(request.rerun_script, name, value)
    await socket.send(request.SerializeToString())
    pages: dict[str, str] = {}
    while True:
        message = ForwardMsg()
        message.ParseFromString(await socket.recv())
        kind = message.WhichOneof("type")
        if kind == "navigation":
            pages = {p.url_pathname: p.page_script_hash for p in message.navigation.app_pages}
        elif kind == "delta" and message.delta.new_element.WhichOneof("type") == "exception":
            error = message.delta.new_element.exception
            where = " / ".join(line.strip() for line in error.stack_trace[-4:])
            raise RuntimeError(f"the page raised {error.type}: {error.message.splitlines()[0]} (at {where})")
        elif kind == "script_finished":
            if message.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                raise RuntimeError("the page's script did not compile")
            if message.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                return pages
            # FINISHED_EARLY_FOR_RERUN: the page asked for another run; read on
