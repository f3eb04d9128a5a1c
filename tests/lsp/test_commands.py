"""`cognivault lsp`: the command line (stdio is used by every other test; here TCP and its guard, and the
transport flags language clients append)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import sys
from pathlib import Path

import pytest
from harness import TEST_VAULT, position_of, server_env, start_session, stop_session
from lsprotocol import types

from cognivault.lsp.commands import _UsageError, parse_tcp


@pytest.mark.parametrize("value, expected", [
    ("127.0.0.1:2087", ("127.0.0.1", 2087)),
    ("localhost:0", ("127.0.0.1", 0)),
    ("[::1]:2087", ("::1", 2087)),
])
def test_loopback_addresses(value: str, expected: tuple[str, int]) -> None:
    assert parse_tcp(value) == expected


@pytest.mark.parametrize("value", ["0.0.0.0:2087", "192.168.1.5:2087", "example.com:80", "127.0.0.1", "1.2.3.4:x"])
def test_refuses_anything_but_loopback(value: str) -> None:
    with pytest.raises(_UsageError):
        parse_tcp(value)


async def test_cli_refuses_public_bind(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "lsp", "--tcp", "0.0.0.0:0", stderr=asyncio.subprocess.PIPE,
        env=server_env(tmp_path / "home"))
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2 and b"loopback only" in err


async def test_tcp_server_on_loopback(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "lsp", "--vault", str(vault), "--tcp", f"127.0.0.1:{port}",
        stderr=asyncio.subprocess.PIPE, env=server_env(tmp_path / "home"))
    try:
        assert process.stderr is not None
        line = await asyncio.wait_for(process.stderr.readline(), 60)
        while b"listening" not in line:
            line = await asyncio.wait_for(process.stderr.readline(), 60)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)

        async def call(msg_id: int, method: str, params: object) -> dict:
            body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
            writer.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            await writer.drain()
            while True:
                length = 0
                while (header := await reader.readline()) not in (b"\r\n", b""):
                    if header.lower().startswith(b"content-length"):
                        length = int(header.split(b":")[1])
                message = json.loads(await reader.readexactly(length))
                if message.get("id") == msg_id and "method" not in message:
                    return message

        answer = await asyncio.wait_for(call(1, "initialize", {
            "processId": None, "rootUri": None, "capabilities": {},
            "initializationOptions": {"embeddings": False, "index": {"index_dir": str(tmp_path / "index")}}}), 60)
        assert answer["result"]["serverInfo"]["name"] == "cognivault"
        status = await asyncio.wait_for(call(2, "cognivault/status", {}), 60)
        assert status["result"]["vault"] == str(vault.resolve())
        await asyncio.wait_for(call(3, "shutdown", None), 60)
        writer.close()
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def test_stdio_flag_as_language_clients_pass_it(tmp_path: Path) -> None:
    """vscode-languageclient runs ``<command> <args> --stdio``: the server answers over stdio."""
    session = await start_session(tmp_path, transport_args=["--stdio"])
    try:
        assert session.result.server_info is not None and session.result.server_info.name == "cognivault"
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("Index.md")),
            position=position_of(session.text("Index.md"), "[[Photosynthesis]]", offset=5)))
        assert hover is not None and "**Photosynthesis**" in hover.contents.value
    finally:
        await stop_session(session)


@pytest.mark.parametrize("flag", ["--socket=6009", "--pipe=/tmp/lsp-pipe-test"])
async def test_other_transports_refused_in_one_line(tmp_path: Path, flag: str) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "lsp", "--vault", str(TEST_VAULT), flag,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=server_env(tmp_path / "home"))
    out, err = await asyncio.wait_for(process.communicate(), 60)
    lines = err.decode().strip().splitlines()
    assert process.returncode == 2 and out == b""
    assert len(lines) == 1 and flag.split("=")[0] in lines[0] and "--stdio" in lines[0], lines
