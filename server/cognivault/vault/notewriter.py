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
  what the change was computed from right before the rename, and an edit found
  there (or, just after, in the replaced file) makes the change be computed
  again on the fresh text, up to ``MAX_ATTEMPTS`` times.

The bytes of the note are kept as they are: text that is not valid UTF-8
passes through unchanged (``surrogateescape``). New notes are created with
:func:`cognivault.atomic.atomic_create`, which never replaces a file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from cognivault.atomic import replace_if_unchanged
from cognivault.errors import CogniVaultError, describe_os_error, display_path
from cognivault.study.locks import vault_lock

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8


class NoteConflict(CogniVaultError):
    """The note kept changing on disk while a change was being saved: nothing was written."""

    code = "note_conflict"
    status = 409


def decode_note(raw: bytes) -> str:
    """A note's text, bytes that are not UTF-8 kept (they come back out of :func:`encode_note`)."""
    return raw.decode("utf-8", "surrogateescape")


def encode_note(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def update_note(vault: Path, path: Path, update: Callable[[str], str | None], *,
                before_replace: Callable[[int], None] | None = None) -> str | None:
    """Apply ``update`` to the text of the note at ``path`` (inside ``vault``) and save the result.

    ``update`` gets the current text and returns the new one, or None to leave the note as it
    is (then None is returned); it may raise to refuse (the note is then unchanged). It is
    called again on fresh text whenever someone else saved the note meanwhile. Returns the text
    written. Raises :class:`NoteConflict` after ``MAX_ATTEMPTS`` such collisions, and a
    :class:`CogniVaultError` naming the cause when the note cannot be written (read-only,
    disk full, permission). ``before_replace(attempt)`` is a test hook run before each save.
    """
    try:
        with vault_lock(vault, "notes"):
            raw = path.read_bytes()
            for attempt in range(1, MAX_ATTEMPTS + 1):
                new_text = update(decode_note(raw))
                if new_text is None:
                    return None
                if before_replace is not None:
                    before_replace(attempt)
                result = replace_if_unchanged(path, raw, encode_note(new_text))
                if result.done:
                    return new_text
                log.info("%s changed on disk while being updated; updating the fresh content",
                         display_path(path))
                assert result.current is not None
                raw = result.current
    except OSError as exc:
        raise describe_os_error(exc, f"write {display_path(path.name)}") from None
    raise NoteConflict(f"{display_path(path.name)} kept changing while it was being saved; nothing was written, "
                       "try again")
