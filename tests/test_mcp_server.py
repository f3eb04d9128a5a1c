"""``cognivault mcp`` driven by the MCP SDK's own client session over stdio, as agents' hosts run it.

The real command in a subprocess on a small indexed vault (keyword search, the offline extractive
answerer): initialize, list the tools, call each one, list and read the notes as resources. Then what
must fail fails as MCP errors while the server keeps answering: a path outside the vault (``..``, an
absolute path, a symlink out of it), an oversized argument, an unknown tool, a line that is not JSON
and a request of the wrong shape. ``ask`` answers as ``cognivault ask --json`` does for the same
question. The index is the live one: with another process writing it, the server only reads (the
lock keeps that process's pid) and finds that process's edits; alone, it writes and follows the disk.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from answer_support import NOTES, make_vault
from cognivault.engine import Engine

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed (scripts/setup.sh --test installs it)")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from cognivault.vault_tools import note_section  # noqa: E402

CARDS_NOTE = "Biology/Cell cards.md"
CARDS = """---
tags: [flashcards/biology]
---
# Cell cards

What do mitochondria make?::ATP
Where does the Calvin cycle run?::In the stroma
"""
QUESTION = "When did the Western Roman Empire end?"
FOLLOW_WAIT_S = 60.0  # bounds a hang only: a reading server looks for the writer's changes every 2 s
READ_ONLY_TOOLS = {"search", "ask", "related", "read_note", "due_cards"}


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    vault, settings = make_vault(tmp_path, {**NOTES, CARDS_NOTE: CARDS})
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", settings.index.index_dir)
    (tmp_path / "secret.md").write_text("# Secret\n\nThe password is hunter2.\n", "utf-8")
    (vault / "Biology" / "Leak.md").symlink_to(tmp_path / "secret.md")
    return vault


@asynccontextmanager
async def mcp_session(vault: Path, *extra: str) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                   args=["-m", "cognivault.cli", "mcp", "--vault", str(vault), "--keyword-only",
                                         *extra])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def data_of(result: Any) -> Any:
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content  # the same, for text-only clients
    return result.structured_content


def error_of(result: Any) -> str:
    assert result.is_error and result.structured_content is None
    text: str = result.content[0].text
    assert "Traceback" not in text
    return text


async def test_every_tool_and_a_resource_through_the_sdk_client(vault: Path) -> None:
    async with mcp_session(vault) as session:
        assert session.server_info is not None and session.server_info.name == "cognivault"
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == READ_ONLY_TOOLS  # generate is not offered to a read-only server
        assert all(tool.annotations.read_only_hint for tool in tools.values())
        assert tools["search"].input_schema["properties"]["k"]["maximum"] == 50

        found = data_of(await session.call_tool("search", {"query": "RuBisCO fixes carbon dioxide", "mode": "lexical",
                                                           "k": 3, "scope": ["folder:Biology"]}))
        assert found["results"][0]["path"] == "Biology/Photosynthesis.md"
        assert found["results"][0]["heading_path"] == ["Photosynthesis", "Calvin cycle"]
        assert all(r["path"].startswith("Biology/") for r in found["results"]) and len(found["results"]) <= 3

        answer = data_of(await session.call_tool("ask", {"question": QUESTION}))
        assert "476" in answer["answer"] and answer["answered"]
        assert answer["citations"][0]["path"] == "History/Roman Empire.md"
        assert answer["citations"][0]["line_start"] >= 1 and answer["citations"][0]["heading"]
        assert answer["confidence"]["label"] in ("high", "medium", "low") and answer["confidence"]["reason"]

        related = data_of(await session.call_tool("related", {"note": "Photosynthesis", "k": 3}))
        assert related["note"] == "Photosynthesis" and related["related"]
        assert all(r["path"] != "Biology/Photosynthesis.md" for r in related["related"])

        section = data_of(await session.call_tool("read_note", {"path": "Biology/Photosynthesis.md",
                                                                "heading": "calvin cycle"}))
        assert section["heading"] == "Calvin cycle" and section["text"].startswith("## Calvin cycle")
        assert "RuBisCO" in section["text"] and "thylakoid" not in section["text"]
        lines = (vault / "Biology/Photosynthesis.md").read_text("utf-8").splitlines()
        assert lines[section["line_start"] - 1] == "## Calvin cycle" and section["line_end"] == len(lines)

        due = data_of(await session.call_tool("due_cards", {"deck": "biology"}))
        assert {card["front"] for card in due["due"]} == {"What do mitochondria make?",
                                                          "Where does the Calvin cycle run?"}
        assert all(card["path"] == CARDS_NOTE and card["is_new"] for card in due["due"])

        refused = error_of(await session.call_tool("generate", {"kind": "flashcards", "note": "Photosynthesis"}))
        assert "--allow-writes" in refused
        assert not (vault / "Study").exists()

        listed = (await session.list_resources()).resources
        uris = {str(resource.uri) for resource in listed}
        assert "cognivault://note/Cooking/Sourdough%20bread.md" in uris and len(listed) == len(NOTES) + 1
        read = await session.read_resource("cognivault://note/Cooking/Sourdough%20bread.md")
        assert read.contents[0].text == (vault / "Cooking/Sourdough bread.md").read_text("utf-8")
        assert read.contents[0].mime_type == "text/markdown"
    assert not list(vault.rglob(".cognivault"))  # a read-only server wrote nothing into the vault


async def test_generate_writes_study_notes_only_when_allowed(vault: Path) -> None:
    async with mcp_session(vault, "--allow-writes") as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == READ_ONLY_TOOLS | {"generate"} and not tools["generate"].annotations.read_only_hint
        made = data_of(await session.call_tool("generate", {"kind": "flashcards",
                                                            "note": "Biology/Photosynthesis.md", "count": 3}))
        written = vault / made["path"]
        assert made["path"].startswith("Study/") and written.is_file() and made["produced"] >= 1
        assert "Photosynthesis" in written.read_text("utf-8")
        outside = error_of(await session.call_tool("generate", {"kind": "quiz", "note": "../secret.md"}))
        assert "inside the vault" in outside
        nothing = error_of(await session.call_tool("generate", {"kind": "mindmap"}))
        assert "note, a scope or a topic" in nothing


async def test_paths_outside_the_vault_and_oversized_arguments_are_mcp_errors(vault: Path, tmp_path: Path) -> None:
    async with mcp_session(vault) as session:
        for path in ("../secret.md", str(tmp_path / "secret.md"), "%2e%2e/secret.md", "~/secret.md",
                     "Biology/Leak.md"):
            message = error_of(await session.call_tool("read_note", {"path": path}))
            assert "hunter2" not in message and str(vault) not in message
        assert "outside the vault" in error_of(await session.call_tool("read_note", {"path": "Biology/Leak.md"}))
        assert "no heading" in error_of(await session.call_tool("read_note", {"path": "Photosynthesis",
                                                                             "heading": "Krebs cycle"}))
        assert "scope.folders" in error_of(await session.call_tool("search", {"query": "x",
                                                                              "scope": ["folder:../.."]}))
        huge = error_of(await session.call_tool("search", {"query": "photosynthesis " * 20_000}))
        assert huge.startswith("invalid arguments: query:") and len(huge) < 500
        assert "k:" in error_of(await session.call_tool("search", {"query": "light", "k": 10_000}))
        assert "think: Extra inputs" in error_of(await session.call_tool("ask", {"question": "Why?", "think": True}))
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("delete_vault", {})
        assert "unknown tool" in unknown.value.error.message
        for uri in ("cognivault://note/..%2Fsecret.md", "cognivault://note/Biology/Leak.md", "file:///etc/passwd",
                    "cognivault://note/Missing.md"):
            with pytest.raises(MCPError) as refused:
                await session.read_resource(uri)
            assert "hunter2" not in refused.value.error.message
        # still answering after every one of them
        assert data_of(await session.call_tool("search", {"query": "sourdough starter", "mode": "lexical"}))["results"]


async def test_malformed_lines_get_json_rpc_errors_and_the_server_keeps_answering(vault: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "mcp", "--vault", str(vault), "--keyword-only",
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    assert process.stdin is not None and process.stdout is not None

    async def send(*lines: str) -> None:
        assert process.stdin is not None
        process.stdin.write("".join(line + "\n" for line in lines).encode())
        await process.stdin.drain()

    async def reply() -> dict[str, Any]:
        assert process.stdout is not None
        return json.loads(await asyncio.wait_for(process.stdout.readline(), 60))  # type: ignore[no-any-return]

    try:
        await send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert (await reply())["id"] == 1
        await send("this is not json {")
        assert await reply() == {"jsonrpc": "2.0", "id": None,
                                 "error": {"code": -32700, "message": "parse error: the line is not JSON"}}
        await send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "read_note"}))
        wrong_shape = await reply()
        assert wrong_shape["id"] == 7 and wrong_shape["error"]["code"] == -32600
        await send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}))
        assert {tool["name"] for tool in (await reply())["result"]["tools"]} == READ_ONLY_TOOLS
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)
    stderr = (await process.stderr.read()).decode() if process.stderr else ""
    assert process.returncode == 0 and "Traceback" not in stderr


async def test_sigterm_stops_the_server_while_the_client_keeps_stdin_open(vault: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cognivault.cli", "mcp", "--vault", str(vault), "--keyword-only",
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    assert process.stdin is not None and process.stdout is not None
    lock = Path(os.environ["COGNIVAULT_INDEX_INDEX_DIR"]) / "writer.lock"
    try:
        process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n").encode())
        await process.stdin.drain()
        assert json.loads(await asyncio.wait_for(process.stdout.readline(), 60))["id"] == 1
        await _until(lambda: asyncio.sleep(0, lock.is_file() and lock.read_text("ascii").strip() == str(process.pid)),
                     "the server to hold the index's writer lock")
        process.terminate()
        assert await asyncio.wait_for(process.wait(), 30) == 0  # bounds a hang only (it was: until stdin closed)
        assert lock.read_text("ascii").strip() == ""  # released: the next process may write
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_ask_answers_as_the_cli_does(vault: Path) -> None:
    async with mcp_session(vault) as session:
        answer = data_of(await session.call_tool("ask", {"question": QUESTION}))
    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "cognivault.cli", "ask", "--vault",
                                                    str(vault), "--keywords-only", "--json", QUESTION],
                                   capture_output=True, text=True, timeout=120, check=True)
    cli = json.loads(done.stdout)
    assert answer["answer"] == cli["answer"]
    keys = ("label", "path", "heading", "heading_path", "line_start", "line_end")
    assert [{k: c[k] for k in keys} for c in answer["citations"]] == [{k: s[k] for k in keys} for s in cli["sources"]]
    assert answer["confidence"] == {"label": cli["confidence_detail"]["label"],
                                    "reason": cli["confidence_detail"]["reason"]}


async def _until(check: Any, what: str) -> None:
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < FOLLOW_WAIT_S, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)


async def test_reads_the_index_another_process_writes_and_finds_its_edits(vault: Path) -> None:
    with Engine(vault, embedder=None) as writer:  # the editor's language server, say
        lock = writer.store.writer.path
        assert writer.store.writable and lock.read_text("ascii").strip() == str(os.getpid())
        async with mcp_session(vault) as session:
            note = vault / "Biology" / "Ribosomes.md"
            note.write_text("# Ribosomes\n\nRibosomes translate messenger RNA into proteins.\n", "utf-8")
            await asyncio.to_thread(writer.update_files, ["Biology/Ribosomes.md"])

            async def found() -> bool:
                result = data_of(await session.call_tool("search", {"query": "ribosomes messenger", "mode": "lexical"}))
                return any(r["path"] == "Biology/Ribosomes.md" for r in result["results"])

            await _until(found, "the writer's edit in the reading server's search")
            assert lock.read_text("ascii").strip() == str(os.getpid())  # no second writer


async def test_alone_it_writes_the_index_and_follows_the_disk(vault: Path) -> None:
    async with mcp_session(vault) as session:
        note = vault / "History" / "Magna Carta.md"
        note.write_text("# Magna Carta\n\nKing John sealed the Magna Carta at Runnymede in 1215.\n", "utf-8")

        async def found() -> bool:
            result = data_of(await session.call_tool("search", {"query": "Runnymede", "mode": "lexical"}))
            return any(r["path"] == "History/Magna Carta.md" for r in result["results"])

        await _until(found, "a note written on disk in the writing server's search")
        lock = Path(os.environ["COGNIVAULT_INDEX_INDEX_DIR"]) / "writer.lock"
        assert lock.read_text("ascii").strip() not in ("", str(os.getpid()))  # the server holds it


def test_without_the_mcp_extra_the_command_says_how_to_install_it(vault: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from cognivault.cli import main

    for name in [name for name in sys.modules if name.partition(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing them fails as it does without the package
    monkeypatch.delitem(sys.modules, "cognivault.mcp_server", raising=False)
    assert main(["mcp", "--vault", str(vault)]) == 2
    assert "pip install 'cognivault[mcp]'" in capsys.readouterr().err


def test_a_note_section_is_read_by_heading_as_links_name_it() -> None:
    text = "# Cells\n\nIntro.\n\n## Cycle\n\nTwo phases.\n\n### Mitosis\n\nSplits.\n\n## Death\n\nApoptosis.\n"
    nested = note_section("Cells.md", text, "Cycle#Mitosis")
    assert (nested.heading, nested.line_start, nested.line_end) == ("Mitosis", 9, 12)
    assert nested.text == "### Mitosis\n\nSplits.\n\n"
    assert note_section("Cells.md", text, "cycle").text.endswith("Splits.\n\n")  # the section holds its sub-sections
    whole = note_section("Cells.md", text)
    assert whole.heading is None and whole.text == text and not whole.truncated
    assert whole.headings == ["Cells", "Cells > Cycle", "Cells > Cycle > Mitosis", "Cells > Death"]
    with pytest.raises(Exception, match="its headings: Cells; Cells > Cycle"):
        note_section("Cells.md", text, "Meiosis")
