"""Noticing the vault's files change on disk, so the index follows edits made outside the editor.

A note edited, added, deleted or renamed in Obsidian (or by git, a sync tool, a
script) shows up here as a batch of vault-relative paths, once the burst of file
events is over; ``cognivault serve`` hands each batch to ``LiveVault.update_files``
while it writes the index. The operating system's notifications (inotify,
FSEvents, ReadDirectoryChangesW through ``watchfiles``) are used; if they cannot
start (e.g. the inotify watch limit is reached) the vault is polled instead.
Folders the scanner never indexes (``.obsidian/``, ``.git/``, ``.cognivault/``,
the index folder) are dropped before a batch is formed; the ``.cognivaultignore``
rules are applied per file by the engine, which re-reads them for each batch.
A batch the notifier cannot name (a file name that is not UTF-8 makes watchfiles
drop it) comes as :data:`WHOLE_VAULT`: the engine then runs an incremental pass.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from watchfiles import Change, awatch

from cognivault.vault.scan import ALWAYS_IGNORED_DIRS

log = logging.getLogger(__name__)

QUIET_MS = 500  # a burst (Obsidian saving as you type, a git checkout) ends after this much quiet...
MAX_WAIT_MS = 2000  # ...or after this long, so a steady stream of writes still reaches the index
READY_CHECK_MS = 1000  # the first (possibly empty) round of the watcher: from then on nothing is missed
POLL_MS = 1000  # the fallback's interval between two looks at the vault


WHOLE_VAULT = "."  # a batch holding it: something changed that the notifier could not name


def _undecodable_name(exc: BaseException) -> bool:
    """Whether ``exc`` is watchfiles failing on a path that is not UTF-8 (alone or in a task group)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_undecodable_name(inner) for inner in exc.exceptions)
    return isinstance(exc, RuntimeError) and "decode path" in str(exc)


class VaultWatcher:
    """The changed paths of one vault, in batches; ``mode`` says how once it runs."""

    def __init__(self, vault: Path, index_folder: Path | None = None, *, force_polling: bool = False) -> None:
        self.vault = Path(vault).resolve()
        self.index_folder = index_folder.resolve() if index_folder is not None else None
        self.force_polling = force_polling
        self.mode: str | None = None  # "notify" or "polling" once the watcher is armed

    def keeps(self, _change: Change, absolute: str) -> bool:
        """Whether a raw event can concern an indexed file (cheap: no ignore file is read here)."""
        path = Path(absolute)
        if self.index_folder is not None and path.is_relative_to(self.index_folder):
            return False
        try:
            parts = path.relative_to(self.vault).parts
        except ValueError:
            return False
        return bool(parts) and not any(part in ALWAYS_IGNORED_DIRS for part in parts)

    def _relative(self, changes: set[tuple[Change, str]]) -> set[str]:
        return {Path(absolute).relative_to(self.vault).as_posix() for _, absolute in changes}

    async def batches(self, stop: asyncio.Event | None = None,
                      on_ready: Callable[[str], None] | None = None) -> AsyncIterator[set[str]]:
        """Yield the vault-relative paths changed in each burst until ``stop`` is set (or cancelled).

        ``on_ready(mode)`` is called once the watcher is armed: changes from then on are seen.
        """
        polling = self.force_polling
        while True:
            armed = False
            try:
                async for changes in awatch(self.vault, watch_filter=self.keeps, debounce=MAX_WAIT_MS,
                                            step=QUIET_MS, stop_event=stop, rust_timeout=READY_CHECK_MS,
                                            yield_on_timeout=True, force_polling=polling,
                                            poll_delay_ms=POLL_MS, ignore_permission_denied=True):
                    if not armed:
                        armed = True
                        self.mode = "polling" if polling else "notify"
                        if on_ready is not None:
                            on_ready(self.mode)
                    if changes:
                        yield self._relative(changes)
                return
            except Exception as exc:  # noqa: BLE001 - sorted out below; anything else is raised again
                if _undecodable_name(exc):
                    # The notifier cannot name a file whose name is not UTF-8 and loses the whole
                    # batch: the vault is looked at as a whole instead (the scan reports that file).
                    log.warning("a file name in the vault is not valid UTF-8; looking at the whole vault "
                                "instead of the changed files")
                    yield {WHOLE_VAULT}
                    continue
                if not isinstance(exc, (OSError, RuntimeError)) or armed or polling:
                    raise
                log.warning("file change notifications are unavailable (%s); looking at the vault every "
                            "%d ms instead", exc, POLL_MS)
                polling = True
