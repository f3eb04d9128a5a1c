"""Lifecycle: initialize, background indexing, document sync, watched files, settings, shutdown.

- The vault is ``initializationOptions.vault``, else the workspace root (or the
  first workspace folder).
- After ``initialized`` the engine opens on a worker thread and a full,
  incremental indexing pass starts at once (:mod:`cognivault.lsp.indexing`);
  every request is answered meanwhile.
- ``didOpen`` / ``didChange`` / ``didSave`` / ``didClose`` and watched-file
  events tell the live vault (:mod:`cognivault.live`), which re-indexes the file
  debounced per file (unsaved text while a buffer differs from the file, the
  file again once it is saved or closed unsaved); after a pause in typing, the
  paragraph at the last change is embedded for link completion.
- ``shutdown`` stops indexing and leaves catalog, BM25 and FAISS in agreement;
  ``exit`` releases the index.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from cognivault.lsp.completion import paragraph_edited
from cognivault.lsp.indexing import start_engine
from cognivault.lsp.options import parse_options
from cognivault.lsp.server import CogniVaultServer
from cognivault.lsp.study import note_edited
from cognivault.lsp.uris import relative_path, uri_to_fs

log = logging.getLogger(__name__)

WATCHER_ID = "cognivault-watch-files"


def vault_from_params(params: types.InitializeParams, configured: str | None) -> tuple[Path | None, str | None]:
    """The vault folder and, when there is none, why."""
    candidates: list[Path] = []
    if configured:
        candidates.append(Path(configured).expanduser())
    elif params.root_uri:
        fs = uri_to_fs(params.root_uri)
        if fs is not None:
            candidates.append(fs)
    elif params.root_path:
        candidates.append(Path(params.root_path))
    elif params.workspace_folders:
        fs = uri_to_fs(params.workspace_folders[0].uri)
        if fs is not None:
            candidates.append(fs)
    if not candidates:
        return None, "no vault: open a folder, or set initializationOptions.vault"
    vault = candidates[0]
    if not vault.is_dir():
        return None, f"vault folder not found: {vault}"
    return vault.resolve(), None


def watcher_globs() -> list[str]:
    from cognivault.vault.extractors import ATTACHMENT_EXTENSIONS

    suffixes = sorted({s.lstrip(".") for s in ATTACHMENT_EXTENSIONS})
    return ["**/*.{md,markdown}", "**/*.{" + ",".join(suffixes) + "}", "**/.cognivaultignore"]


def register(server: CogniVaultServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: CogniVaultServer, params: types.InitializeParams) -> None:
        options, problems = parse_options(params.initialization_options)
        ls.options = options
        ls.live.debounce_ms = options.debounce_ms
        if ls.vault is None:
            ls.vault, error = vault_from_params(params, options.vault)
            if error:
                ls.engine_error = error
                ls.state.phase = "failed"
                ls.state.errors.append(error)
        for problem in problems:
            ls.state.errors.append(f"setting ignored: {problem}")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: CogniVaultServer, params: types.InitializedParams) -> None:
        for problem in [e for e in ls.state.errors if e.startswith("setting ignored")]:
            ls.log_to_client(f"CogniVault: {problem}", types.MessageType.Warning)
        if ls.vault is None:
            ls.engine_ready.set()
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"CogniVault: {ls.engine_error}"))
            return
        if ls.capability("workspace.did_change_watched_files.dynamic_registration", False):
            registration = types.Registration(
                id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in watcher_globs()]))
            ls.live.spawn(_register(ls, types.RegistrationParams(registrations=[registration])))
        ls.live.spawn(start_engine(ls))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: CogniVaultServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        path = _path(ls, document.uri)
        ls.documents.parse_soon(document.uri, document.text, document.version, path or "")
        if path is not None:
            disk = await asyncio.to_thread(_disk_text, ls, path)
            current = ls.open_texts().get(params.text_document.uri)
            # Changes, saves or a close that arrived while the file was read decide for themselves.
            if current is not None and current[1] == params.text_document.version and (
                    disk is None or disk != current[0]):
                ls.live.buffer_changed(path)
        ls.schedule_diagnostics([params.text_document.uri], delay_ms=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: CogniVaultServer, params: types.DidChangeTextDocumentParams) -> None:
        path = _path(ls, params.text_document.uri)
        if path is not None:
            ls.live.buffer_changed(path)
            note_edited(ls, path)
        paragraph_edited(ls, params)
        ls.schedule_diagnostics([params.text_document.uri])

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: CogniVaultServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(ls, params.text_document.uri)
        if path is not None:
            ls.live.buffer_saved(path)
            note_edited(ls, path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: CogniVaultServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.forget(uri)
        path = _path(ls, uri)
        if path is not None:
            ls.live.buffer_dropped(path)  # closed without saving: the file is the truth again
        if ls.published.pop(uri, None):
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: CogniVaultServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.disk_names.invalidate()
        changed = [(path, change.type) for change in params.changes
                   if (path := _path(ls, change.uri)) is not None]
        ls.live.files_changed([path for path, _ in changed],
                              deleted=[path for path, kind in changed if kind == types.FileChangeType.Deleted])

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: CogniVaultServer,
                                       params: types.DidChangeConfigurationParams) -> None:
        settings: Any = params.settings
        if not settings and ls.capability("workspace.configuration", False):
            try:
                values = await ls.workspace_configuration_async(types.ConfigurationParams(
                    items=[types.ConfigurationItem(section="cognivault")]))
                settings = {"cognivault": values[0]} if values else None
            except Exception as exc:  # noqa: BLE001
                log.info("workspace/configuration failed: %s", exc)
                settings = None
        if not isinstance(settings, dict):
            return
        before = ls.options.engine_key()
        options, problems = parse_options(settings, ls.options)
        for problem in problems:
            ls.log_to_client(f"CogniVault: setting ignored: {problem}", types.MessageType.Warning)
        ls.options = options
        ls.live.debounce_ms = options.debounce_ms
        if ls.engine is not None:
            from cognivault.config import apply_overrides

            with contextlib.suppress(Exception):
                apply_overrides(ls.engine.settings, {k: v for k, v in options.settings.items()
                                                     if k in ("models", "study")})
        if options.engine_key() != before:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Info,
                message="CogniVault: the vault, embedding or index settings change after a server restart"))
        if not options.diagnostics:
            for uri in list(ls.published):
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
                ls.published.pop(uri, None)
        ls.schedule_diagnostics()
        ls.refresh_code_lenses()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: CogniVaultServer, params: Any) -> None:
        await ls.stop()

    @server.feature(types.EXIT)
    def exit_(ls: CogniVaultServer, params: Any) -> None:
        ls.close_engine()


async def _register(ls: CogniVaultServer, params: types.RegistrationParams) -> None:
    try:
        await ls.client_register_capability_async(params)
    except Exception as exc:  # noqa: BLE001 - watching is a nicety; saves still update the index
        log.info("file watcher registration refused: %s", exc)


def _path(ls: CogniVaultServer, uri: str) -> str | None:
    if ls.vault is None:
        return None
    return relative_path(ls.vault, uri)


def _disk_text(ls: CogniVaultServer, path: str) -> str | None:
    assert ls.vault is not None
    try:
        return (ls.vault / path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None
