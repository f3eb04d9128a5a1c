"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder.

Every file CogniVault writes (index files, progress, generated notes, schedule
updates inside a user's note) goes through here, so a crash at any moment
leaves either the old file or the new one, never a torn mix. New notes are
created with :func:`atomic_create`, which never replaces a file that exists.
A file someone else may be editing (a user's note) is replaced only through
:func:`replace_if_unchanged`, which compares it with what the new content was
computed from right before an exchange of the two names, and undoes the
exchange when what it took out is not what it compared (see
:mod:`cognivault.vault.notewriter`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
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
    """What :func:`replace_if_unchanged` did: ``done``, or not (the caller reads the note again).

    ``replaced_fd``: with ``keep_replaced``, a descriptor of the replaced file, left open for the
    caller to look at again later (and close).
    """

    done: bool
    replaced_fd: int | None = None


def _renameat2() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):  # not Linux, or a C library without it (Windows)
        return None


_RENAMEAT2 = _renameat2()
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP})


def exchange(first: Path, second: Path) -> bool:
    """Swap the files named ``first`` and ``second`` in one step (Linux ``renameat2``, RENAME_EXCHANGE).

    False where the system or the filesystem cannot; nothing was changed then.
    """
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(second))


def _identity(status: os.stat_result) -> tuple[int, int]:
    return status.st_dev, status.st_ino


def _drop_ours(path: Path, tmp: Path, data: bytes) -> None:
    """Remove ``tmp``, which should hold our staged ``data`` again; anything else there is someone's save
    (it landed on the note between two swaps) and is kept beside the note."""
    try:
        there = tmp.read_bytes() if stat.S_ISREG(os.lstat(tmp).st_mode) else data
    except FileNotFoundError:
        return
    if there != data:
        keep_beside(path, there)
    tmp.unlink(missing_ok=True)


def replace_if_unchanged(path: Path, expected: bytes, data: bytes, *, keep_replaced: bool = False) -> Replaced:
    """Replace ``path`` with ``data`` only if it still holds exactly ``expected``; never lose a write.

    The new content is staged (written, fsynced, its mode set) first; the comparison comes
    last, right before the swap, so an edit saved while the temp file was being written is
    seen. The swap exchanges the two names in one step (Linux): what was taken out is then
    looked at again, and when it is not the file that was compared (a save by rename landed
    in between) or it changed since (an editor truncating and rewriting it in place, maybe
    not done yet), the swap is undone, so that file is the note again with everything its
    writer still writes into it, and the result says not done: the caller computes its
    change again on the fresh text. Bytes read from a file being rewritten are never
    written back. Where names cannot be exchanged, the note is renamed over, and what was
    written into the replaced file meanwhile is appended (or kept beside the note as a
    conflict copy). Callers serialize their own writers with a lock; this function guards
    against everyone else.
    """
    path = Path(path)
    tmp = _staged(path, data, None)
    try:
        old_fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    swapped = False  # once true, ``tmp`` may hold the user's file: never deleted on an error
    try:
        current = read_fd(old_fd)
        held = _identity(os.fstat(old_fd))
        unchanged = current == expected and _identity(os.stat(path)) == held
        if unchanged:
            swapped = exchange(tmp, path)
        if swapped and (_identity(os.lstat(tmp)) != held or read_fd(old_fd) != expected):
            exchange(tmp, path)  # not the file compared, or written into since: it is the note again
            _drop_ours(path, tmp, data)
            unchanged = False
        elif swapped:
            tmp.unlink()  # the compared file: its content is what ``data`` was computed from
            late = expected
        elif unchanged:
            os.replace(tmp, path)
            late = read_fd(old_fd)
        else:
            tmp.unlink(missing_ok=True)
    except BaseException:
        if not swapped:
            tmp.unlink(missing_ok=True)
        os.close(old_fd)
        raise
    if not unchanged:
        os.close(old_fd)
        return Replaced(False)
    _fsync_dir(path.parent)
    if late != expected:  # merged now: no need to look at the replaced file again
        os.close(old_fd)
        merge_late(path, expected, late)
        return Replaced(True)
    if keep_replaced:
        return Replaced(True, replaced_fd=old_fd)
    os.close(old_fd)
    return Replaced(True)


def merge_late(path: Path, held: bytes, late: bytes) -> None:
    """``late``: what the file ``path`` replaced holds now, ``held`` when it was replaced. Bytes appended
    to it meanwhile are appended to the note; other changes are kept beside it; never written over it."""
    extra = late[len(held):] if late.startswith(held) else None
    for _ in range(10):
        if extra is None:
            break
        try:
            now = path.read_bytes()
        except FileNotFoundError:
            break
        if replace_if_unchanged(path, now, now + extra).done:
            log.info("%s: %d bytes written into its old file are appended", path.name, len(extra))
            return
    keep_beside(path, late)


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
