"""End-to-end harness: the real ``cognivault lsp`` process on a temp copy of ``tests/lsp/vault``.

Helpers live here, fixtures (``shared``, ``fresh``) in conftest.py.

Servers run keyword-only (``"embeddings": false``) with short debounces, their
index in the test's temp folder and every user dir pointed into it. Read-only
tests share one server per module (``shared``); tests that edit get their own
(``fresh``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from cognivault.models.embedded import MODEL_CACHE_ENV

TEST_VAULT = Path(__file__).parent / "vault"
REPO = Path(__file__).resolve().parents[2]


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGNIVAULT_")}
    for name, sub in (("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"),
                      ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    if MODEL_CACHE_ENV in os.environ:  # the session's, as a user's servers share one (conftest.py)
        env[MODEL_CACHE_ENV] = os.environ[MODEL_CACHE_ENV]
    # keywords only, as ``embeddings: false`` says: no German meaning side, no word bridge (tests/conftest.py)
    env.update(HOME=str(home), COGNIVAULT_EMBEDDING_MULTILINGUAL="false",
               COGNIVAULT_MODELS_OLLAMA_HOST="http://127.0.0.1:9", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO / "server"))
    return env


def client_capabilities(*, progress: bool = True, encodings: list[str] | None = None,
                        watch: bool = True) -> types.ClientCapabilities:
    """What a capable editor (VS Code-like) announces."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind(e) for e in encodings] if encodings else None),
        window=types.WindowClientCapabilities(work_done_progress=progress, show_document=None),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True, configuration=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create, types.ResourceOperationKind.Rename,
                                     types.ResourceOperationKind.Delete]),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=watch),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            symbol=types.WorkspaceSymbolClientCapabilities()),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(
                    snippet_support=False, documentation_format=[types.MarkupKind.Markdown],
                    resolve_support=types.ClientCompletionItemResolveOptions(properties=["documentation"]))),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=[
                        types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor,
                        types.CodeActionKind.Source]))),
            rename=types.RenameClientCapabilities(prepare_support=True),
            definition=types.DefinitionClientCapabilities(),
            references=types.ReferenceClientCapabilities(),
            code_lens=types.CodeLensClientCapabilities()))


class Published(dict):
    """The client's latest diagnostics by uri (pytest-lsp stores them here), counting the
    ``publishDiagnostics`` notifications that brought them."""

    def __init__(self) -> None:
        super().__init__()
        self.count: Counter[str] = Counter()

    def __setitem__(self, uri: str, diagnostics: Any) -> None:
        self.count[uri] += 1
        super().__setitem__(uri, diagnostics)


class Session:
    """A started client plus the vault it serves."""

    def __init__(self, client: LanguageClient, vault: Path, result: types.InitializeResult) -> None:
        self.client = client
        self.vault = vault
        self.result = result
        self.opened: set[str] = set()

    def uri(self, path: str) -> str:
        return (self.vault / path).as_uri()

    def text(self, path: str) -> str:
        return (self.vault / path).read_text("utf-8")

    # The timeouts below bound a hang only: a busy 2-core machine may be many times slower than a quiet one.
    async def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        return await asyncio.wait_for(self.client.protocol.send_request_async(method, params), timeout)

    async def status(self) -> dict[str, Any]:
        return _plain(await self.request("cognivault/status", {}))

    async def wait_ready(self, timeout: float = 120) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            status = await self.status()
            if status["indexing"]["phase"] in ("ready", "failed", "read-only"):
                return status
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"index not ready: {status['indexing']}")
            await asyncio.sleep(0.05)

    async def wait_idle(self, timeout: float = 120) -> dict[str, Any]:
        """Ready, with no per-file update pending (edits reached the index)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            status = await self.status()
            indexing = status["indexing"]
            if indexing["phase"] == "ready" and indexing["pendingUpdates"] == 0 and indexing["writerIdle"]:
                return status
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"updates still pending: {indexing}")
            await asyncio.sleep(0.05)

    def open(self, path: str, text: str | None = None, version: int = 1) -> str:
        uri = self.uri(path)
        if uri in self.opened:  # open again: close first, as an editor would
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
        self.opened.add(uri)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=version,
                                                 text=self.text(path) if text is None else text)))
        return uri

    def replace_all(self, path: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri(path), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    def publications(self, path: str) -> int:
        """How many times diagnostics of ``path`` were published so far."""
        return self.client.diagnostics.count[self.uri(path)]

    async def diagnostics(self, path: str, predicate: Any = None, timeout: float = 60) -> list[types.Diagnostic]:
        """Wait for diagnostics of ``path`` that satisfy ``predicate`` (any published, by default)."""
        uri = self.uri(path)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = self.client.diagnostics.get(uri)
            if found is not None and (predicate is None or predicate(found)):
                return list(found)
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no matching diagnostics for {path}: {found}")
            await asyncio.sleep(0.03)


def _accept_registration(client: LanguageClient, params: types.RegistrationParams) -> None:
    client.registrations = [*getattr(client, "registrations", []), *params.registrations]  # type: ignore[attr-defined]


def _plain(value: Any) -> Any:
    """pygls hands custom results back as attrs-free namespaces or dicts: make them dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: _plain(v) for k, v in vars(value).items()}
    return value


plain = _plain


async def start_session(root: Path, *, options: dict[str, Any] | None = None,
                        capabilities: types.ClientCapabilities | None = None,
                        wait: bool = True, copy: bool = True, vault_source: Path = TEST_VAULT,
                        transport_args: Sequence[str] = ()) -> Session:
    vault = root / "vault"
    if copy and not vault.exists():
        shutil.copytree(vault_source, vault)
    home = root / "home"
    init = {"embeddings": False, "index": {"index_dir": str(root / "index")},
            "indexing": {"debounceMs": 40}, "diagnostics": {"debounceMs": 30}}
    for key, value in (options or {}).items():
        init[key] = {**init[key], **value} if isinstance(value, dict) and isinstance(init.get(key), dict) else value
    config = ClientServerConfig(server_command=[sys.executable, "-m", "cognivault.cli", "lsp", *transport_args],
                                server_env=server_env(home))
    client = await config.start()
    client.diagnostics = Published()
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(_accept_registration)
    client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lambda *args: None)
    result = await asyncio.wait_for(client.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities(), root_uri=vault.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=vault.as_uri(), name="vault")],
        initialization_options=init)), 120)
    session = Session(client, vault, result)
    if wait:
        await session.wait_ready()
    return session


async def stop_session(session: Session) -> None:
    try:
        await asyncio.wait_for(session.client.shutdown_session(), 60)
    finally:
        await session.client.stop()


def position_of(text: str, needle: str, *, offset: int = 0, encoding: str = "utf-16",
                occurrence: int = 0) -> types.Position:
    """The LSP position of ``needle`` (+ ``offset`` code points) in ``text``, in ``encoding`` units."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    prefix = text[line_start:index]
    if encoding == "utf-8":
        column = len(prefix.encode("utf-8"))
    elif encoding == "utf-32":
        column = len(prefix)
    else:
        column = len(prefix.encode("utf-16-le")) // 2
    return types.Position(line=line, character=column)
