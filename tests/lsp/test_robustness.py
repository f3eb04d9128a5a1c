"""Malformed JSON-RPC, unknown methods, bad params and failing features: errors, and the server lives on.

A raw stdio client (no pytest-lsp) so that broken bytes can be sent and every reply seen.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from harness import TEST_VAULT, server_env

# One server for the whole module: surviving every bad message is the point.
pytestmark = pytest.mark.asyncio(loop_scope="module")


class RawClient:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    async def send_bytes(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_bytes(json.dumps(message).encode())

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise EOFError("server closed stdout")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line in (b"\r\n", b"\n") and length:
                return json.loads(await self.process.stdout.readexactly(length))

    async def reply(self, msg_id: Any, timeout: float = 60) -> dict[str, Any]:  # bounds a hang only
        """The response to ``msg_id`` (answering server requests on the way)."""
        async def wait() -> dict[str, Any]:
            while True:
                message = await self.read()
                if "method" in message and "id" in message:  # a request from the server
                    await self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                    continue
                if "method" not in message and message.get("id") == msg_id:
                    return message
        return await asyncio.wait_for(wait(), timeout)

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await self.reply(self.next_id)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def raw(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("raw")
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    # Issue 13: a file name that is not UTF-8 made the first index fail ("phase: failed").
    (vault / os.fsdecode(b"bad\xffname.md")).write_text("# Bad name\n\nFrom a Latin-1 system.\n", "utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "lsp", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=server_env(tmp_path / "home"))
    client = RawClient(process)
    answer = await client.request("initialize", {
        "processId": None, "rootUri": vault.as_uri(), "capabilities": {},
        "initializationOptions": {"embeddings": False, "index": {"index_dir": str(tmp_path / "index")}}})
    assert "capabilities" in answer["result"]
    await client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    client.vault = vault  # type: ignore[attr-defined]
    yield client
    if process.returncode is None:
        try:
            await client.request("shutdown", None)
            await client.send({"jsonrpc": "2.0", "method": "exit"})
            await asyncio.wait_for(process.wait(), 10)
        except Exception:  # noqa: BLE001
            process.kill()
            await process.wait()


async def _alive(client: RawClient) -> None:
    answer = await client.request("cognivault/status", {})
    assert answer["result"]["vault"]


@pytest.mark.parametrize("body, code", [
    (b"{this is not json", -32700),
    (b"[]", -32600),
    (b'"just a string"', -32600),
    (b'{"jsonrpc": "1.0", "id": 7, "method": "cognivault/status"}', -32600),
    (b'{"jsonrpc": "2.0", "id": 8, "method": 42}', -32600),
])
async def test_malformed_messages_get_errors(raw: RawClient, body: bytes, code: int) -> None:
    await raw.send_bytes(body)
    message = await asyncio.wait_for(raw.read(), 60)
    while "method" in message:  # progress or log notifications may come first
        message = await asyncio.wait_for(raw.read(), 60)
    assert message["error"]["code"] == code
    await _alive(raw)


async def test_unknown_method_and_bad_params(raw: RawClient) -> None:
    answer = await raw.request("cognivault/teleport", {})
    assert answer["error"]["code"] == -32601
    answer = await raw.request("textDocument/hover", {"textDocument": 5, "position": "up"})
    assert answer["error"]["code"] == -32602
    answer = await raw.request("cognivault/search", {"query": "light", "k": "many"})
    assert answer["error"]["code"] == -32602 and "k" in answer["error"]["message"]
    await raw.send({"jsonrpc": "2.0", "method": "cognivault/unknownNotification", "params": {}})
    await _alive(raw)


async def test_a_failing_feature_answers_with_an_error(raw: RawClient) -> None:
    uri = (raw.vault / "Index.md").as_uri()  # type: ignore[attr-defined]
    # A position far outside the document and a document that does not exist: answered, never a crash.
    answer = await raw.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                      "position": {"line": 10_000, "character": 99}})
    assert "result" in answer and answer["result"] is None
    answer = await raw.request("textDocument/definition", {"textDocument": {"uri": uri + "x"},
                                                           "position": {"line": 0, "character": 0}})
    assert answer.get("result") in (None, [])
    answer = await raw.request("workspace/executeCommand", {"command": "cognivault.showReferences",
                                                            "arguments": ["not an object"]})
    assert answer["error"]["code"] == -32602
    await _alive(raw)


# -- issue 7: hostile volumes and places -------------------------------------------------------------
async def _ready(client: RawClient) -> None:
    for _ in range(600):
        answer = await client.request("cognivault/status", {})
        if answer["result"]["indexing"]["phase"] == "ready":
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the index never got ready")


async def test_a_file_name_that_is_not_utf8_leaves_the_index_ready(raw: RawClient) -> None:
    await _ready(raw)
    status = (await raw.request("cognivault/status", {}))["result"]
    assert status["indexing"]["phase"] == "ready" and not status["indexing"].get("errors")


async def _idle(client: RawClient) -> None:
    for _ in range(600):
        state = (await client.request("cognivault/status", {}))["result"]["indexing"]
        if state["phase"] == "ready" and state["pendingUpdates"] == 0 and state["writerIdle"]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("edits never reached the index")


async def _hover(client: RawClient, uri: str, line: int, character: int) -> dict[str, Any]:
    return await client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                       "position": {"line": line, "character": character}})


def _memory_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc to read peak memory")
async def test_a_50_mb_message_is_refused_unread_and_the_server_answers_on(raw: RawClient) -> None:
    await _ready(raw)
    pid = raw.process.pid
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current size
    before = _memory_kb(pid, "VmRSS")
    uri = (raw.vault / "Huge.md").as_uri()  # type: ignore[attr-defined]
    head = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": "@"}}}).encode()
    prefix, suffix = head.split(b'"@"')
    size = 50 * 1024 * 1024
    assert raw.process.stdin is not None
    raw.process.stdin.write(f"Content-Length: {size}\r\n\r\n".encode() + prefix + b'"')
    filler = b"word " * (1024 * 1024 // 5)
    remaining = size - len(prefix) - 2 - len(suffix)
    while remaining > 0:
        piece = filler[:remaining]
        raw.process.stdin.write(piece)
        remaining -= len(piece)
        await raw.process.stdin.drain()
    raw.process.stdin.write(b'"' + suffix)
    await raw.process.stdin.drain()
    message = await asyncio.wait_for(raw.read(), 30)
    while "method" in message:
        message = await asyncio.wait_for(raw.read(), 30)
    assert message["error"]["code"] == -32600 and "too large" in message["error"]["message"]
    index = (raw.vault / "Index.md").as_uri()  # type: ignore[attr-defined]
    assert "Photosynthesis" in (await _hover(raw, index, 8, 36))["result"]["contents"]["value"]
    grown_mb = (_memory_kb(pid, "VmHWM") - before) / 1024
    assert grown_mb < 20, f"the server's peak memory grew by {grown_mb:.0f} MB for a message it refused"
    status = (await raw.request("cognivault/status", {}))["result"]
    assert uri not in [f"file://{p}" for p in status["server"]["unsavedDocuments"]]


FLOOD = 2000


async def test_a_burst_of_changes_to_one_document_leaves_it_responsive_and_the_last_text_wins(
        raw: RawClient) -> None:
    await _ready(raw)
    vault: Path = raw.vault  # type: ignore[attr-defined]
    uri = (vault / "Flood.md").as_uri()
    await raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": "# Flood\n\n"}}})
    for version in range(2, FLOOD + 2):  # typing: one character at a time at the end of line 2
        await raw.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": 2, "character": version - 2},
                                          "end": {"line": 2, "character": version - 2}}, "text": "x"}]}})
    final = "# Flood\n\nThe quokkaflood settles; see [[Cells]].\n"
    await raw.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": FLOOD + 2}, "contentChanges": [{"text": final}]}})
    await _alive(raw)  # the burst is through (how fast hovers answer after it: bench/bench_lsp.py)
    for _ in range(20):
        answer = await _hover(raw, uri, 2, 34)
        assert "Cells" in answer["result"]["contents"]["value"]  # the link exists in the last text only
    await _idle(raw)
    found = (await raw.request("cognivault/search", {"query": "quokkaflood", "mode": "lexical"}))["result"]
    assert [r["path"] for r in found["results"]] == ["Flood.md"]
    typed = (await raw.request("cognivault/search", {"query": "x" * 50, "mode": "lexical"}))["result"]
    assert typed["results"] == []  # what was typed before the last change is gone from the index


async def test_a_burst_of_changes_across_documents_ends_with_each_last_text(raw: RawClient) -> None:
    await _ready(raw)
    vault: Path = raw.vault  # type: ignore[attr-defined]
    names = [f"Burst/Note {n}.md" for n in range(10)]
    uris = [(vault / name).as_uri() for name in names]
    for uri in uris:
        await raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": "# Draft\n"}}})
    rounds = FLOOD // len(uris)
    for version in range(2, rounds + 2):
        for number, uri in enumerate(uris):
            last = version == rounds + 1
            word = f"burstword{number}" if last else f"draftword{version}"
            await raw.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": f"# Note {number}\n\nThe {word} is here. [[Cells]]\n"}]}})
    await _alive(raw)
    for uri in uris:
        answer = await _hover(raw, uri, 2, 30)
        assert "Cells" in answer["result"]["contents"]["value"]
    await _idle(raw)
    for number, name in enumerate(names):
        found = (await raw.request("cognivault/search", {"query": f"burstword{number}", "mode": "lexical"}))
        assert [r["path"] for r in found["result"]["results"]] == [name]
    stale = (await raw.request("cognivault/search", {"query": f"draftword{rounds}", "mode": "lexical"}))
    assert stale["result"]["results"] == []


async def test_a_uri_outside_the_vault_is_never_read(raw: RawClient, tmp_path: Path) -> None:
    await _ready(raw)
    vault: Path = raw.vault  # type: ignore[attr-defined]
    secret = tmp_path / "outside.md"
    secret.write_text("# Outside\n\nSee [[Cells]] and [[Photosynthesis]].\n", "utf-8")
    (vault / "Escape.md").symlink_to(secret)
    escaping = [secret.as_uri(), (vault / ".." / tmp_path.name / "outside.md").as_uri(),
                f"{vault.as_uri()}/../{tmp_path.name}/outside.md", (vault / "Escape.md").as_uri()]
    try:
        for uri in escaping:
            hover = await _hover(raw, uri, 2, 8)
            assert "error" in hover or hover["result"] is None, (uri, hover)
            definition = await raw.request("textDocument/definition", {
                "textDocument": {"uri": uri}, "position": {"line": 2, "character": 8}})
            assert "error" in definition or definition["result"] in (None, []), (uri, definition)
            symbols = await raw.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            assert "error" in symbols or symbols["result"] in (None, []), (uri, symbols)
        related = await raw.request("cognivault/related", {"uri": secret.as_uri()})
        assert related["error"]["code"] == -32602
        # The same request inside the vault does answer: the refusals above are about the place.
        inside = await _hover(raw, (vault / "Index.md").as_uri(), 8, 36)
        assert "Photosynthesis" in inside["result"]["contents"]["value"]
    finally:
        (vault / "Escape.md").unlink()


# -- issue 13: framing ----------------------------------------------------------------------------
async def _after_raw_bytes(client: RawClient, data: bytes) -> list[dict[str, Any]]:
    """Send ``data`` as it is, then a well-framed status request: the messages up to its answer
    (the server must answer it: a broken frame costs that frame, never the session)."""
    assert client.process.stdin is not None
    client.process.stdin.write(data)
    await client.process.stdin.drain()
    client.next_id += 1
    await client.send({"jsonrpc": "2.0", "id": client.next_id, "method": "cognivault/status", "params": {}})
    seen: list[dict[str, Any]] = []

    async def until_answered() -> None:
        while True:
            message = await client.read()
            seen.append(message)
            if "method" not in message and message.get("id") == client.next_id:
                return
    await asyncio.wait_for(until_answered(), 30)
    assert seen[-1]["result"]["vault"]
    return seen


STATUS = b'{"jsonrpc": "2.0", "id": 90001, "method": "cognivault/status", "params": {}}'


@pytest.mark.parametrize("frame, code", [
    (b"Content-Length: abc\r\n\r\n" + STATUS, -32700),
    (b"Content-Length: -5\r\n\r\n" + STATUS, -32700),
    (b"Content-Length: " + b"9" * 40 + b"\r\n\r\n" + STATUS, -32700),
    (b"Content-Length: 99999999999\r\n\r\n" + STATUS, -32600),
    (b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + STATUS, -32700),  # no Content-Length
    (STATUS, -32700),  # no header at all
    (b"garbage line\r\n" + b"x" * 100_000 + b"\r\n", -32700),  # bytes between messages
])
async def test_a_broken_frame_is_answered_and_the_server_resynchronises(raw: RawClient, frame: bytes,
                                                                        code: int) -> None:
    seen = await _after_raw_bytes(raw, frame)
    errors = [m for m in seen if "error" in m and m.get("id") is None]
    assert [e["error"]["code"] for e in errors] == [code], seen
    assert not any(m.get("id") == 90001 for m in seen)  # the broken message itself was not run
    await _alive(raw)


async def test_an_edit_refused_as_too_large_tells_the_client_and_drops_the_stale_copy(raw: RawClient) -> None:
    await _ready(raw)
    vault: Path = raw.vault  # type: ignore[attr-defined]
    uri = (vault / "Refused.md").as_uri()
    await raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": "# Refused\n\nThe zebracorn lives here.\n"}}})
    await raw.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": "# Refused\n\nThe zebracorn moved. [[Cells]]\n"}]}})
    status = (await raw.request("cognivault/status", {}))["result"]
    assert "Refused.md" in status["server"]["unsavedDocuments"]
    change = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": "a huge paste"}]}}).encode()
    seen = await _after_raw_bytes(raw, b"Content-Length: 99999999999\r\n\r\n" + change)
    shown = [m["params"] for m in seen if m.get("method") == "window/showMessage"]
    assert shown and shown[0]["type"] == 2 and "Refused.md" in shown[0]["message"], seen  # a warning
    assert "too large" in shown[0]["message"]
    status = seen[-1]["result"]
    assert "Refused.md" not in status["server"]["unsavedDocuments"]  # no silently stale copy kept
    # Requests about the note read the file on disk (none here) rather than the dropped buffer.
    hover = await _hover(raw, uri, 2, 26)
    assert "error" in hover or hover["result"] is None


# -- issue 28: what a pentest found -------------------------------------------------------------------
async def test_a_lone_surrogate_in_params_is_invalid_params(raw: RawClient) -> None:
    """``"\\ud800"`` in a JSON string is no character: cognivault/generate answered -32603 (internal error)."""
    answer = await raw.request("cognivault/generate", {"kind": "flashcards", "topic": "Gr\ud800e",
                                                       "chatProvider": "extractive"})
    assert answer["error"]["code"] == -32602 and "surrogate" in answer["error"]["message"]
    answer = await raw.request("cognivault/search", {"query": "\udfff light"})
    assert answer["error"]["code"] == -32602
    await _alive(raw)


@pytest.mark.parametrize("path", ["/tmp/absolute-note", "%2e%2e/escaped", "~/home-note", "Notes/%2E%2E/%2e%2e/up"])
async def test_create_note_refuses_a_path_that_is_not_a_plain_vault_path(raw: RawClient, path: str) -> None:
    """Issue 28: an absolute path, ``%2e%2e/`` or ``~/`` made odd folders inside the vault (``tmp/``, ``%2e%2e/``)."""
    vault: Path = raw.vault  # type: ignore[attr-defined]
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    answer = await raw.request("workspace/executeCommand", {"command": "cognivault.createNote",
                                                            "arguments": [{"path": path, "content": "# x\n"}]})
    assert answer["error"]["code"] == -32602 and "vault" in answer["error"]["message"]
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before


async def test_a_refused_request_is_logged_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 28: pygls logged every refused request with its full traceback; internal errors keep theirs."""
    from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

    import cognivault.lsp.server  # noqa: F401 - sets up the server's logging

    logger = logging.getLogger("pygls.protocol.json_rpc")
    with caplog.at_level(logging.INFO, logger=logger.name):
        for error in (JsonRpcInvalidParams(message="uri: not a note in the vault"), JsonRpcInternalError("boom")):
            try:
                raise error
            except JsonRpcException:
                logger.exception("Failed to handle request %s %s %s", 7, "cognivault/generate", {})
    refused, internal = caplog.records
    assert refused.getMessage() == "request refused (-32602): uri: not a note in the vault"
    assert refused.exc_info is None and refused.levelno == logging.INFO
    assert internal.exc_info is not None and internal.levelno == logging.ERROR
