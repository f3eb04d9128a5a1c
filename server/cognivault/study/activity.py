"""Study activity that happens outside the study hub, counted in the user's progress.

Asking the vault a question (from the terminal, the companion or the editor)
and editing notes (as the language server sees them) are study time too: they
extend sessions and streaks, and the chat badges count the questions. The
hooks in the answer, companion and language-server code are one call each into
this module.

Editing sends a change notification per keystroke, so edits are throttled: at
most one ``note_edit`` event per note per :data:`EDIT_INTERVAL_S`. Sessions
are built from event times with a 5-minute idle gap, so one event a minute
still covers a long editing stretch without thousands of writes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cognivault.study.locks import LockTimeout
from cognivault.study.progress import Event, ProgressStore

log = logging.getLogger(__name__)

EDIT_INTERVAL_S = 60.0
_MAX_TRACKED = 1000  # notes remembered by the throttle before old entries are forgotten


def record_answer(vault: Path, via: str, done: dict[str, Any]) -> Event | None:
    """Record one answered question (``done``: the answer's final envelope data); never raises."""
    data = {"via": via, "confidence": done.get("confidence"), "sources": len(done.get("sources") or [])}
    try:
        return ProgressStore(vault).record("ask", data)
    except (OSError, LockTimeout) as exc:  # progress is a side matter: the answer stands
        log.warning("could not record the question in the study progress: %s", exc)
        return None


class EditThrottle:
    """Says which note edits become ``note_edit`` events: the first, then one per interval per note."""

    def __init__(self, interval_s: float = EDIT_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self._last: dict[str, float] = {}

    def admit(self, path: str) -> bool:
        now = self.clock()
        last = self._last.get(path)
        if last is not None and now - last < self.interval_s:
            return False
        if len(self._last) >= _MAX_TRACKED:
            self._last = {p: t for p, t in self._last.items() if now - t < self.interval_s}
        self._last[path] = now
        return True


def record_edit(store: ProgressStore, path: str, via: str) -> Event | None:
    """Record one (throttled) note edit; never raises."""
    try:
        return store.record("note_edit", {"path": path, "via": via})
    except (OSError, LockTimeout) as exc:
        log.warning("could not record a note edit in the study progress: %s", exc)
        return None
