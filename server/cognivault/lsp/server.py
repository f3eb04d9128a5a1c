"""The CogniVault language server: document sync, the bridge to worker threads, and thin handlers.

Each LSP feature lives in its own module as a pure function over a
:class:`Context` (engine, vault view, position codec, options) and registers a
thin async handler through :meth:`CogniVaultServer.run_feature`, which runs
the function on a worker thread. The event loop only moves messages: parsing,
disk reads, searching and embedding happen off it. Keeping the index current
(the writer thread, debounced updates, embedding, the request gate, the note
graph) is the live vault's (:mod:`cognivault.live`); what it reports reaches
the editor through :mod:`cognivault.lsp.indexing`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from cognivault import __version__
from cognivault.collector import IdleCollector
from cognivault.errors import CogniVaultError
from cognivault.live import IndexingState, LiveVault
from cognivault.lsp import transport
from cognivault.lsp.documents import DiskDocuments, DiskNames, OpenDocuments
from cognivault.lsp.model import Document, VaultView
from cognivault.lsp.options import LspOptions
from cognivault.lsp.positions import Codec
from cognivault.lsp.uris import relative_path

log = logging.getLogger(__name__)


class _RefusalsInOneLine(logging.Filter):
    """pygls logs every request answered with an error with its full traceback; a refused request (invalid
    params, content modified: a mistake in the request or a race the client retries) is one line. Internal
    errors keep their traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException) and error.code != JsonRpcInternalError.CODE:
            record.msg, record.args = "request refused (%s): %s", (error.code, error.message)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"  # the client was answered: nothing broke
        return True


logging.getLogger("pygls.protocol.json_rpc").addFilter(_RefusalsInOneLine())


class FeatureError(CogniVaultError):
    """A request the user got wrong (no note under the cursor, ...): answered as invalid params."""

    code = "bad_request"


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


class CogniVaultServer(LanguageServer):
    def __init__(self, vault: Path | None = None) -> None:
        from cognivault.lsp.indexing import LspEvents

        super().__init__("cognivault", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental, max_workers=4)
        self.vault: Path | None = vault
        self.options = LspOptions()
        self.engine_error: str | None = None
        self.embedding_note: str | None = None
        self.live = LiveVault(LspEvents(self))
        self.collector = IdleCollector()
        self.documents = OpenDocuments(self.live.yield_to_requests)
        self.disk = DiskDocuments()
        self.disk_names = DiskNames()
        self.published: dict[str, int] = {}  # uri -> diagnostics count last published
        self.feature_modules: list[str] = []
        self._engine_ready: asyncio.Event | None = None
        self._paths: dict[str, str] = {}  # uri -> vault path ("" outside the vault)
        self._diagnostics_all = False
        self._diagnostics_uris: set[str] = set()
        self._diagnostics_names: set[str] = set()  # open documents linking with these names wait too

    @property
    def engine(self) -> Any:  # cognivault.engine.Engine, None until it opened
        return self.live.engine

    @property
    def state(self) -> IndexingState:
        return self.live.state

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
        return self.live.indexing

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

    def refused_message(self, method: str | None, uri: str | None, size: int) -> None:
        """A message over the size limit was skipped unread. If it opened or changed a document, the
        server's copy of that document would be silently stale from here on: it is dropped instead
        (requests read the saved file, as for a closed note) and the user is told how to resync."""
        if uri is None or method not in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE):
            return
        with contextlib.suppress(KeyError, RuntimeError):
            self.workspace.remove_text_document(uri)
        self.documents.forget(uri)
        path = relative_path(self.vault, uri) if self.vault else None
        if path is not None:
            self.live.buffer_dropped(path)  # the file is the truth again
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
        snapshot = self.live.snapshots.get(engine, self.indexing)
        open_docs: dict[str, Document] = {}
        outside: dict[str, Document] = {}
        for uri, (text, version, path) in texts.items():
            doc = self.documents.get(uri, text, version, path, stale_ok=uri != focus, parse_first=focus is None)
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
            with self.collector.busy(), contextlib.nullcontext() if background else self.live.request():
                return await asyncio.to_thread(work)
        except CogniVaultError as exc:  # its one line: a mistake in the request, or a failing machine
            if exc.exit_code == 1:
                raise JsonRpcInternalError(message=str(exc)) from exc
            raise JsonRpcInvalidParams(message=str(exc)) from exc
        except JsonRpcException:
            raise
        except Exception as exc:
            log.exception("feature %s failed", getattr(fn, "__name__", fn))
            self.log_to_client(f"{getattr(fn, '__name__', 'feature')} failed: {exc!r}", types.MessageType.Error)
            raise JsonRpcInternalError(message=f"{type(exc).__name__}: {exc}") from exc

    def refresh_code_lenses(self) -> None:
        if self.capability("workspace.code_lens.refresh_support", False):
            with contextlib.suppress(Exception):
                self.workspace_code_lens_refresh(None)

    # -- diagnostics -------------------------------------------------------------------
    def schedule_diagnostics(self, uris: list[str] | None = None, delay_ms: int | None = None,
                             linking: Iterable[str] = ()) -> None:
        """Publish diagnostics again for ``uris`` (every open document when None) and for the open
        documents with a link looked up by one of the names ``linking`` (see ``link_keys``), debounced."""
        if self.live.closed or "cognivault.lsp.diagnostics" not in self.feature_modules:
            return
        from cognivault.lsp import diagnostics

        if uris is None:
            self._diagnostics_all = True
        else:
            self._diagnostics_uris.update(uris)
        self._diagnostics_names.update(linking)
        self.live.debounce("diagnostics", self.options.diagnostics_debounce_ms if delay_ms is None else delay_ms,
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
        self.collector.stop()
        await self.live.stop()

    def close_engine(self) -> None:
        from cognivault.lsp.paragraph_vectors import close_vectors_of

        engine = self.live.engine
        try:
            self.documents.close()
            close_vectors_of(self)
            self.live.close()
        finally:  # whatever failed above, the index is closed and its writer lock freed for the next process
            if engine is not None:
                with contextlib.suppress(Exception):
                    engine.close()

    def shutdown(self) -> None:  # the transport ended (exit, EOF or a broken pipe)
        with contextlib.suppress(Exception):
            self.close_engine()
        super().shutdown()

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        transport.serve_stdio(self, stdin, stdout)

    def start_tcp(self, host: str, port: int) -> None:
        transport.serve_tcp(self, host, port)


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
    """A server with every feature module registered (a module that fails to import fails loudly)."""
    server = CogniVaultServer(vault)
    for name in FEATURE_MODULES:
        importlib.import_module(name).register(server)
        server.feature_modules.append(name)
    return server
