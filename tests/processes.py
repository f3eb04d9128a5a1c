"""Stopping the subprocesses tests start (servers, editors): politely first, then for sure."""

from __future__ import annotations

import subprocess
from typing import Any


def wait_or_kill(process: subprocess.Popen[Any], grace_s: float) -> None:
    """Wait ``grace_s`` for ``process`` to exit on its own, then kill it (and reap it)."""
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)  # bounds a hang only


def stop_process(process: subprocess.Popen[Any], grace_s: float) -> None:
    """SIGTERM ``process``, give it ``grace_s`` to finish cleanly, then kill it."""
    if process.poll() is None:
        process.terminate()
    wait_or_kill(process, grace_s)
