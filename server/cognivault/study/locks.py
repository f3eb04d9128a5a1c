"""Inter-process locks for study data (review updates, progress writes) under ``<vault>/.cognivault/locks/``.

Two CogniVault processes on one vault (the language server and a terminal
review, say) serialize their read-modify-write cycles here. Editors that do
not know these locks are handled by the compare-before-replace check of the
writers themselves.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from cognivault.errors import CogniVaultError
from cognivault.paths import vault_data_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()


class LockTimeout(CogniVaultError, RuntimeError):
    """Another process held a study lock for too long."""

    code = "busy"
    status = 503
    exit_code = 1


def _thread_lock(key: str) -> threading.Lock:
    with _GUARD:
        return _THREAD_LOCKS.setdefault(key, threading.Lock())


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) across threads and processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    local = _thread_lock(str(path.resolve()))
    if not local.acquire(timeout=timeout):
        raise LockTimeout(f"timed out waiting for {path}")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                deadline = time.monotonic() + timeout
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > deadline:
                            raise LockTimeout(f"timed out waiting for {path}") from None
                        time.sleep(0.005)
            yield
        finally:
            if fcntl is not None:
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
    finally:
        local.release()


def vault_lock(vault: Path, name: str, timeout: float = 30.0) -> contextlib.AbstractContextManager[None]:
    return file_lock(vault_data_dir(vault) / "locks" / f"{name}.lock", timeout)
