"""Blocking work off the event loop, on a chosen thread pool, with the caller's context variables.

``asyncio.to_thread`` always uses the loop's default pool; the companion runs
request, answer and background work on separate pools (``companion.workers``),
and the answer pipeline runs on whichever pool its caller gives it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

T = TypeVar("T")


async def run_on(executor: Executor | None, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` on ``executor``'s threads (None: the loop's default pool)."""
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(executor, call)
