"""A reader process that crashes on purpose, as FFmpeg, CTranslate2 or lxml can on hostile input.

``crashing_reader`` (a fixture) makes :class:`cognivault.index.isolation.IsolatedExtractor` start
workers that kill themselves with SIGSEGV when a task carries :data:`CRASH_MARKER` (in a file it
names, or in its arguments) and do the real work otherwise: a crash on one input, deterministic,
inside the child, with no timer.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

CRASH_MARKER = b"crash-the-reader-here"


def _carries_marker(task: object) -> bool:
    if isinstance(task, str) and Path(task).is_file():
        return CRASH_MARKER in Path(task).read_bytes()
    return CRASH_MARKER in pickle.dumps(task)


class _CrashOnMarker:
    """The worker's end of the pipe; receiving a marked task is where the reader "crashes"."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def recv(self) -> object:
        task = self._connection.recv()
        if _carries_marker(task):
            os.kill(os.getpid(), signal.SIGSEGV)
        return task

    def send(self, message: object) -> None:
        self._connection.send(message)


def crashing_worker(connection: Connection, *args: Any) -> None:
    """The real worker (this runs in the child, where nothing is patched) behind a crashing pipe."""
    from cognivault.index import isolation

    isolation._worker(_CrashOnMarker(connection), *args)  # type: ignore[arg-type]


@pytest.fixture
def crashing_reader(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from cognivault.answer import voice
    from cognivault.index import isolation

    voice.close_reader()  # a reader started before the patch would not crash
    monkeypatch.setattr(isolation, "_worker", crashing_worker)
    yield
    voice.close_reader()
