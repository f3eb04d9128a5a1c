"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder.

Every file CogniVault writes (index files, progress, generated notes, schedule
updates inside a user's note) goes through here, so a crash at any moment
leaves either the old file or the new one, never a torn mix. New notes are
created with :func:`atomic_create`, which never replaces a file that exists.
A file someone else may be editing (a user's note) is replaced only through
:func:`replace_if_unchanged`, which compares it with what the new content was
computed from right before the rename, and looks again at the replaced file
right after it (see :mod:`cognivault.vault.notewriter`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems refuse directory fsync
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _staged(path: Path, data: bytes, mode: int | None) -> Path:
    """``data`` in a fsynced temp file next to ``path``, with ``mode`` (or ``path``'s, or 0o644)."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                mode = path.stat().st_mode & 0o7777
        os.chmod(tmp, 0o644 if mode is None else mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def read_fd(fd: int) -> bytes:
    """All of the file behind ``fd``, from its start (whatever the descriptor's position)."""
    chunks = []
    offset = 0
    while block := os.pread(fd, 1 << 20, offset):
        chunks.append(block)
        offset += len(block)
    return b"".join(chunks)


@dataclass(frozen=True, slots=True)
class Replaced:
    """What :func:`replace_if_unchanged` did: ``done``; else ``current`` is the file's content now.

    ``replaced_fd``: with ``keep_replaced``, a descriptor of the replaced file, left open for the
    caller to look at again later (and close).
    """

    done: bool
    current: bytes | None = None
    replaced_fd: int | None = None


def replace_if_unchanged(path: Path, expected: bytes, data: bytes, *, keep_replaced: bool = False) -> Replaced:
    """Replace ``path`` with ``data`` only if it still holds exactly ``expected``; never lose a write.

    The new content is staged (written, fsynced, its mode set) first; the comparison comes
    last, right before the rename, so an edit saved while the temp file was being written is
    seen. Writes that land in the old file between that comparison and the rename (an
    editor appending through a descriptor it opened before) are looked for in the replaced
    file right after the rename: when there are some, the old content with them is put back
    (appends made meanwhile to the new file are kept after it) and the result says it was not
    done, so the caller computes its change again on that. Callers serialize their own writers
    with a lock; this function guards against everyone else.
    """
    path = Path(path)
    tmp = _staged(path, data, None)
    try:
        old_fd = os.open(path, os.O_RDONLY)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:
        current = read_fd(old_fd)
        if current != expected or os.fstat(old_fd).st_ino != os.stat(path).st_ino:
            tmp.unlink(missing_ok=True)
            os.close(old_fd)
            return Replaced(False, path.read_bytes())
        os.replace(tmp, path)
        late = read_fd(old_fd)
    except BaseException:
        tmp.unlink(missing_ok=True)
        os.close(old_fd)
        raise
    _fsync_dir(path.parent)
    if late == expected:
        if keep_replaced:
            return Replaced(True, replaced_fd=old_fd)
        os.close(old_fd)
        return Replaced(True)
    os.close(old_fd)
    # Someone wrote into the replaced file after the comparison: their bytes are in ``late``.
    # Put that content back, followed by what was appended to the new file meanwhile, if anything.
    for _ in range(10):
        now = path.read_bytes()
        if not now.startswith(data):
            break
        restored = late + now[len(data):]
        if replace_if_unchanged(path, now, restored).done:
            return Replaced(False, restored)
    keep_beside(path, late)  # the new file was rewritten meanwhile: keep that, and the other version beside it
    return Replaced(False, path.read_bytes())


def keep_beside(path: Path, data: bytes) -> Path | None:
    """Save ``data``, another version of ``path`` that cannot be merged into it, as ``name (conflict N).md``."""
    kept = atomic_create([path.with_name(f"{path.stem} (conflict {n}){path.suffix}") for n in range(1, 100)], data)
    log.warning("%s was changed in two places at once; the other version is kept as %s", path, kept)
    return kept


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
    tmp = _staged(Path(first), data, mode)
    try:
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
