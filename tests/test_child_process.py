"""The child process behind the model runner and the attachment reader (:mod:`cognivault.child_process`):
a real spawned child answers over its pipe, exits when asked, is killed when it does not answer, and says
how it ended."""

from __future__ import annotations

import os
import signal
import threading
import time
from multiprocessing.connection import Connection

from cognivault.child_process import ChildProcess


def _echo(connection: Connection, greeting: str) -> None:
    """Say ``greeting``, then send back every message until None."""
    connection.send(greeting)
    while (message := connection.recv()) is not None:
        connection.send(message)


def _exit_with(connection: Connection, code: int) -> None:
    os._exit(code)


def test_a_child_answers_over_its_pipe_and_exits_when_asked() -> None:
    child = ChildProcess.start(_echo, ("hello",), "cognivault-test-echo")
    assert child.wait(0.05, threading.Event(), None) == "ready"
    assert child.connection.recv() == "hello"
    child.connection.send([1, 2])
    assert child.connection.recv() == [1, 2]
    child.stop()
    assert not child.alive and child.process.exitcode == 0  # it left on its own: not killed


def test_a_child_that_does_not_answer_is_late_or_stopped_and_killed() -> None:
    child = ChildProcess.start(_echo, ("hello",), "cognivault-test-echo")
    assert child.connection.recv() == "hello"  # now it waits for a message that does not come
    assert child.wait(0.05, threading.Event(), time.monotonic()) == "late"
    stop = threading.Event()
    stop.set()
    assert child.wait(0.05, stop, None) == "stopped"
    child.kill()
    assert not child.alive and child.process.exitcode == -signal.SIGKILL


def test_a_child_that_ended_says_how() -> None:
    child = ChildProcess.start(_exit_with, (3,), "cognivault-test-exit")
    assert child.exitcode() == 3
    assert child.wait(0.05, threading.Event(), None) in ("ready", "ended")  # its end of the pipe is closed
    child.kill()
