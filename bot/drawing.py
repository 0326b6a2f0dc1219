"""Drawing the images in separate processes, off the bot's event loop and its GIL.

A table image takes ~17 ms of Pillow, and with 50 tables playing there are dozens a second.
The bot starts drawing processes (``python -m bot.drawing``; ``MAHJONG_DRAWING_PROCESSES``,
default 1, 0 to draw in a thread) so the drawing runs on another core, and sends each a request
on its stdin: a frame of a 4-byte length and a pickle of ``(kind, args, kwargs)`` for
``renderer.render_<kind>``; the answer comes back the same way on its stdout. A process ends
when its stdin closes, so a killed bot leaves none behind. If a process cannot be started or
dies, the image is drawn in a thread and a new process started.

Drawing in threads has its own single thread: drawn in the loop's default executor, queued
images delayed everything else that uses it (aiohttp's address look-ups for Discord requests),
and answering a button took p50 ~550 ms instead of ~6 ms (``benchmarks/bot.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import copyreg
import io
import logging
import os
import pickle
import signal
import struct
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

KINDS = frozenset({"table", "hand", "score_card", "tile_emoji"})
_LENGTH = struct.Struct(">I")
_READY = b"ready"


def render(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """``renderer.render_<kind>(*args, **kwargs)``: PNG bytes."""
    if kind not in KINDS:
        raise ValueError(f"no such drawing: {kind!r}")
    import renderer

    return getattr(renderer, f"render_{kind}")(*args, **kwargs)


def _dumps(value: Any) -> bytes:
    """A pickle that also carries the engine's read-only option mappings."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}
    pickler.dump(value)
    return buffer.getvalue()


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _read_only, (dict(proxy),)


def _read_only(values: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(values)


def _frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


class DrawingProcess:
    """One ``python -m bot.drawing`` child, asked one thing at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls) -> DrawingProcess:
        root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.drawing",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        drawer = cls(process)
        try:
            ok, value = await asyncio.wait_for(drawer._read(), timeout=60)
            if not ok or value != _READY:
                raise OSError(f"the drawing process did not start: {value!r}")
        except BaseException:
            await drawer.close()
            raise
        return drawer

    async def exchange(self, request: bytes) -> tuple[bool, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(_frame(request))
        await self.process.stdin.drain()
        return await self._read()

    async def _read(self) -> tuple[bool, Any]:
        assert self.process.stdout is not None
        (size,) = _LENGTH.unpack(await self.process.stdout.readexactly(_LENGTH.size))
        return pickle.loads(await self.process.stdout.readexactly(size))

    async def close(self) -> None:
        if self.process.returncode is not None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), timeout=5)
        except (TimeoutError, asyncio.CancelledError):
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            raise


class Drawing:
    """The bot's drawing: ``await drawing.draw("table", view, names)`` -> PNG bytes."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = max(0, processes)
        self._idle: asyncio.Queue[DrawingProcess] | None = None
        self._all: set[DrawingProcess] = set()
        self._starting: asyncio.Task[None] | None = None
        self._exchanges: set[asyncio.Task[Any]] = set()
        self._closed = False
        # Drawing in threads uses its own thread, not the loop's default executor: queued
        # drawings there delayed everything else that uses it (aiohttp's address look-ups).
        self._thread: ThreadPoolExecutor | None = None

    def start(self) -> None:
        """Start the processes in the background; images asked for meanwhile wait for them."""
        if self.processes and self._starting is None:
            self._idle = asyncio.Queue()
            self._starting = asyncio.create_task(self._start_all(), name="drawing-start")

    async def _start_all(self) -> None:
        await asyncio.gather(*(self._start_one() for _ in range(self.processes)))

    async def _start_one(self) -> None:
        try:
            drawer = await DrawingProcess.start()
        except (OSError, EOFError, asyncio.IncompleteReadError, TimeoutError):
            log.warning("could not start a drawing process; drawing in threads", exc_info=True)
            return
        if self._closed:
            await drawer.close()
            return
        self._all.add(drawer)
        assert self._idle is not None
        self._idle.put_nowait(drawer)

    async def draw(self, kind: str, *args: Any, **kwargs: Any) -> bytes:
        """PNG bytes of ``renderer.render_<kind>(*args, **kwargs)``, drawn off the event loop."""
        if kind not in KINDS:
            raise ValueError(f"no such drawing: {kind!r}")
        if self._starting is not None:
            await asyncio.shield(self._starting)
        if not self._all or self._idle is None:
            return await self._in_thread(kind, args, kwargs)
        request = _dumps((kind, args, kwargs))
        drawer = await self._idle.get()
        # The exchange runs to its end even if this caller is cancelled: a process left with an
        # unread answer would hand it to the next caller.
        exchange = asyncio.create_task(self._exchange(drawer, request), name="drawing")
        self._exchanges.add(exchange)
        exchange.add_done_callback(self._exchanges.discard)
        ok, value = await asyncio.shield(exchange)
        if ok is None:  # the process died: draw here
            return await self._in_thread(kind, args, kwargs)
        if not ok:
            raise RuntimeError(f"drawing {kind} failed: {value}")
        return value

    async def _in_thread(self, kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="drawing")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, render, kind, args, kwargs)

    async def _exchange(self, drawer: DrawingProcess, request: bytes) -> tuple[bool | None, Any]:
        assert self._idle is not None
        try:
            answer = await drawer.exchange(request)
        except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError):
            log.warning("a drawing process died; starting another", exc_info=True)
            self._all.discard(drawer)
            with contextlib.suppress(Exception):
                await drawer.close()
            if not self._closed:
                await self._start_one()
            return None, None
        self._idle.put_nowait(drawer)
        return answer

    async def close(self) -> None:
        self._closed = True
        if self._starting is not None:
            with contextlib.suppress(Exception):
                await self._starting
        if self._exchanges:
            await asyncio.wait(set(self._exchanges), timeout=10)
        drawers, self._all = set(self._all), set()
        for drawer in drawers:
            with contextlib.suppress(Exception):
                await drawer.close()
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)
            self._thread = None


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The drawing process: answer each request until the bot closes its end (or is gone)."""

    def send(ok: bool, value: Any) -> bool:
        try:
            answers.write(_frame(_dumps((ok, value))))
            answers.flush()
        except (BrokenPipeError, ConnectionError):
            return False
        return True

    if not send(True, _READY):
        return
    while True:
        head = requests.read(_LENGTH.size)
        if len(head) < _LENGTH.size:
            return
        (size,) = _LENGTH.unpack(head)
        payload = requests.read(size)
        if len(payload) < size:
            return
        try:
            kind, args, kwargs = pickle.loads(payload)
            answer = (True, render(kind, args, kwargs))
        except Exception as exc:  # the bot logs it; the process goes on drawing
            answer = (False, f"{type(exc).__name__}: {exc}")
        if not send(*answer):
            return


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group; the bot decides when this ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import renderer  # noqa: F401  (loaded before saying ready)

    answers = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the answers
    try:
        serve(sys.stdin.buffer, answers)
    finally:
        # An answer the bot never read stays buffered; flushing it at exit would fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), answers.fileno())


if __name__ == "__main__":
    main()
