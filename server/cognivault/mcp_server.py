"""``cognivault mcp``: the vault as a Model Context Protocol server on stdio, for the agents people ask
in (VS Code's chat, Claude Desktop, Zed, Cursor, Neovim's mcphub, Obsidian Copilot's agent mode).

Tools (the work is :class:`cognivault.vault_tools.VaultTools`'s; this module is the protocol):

- ``search``: passages by keywords and meaning (``mode``, ``scope`` filters, ``k``);
- ``ask``: a cited answer: its text, citations (path, heading, lines) and confidence label and reason,
  the same as ``cognivault ask --json`` gives;
- ``related``: notes related to a note (meaning, links, tags);
- ``read_note``: an indexed Markdown note, whole or one heading's section, inside the vault only;
- ``due_cards``: the flashcards due for review;
- ``generate``: flashcards, a quiz or a mind map written into the study folder: the one tool that
  writes, offered only when the server was started with ``--allow-writes``.

Resources: every indexed Markdown note as ``cognivault://note/<vault path>`` (text/markdown), listed
page by page, and the template of that address for any other note.

Every argument is checked before any work (types, sizes, and each vault path by the one path guard,
as the companion checks its requests). A tool that cannot do what was asked answers a tool error
(``isError``, its message for the user); an unknown tool, a resource that is not there or outside the
vault, and a message that is not JSON-RPC at all (a line that is not JSON, a request of the wrong
shape) get a JSON-RPC error; the server goes on answering after each, and never sends a traceback.

The index is the live one that ``cognivault lsp`` and ``serve`` keep: when one of them writes it, this
process reads it and reloads their changes (taking over once that process has gone); when none does,
this process is its one writer, as they would be: it indexes the vault on start and follows the
files changed on disk. Logs go to stderr; stdout carries the protocol only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, cast
from urllib.parse import quote

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cognivault import __version__
from cognivault.answer.request import MAX_QUESTION_CHARS, MAX_SOURCES
from cognivault.engine import Engine, open_engine_or_keywords
from cognivault.errors import CogniVaultError, describe_os_error
from cognivault.index.watch import VaultWatcher
from cognivault.live import LiveVault
from cognivault.search_request import MAX_QUERY_CHARS
from cognivault.vault.guard import VaultPathError
from cognivault.vault_tools import GENERATED_KINDS, READ_ONLY_HINT, VaultTools

log = logging.getLogger(__name__)

NOTE_URI = "cognivault://note/"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for a resource that is not there
RESOURCES_PER_PAGE = 500
MAX_RESULTS = 50  # search results, related notes: what an agent's context can take
MAX_PATH_CHARS = 1024
OPENING_WAIT_S = 60.0  # a stop during start-up waits this long for the engine, to close it and free the index

VaultPath = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
Filters = Annotated[list[Annotated[str, Field(max_length=MAX_PATH_CHARS)]], Field(max_length=64, description=(
    "limit to filters, as on the command line: folder:Biology, tag:exam, file:Biology/Cells.md, "
    "property:status=draft, study:only or study:exclude (same kind widens, different kinds narrow)"))]


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchArguments(_Arguments):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="words, a phrase or a question")
    mode: Literal["hybrid", "lexical", "dense"] = Field(
        "hybrid", description="hybrid: keywords and meaning fused; lexical: keywords only; dense: meaning only")
    scope: Filters | None = None
    k: int = Field(10, ge=1, le=MAX_RESULTS, description="number of passages")
    per_note: bool = Field(False, description="at most one passage per note")


class AskArguments(_Arguments):
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    scope: Filters | None = None
    max_sources: int = Field(6, ge=1, le=MAX_SOURCES, description="passages the answer may draw on")


class RelatedArguments(_Arguments):
    note: VaultPath = Field(description="vault-relative path or note name, e.g. Biology/Cells.md or Cells")
    k: int = Field(10, ge=1, le=MAX_RESULTS)
    include_linked: bool = Field(False, description="also list notes this note already links to")


class ReadNoteArguments(_Arguments):
    path: VaultPath = Field(description="vault-relative path or note name, e.g. Biology/Cells.md or Cells")
    heading: str | None = Field(None, max_length=500, description=(
        "only this heading's section, as a link names it: 'Mitosis' or 'Cell cycle#Mitosis'"))


class DueCardsArguments(_Arguments):
    deck: str | None = Field(None, max_length=200, description="only this deck")
    note: VaultPath | None = Field(None, description="only the cards of this note")
    limit: int = Field(20, ge=1, le=200)
    include_new: bool = Field(True, description="also cards never reviewed")


class GenerateArguments(_Arguments):
    kind: Literal["flashcards", "quiz", "mindmap"]
    note: VaultPath | None = Field(None, description="the note to study")
    topic: str | None = Field(None, max_length=500, description="or a topic, searched in the vault")
    scope: Filters | None = None
    count: int | None = Field(None, ge=1, le=100, description="cards or questions to make")


ToolRun = Callable[[VaultTools, Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    arguments: type[_Arguments]
    run: ToolRun
    writes: bool = False

    def tool(self) -> types.Tool:
        return types.Tool(name=self.name, title=self.title, description=self.description,
                          input_schema=self.arguments.model_json_schema(),
                          annotations=types.ToolAnnotations(title=self.title, read_only_hint=not self.writes,
                                                            destructive_hint=False, idempotent_hint=not self.writes,
                                                            open_world_hint=False))


TOOLS = (
    ToolSpec("search", "Search the vault", "Passages of the user's notes that match a query, by keywords and "
             "meaning, best first, each with its note path, heading path, lines and a snippet.", SearchArguments,
             lambda tools, a: tools.search(a.query, mode=a.mode, scope=a.scope, k=a.k, per_note=a.per_note)),
    ToolSpec("ask", "Ask the vault", "A short answer written only from the user's notes, with its citations "
             "(label, path, heading, lines, snippet) and a confidence label with its reason; it says so when "
             "the notes do not answer.", AskArguments,
             lambda tools, a: tools.ask(a.question, scope=a.scope, max_sources=a.max_sources)),
    ToolSpec("related", "Related notes", "Notes related to a note by meaning, links and tags, best first, "
             "each with why.", RelatedArguments,
             lambda tools, a: tools.related(a.note, k=a.k, include_linked=a.include_linked)),
    ToolSpec("read_note", "Read a note", "The Markdown text of a note in the vault, whole or one heading's "
             "section, with its line range and outline.", ReadNoteArguments,
             lambda tools, a: _note_data(tools.read_note(a.path, a.heading))),
    ToolSpec("due_cards", "Flashcards due", "The flashcards due for review now (most overdue first, then "
             "new ones) and each deck's counts.", DueCardsArguments,
             lambda tools, a: tools.due_cards(deck=a.deck, note=a.note, limit=a.limit,
                                              include_new=a.include_new)),
    ToolSpec("generate", "Generate study notes", f"Write {', '.join(GENERATED_KINDS)} made from a note, a "
             "scope or a topic into the vault's study folder, every item citing its source; returns the "
             "new note's path.", GenerateArguments,
             lambda tools, a: tools.generate(a.kind, note=a.note, topic=a.topic, scope=a.scope, count=a.count),
             writes=True),
)


async def _note_data(reading: Awaitable[Any]) -> dict[str, Any]:
    note = await reading
    return note.to_dict()


def note_uri(path: str) -> str:
    return NOTE_URI + quote(path, safe="/")


def _tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _invalid_arguments(error: ValidationError) -> str:
    """Which arguments are wrong and why, without echoing what was sent (it may be huge)."""
    problems = [f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
                for item in error.errors(include_url=False, include_input=False)]
    return "invalid arguments: " + "; ".join(problems[:10])


async def call_tool(tools: VaultTools, specs: dict[str, ToolSpec], name: str,
                    arguments: dict[str, Any] | None) -> types.CallToolResult:
    """Run tool ``name``: its data as structured content (and as JSON text), or a tool error."""
    spec = specs.get(name)
    if spec is None:
        if name == "generate":
            return _tool_error(f"generate writes notes into the vault, and this server only reads: {READ_ONLY_HINT}")
        raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {name!r}: one of {', '.join(specs)}")
    try:
        data = await spec.run(tools, spec.arguments.model_validate(arguments or {}))
    except ValidationError as exc:
        return _tool_error(_invalid_arguments(exc))
    except CogniVaultError as exc:
        return _tool_error(str(exc))
    except OSError as exc:  # a vault that went away, a full disk, a read-only study folder
        return _tool_error(str(describe_os_error(exc, f"finish {name}")))
    except Exception:  # noqa: BLE001 - the agent gets one line, the log the details
        log.exception("the %s tool failed", name)
        return _tool_error(f"{name} failed on this request; the server's log (stderr) says why")
    text = json.dumps(data, ensure_ascii=False, default=str)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=json.loads(text))


async def read_note_resource(tools: VaultTools, uri: str) -> types.ReadResourceResult:
    if not uri.startswith(NOTE_URI):
        raise MCPError(code=types.INVALID_PARAMS, message=f"not a note of this vault: use {NOTE_URI}<path>")
    try:
        note = await tools.read_note(uri.removeprefix(NOTE_URI))
    except VaultPathError as exc:
        raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
    except (CogniVaultError, OSError) as exc:
        raise MCPError(code=RESOURCE_NOT_FOUND, message=str(exc), data={"uri": uri}) from None
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=note.text,
                                                                         mime_type="text/markdown")])


def build_server(tools: VaultTools) -> Server[Any]:
    """The MCP server of ``tools``: its tools (``generate`` only when writes are allowed) and notes."""
    specs = {spec.name: spec for spec in TOOLS if tools.allow_writes or not spec.writes}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in specs.values()])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await call_tool(tools, specs, params.name, params.arguments)

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        start = int(cursor) if cursor and cursor.isdigit() else 0
        notes = await tools.note_paths()
        page = notes[start:start + RESOURCES_PER_PAGE]
        more = start + RESOURCES_PER_PAGE < len(notes)
        return types.ListResourcesResult(
            resources=[types.Resource(name=path, title=title, uri=note_uri(path), mime_type="text/markdown")
                       for path, title in page],
            next_cursor=str(start + RESOURCES_PER_PAGE) if more else None)

    async def list_templates(ctx: Any, params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            name="note", title="A note of the vault", uri_template=NOTE_URI + "{+path}", mime_type="text/markdown",
            description="a note by its vault path, e.g. Biology/Cells.md")])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await read_note_resource(tools, str(params.uri))

    return Server("cognivault", version=__version__, title="CogniVault",
                  instructions="The user's own notes (a Markdown vault). Use search or ask before answering "
                               "from memory, and cite the note paths and headings they return.",
                  on_list_tools=list_tools, on_call_tool=on_call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource)


def _request_id(error: Exception) -> str | int | None:
    """The id of a request that failed validation, when its JSON had one (None: not even JSON)."""
    if isinstance(error, ValidationError):
        for item in error.errors(include_url=False):
            message = item.get("input")
            if isinstance(message, dict) and isinstance(message.get("id"), (str, int)) \
                    and not isinstance(message.get("id"), bool):
                return message["id"]
    return None


async def _answer_malformed(incoming: Any, outgoing: Any, forward: Any) -> None:
    """Pass the client's messages on to the server; answer each line that is not a JSON-RPC message
    (the SDK drops them, leaving the client waiting) with a parse or invalid-request error."""
    async with forward:
        async for item in incoming:
            if not isinstance(item, Exception):
                await forward.send(item)
                continue
            not_json = isinstance(item, ValidationError) and any(
                e["type"] == "json_invalid" for e in item.errors(include_url=False))
            error = types.ErrorData(code=types.PARSE_ERROR, message="parse error: the line is not JSON") if not_json \
                else types.ErrorData(code=types.INVALID_REQUEST, message="invalid request: not a JSON-RPC 2.0 message "
                                                                         "of the Model Context Protocol")
            log.info("answered a malformed message: %s", error.message)
            reply = types.JSONRPCError(jsonrpc="2.0", id=_request_id(item), error=error)
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await outgoing.send(SessionMessage(reply))


class StdinLines:
    """The client's lines on stdin for the SDK's stdio transport, read from the file descriptor by a
    daemon thread. The SDK reads them in a worker thread that a cancel has to wait for, and that the
    interpreter waits for at exit: SIGTERM left the server running until the client sent another line
    or closed stdin. (Not through ``sys.stdin``: a daemon thread holding its lock aborts the exit.)
    A signal ends the lines (:meth:`end`), so the server stops as when stdin closes, cleanly."""

    def __init__(self, fd: int) -> None:
        self._lines: asyncio.Queue[bytes] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def read() -> None:
            pending = bytearray()
            with contextlib.suppress(RuntimeError, OSError):  # the loop closed, stdin went away
                while chunk := os.read(fd, 1 << 16):
                    pending += chunk
                    start = 0
                    while (end := pending.find(b"\n", start)) >= 0:
                        loop.call_soon_threadsafe(self._lines.put_nowait, bytes(pending[start:end + 1]))
                        start = end + 1
                    del pending[:start]
                loop.call_soon_threadsafe(self._lines.put_nowait, bytes(pending))
                loop.call_soon_threadsafe(self._lines.put_nowait, b"")

        threading.Thread(target=read, name="cognivault-mcp-stdin", daemon=True).start()

    def end(self) -> None:
        """End the lines here, as stdin's end would (a signal to stop)."""
        self._lines.put_nowait(b"")

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.get()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


async def keep_index_current(live: LiveVault, opening: asyncio.Future[Engine]) -> None:
    """Follow the process that writes the index until it has gone; then (or at once, when none does)
    write it here: follow the files on disk and bring the index up to date."""
    try:
        engine = await asyncio.shield(opening)  # cancelling this task must not cancel the opening (nor lose the engine)
    except Exception as exc:  # noqa: BLE001 - every tool call reports it
        log.error("cannot open the vault's index: %s", exc)
        return
    live.attach(engine)
    if not engine.store.writable and not await live.follow_other_writer():
        return
    following = live.spawn(live.follow_disk(VaultWatcher(engine.vault, engine.store.folder)))
    try:
        await live.index_vault()
        await following
    finally:
        following.cancel()


async def serve(vault: Path, *, allow_writes: bool = False, keyword_only: bool = False) -> None:
    """Answer MCP on stdin/stdout until the client closes stdin (or SIGTERM / SIGINT come), then leave
    the index consistent and saved, and its writer lock free."""
    live = LiveVault()
    # The engine writes the index unless another process does (then it reads it).
    opening: asyncio.Future[Engine] = asyncio.ensure_future(
        asyncio.to_thread(open_engine_or_keywords, vault, keyword_only=keyword_only))
    tools = VaultTools(live, opening, allow_writes=allow_writes)
    keeping = asyncio.ensure_future(keep_index_current(live, opening))
    lines = StdinLines(sys.stdin.fileno())
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):  # as if the client closed stdin: the same clean stop
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, lines.end)
    server = build_server(tools)
    try:
        async with stdio_server(stdin=cast(Any, lines)) as (incoming, outgoing):
            forward, messages = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as group:
                group.start_soon(_answer_malformed, incoming, outgoing, forward)
                await server.run(messages, outgoing, server.create_initialization_options())
                group.cancel_scope.cancel()
    finally:
        keeping.cancel()
        await tools.aclose()
        await live.stop()
        live.close()
        with contextlib.suppress(Exception):  # a stop while the engine opens: close it once it has
            (await asyncio.wait_for(asyncio.shield(opening), OPENING_WAIT_S)).close()


def serve_stdio(vault: Path, *, allow_writes: bool = False, keyword_only: bool = False) -> int:
    """``cognivault mcp``: serve until the client goes away."""
    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        asyncio.run(serve(vault, allow_writes=allow_writes, keyword_only=keyword_only))
    return 0
