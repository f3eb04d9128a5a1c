"""The language server's side of the live vault: opening the engine, ``$/progress`` for index passes,
diagnostics after edits, and a head start for the first requests.

The work itself (the writer thread, debounced updates, embedding after a pause, passes) is
:class:`cognivault.live.LiveVault`'s; :class:`LspEvents` turns what it reports into LSP messages.

- After ``initialized`` the engine opens on a worker thread and a full, incremental pass starts
  at once, with ``$/progress`` when the client supports work-done progress.
- A read-only server (another process writes the index) reloads that writer's changes and takes
  over writing once it has gone.
- After the first pass the warm-up loads what the first requests would wait for and the idle
  garbage collector (:mod:`cognivault.collector`) takes over.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cognivault.live import LiveEvents
from cognivault.vault.links import alias_keys, path_keys
from cognivault.warmup import warm_answering, warm_embedder

if TYPE_CHECKING:
    from cognivault.engine import Engine, FileUpdates
    from cognivault.index.pipeline import Progress
    from cognivault.lsp.server import CogniVaultServer

log = logging.getLogger(__name__)

PROGRESS_LABELS = {"read": "reading", "embed": "embedding", "finish": "finishing", "scan": "scanning",
                   "multilingual": "embedding for German search"}


class LspEvents(LiveEvents):
    """What the live vault reports, told to the editor."""

    def __init__(self, server: CogniVaultServer) -> None:
        self.server = server
        self._progress_counter = 0
        self._token: str | None = None  # the running pass's $/progress token
        self._warmed = False

    def warm_up(self) -> None:
        """Once per server: load what requests need and take over full garbage collections
        (:func:`_warm_up_then_pace_collections`). Without it every request may meet a full
        collection of the whole index (a second on a 50k-passage vault)."""
        if not self._warmed and not self.server.live.closed:
            self._warmed = True
            self.server.live.spawn(_warm_up_then_pace_collections(self.server))

    def unsaved_text(self, path: str) -> str | None:
        for text, _version, doc_path in self.server.open_texts().values():
            if doc_path == path:
                return text
        return None

    def edit_scheduled(self, path: str) -> None:
        self.server.collector.touched()

    def file_updated(self, path: str, updates: FileUpdates) -> None:
        server = self.server
        if not server.live.is_unsaved(path):
            # Read from disk, which may have changed. An unsaved buffer's edit leaves the files on disk
            # as they were: listing a 6k-file vault again after each pause in typing slowed requests.
            server.disk_names.invalidate()
        if updates.whole_pass_needed:
            return
        linking = _names_reaching(path, updates) if updates.updated else None
        if linking is not None:
            # This note and notes citing passages (whose content hashes may have moved) need a new
            # look; of other notes only those with a link written with a name this one had or has.
            server.schedule_diagnostics([uri for uri, (text, _v, p) in server.open_texts().items()
                                         if p == path or "cv:cite" in text], linking=linking)
        else:  # a note came or went (or a file on disk): any unresolved link anywhere may be affected
            server.schedule_diagnostics()

    def after_write(self, engine: Engine) -> None:
        prepare_snapshot(self.server, engine)

    async def pass_starting(self) -> Callable[[Progress], None] | None:
        server = self.server
        if not server.capability("window.work_done_progress", False):
            return None
        self._progress_counter += 1
        token = f"cognivault/index/{os.getpid()}/{self._progress_counter}"
        try:
            await asyncio.wait_for(server.work_done_progress.create_async(token), 10)
        except Exception as exc:  # noqa: BLE001 - the client refused: index without progress
            log.info("no progress token: %s", exc)
            return None
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title="CogniVault: indexing vault", message="scanning files", percentage=0, cancellable=False))
        self._token = token
        last_time, last_stage = [0.0], [""]

        def report(event: Progress) -> None:
            now = time.monotonic()
            if now - last_time[0] < 0.05 and event.stage == last_stage[0] and event.done not in (1, event.total):
                return
            last_time[0], last_stage[0] = now, event.stage
            label = PROGRESS_LABELS.get(event.stage, event.stage)
            message = f"{label} {event.done}/{event.total}" + (f" {event.current}" if event.current else "")
            percentage = int(100 * event.done / event.total) if event.total else 0
            with contextlib.suppress(Exception):
                server.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=message, percentage=min(100, percentage)))

        return report

    def pass_finished(self, summary: str, first: bool) -> None:
        server = self.server
        token, self._token = self._token, None
        if token:
            with contextlib.suppress(Exception):
                server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=summary or "done"))
        if server.live.closed:
            return
        self.warm_up()  # after the first pass, unless no pass ran at start
        server.schedule_diagnostics()
        server.refresh_code_lenses()

    def index_reloaded(self) -> None:
        self.server.schedule_diagnostics()

    def problem(self, message: str) -> None:
        self.server.log_to_client(message, types.MessageType.Error)


def make_engine(server: CogniVaultServer) -> Engine:
    """The engine of the server's vault, with the embedder its options ask for (or none)."""
    from cognivault.config import load_settings
    from cognivault.engine import Engine

    assert server.vault is not None
    settings = load_settings(server.vault, server.options.settings or None)
    embedder: Any = "auto"
    if not server.options.embeddings or settings.embedding.provider == "none":
        embedder = None
        server.embedding_note = "embeddings are off (keyword search only)"
    try:
        return Engine(server.vault, settings, embedder=embedder)
    except ImportError as exc:
        if embedder is None:
            raise
        server.embedding_note = f"embedding model unavailable ({exc}); keyword search only"
        return Engine(server.vault, settings, embedder=None)


async def start_engine(server: CogniVaultServer) -> None:
    """Open the engine off the event loop, then index (or follow the process that writes)."""
    live = server.live
    try:
        engine = await asyncio.to_thread(make_engine, server)
        live.attach(engine)
        if engine.embedder_error:
            server.embedding_note = engine.embedder_error
    except Exception as exc:  # noqa: BLE001 - reported, the server keeps answering
        server.engine_error = str(exc)
        live.state.phase = "failed"
        live.state.errors.append(f"cannot open the index: {exc}")
        log.exception("cannot open the vault index")
        with contextlib.suppress(Exception):
            server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"CogniVault cannot open the vault index: {exc}"))
        return
    finally:
        server.engine_ready.set()
    if server.embedding_note:
        server.log_to_client(f"CogniVault: {server.embedding_note}", types.MessageType.Info)
    live.spawn(asyncio.to_thread(warm_embedder, engine))  # while the first pass reads the vault
    if engine.store.writable and server.options.index_on_start:
        await live.index_vault()  # warms up when it ends
        return
    if engine.store.writable:
        live.state.phase = "ready"
    else:
        live.state.phase = "read-only"
        live.state.last_summary = "another CogniVault process keeps this index up to date"
        live.spawn(_follow_other_writer(server))
    events = live.events
    assert isinstance(events, LspEvents)
    events.warm_up()  # requests are served from the index as it is: ready them now


async def _follow_other_writer(server: CogniVaultServer) -> None:
    live = server.live
    if await live.follow_other_writer():
        # The writer (e.g. `cognivault serve`) has gone: index here, picking up what nobody indexed.
        assert live.engine is not None
        server.log_to_client(f"CogniVault: {live.engine.store.messages[-1]}", types.MessageType.Info)
        await live.index_vault()


def _names_reaching(path: str, updates: FileUpdates) -> frozenset[str] | None:
    """The link names by which other notes' diagnostics may have changed with the update of note
    ``path``: none when what links reach in it stayed the same, every name it was or is found by
    when that changed in place; None when it became a note or stopped being one."""
    if path not in updates.reshaped:
        return frozenset()
    reshape = updates.reshapes.get(path)
    if reshape is None:
        return None
    return frozenset(path_keys(path) | alias_keys((*reshape.aliases_before, *reshape.aliases_after)))


def prepare_snapshot(server: CogniVaultServer, engine: Engine) -> None:
    """Build what requests need from the current snapshot (backlinks, the link, completion and
    symbol indexes) before they ask, between requests: after the first pass, and after each edit's
    re-index, whose patched snapshot carries them over note by note."""
    from cognivault.lsp import completion, workspace_symbols

    ctx, _ = server.build_context(engine, {})
    snapshot = ctx.view.snapshot
    for step in (snapshot.backlinks, snapshot.link_index, lambda: completion.prepare(ctx),
                 lambda: workspace_symbols.prepare(ctx)):
        server.live.yield_to_requests()
        step()


def _warm_up(server: CogniVaultServer, engine: Engine) -> None:
    """Load what the first requests would otherwise wait for (language model, stemmers, the
    snapshot's indexes), then move all of it out of the garbage collector's way (``gc.freeze``, see
    :mod:`cognivault.collector`)."""
    try:
        warm_answering(engine)  # indexes, language model, embedder, one retrieval
        prepare_snapshot(server, engine)
        from cognivault.lsp import citations

        citations._module()  # the study package, imported by the first hover otherwise
    except Exception as exc:  # noqa: BLE001 - only a head start
        log.info("warm-up incomplete: %s", exc)
    gc.freeze()


async def _warm_up_then_pace_collections(server: CogniVaultServer) -> None:
    """Full garbage collections wait for idle moments from now on, then the warm-up runs.

    What the server holds by now (the index, the first pass's results) is frozen as it is, without
    a full collection first: on a 52k-passage vault that collection held every thread for ~2 s on
    2 busy cores, delaying the requests that came meanwhile (the server answers while it warms up).
    Garbage among the frozen objects waits for the collector's sweep."""
    engine = server.live.engine
    if engine is None or server.live.closed:
        return
    server.collector.start()
    await asyncio.to_thread(_warm_up, server, engine)
