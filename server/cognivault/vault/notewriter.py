"""Changing a user's note: the one way CogniVault writes into a note that already exists.

Grading a card rewrites its schedule comment, a generated lesson fills an empty
placeholder note, a workshop outline gets a lesson's link, a quiz points its
instructions at the name it was saved under: each is a change computed from
the note's current text (``update(text) -> new text``). :func:`update_note`
applies it so that nothing anyone else saves is lost:

- CogniVault's own writers take one per-vault lock for the whole
  read-change-write cycle, so two of them (the language server and a terminal
  review, twelve grades at once) never interleave;
- everyone else (the user's editor, the plugin, a sync tool) is caught by
  :func:`cognivault.atomic.replace_if_unchanged`: the note is compared with
  what the change was computed from right before it is swapped with the new
  file, and an edit found there (or, just after, in the file swapped out: that
  one is then the note again) makes the change be computed again on the fresh
  text, up to ``MAX_ATTEMPTS`` times;
- a note written to in the last ``QUIET_NS`` may be half saved by an editor
  (O_TRUNC, then write): it is read again once quiet, or the change refused;
- an editor that opened the note just before the rename may still write into
  the replaced file a moment later: that file is looked at again
  ``SETTLE_S`` after the rename (or at :func:`settle`), and bytes appended
  there are appended to the note (other changes are kept beside it as a
  conflict copy), so they are not lost with the old file.

The bytes of the note are kept as they are: text that is not valid UTF-8
passes through unchanged (``surrogateescape``). New notes are created with
:func:`cognivault.atomic.atomic_create`, which never replaces a file.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cognivault.atomic import merge_late, read_fd, replace_if_unchanged
from cognivault.errors import CogniVaultError, describe_os_error, display_path
from cognivault.study.locks import vault_lock
from cognivault.vault.guard import VaultPathError

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
SETTLE_S = 2.0  # how long after a rename writes that still land in the old file are looked for
QUIET_NS = 20_000_000  # a note changed more recently than this may be half saved: read it again after
QUIET_TRIES = 10  # then it is refused (NoteConflict) rather than changed from what may be half a save


class NoteConflict(CogniVaultError):
    """The note kept changing on disk while a change was being saved: nothing was written."""

    code = "note_conflict"
    status = 409


@dataclass(eq=False)
class _Replaced:
    """A note's old file, just replaced: what it held, and a descriptor to see if it still changes."""

    vault: Path
    path: Path
    fd: int
    held: bytes


_WATCHED: set[_Replaced] = set()
_WATCHED_GUARD = threading.Lock()


def _watch(replaced: _Replaced) -> None:
    with _WATCHED_GUARD:
        _WATCHED.add(replaced)
    timer = threading.Timer(SETTLE_S, _settle, (replaced,))
    timer.daemon = True
    timer.start()


def _settle(replaced: _Replaced) -> None:
    """Put back what was written into ``replaced`` after the rename (once; then stop watching it)."""
    with _WATCHED_GUARD:
        if replaced not in _WATCHED:
            return
        _WATCHED.discard(replaced)
    try:
        late = read_fd(replaced.fd)
        if late != replaced.held:
            with vault_lock(replaced.vault, "notes"):
                merge_late(replaced.path, replaced.held, late)
    except OSError as exc:
        log.warning("could not look at the old version of %s again: %s", display_path(replaced.path), exc)
    finally:
        os.close(replaced.fd)


def settle() -> None:
    """Look at every note replaced in the last ``SETTLE_S`` seconds once more, now (shutdown, tests)."""
    with _WATCHED_GUARD:
        pending = list(_WATCHED)
    for replaced in pending:
        _settle(replaced)


def decode_note(raw: bytes) -> str:
    """A note's text, bytes that are not UTF-8 kept (they come back out of :func:`encode_note`)."""
    return raw.decode("utf-8", "surrogateescape")


def encode_note(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _target_inside(vault: Path, path: Path) -> Path:
    """The file ``path`` names, links followed, when it lies inside ``vault``; VaultPathError otherwise."""
    try:
        target = path.resolve()
        inside = target.is_relative_to(vault.resolve())
    except (OSError, RuntimeError):  # a link loop
        inside = False
    if not inside:
        raise VaultPathError(f"{display_path(path.name)} leads outside the vault (a symbolic link): "
                             "CogniVault does not write there")
    return target


def _settled_read(path: Path) -> bytes:
    """The note's bytes once it has not been written to for ``QUIET_NS``: an editor saving in place
    (O_TRUNC, then write) leaves it half written for a moment, and a change computed from that half
    would be saved as the note. A modification time in the future or long past (set by a sync tool)
    counts as settled. NoteConflict when it keeps being written."""
    for _ in range(QUIET_TRIES):
        with path.open("rb") as handle:
            raw = handle.read()
            age = time.time_ns() - os.fstat(handle.fileno()).st_mtime_ns
        if not 0 <= age < QUIET_NS:
            return raw
        time.sleep((QUIET_NS - age) / 1e9)
    raise NoteConflict(f"{display_path(path.name)} kept being written while it was being saved; nothing was "
                       "written, try again")


def update_note(vault: Path, path: Path, update: Callable[[str], str | None], *,
                before_replace: Callable[[int], None] | None = None) -> str | None:
    """Apply ``update`` to the text of the note at ``path`` (inside ``vault``) and save the result.

    ``update`` gets the current text and returns the new one, or None to leave the note as it
    is (then None is returned); it may raise to refuse (the note is then unchanged). It is
    called again on fresh text whenever someone else saved the note meanwhile. Returns the text
    written. Raises :class:`NoteConflict` after ``MAX_ATTEMPTS`` such collisions, and a
    :class:`CogniVaultError` naming the cause when the note cannot be written (read-only,
    disk full, permission). ``before_replace(attempt)`` is a test hook run before each save.

    A note that is a symbolic link is written through to its target, which must lie inside
    the vault (:class:`VaultPathError` otherwise); the link stays a link.
    """
    path = _target_inside(vault, path)
    try:
        with vault_lock(vault, "notes"):
            raw = _settled_read(path)
            for attempt in range(1, MAX_ATTEMPTS + 1):
                new_text = update(decode_note(raw))
                if new_text is None:
                    return None
                if before_replace is not None:
                    before_replace(attempt)
                result = replace_if_unchanged(path, raw, encode_note(new_text), keep_replaced=True)
                if result.done:
                    if result.replaced_fd is not None:
                        _watch(_Replaced(vault, path, result.replaced_fd, raw))
                    return new_text
                log.info("%s changed on disk while being updated; updating the fresh content",
                         display_path(path))
                raw = _settled_read(path)
    except OSError as exc:
        raise describe_os_error(exc, f"write {display_path(path.name)}") from None
    raise NoteConflict(f"{display_path(path.name)} kept changing while it was being saved; nothing was written, "
                       "try again")
