"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder.

Every file CogniVault writes (index files, progress, generated notes, schedule
updates inside a user's note) goes through here, so a crash at any moment
leaves either the old file or the new one, never a torn mix. New notes are
created with :func:`atomic_create`, which never replaces a file that exists.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems refuse directory fsync
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_writer(path: Path, mode: int | None = None) -> Iterator[BinaryIO]:
    """Yield a binary file object; on clean exit it replaces ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    with atomic_writer(path, mode) as handle:
        handle.write(data)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_create(candidates: Iterable[Path], data: bytes, mode: int = 0o644) -> Path | None:
    """Write ``data`` as a new file at the first free name of ``candidates`` (one folder); never replace one.

    The file appears by a hard link from a fully written, fsynced temp file, and
    the link fails if the name is taken: no moment where another writer's file
    could be replaced, nor a half-written new one. Filesystems without hard
    links fall back to an existence check and the atomic rename. Returns the
    path written, or None when every candidate is taken.
    """
    names = iter(candidates)
    first = next(names, None)
    if first is None:
        return None
    folder = Path(first).parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{Path(first).name}.", suffix=".tmp", dir=folder)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        for candidate in (Path(first), *map(Path, names)):
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                continue
            except OSError:  # no hard links here (some network or FAT filesystems)
                if candidate.exists():
                    continue
                os.replace(tmp, candidate)
            _fsync_dir(folder)
            return candidate
        return None
    finally:
        tmp.unlink(missing_ok=True)
