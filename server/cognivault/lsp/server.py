"""The CogniVault language server: state, lifecycle plumbing and the bridge to worker threads.

Each LSP feature lives in its own module as a pure function over a
:class:`Context` (engine, vault view, position codec, options) and registers a
thin async handler through :meth:`CogniVaultServer.run_feature`, which runs
the function on a worker thread. The event loop only moves messages: parsing,
disk reads, searching and embedding happen off it. All writes to the index go
through one writer thread, in order; reads never wait for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import importlib.util
import logging
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from cognivault import __version__
from cognivault.errors import CogniVaultError
from cognivault.lsp import transport
from cognivault.lsp.collector import IdleCollector
from cognivault.graph import SnapshotCache
from cognivault.lsp.model import Document, VaultView
from cognivault.lsp.options import LspOptions
from cognivault.lsp.positions import Codec, split_lines
from cognivault.lsp.uris import relative_path, vault_uri
from cognivault.threads import RequestGate
from cognivault.vault.links import alias_keys, path_keys
from cognivault.warmup import warm_answering, warm_embedder

if TYPE_CHECKING:
    from cognivault.engine import FileUpdates

log = logging.getLogger(__name__)

DISK_CACHE_SIZE = 256
# An edit is searchable by keywords as soon as its update ran; its passages are embedded once the
# user paused this long after the last update, a few at a time, so the model (which takes every
# core) does not compete with the requests made while typing; a newer edit cuts it short. (Smaller
# steps that each wait for a quiet moment drew the embedding out over many more requests.)
EMBED_EDITS_AFTER_MS = 1000
EMBED_EDITS_BATCH = 8
BACKGROUND_YIELD_S = 0.05  # the longest background work (re-index, diagnostics) waits per step for requests
WRITER_TIMERS = ("update:", "index", "embed")  # debounced jobs that run on the writer thread


class FeatureError(Exception):
    """A request the user got wrong (no note under the cursor, ...): answered as invalid params."""


@dataclass
class IndexingState:
    """What ``cognivault/status`` and ``$/progress`` report about the background work."""

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


@dataclass
class Context:
    """Everything a feature function needs; built per request on a worker thread."""

    engine: Any  # cognivault.engine.Engine
    view: VaultView
    codec: Codec
    options: LspOptions
    vault: Path
    capabilities: types.ClientCapabilities | None
    server: CogniVaultServer | None = None

    def document(self, uri: str) -> Document | None:
        """The note at ``uri``: an open buffer, else the vault's file. A file outside the vault is
        never read (an open buffer of one is served by the caller from what the editor sent)."""
        path = relative_path(self.vault, uri)
        return self.view.document(path) if path is not None else None

    def uri(self, path: str) -> str:
        return self.view.uri(path)

    def capability(self, dotted: str, default: Any = None) -> Any:
        node: Any = self.capabilities
        for part in dotted.split("."):
            if node is None:
                return default
            node = getattr(node, part, None)
        return default if node is None else node


def parse_text(text: str, path: str) -> Any:
    from cognivault.vault.markdown import parse_note

    return parse_note(text, path)


class DiskDocuments:
    """Notes read from disk, parsed once per (mtime, size)."""

    def __init__(self, size: int = DISK_CACHE_SIZE) -> None:
        self._cache: OrderedDict[str, tuple[tuple[int, int], Document]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, vault: Path, path: str) -> Document | None:
        absolute = vault / path
        try:
            stat = absolute.stat()
            inside = absolute.resolve().is_relative_to(vault.resolve())
        except (OSError, RuntimeError):
            return None
        if not inside or not absolute.is_file() or not path.lower().endswith((".md", ".markdown")):
            return None  # a symlink out of the vault is not followed
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[0] == key:
                self._cache.move_to_end(path)
                return cached[1]
        try:
            text = absolute.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None
        doc = Document(vault_uri(vault, path), path, text, split_lines(text), None, parse_text, False)
        with self._lock:
            self._cache[path] = (key, doc)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return doc


class DiskNames:
    """Every file on disk in the vault (also those the index skips), for links to them.

    Walking a large vault takes a while: after the first walk, requests use the last listing and a
    fresh one is made in the background when it is older than ``REFRESH_S`` or invalidated.
    """

    REFRESH_S = 10.0

    def __init__(self) -> None:
        self._resolver: Any = None
        self._built = 0.0
        self._lock = threading.Lock()
        self._walking = False

    def get(self, vault: Path) -> Any:
        with self._lock:
            resolver = self._resolver
            stale = time.monotonic() - self._built >= self.REFRESH_S
            walk_now = resolver is None and not self._walking
            walk_later = resolver is not None and stale and not self._walking
            if walk_now or walk_later:
                self._walking = True
        if walk_later:
            threading.Thread(target=self._walk, args=(vault,), name="cognivault-disk-names", daemon=True).start()
        if walk_now:
            return self._walk(vault)
        return resolver

    def _walk(self, vault: Path) -> Any:
        from cognivault.vault.links import LinkResolver
        from cognivault.vault.scan import ALWAYS_IGNORED_DIRS

        try:
            paths = []
            for dirpath, dirnames, filenames in os.walk(vault):
                dirnames[:] = [d for d in dirnames if d not in ALWAYS_IGNORED_DIRS and not d.startswith(".")]
                base = Path(dirpath).relative_to(vault).as_posix()
                for name in filenames:
                    paths.append(name if base == "." else f"{base}/{name}")
                if len(paths) > 200_000:
                    break
            resolver = LinkResolver(paths)
            with self._lock:
                self._resolver = resolver
                self._built = time.monotonic()
            return resolver
        finally:
            with self._lock:
                self._walking = False

    def invalidate(self) -> None:
        with self._lock:
            self._built = 0.0


class CogniVaultServer(LanguageServer):
    def __init__(self, vault: Path | None = None) -> None:
        super().__init__("cognivault", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental, max_workers=4)
        self.vault: Path | None = vault
        self.options = LspOptions()
        self.engine: Any = None
        self.engine_error: str | None = None
        self.embedding_note: str | None = None
        self.state = IndexingState()
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-index")
        self.collector = IdleCollector()
        self.requests = RequestGate()  # an edit's re-index waits between its steps while requests run
        self.snapshots = SnapshotCache()
        self.disk = DiskDocuments()
        self.disk_names = DiskNames()
        self._open_parsed: dict[str, tuple[int | None, int, Document]] = {}
        self._open_lock = threading.Lock()
        self._parsing: set[tuple[str, int | None]] = set()
        self.parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-parse")
        self._engine_ready: asyncio.Event | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._dirty: set[str] = set()  # vault paths whose buffer differs from the file
        self._indexing_task: asyncio.Task | None = None
        self._reindex_again = False
        self._background: set[asyncio.Task] = set()
        self._closed = False
        self._progress_counter = 0
        self.published: dict[str, int] = {}  # uri -> diagnostics count last published
        self._writer_jobs = 0
        self._update_jobs = 0
        self._unembedded: set[str] = set()  # notes updated without embedding their new passages
        self._edits = 0  # per-file updates scheduled so far (read by the writer thread)
        self._warmed = False
        self._paths: dict[str, str] = {}  # uri -> vault path ("" outside the vault)
        self._diagnostics_all = False
        self._diagnostics_uris: set[str] = set()
        self._diagnostics_names: set[str] = set()  # open documents linking with these names wait too
        self.feature_modules: list[str] = []

    # -- small helpers ----------------------------------------------------------
    @property
    def codec(self) -> Codec:
        try:
            return Codec.of(self.workspace.position_encoding)
        except RuntimeError:
            return Codec()

    def capability(self, dotted: str, default: Any = None) -> Any:
        node: Any = getattr(self.protocol, "client_capabilities", None)
        for part in dotted.split("."):
            if node is None:
                return default
            node = getattr(node, part, None)
        return default if node is None else node

    def spawn(self, coro: Any) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._task_done)
        return task

    async def run_writer(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn`` on the single index-writer thread (writes happen in order, one at a time)."""
        self._writer_jobs += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)
        finally:
            self._writer_jobs -= 1

    @property
    def updates_idle(self) -> bool:
        """No per-file update waiting or running (each one updates the keyword index too)."""
        return self._update_jobs == 0 and not any(key.startswith("update:") for key in self._timers)

    @property
    def writer_idle(self) -> bool:
        return self._writer_jobs == 0 and not any(key.startswith(WRITER_TIMERS) for key in self._timers)

    def _task_done(self, task: asyncio.Task) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            log.error("background task failed: %r", exc, exc_info=exc)
            self.log_to_client(f"background task failed: {exc}", types.MessageType.Error)

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        with contextlib.suppress(Exception):
            self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        from pygls.exceptions import FeatureRequestError

        if source is FeatureRequestError:
            return  # the request was answered with this error already
        # Everything else goes to the client's log, not a popup.
        log.error("%s", error)
        self.log_to_client(f"CogniVault error: {error}", types.MessageType.Error)

    @property
    def engine_ready(self) -> asyncio.Event:
        if self._engine_ready is None:
            self._engine_ready = asyncio.Event()
        return self._engine_ready

    async def wait_engine(self) -> Any:
        if self.engine is None:
            if self.engine_error is None:
                await self.engine_ready.wait()
            if self.engine is None:
                raise JsonRpcInternalError(message=f"the vault index is unavailable: {self.engine_error}")
        return self.engine

    @property
    def indexing(self) -> bool:
        return self.state.phase in ("starting", "indexing")

    # -- documents ----------------------------------------------------------------
    def open_texts(self) -> dict[str, tuple[str, int | None, str]]:
        """uri -> (text, version, vault path or ''): taken on the event loop, read on threads."""
        texts = {}
        try:
            documents = self.workspace.text_documents
        except RuntimeError:
            return {}
        for key, document in documents.items():
            uri = document.uri or key  # as the client wrote it (pygls keys are unquoted)
            path = self._paths.get(uri)
            if path is None:
                path = (relative_path(self.vault, uri) if self.vault else None) or ""
                self._paths[uri] = path
            texts[uri] = (document.source, document.version, path)
        return texts

    def _open_document(self, uri: str, text: str, version: int | None, path: str,
                       stale_ok: bool = False, parse_first: bool = False) -> Document | None:
        """The open document at ``version``, parsed; with ``stale_ok`` the last parsed version will do
        while this one is parsed in the background (another document than the one a request is about:
        typing in a long note must not make hovers elsewhere wait for its parse). With nothing parsed
        yet that is None, unless ``parse_first``: then it is parsed now."""
        key = hash(text)
        with self._open_lock:
            cached = self._open_parsed.get(uri)
            if cached is not None and cached[0] == version and cached[1] == key:
                return cached[2]
            if stale_ok and (cached is not None or not parse_first):
                if (uri, version) not in self._parsing:
                    self._parsing.add((uri, version))
                    self.parser.submit(self._parse_later, uri, text, version, path)
                # Not parsed yet: the index's copy stands in meanwhile.
                return cached[2] if cached is not None else None
        doc = Document(uri, path or None, text, split_lines(text), version, parse_text, True)
        doc.info()  # parse now, on this thread
        with self._open_lock:
            current = self._open_parsed.get(uri)
            if current is None or current[0] is None or version is None or current[0] <= version:
                self._open_parsed[uri] = (version, key, doc)
        return doc

    def parse_soon(self, uri: str, text: str, version: int | None, path: str) -> None:
        """Parse an open document in the background (on open: before the first request needs it)."""
        with self._open_lock:
            if (uri, version) in self._parsing:
                return
            self._parsing.add((uri, version))
        self.parser.submit(self._parse_later, uri, text, version, path)

    def _parse_later(self, uri: str, text: str, version: int | None, path: str) -> None:
        self.yield_to_requests()  # often asked for by a request that goes on meanwhile with the last parse
        try:
            self._open_document(uri, text, version, path)
        except Exception:  # noqa: BLE001 - the next request parses it itself
            log.exception("parsing %s failed", uri)
        finally:
            with self._open_lock:
                self._parsing.discard((uri, version))

    def forget_document(self, uri: str) -> None:
        with self._open_lock:
            self._open_parsed.pop(uri, None)

    def refused_message(self, method: str | None, uri: str | None, size: int) -> None:
        """A message over the size limit was skipped unread. If it opened or changed a document, the
        server's copy of that document would be silently stale from here on: it is dropped instead
        (requests read the saved file, as for a closed note) and the user is told how to resync."""
        if uri is None or method not in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE):
            return
        with contextlib.suppress(KeyError, RuntimeError):
            self.workspace.remove_text_document(uri)
        self.forget_document(uri)
        path = relative_path(self.vault, uri) if self.vault else None
        if path is not None and path in self._dirty:
            self._dirty.discard(path)  # the file is the truth again
            self.schedule_update(path, delay_ms=0)
        name = path or uri
        self.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"CogniVault: an edit of {name} was too large to read ({size / 1024**2:.0f} MiB, over "
                    f"{transport.MAX_MESSAGE_BYTES // 1024**2} MiB), so CogniVault now uses the saved file for "
                    "it. Close and reopen the note to send its text again."))

    def build_context(self, engine: Any, texts: dict[str, tuple[str, int | None, str]],
                      focus: str | None = None) -> tuple[Context, dict]:
        """A context for one request; ``focus`` (the request's document) is always current, other
        open documents may be one edit behind while they are re-parsed. Without a focus (workspace-wide
        requests) every open document may be: a symbol search must not wait for a long note's parse."""
        snapshot = self.snapshots.get(engine, self.indexing)
        open_docs: dict[str, Document] = {}
        outside: dict[str, Document] = {}
        for uri, (text, version, path) in texts.items():
            doc = self._open_document(uri, text, version, path, stale_ok=uri != focus, parse_first=focus is None)
            if doc is None:
                continue
            if path:
                open_docs[path] = doc
            else:
                outside[uri] = doc
        vault = self.vault or Path.cwd()
        view = VaultView(vault, snapshot, open_docs, lambda p: self.disk.get(vault, p),
                         lambda: self.disk_names.get(vault))
        ctx = Context(engine, view, self.codec, self.options, vault,
                      getattr(self.protocol, "client_capabilities", None), self)
        return ctx, outside

    def yield_to_requests(self) -> None:
        """Between the steps of background work: wait while requests run (a bounded time)."""
        self.requests.wait_quiet(BACKGROUND_YIELD_S)

    async def run_feature(self, fn: Callable[..., Any], uri: str | None, *args: Any,
                          background: bool = False) -> Any:
        """Run ``fn(ctx, doc, *args)`` (``fn(ctx, *args)`` when ``uri`` is None) on a worker thread.

        ``background``: work no one waits for (diagnostics), which may call :meth:`yield_to_requests`;
        it is not counted as a request, so it does not hold up other background work."""
        engine = await self.wait_engine()
        texts = self.open_texts()

        def work() -> Any:
            ctx, outside = self.build_context(engine, texts, focus=uri)
            if uri is None:
                return fn(ctx, *args)
            doc = outside.get(uri) or ctx.document(uri)
            if doc is None:
                return None
            return fn(ctx, doc, *args)

        try:
            with self.collector.busy(), contextlib.nullcontext() if background else self.requests.request():
                return await asyncio.to_thread(work)
        except FeatureError as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from exc
        except CogniVaultError as exc:  # its one line: a mistake in the request, or a failing machine
            if exc.exit_code == 1:
                raise JsonRpcInternalError(message=str(exc)) from exc
            raise JsonRpcInvalidParams(message=str(exc)) from exc
        except JsonRpcException:
            raise
        except Exception as exc:
            from cognivault.engine import EngineError
            from cognivault.index.scope import ScopeError

            if isinstance(exc, (EngineError, ScopeError)):
                raise JsonRpcInvalidParams(message=str(exc)) from exc
            log.exception("feature %s failed", getattr(fn, "__name__", fn))
            self.log_to_client(f"{getattr(fn, '__name__', 'feature')} failed: {exc!r}", types.MessageType.Error)
            raise JsonRpcInternalError(message=f"{type(exc).__name__}: {exc}") from exc

    # -- engine and indexing ----------------------------------------------------------
    def make_engine(self) -> Any:
        from cognivault.config import load_settings
        from cognivault.engine import Engine

        assert self.vault is not None
        settings = load_settings(self.vault, self.options.settings or None)
        embedder: Any = "auto"
        if not self.options.embeddings or settings.embedding.provider == "none":
            embedder = None
            self.embedding_note = "embeddings are off (keyword search only)"
        elif importlib.util.find_spec("cognivault.models.registry") is None:
            embedder = None
            self.embedding_note = "no embedding provider is available in this build (keyword search only)"
        try:
            return Engine(self.vault, settings, embedder=embedder)
        except ImportError as exc:
            if embedder is None:
                raise
            self.embedding_note = f"embedding model unavailable ({exc}); keyword search only"
            return Engine(self.vault, settings, embedder=None)

    async def start_engine(self) -> None:
        try:
            self.engine = await asyncio.to_thread(self.make_engine)
            if self.engine.embedder_error:
                self.embedding_note = self.engine.embedder_error
        except Exception as exc:  # noqa: BLE001 - reported, the server keeps answering
            self.engine_error = str(exc)
            self.state.phase = "failed"
            self.state.errors.append(f"cannot open the index: {exc}")
            log.exception("cannot open the vault index")
            with contextlib.suppress(Exception):
                self.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"CogniVault cannot open the vault index: {exc}"))
        finally:
            self.engine_ready.set()
        if self.engine is None:
            return
        if self.embedding_note:
            self.log_to_client(f"CogniVault: {self.embedding_note}", types.MessageType.Info)
        self.spawn(asyncio.to_thread(warm_embedder, self.engine))  # while the first pass reads the vault
        if not self.engine.store.writable:
            self.state.phase = "read-only"
            self.state.last_summary = "another CogniVault process keeps this index up to date"
            self.spawn(self._follow_other_writer())
            return
        if self.options.index_on_start:
            await self.index_vault()
        else:
            self.state.phase = "ready"

    async def _follow_other_writer(self) -> None:
        while not self._closed and self.engine is not None:
            await asyncio.sleep(2.0)
            if await self.run_writer(self.engine.take_over_writing):
                # The writer (e.g. `cognivault serve`) has gone: index here, picking up what nobody indexed.
                self.log_to_client(f"CogniVault: {self.engine.store.messages[-1]}", types.MessageType.Info)
                await self.index_vault()
                return
            changed = await self.run_writer(self.engine.store.refresh_if_changed)
            if changed:
                self.schedule_diagnostics()

    async def index_vault(self) -> None:
        """A full incremental run, with ``$/progress`` when the client supports it."""
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
        loop = asyncio.get_running_loop()
        token: str | None = None
        if self.capability("window.work_done_progress", False):
            self._progress_counter += 1
            token = f"cognivault/index/{os.getpid()}/{self._progress_counter}"
            try:
                await asyncio.wait_for(self.work_done_progress.create_async(token), 10)
            except Exception as exc:  # noqa: BLE001 - the client refused: index without progress
                log.info("no progress token: %s", exc)
                token = None
        self.state.phase = "indexing"
        self.state.started_at = time.time()
        self.state.stage, self.state.done, self.state.total, self.state.current = "scan", 0, 0, ""
        if token:
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title="CogniVault: indexing vault", message="scanning files", percentage=0, cancellable=False))
        last_sent = [0.0, ""]

        def on_progress(event: Any) -> None:
            self.state.stage, self.state.done, self.state.total, self.state.current = (
                event.stage, event.done, event.total, event.current)
            now = time.monotonic()
            if not token or (now - last_sent[0] < 0.05 and event.stage == last_sent[1]
                             and event.done not in (1, event.total)):
                return
            last_sent[0], last_sent[1] = now, event.stage
            label = {"read": "reading", "embed": "embedding", "finish": "finishing", "scan": "scanning"}.get(
                event.stage, event.stage)
            message = f"{label} {event.done}/{event.total}" + (f" {event.current}" if event.current else "")
            percentage = int(100 * event.done / event.total) if event.total else 0
            with contextlib.suppress(Exception):
                self.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=message, percentage=min(100, percentage)))

        def progress(event: Any) -> None:
            loop.call_soon_threadsafe(on_progress, event)

        summary = ""
        try:
            report = await self.run_writer(engine.index, progress)
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
            self.state.phase = "ready"
        except IndexBusy as exc:
            summary = str(exc)
            self.state.phase = "read-only"
        except Exception as exc:  # noqa: BLE001 - answered in status, the server lives on
            log.exception("indexing failed")
            summary = f"indexing failed: {exc}"
            self.state.errors.append(summary)
            self.state.phase = "failed"
            self.log_to_client(summary, types.MessageType.Error)
        finally:
            self.state.finished_at = time.time()
            self.state.last_summary = summary
            if token:
                with contextlib.suppress(Exception):
                    self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=summary or "done"))
        if self._closed:
            return
        if not self._warmed:
            self._warmed = True
            self.spawn(self._warm_up_then_pace_collections(engine))
        # The run read files from disk: lay unsaved buffers over them again.
        for path in sorted(self._dirty):
            self.schedule_update(path, delay_ms=0)
        self.schedule_diagnostics()
        self.refresh_code_lenses()

    async def _warm_up_then_pace_collections(self, engine: Any) -> None:
        await asyncio.to_thread(_warm_up, self, engine)
        if not self._closed:
            self.collector.start()

    def refresh_code_lenses(self) -> None:
        if self.capability("workspace.code_lens.refresh_support", False):
            with contextlib.suppress(Exception):
                self.workspace_code_lens_refresh(None)

    # -- per-file updates ----------------------------------------------------------------
    def _debounce(self, key: str, delay_ms: int, callback: Callable[[], Any]) -> None:
        old = self._timers.pop(key, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()

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

        self._timers[key] = loop.call_later(max(0, delay_ms) / 1000, fire)

    def buffer_text(self, path: str) -> str | None:
        if path not in self._dirty:
            return None
        for uri, (text, _version, doc_path) in self.open_texts().items():
            if doc_path == path:
                return text
        return None

    def schedule_update(self, path: str, delay_ms: int | None = None) -> None:
        """Re-index one file after ``delay_ms`` of quiet (its buffer if unsaved, else the file)."""
        if self.engine is None or not self.engine.store.writable:
            return
        if delay_ms is None:
            delay_ms = self.options.debounce_ms
        self.state.pending_updates = len([k for k in self._timers if k.startswith("update:")]) + 1
        self._edits += 1
        self.collector.touched()
        self._debounce(f"update:{path}", delay_ms, lambda: self._update(path))

    async def _update(self, path: str) -> None:
        if self.indexing:
            # The running pass may have read this file already: dirty buffers are laid over
            # again after it, saved files need one more (incremental) pass.
            if path not in self._dirty:
                self._reindex_again = True
            return
        text = self.buffer_text(path)
        self._update_jobs += 1
        try:
            updates = await self.run_writer(self._update_sync, path, text)
        except Exception as exc:  # noqa: BLE001
            log.exception("updating %s failed", path)
            self.state.errors.append(f"{path}: {exc}")
            self.log_to_client(f"CogniVault could not update {path}: {exc}", types.MessageType.Error)
            return
        finally:
            self._update_jobs -= 1
        self.state.updates_done += 1
        self.disk_names.invalidate()
        self.state.pending_updates = len([k for k in self._timers if k.startswith("update:")])
        if updates is not None and updates.whole_pass_needed:
            self._debounce("index", 500, self.index_vault)
            return
        if updates is not None and updates.updated and getattr(self.engine, "embedder", None) is not None:
            self._unembedded.update(updates.updated)
            self._debounce("embed", EMBED_EDITS_AFTER_MS, self._embed_edits)
        linking = _names_reaching(path, updates) if updates is not None and updates.updated else None
        if linking is not None:
            # This note and notes citing passages (whose content hashes may have moved) need a new
            # look; of other notes only those with a link written with a name this one had or has.
            self.schedule_diagnostics([uri for uri, (text, _v, p) in self.open_texts().items()
                                       if p == path or "cv:cite" in text], linking=linking)
        else:  # a note came or went (or a file on disk): any unresolved link anywhere may be affected
            self.schedule_diagnostics()

    def _update_sync(self, path: str, text: str | None) -> FileUpdates | None:
        """On the writer thread: index ``path`` from its unsaved ``text`` when given, else from disk
        (None: the server is closing)."""
        engine = self.engine
        if engine is None or self._closed:
            return None
        updates: FileUpdates = engine.update_files([path], texts=None if text is None else {path: text},
                                                   view=self.snapshots, run_whole_pass=False, embed=False,
                                                   pause=self.yield_to_requests)
        if path in updates.failed:
            raise OSError(updates.failed[path])
        if updates.updated or updates.removed:
            try:
                _prepare_snapshot(self, engine)
            except Exception:  # noqa: BLE001 - only a head start: requests build what they need
                log.exception("preparing the snapshot after updating %s failed", path)
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

    # -- diagnostics -------------------------------------------------------------------
    def schedule_diagnostics(self, uris: list[str] | None = None, delay_ms: int | None = None,
                             linking: Iterable[str] = ()) -> None:
        """Publish diagnostics again for ``uris`` (every open document when None) and for the open
        documents with a link looked up by one of the names ``linking`` (see ``link_keys``), debounced."""
        if self._closed or "cognivault.lsp.diagnostics" not in self.feature_modules:
            return
        from cognivault.lsp import diagnostics

        if uris is None:
            self._diagnostics_all = True
        else:
            self._diagnostics_uris.update(uris)
        self._diagnostics_names.update(linking)
        self._debounce("diagnostics", self.options.diagnostics_debounce_ms if delay_ms is None else delay_ms,
                       lambda: diagnostics.publish_pending(self))

    def take_diagnostics_work(self) -> tuple[list[str] | None, frozenset[str]]:
        """The documents waiting for diagnostics (None: all open documents), and the link names
        whose open documents wait for them too."""
        everything, self._diagnostics_all = self._diagnostics_all, False
        uris, self._diagnostics_uris = self._diagnostics_uris, set()
        names, self._diagnostics_names = frozenset(self._diagnostics_names), set()
        return (None if everything else sorted(uris)), names

    # -- shutting down -------------------------------------------------------------------
    async def stop(self) -> None:
        """Stop background work and leave the index consistent (called on ``shutdown``)."""
        if self._closed:
            return
        self._closed = True
        self.collector.stop()
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

        try:
            await asyncio.wait_for(self.run_writer(finish), 30)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not finish the index cleanly: %s", exc)
        self.state.phase = "stopped"

    def close_engine(self) -> None:
        from cognivault.lsp.paragraph_vectors import close_vectors_of

        self._closed = True
        engine, self.engine = self.engine, None
        self.parser.shutdown(wait=False, cancel_futures=True)
        close_vectors_of(self)
        if engine is not None:
            engine.stop_indexing()
            self.writer.shutdown(wait=True, cancel_futures=True)
            with contextlib.suppress(Exception):
                engine.close()

    def shutdown(self) -> None:  # the transport ended (exit, EOF or a broken pipe)
        with contextlib.suppress(Exception):
            self.close_engine()
        super().shutdown()

    # -- transports -------------------------------------------------------------------
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:  # type: ignore[override]
        from pygls.io_ import StdoutWriter

        stdin = stdin or sys.stdin.buffer
        stdout = stdout or sys.stdout.buffer
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout))

        async def main() -> None:
            reader = await _pipe_reader(stdin, self.thread_pool)
            await transport.run_async(self._stop_event, reader, self.protocol, self.refused_message)

        try:
            asyncio.run(main())
        except (BrokenPipeError, ConnectionResetError):
            log.error("the client went away; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        self._stop_event = stop_event = threading.Event()

        async def serve() -> None:
            done = asyncio.Event()

            async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                if self.protocol.writer is not None:
                    writer.close()  # one client at a time
                    return
                self.protocol.set_writer(writer)  # type: ignore[arg-type]
                try:
                    await transport.run_async(stop_event, reader, self.protocol, self.refused_message)
                finally:
                    done.set()

            server = await asyncio.start_server(connection, host, port)
            addresses = ", ".join(str(sock.getsockname()) for sock in server.sockets)
            sys.stderr.write(f"cognivault lsp listening on {addresses}\n")
            sys.stderr.flush()
            async with server:
                await done.wait()

        try:
            asyncio.run(serve())
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()


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


class _ExecutorReader:
    def __init__(self, stream: Any, executor: ThreadPoolExecutor) -> None:
        self.stream = stream
        self.executor = executor

    async def readline(self) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.readline)

    async def readexactly(self, n: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.read, n)

    async def read(self, n: int) -> bytes:
        read = getattr(self.stream, "read1", self.stream.read)
        return await asyncio.get_running_loop().run_in_executor(self.executor, read, n)


async def _pipe_reader(stream: Any, executor: ThreadPoolExecutor) -> Any:
    """An asyncio stream over stdin when it is a pipe or socket (no thread hop per line)."""
    loop = asyncio.get_running_loop()
    try:
        reader = asyncio.StreamReader(limit=transport.MAX_HEADER_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
        return reader
    except (ValueError, OSError, NotImplementedError):
        return _ExecutorReader(stream, executor)


def _prepare_snapshot(server: CogniVaultServer, engine: Any) -> None:
    """Build what requests need from the current snapshot (backlinks, the link, completion and
    symbol indexes) before they ask, between requests: after the first pass, and after each edit's
    re-index, whose patched snapshot carries them over note by note."""
    from cognivault.lsp import completion, workspace_symbols

    ctx, _ = server.build_context(engine, {})
    snapshot = ctx.view.snapshot
    for step in (snapshot.backlinks, snapshot.link_index, lambda: completion.prepare(ctx),
                 lambda: workspace_symbols.prepare(ctx)):
        server.yield_to_requests()
        step()


def _warm_up(server: CogniVaultServer, engine: Any) -> None:
    """After the first pass: load what the first requests would otherwise wait for (language model,
    stemmers, the snapshot's indexes), then move all of it out of the garbage collector's way
    (``gc.freeze``, see :mod:`cognivault.lsp.collector`)."""
    try:
        warm_answering(engine)  # indexes, language model, embedder, one retrieval
        _prepare_snapshot(server, engine)
        from cognivault.lsp import citations

        citations._module()  # the study package, imported by the first hover otherwise
    except Exception as exc:  # noqa: BLE001 - only a head start
        log.info("warm-up incomplete: %s", exc)
    gc.collect()
    gc.freeze()


FEATURE_MODULES = (
    "cognivault.lsp.lifecycle",
    "cognivault.lsp.symbols",
    "cognivault.lsp.definition",
    "cognivault.lsp.hover",
    "cognivault.lsp.references",
    "cognivault.lsp.completion",
    "cognivault.lsp.diagnostics",
    "cognivault.lsp.code_actions",
    "cognivault.lsp.code_lens",
    "cognivault.lsp.workspace_symbols",
    "cognivault.lsp.rename",
    "cognivault.lsp.custom",
    "cognivault.lsp.study",
)


def create_server(vault: Path | None = None) -> CogniVaultServer:
    """A server with every feature module that exists registered."""
    server = CogniVaultServer(vault)
    for name in FEATURE_MODULES:
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(server)
        server.feature_modules.append(name)
    return server
