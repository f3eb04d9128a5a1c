"""Malformed JSON-RPC, unknown methods, bad params and failing features: errors, and the server lives on.

A raw stdio client (no pytest-lsp) so that broken bytes can be sent and every reply seen.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
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

    async def reply(self, msg_id: Any, timeout: float = 15) -> dict[str, Any]:
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
    message = await asyncio.wait_for(raw.read(), 10)
    while "method" in message:  # progress or log notifications may come first
        message = await asyncio.wait_for(raw.read(), 10)
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
