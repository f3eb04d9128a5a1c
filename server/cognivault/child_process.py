"""A child process the parent talks to over a pipe: started, waited on, stopped or killed, and how it ended.

The llama.cpp runner (:mod:`cognivault.models.llamacpp_runner`) and the attachment reader
(:mod:`cognivault.index.isolation`) each keep such a child, so that native code crashing or running
away takes down only the child. This module holds what they share; what a message means, how long
to wait and what to tell the user stay with each of them. It imports nothing heavy: the reader's
parent is the indexer, which must not load the model stack.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Literal

Waited = Literal["ready", "stopped", "ended", "late"]


@dataclass(slots=True)
class ChildProcess:
    """A spawned daemon child and the parent's end of its pipe (the child's end is its first argument)."""

    process: BaseProcess
    connection: Connection

    @classmethod
    def start(cls, target: Callable[..., None], args: tuple[Any, ...], name: str) -> ChildProcess:
        """Run ``target(connection, *args)`` in a fresh (spawned) process."""
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(target=target, args=(child, *args), daemon=True, name=name)
        process.start()
        child.close()
        return cls(process, parent)

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def wait(self, poll_s: float, stop: threading.Event, deadline: float | None) -> Waited:
        """Wait for a message: ``ready`` when one is there, else why the wait ended (``stop`` set, the
        child ``ended``, or ``late``: past ``deadline``, a :func:`time.monotonic` time, None for none)."""
        while not self.connection.poll(poll_s):
            if stop.is_set():
                return "stopped"
            if not self.process.is_alive():
                return "ended"
            if deadline is not None and time.monotonic() > deadline:
                return "late"
        return "ready"

    def exitcode(self) -> int | None:
        """The exit code of a child that is ending (negative: the signal; None when it is not there yet).

        Waits a moment for it: the pipe closes just before the exit status is there."""
        self.process.join(5)
        return self.process.exitcode

    def stop(self) -> None:
        """Ask the child to exit (None down the pipe), then :meth:`kill` it if it has not within 2 s."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(2)
        self.kill()

    def kill(self) -> None:
        """Kill the child now, wait for it, and close the pipe."""
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.connection.close()
