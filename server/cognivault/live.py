"""The live vault: one service that keeps a vault's index current while people edit and ask.

The language server and the companion (``cognivault serve``) both run one :class:`LiveVault`
over their engine; it imports neither pygls nor aiohttp, and front ends hear from it through a
:class:`LiveEvents` of their own (diagnostics, ``$/progress``, log lines). It owns:

- **the single writer thread**: index passes, per-file updates, embedding and saves run there,
  in order, one at a time; reads never wait for them;
- **per-file updates, debounced**: an editor's unsaved buffer (while it differs from the file)
  or the file on disk is read again ``debounce_ms`` after its last change, and a change one file
  cannot settle (an attachment, a folder, ``.cognivaultignore``) runs an incremental pass;
- **embedding after a pause**: an update makes its note searchable by keywords at once; its new
  passages are embedded once the user paused ``EMBED_EDITS_AFTER_MS``, a few at a time, so the
  model (which takes every core) does not compete with the requests made while typing; a newer
  edit cuts it short (smaller steps that each wait for a quiet moment drew the embedding out over
  many more requests);
- **the request gate**: requests count themselves in (:meth:`LiveVault.request`) and background
  work waits between its steps while they run (:meth:`LiveVault.yield_to_requests`, bounded);
- **the note graph**: :class:`cognivault.graph.SnapshotCache`, patched by each update (the
  engine calls :meth:`LiveVault.updating` and :meth:`LiveVault.patch` around its writes).

Timers and tasks run on the caller's asyncio loop; blocking work never does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cognivault.graph import SnapshotCache
from cognivault.threads import RequestGate

if TYPE_CHECKING:
    from cognivault.engine import Engine, FileUpdates
    from cognivault.index.pipeline import IndexReport, Progress
    from cognivault.index.watch import VaultWatcher

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300  # an edit's update waits this long after the file's last change
EMBED_EDITS_AFTER_MS = 1000
EMBED_EDITS_BATCH = 8
BACKGROUND_YIELD_S = 0.05  # the longest background work waits per step for requests
FOLLOW_INTERVAL_S = 2.0  # how often a read-only process looks for the writer's changes (or its exit)
WRITER_TIMERS = ("update:", "index", "embed")  # debounced jobs that run on the writer thread
IGNORE_FILE_NAME = ".cognivaultignore"


@dataclass
class IndexingState:
    """What status requests and progress reports say about the background work."""

    phase: str = "starting"  # starting | indexing | ready | read-only | failed | stopped
    stage: str = ""
    done: int = 0
    total: int = 0
    current: str = ""
    started_at: float | None = None
    finished_at: float | None = None
    last_summary: str = ""
    last_report: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)
    pending_updates: int = 0
    updates_done: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "stage": self.stage, "done": self.done, "total": self.total,
                "current": self.current, "startedAt": self.started_at, "finishedAt": self.finished_at,
                "summary": self.last_summary, "errors": list(self.errors[-20:]),
                "pendingUpdates": self.pending_updates, "updatesDone": self.updates_done}


class LiveEvents:
    """What a front end hears from its :class:`LiveVault`; every method does nothing by default.

    All are called on the event loop, except :meth:`after_write` (on the writer thread).
    """

    def unsaved_text(self, path: str) -> str | None:
        """The editor's unsaved text of ``path`` (None: none, read the file)."""
        return None

    def edit_scheduled(self, path: str) -> None:
        """An update of ``path`` was scheduled (someone is editing)."""

    def file_updated(self, path: str, updates: FileUpdates) -> None:
        """``path``'s update ran (``updates.whole_pass_needed``: a pass follows)."""

    def after_write(self, engine: Engine) -> None:
        """On the writer thread, after an update changed notes: build what requests will need."""

    async def pass_starting(self) -> Callable[[Progress], None] | None:
        """An index pass starts: return a progress sink (called on the loop for each step), or None."""
        return None

    def pass_finished(self, summary: str, first: bool) -> None:
        """An index pass ended (``first``: this process's first), with its one-line summary (also
        when the vault was closed meanwhile: see :attr:`LiveVault.closed`)."""

    def index_reloaded(self) -> None:
        """Read-only: the writing process changed the index and this one reloaded it."""

    def problem(self, message: str) -> None:
        """Something failed in the background; ``message`` is for the user's log."""


class LiveVault:
    """One vault's engine kept current: the writer thread, edits, embedding, the gate, the graph."""

    def __init__(self, events: LiveEvents | None = None, *, gate: RequestGate | None = None,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        self.events = events or LiveEvents()
        self.engine: Engine | None = None
        self.state = IndexingState()
        self.gate = gate or RequestGate()
        self.snapshots = SnapshotCache()
        self.debounce_ms = debounce_ms
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-index")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsaved: set[str] = set()  # vault paths whose buffer differs from the file
        self._unembedded: set[str] = set()  # notes updated without embedding their new passages
        self._edits = 0  # per-file updates scheduled so far (read by the writer thread)
        self._scheduled: dict[str, int] = {}  # the same per path
        self._reading: dict[str, int] = {}  # of the update on the writer thread: its paths' counts when it began
        self._writer_jobs = 0
        self._update_jobs = 0
        self._indexing_task: asyncio.Task[Any] | None = None
        self._reindex_again = False
        self._passes = 0
        self._closed = False

    # -- the engine ---------------------------------------------------------------
    def attach(self, engine: Engine) -> None:
        """Keep ``engine`` current from here on (its writes patch this vault's note graph)."""
        self.engine = engine
        engine.live = self

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def writable(self) -> bool:
        return self.engine is not None and self.engine.store.writable and not self._closed

    @property
    def indexing(self) -> bool:
        return self.state.phase in ("starting", "indexing")

    # -- what the engine's writes call (cognivault.engine.LiveWrites) ---------------
    def updating(self) -> contextlib.AbstractContextManager[None]:
        return self.snapshots.updating()

    def patch(self, engine: Engine, paths: set[str], before: int) -> None:
        self.snapshots.patch(engine, paths, before)

    def pause(self) -> None:
        self.yield_to_requests()

    def outdated(self, path: str) -> bool:
        """Whether ``path`` changed again since the update on the writer thread began."""
        began = self._reading.get(path)
        return began is not None and self._scheduled.get(path, 0) != began

    # -- requests and background work ---------------------------------------------------
    def request(self) -> contextlib.AbstractContextManager[None]:
        """Around a request's work: background work waits for it between its steps."""
        return self.gate.request()

    def yield_to_requests(self) -> None:
        """Between the steps of background work: wait while requests run (a bounded time)."""
        self.gate.wait_quiet(BACKGROUND_YIELD_S)

    async def run_writer(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn`` on the single index-writer thread (writes happen in order, one at a time)."""
        self._writer_jobs += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)
        finally:
            self._writer_jobs -= 1

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """A background task; its failure is logged and told to the front end."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            log.error("background task failed: %r", exc, exc_info=exc)
            self.events.problem(f"background task failed: {exc}")

    def debounce(self, key: str, delay_ms: int, callback: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """Run ``callback()`` once ``delay_ms`` passed without another call for ``key``."""
        old = self._timers.pop(key, None)
        if old is not None:
            old.cancel()
        tracked = key.startswith(WRITER_TIMERS)

        async def run() -> None:
            try:
                await callback()
            finally:
                if tracked:
                    self._writer_jobs -= 1

        def fire() -> None:
            self._timers.pop(key, None)
            if not self._closed:
                if tracked:
                    self._writer_jobs += 1
                self.spawn(run())

        self._timers[key] = asyncio.get_running_loop().call_later(max(0, delay_ms) / 1000, fire)

    @property
    def updates_idle(self) -> bool:
        """No per-file update waiting or running (each one updates the keyword index too)."""
        return self._update_jobs == 0 and not any(key.startswith("update:") for key in self._timers)

    @property
    def writer_idle(self) -> bool:
        return self._writer_jobs == 0 and not any(key.startswith(WRITER_TIMERS) for key in self._timers)

    # -- edits ----------------------------------------------------------------------
    def unsaved_paths(self) -> list[str]:
        return sorted(self._unsaved)

    def is_unsaved(self, path: str) -> bool:
        return path in self._unsaved

    def buffer_changed(self, path: str) -> None:
        """An editor's buffer of ``path`` differs from the file: index the buffer."""
        self._unsaved.add(path)
        self.schedule_update(path)

    def buffer_saved(self, path: str) -> None:
        self._unsaved.discard(path)
        self.schedule_update(path, delay_ms=min(50, self.debounce_ms))

    def buffer_dropped(self, path: str) -> None:
        """The buffer was closed unsaved (or can no longer be trusted): the file is the truth again."""
        if path in self._unsaved:
            self._unsaved.discard(path)
            self.schedule_update(path, delay_ms=0)

    def files_changed(self, paths: Iterable[str], deleted: Iterable[str] = ()) -> None:
        """Files changed on disk (``deleted``: of them, those that are gone)."""
        gone = set(deleted)
        for path in paths:
            if path.rsplit("/", 1)[-1] == IGNORE_FILE_NAME:
                self.schedule_index(300)
            elif path not in self._unsaved or path in gone:  # an open buffer wins until it is saved
                self.schedule_update(path)

    def schedule_update(self, path: str, delay_ms: int | None = None) -> None:
        """Re-index one file after ``delay_ms`` of quiet (its buffer if unsaved, else the file)."""
        if not self.writable:
            return
        self.state.pending_updates = len([k for k in self._timers if k.startswith("update:")]) + 1
        self._edits += 1
        self._scheduled[path] = self._scheduled.get(path, 0) + 1
        self.events.edit_scheduled(path)
        self.debounce(f"update:{path}", self.debounce_ms if delay_ms is None else delay_ms,
                      lambda: self._update(path))

    def schedule_index(self, delay_ms: int) -> None:
        self.debounce("index", delay_ms, self.index_vault)

    async def _update(self, path: str) -> None:
        if self.indexing:
            # The running pass may have read this file already: unsaved buffers are laid over
            # again after it, saved files need one more (incremental) pass.
            if path not in self._unsaved:
                self._reindex_again = True
            return
        text = self.events.unsaved_text(path) if path in self._unsaved else None
        self._update_jobs += 1
        try:
            updates = await self.run_writer(self._read_now, [path], None if text is None else {path: text},
                                            {path: self._scheduled.get(path, 0)})
            if updates is not None and path in updates.failed:
                raise OSError(updates.failed[path])
        except Exception as exc:  # noqa: BLE001
            log.exception("updating %s failed", path)
            self.state.errors.append(f"{path}: {exc}")
            self.events.problem(f"CogniVault could not update {path}: {exc}")
            return
        finally:
            self._update_jobs -= 1
        self.state.updates_done += 1
        self.state.pending_updates = len([k for k in self._timers if k.startswith("update:")])
        if updates is None or path in updates.outdated:
            return
        self.events.file_updated(path, updates)
        if updates.whole_pass_needed:
            self.schedule_index(500)
        else:
            self._embed_later(updates)

    async def update_files(self, paths: Iterable[str]) -> FileUpdates | None:
        """Files changed on disk, reported together (a file watcher's batch): read them again now,
        after the writer's current job; their new passages are embedded after a pause, and the whole
        pass one of them may need runs before this returns. None when closed; raises what reading
        them raised."""
        if self._closed:
            return None
        updates = await self.run_writer(self._read_now, sorted(set(paths)), None)
        if updates is None:
            return None
        if updates.whole_pass_needed:
            await self.index_vault()
        else:
            self._embed_later(updates)
        return updates

    async def follow_disk(self, watcher: VaultWatcher, on_ready: Callable[[str], None] | None = None) -> None:
        """Update the index for each batch of files the ``watcher`` sees change on disk, until cancelled
        or closed (``on_ready(mode)`` once changes are being seen). An update that fails is logged and
        the next batch is tried; on the way out the keyword and vector indexes are saved."""
        engine = self.engine
        assert engine is not None
        updated = False

        def ready(mode: str) -> None:
            log.info("watching %s for changes (%s)", engine.vault, mode)
            if on_ready is not None:
                on_ready(mode)

        try:
            async for paths in watcher.batches(on_ready=ready):
                try:
                    updates = await self.update_files(paths)
                except Exception:
                    log.exception("updating the index for %d changed files failed", len(paths))
                    continue
                if updates is None:
                    break  # closing
                updated = True
                log.info("index updated: %d notes read again, %d removed%s", len(updates.updated),
                         len(updates.removed), ", and a whole pass" if updates.whole_pass_needed else "")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("watching the vault stopped; the index follows it again after a re-index or a restart")
        finally:
            if updated and not self.closed:
                await self.run_writer(_save_indexes, engine)

    def _embed_later(self, updates: FileUpdates) -> None:
        if updates.updated and self.engine is not None and self.engine.embedder is not None:
            self._unembedded.update(updates.updated)
            self.debounce("embed", EMBED_EDITS_AFTER_MS, self._embed_edits)

    def _read_now(self, paths: list[str], texts: dict[str, str] | None,
                  scheduled: dict[str, int] | None = None) -> FileUpdates | None:
        """On the writer thread: read ``paths`` again, from their unsaved ``texts`` where given, else
        from disk (None: closing, or each of them changed again since its update was ``scheduled``,
        a path -> :attr:`_scheduled` count).

        Requests go first, and a file that changed again meanwhile is left alone, before it is read or
        after, but before it is stored (:meth:`outdated`): its newer change's update follows. An editor
        sends ``[[`` and its completion request together, often just as the update of the text before
        it starts, and that update, to be redone 300 ms later, only slowed the completion down (on a
        52k-passage vault an update holds the interpreter for 0.2-0.4 s: storing, patching the note
        graph, preparing the next requests' indexes)."""
        engine = self.engine
        if engine is None or self._closed:
            return None
        self.yield_to_requests()
        self._reading = scheduled or {}
        try:
            if self._reading and all(self.outdated(path) for path in paths):
                return None
            updates = engine.read_files(paths, texts=texts)
        finally:
            self._reading = {}
        if updates.updated or updates.removed:
            try:
                self.events.after_write(engine)
            except Exception:  # noqa: BLE001 - only a head start: requests build what they need
                log.exception("preparing for requests after updating %s failed", ", ".join(paths))
        return updates

    async def _embed_edits(self) -> None:
        """Embed the new passages of the notes updated since the last time (on the writer thread)."""
        if not self.updates_idle:
            return  # the waiting update schedules this again
        paths, self._unembedded = self._unembedded, set()
        engine = self.engine
        if not paths or engine is None or self._closed:
            return
        edits = self._edits

        def embed() -> int:
            self.yield_to_requests()
            return engine.embed_files(paths, batch_size=EMBED_EDITS_BATCH,
                                      stop=lambda: self._closed or self._edits != edits)

        try:
            await self.run_writer(embed)
        except Exception as exc:  # noqa: BLE001 - the passages stay searchable by keywords
            log.exception("embedding the edits of %s failed", ", ".join(sorted(paths)))
            self.state.errors.append(f"embedding edits: {exc}")
            return
        if self._edits != edits:  # cut short (or not): the newer edit's update schedules these again
            self._unembedded |= paths

    # -- whole passes -------------------------------------------------------------------
    async def index_vault(self) -> None:
        """A whole incremental pass on the writer thread (again if files changed meanwhile)."""
        if self._indexing_task is not None and not self._indexing_task.done():
            self._reindex_again = True
            return
        self._indexing_task = asyncio.current_task()
        try:
            while True:
                self._reindex_again = False
                await self._index_once()
                if not self._reindex_again or self._closed:
                    break
        finally:
            self._indexing_task = None

    async def _index_once(self) -> None:
        from cognivault.index.store import IndexBusy

        engine = self.engine
        assert engine is not None
        loop = asyncio.get_running_loop()
        sink = await self.events.pass_starting()
        self.state.phase = "indexing"
        self.state.started_at = time.time()
        self.state.stage, self.state.done, self.state.total, self.state.current = "scan", 0, 0, ""

        def on_progress(event: Progress) -> None:
            self.state.stage, self.state.done, self.state.total, self.state.current = (
                event.stage, event.done, event.total, event.current)
            if sink is not None:
                sink(event)

        def progress(event: Progress) -> None:
            loop.call_soon_threadsafe(on_progress, event)

        summary = ""
        try:
            report: IndexReport = await self.run_writer(engine.index, progress)
            summary = self._record(report)
            self.state.phase = "ready"
        except IndexBusy as exc:
            summary = str(exc)
            self.state.phase = "read-only"
        except Exception as exc:  # noqa: BLE001 - answered in status, the process lives on
            log.exception("indexing failed")
            summary = f"indexing failed: {exc}"
            self.state.errors.append(summary)
            self.state.phase = "failed"
            self.events.problem(summary)
        finally:
            self.state.finished_at = time.time()
            self.state.last_summary = summary
        self._passes += 1
        if not self._closed:  # the pass read files from disk: lay unsaved buffers over them again
            for path in sorted(self._unsaved):
                self.schedule_update(path, delay_ms=0)
        self.events.pass_finished(summary, self._passes == 1)

    def _record(self, report: IndexReport) -> str:
        """Keep ``report`` in the state; its one-line summary."""
        totals = report.totals()
        failed = [f for f in report.files if f.state == "failed"]
        summary = (f"{totals.get('indexed', 0)} indexed, {totals.get('unchanged', 0)} unchanged, "
                   f"{totals.get('skipped', 0)} skipped, {totals.get('failed', 0)} failed, "
                   f"{totals.get('deleted', 0)} removed; {totals['chunks']} chunks in "
                   f"{report.timings.get('total', 0):.1f} s")
        if report.interrupted:
            summary = "interrupted: " + summary
        self.state.last_report = {"totals": totals, "interrupted": report.interrupted,
                                  "messages": list(report.messages),
                                  "failed": [{"path": f.path, "reason": f.reason} for f in failed]}
        return summary

    async def follow_other_writer(self) -> bool:
        """Read-only (another process writes the index): reload its changes every
        ``FOLLOW_INTERVAL_S``; once that process has gone, become the writer and return True (the
        caller then indexes). False when closed first."""
        while not self._closed and self.engine is not None:
            await asyncio.sleep(FOLLOW_INTERVAL_S)
            engine = self.engine
            try:
                if await self.run_writer(engine.take_over_writing):
                    return True
                if await self.run_writer(engine.store.refresh_if_changed):
                    self.events.index_reloaded()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - tried again at the next interval
                log.exception("reloading the index written by another process failed")
        return False

    # -- shutting down -------------------------------------------------------------------
    async def stop(self) -> None:
        """Stop background work and leave the index consistent: catalog, keyword and vector
        indexes in agreement, saved."""
        if self._closed:
            return
        self._closed = True
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        engine = self.engine
        if engine is None:
            return
        engine.stop_indexing()

        def finish() -> None:
            store = engine.store
            if store.writable:
                store.update_lexical()
                store.save_lexical()
                store.save_dense()
                if engine.multilingual is not None:
                    engine.multilingual.save()

        try:
            await asyncio.wait_for(self.run_writer(finish), 30)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not finish the index cleanly: %s", exc)
        self.state.phase = "stopped"

    def close(self) -> None:
        """Stop writing and wait for the writer thread; the caller closes the engine."""
        self._closed = True
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.stop_indexing()
        self._writer.shutdown(wait=True, cancel_futures=True)


def _save_indexes(engine: Engine) -> None:
    engine.store.save_lexical()
    engine.store.save_dense()
    if engine.multilingual is not None:
        engine.multilingual.save()
