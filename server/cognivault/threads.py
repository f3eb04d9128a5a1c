"""Blocking work off the event loop, and background work that gives way to requests.

``asyncio.to_thread`` always uses the loop's default pool; the companion runs
request, answer and background work on separate pools (``companion.workers``),
and the answer pipeline runs on whichever pool its caller gives it (:func:`run_on`).

Python runs one thread's bytecode at a time, so a request answered while a
CPU-bound background job runs takes up to twice as long. A :class:`RequestGate`
counts the requests in flight; background work waits for a quiet moment between
its steps (the companion's answer steps, the language server's re-index of an
edited note), a bounded time at most so it never starves.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import Any, TypeVar

T = TypeVar("T")


async def run_on(executor: Executor | None, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` on ``executor``'s threads (None: the loop's default pool)."""
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(executor, call)


class RequestGate:
    """Counts request work in flight, so that background work can wait for a quiet moment."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._quiet = threading.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def request(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
            self._quiet.clear()
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._quiet.set()

    def wait_quiet(self, timeout: float) -> bool:
        """Block until no request work is in flight or ``timeout`` seconds passed; True when quiet."""
        return self._quiet.wait(timeout)
