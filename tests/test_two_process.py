"""Two processes on one vault: the editor's language server and ``cognivault serve``, at once.

Both are the real commands: ``cognivault lsp`` over stdio (pytest-lsp client)
and ``cognivault serve`` on loopback, sharing one index folder. The language
server starts first and becomes the only index writer (``writer.lock`` holds
its pid); the companion opens the index read-only, a third writer is refused
with the holder's pid, and an edit made through the editor reaches the
companion's search within a bounded wait. Then the writer is killed with
SIGKILL: its stale lock must not block the companion, which takes over writing
within a bounded wait and indexes an edit made while nobody wrote. The
symmetric case: ``serve`` writes, the language server reads, ``serve`` is
killed, and the language server takes over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil
import pytest
from lsprotocol import types

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.store import IndexStore
from lsp.harness import TEST_VAULT, plain, start_session, stop_session
from processes import stop_process

NOTE = "Photosynthesis.md"
FOLLOW_WAIT_S = 90.0  # bounds a hang only: the companion re-reads the index every 2 s


def _http(info: dict[str, Any], method: str, path: str, body: object = None) -> Any:
    request = urllib.request.Request(
        info["url"] + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


async def _search_until_found(info: dict[str, Any], word: str) -> tuple[list[dict[str, Any]], float]:
    started = time.monotonic()
    while True:
        answer = await asyncio.to_thread(_http, info, "POST", "/api/search", {"query": word, "mode": "lexical"})
        waited = time.monotonic() - started
        if answer["results"] or waited > FOLLOW_WAIT_S:
            return answer["results"], waited
        await asyncio.sleep(0.2)


def _lock_pid(index_dir: Path) -> str:
    return (index_dir / "writer.lock").read_text("ascii").strip()


def _start_serve(vault: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                             "--keyword-only", "--port", "0"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _stop_serve(serve: subprocess.Popen[str]) -> None:
    if serve.poll() is not None:
        return
    serve.send_signal(signal.SIGCONT)  # a test that failed while it was stopped
    stop_process(serve, 15)


async def _until(check: Any, what: str) -> float:
    """Seconds until the awaitable ``check()`` is true, failing after FOLLOW_WAIT_S."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > FOLLOW_WAIT_S:
            raise AssertionError(f"{what}: not within {FOLLOW_WAIT_S} s")
        await asyncio.sleep(0.2)
    return time.monotonic() - started


async def _kill_writer_while_reader_is_stopped(writer: Any, reader_pid: int, vault: Path) -> None:
    """SIGKILL the writer and write a note while nobody runs: the reader must index it when it takes over.

    The reader is stopped (SIGSTOP) throughout, so its takeover cannot come before the edit.
    """
    os.kill(reader_pid, signal.SIGSTOP)
    try:
        writer.send_signal(signal.SIGKILL)
        if isinstance(writer, subprocess.Popen):
            await asyncio.to_thread(writer.wait, 10)
        else:
            await asyncio.wait_for(writer.wait(), 10)
        assert not psutil.pid_exists(writer.pid)
        (vault / "Fresh.md").write_text("# Fresh\n\nA quorvantic note written after the writer died.\n", "utf-8")
    finally:
        os.kill(reader_pid, signal.SIGCONT)


async def test_language_server_writes_companion_reads_and_takes_over_when_the_writer_is_killed(
        tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    session = await start_session(tmp_path)  # index_dir = tmp_path / "index", keyword-only
    vault = session.vault
    env = {**os.environ, "COGNIVAULT_INDEX_INDEX_DIR": str(index_dir)}
    serve = _start_serve(vault, env)
    lsp_process = session.client._server  # the real `cognivault lsp` child (pygls keeps it here)
    assert lsp_process is not None
    try:
        status = await session.status()
        assert status["indexing"]["phase"] == "ready", status["indexing"]
        writer_pid = _lock_pid(index_dir)
        assert writer_pid == str(lsp_process.pid)
        assert "lsp" in psutil.Process(int(writer_pid)).cmdline()

        info = json.loads(await asyncio.to_thread(serve.stdout.readline))  # type: ignore[union-attr]
        companion = await asyncio.to_thread(_http, info, "GET", "/api/status")
        assert companion["writable"] is False and companion["index_dir"] == str(index_dir)
        assert _lock_pid(index_dir) == writer_pid, "the companion must not take the writer lock"
        assert (await _search_until_found(info, "chlorophyll"))[0], "the companion reads the writer's index"

        third = subprocess.run([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault)],
                               env=env, capture_output=True, text=True, timeout=120)
        assert third.returncode != 0 and f"pid {writer_pid}" in third.stderr, third.stderr

        # An edit through the editor: changed, saved to disk, didSave. The writer indexes it; the reader follows.
        edited = session.text(NOTE) + "\nThe zyxomorph pigment was found in the first edit.\n"
        session.open(NOTE)
        session.replace_all(NOTE, edited, 2)
        (vault / NOTE).write_text(edited, "utf-8")
        session.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri(NOTE))))
        await session.wait_idle()
        in_writer = plain(await session.request("cognivault/search", {"query": "zyxomorph", "mode": "lexical"}))
        assert [r["path"] for r in in_writer["results"]][:1] == [NOTE], "the writer indexed the edit"
        found, waited = await _search_until_found(info, "zyxomorph")
        assert [r["path"] for r in found][:1] == [NOTE], f"not found after {waited:.1f} s"

        # kill -9 the writer: the lock file still names it, yet the companion takes over writing.
        await _kill_writer_while_reader_is_stopped(lsp_process, serve.pid, vault)
        assert _lock_pid(index_dir) == writer_pid, "a killed writer leaves its pid in the lock file"

        async def companion_writes() -> bool:
            status = await asyncio.to_thread(_http, info, "GET", "/api/status")
            return bool(status["writable"] and status["writer_pid"] == str(serve.pid))

        waited = await _until(companion_writes, "the companion did not take over writing")
        print(f"companion became the writer {waited:.1f} s after the writer died")
        assert _lock_pid(index_dir) == str(serve.pid)
        found, waited = await _search_until_found(info, "quorvantic")
        assert [r["path"] for r in found][:1] == ["Fresh.md"], f"not found after {waited:.1f} s"
        third = subprocess.run([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault)],
                               env=env, capture_output=True, text=True, timeout=120)
        assert third.returncode != 0 and f"pid {serve.pid}" in third.stderr, "one writer at a time"
        companion = await asyncio.to_thread(_http, info, "GET", "/api/status")
        assert companion["consistency"]["agree"], companion["consistency"]
        assert any("writes it now" in m for m in companion["messages"]), companion["messages"]
    finally:
        _stop_serve(serve)
        if lsp_process.returncode is None:
            lsp_process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.client.stop(), 60)
    assert serve.returncode == 0, serve.stderr.read()[-3000:]  # type: ignore[union-attr]
    assert _lock_pid(index_dir) == "", "a writer that finished leaves the lock free"


async def test_companion_writes_language_server_reads_and_takes_over_when_the_companion_dies(
        tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    env = {**os.environ, "COGNIVAULT_INDEX_INDEX_DIR": str(index_dir)}
    serve = _start_serve(vault, env)
    session = None
    try:
        info = json.loads(await asyncio.to_thread(serve.stdout.readline))  # type: ignore[union-attr]
        assert (await _search_until_found(info, "chlorophyll"))[0], "the companion indexed the vault"
        assert _lock_pid(index_dir) == str(serve.pid)
        session = await start_session(tmp_path)  # same vault and index folder
        lsp_process = session.client._server
        assert lsp_process is not None
        assert (await session.status())["indexing"]["phase"] == "read-only"

        await _kill_writer_while_reader_is_stopped(serve, lsp_process.pid, vault)
        await session.wait_idle(FOLLOW_WAIT_S)  # "ready": it writes the index now
        assert _lock_pid(index_dir) == str(lsp_process.pid)
        found = plain(await session.request("cognivault/search", {"query": "quorvantic", "mode": "lexical"}))
        assert [r["path"] for r in found["results"]][:1] == ["Fresh.md"], found
    finally:
        _stop_serve(serve)
        if session is not None:
            await stop_session(session)
    assert _lock_pid(index_dir) == "", "the language server released the lock on exit"


def test_a_takeover_that_fails_halfway_stays_read_only_and_frees_the_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process: flock conflicts between two open files, so two engines act as two processes."""
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", str(tmp_path / "index"))
    writer = Engine(vault, load_settings(vault), embedder=None)
    writer.index()
    reader = Engine(vault, load_settings(vault), embedder=None)
    try:
        assert not reader.store.writable
        assert not reader.take_over_writing(), "the writer is alive"
        writer.close()
        (vault / "Fresh.md").write_text("# Fresh\n\nA quorvantic note.\n", "utf-8")

        def disk_full(self: IndexStore, writable: bool) -> None:
            raise OSError(28, "No space left on device")

        with monkeypatch.context() as patch:
            patch.setattr(IndexStore, "_open_catalog", disk_full)
            assert not reader.take_over_writing()
        assert not reader.store.writable and not reader.store.writer.held
        assert reader.search("chlorophyll", mode="lexical").results, "it still reads"
        with Engine(vault, load_settings(vault), embedder=None) as other:
            assert other.store.writable, "the failed takeover left the lock free"

        assert reader.take_over_writing()
        assert reader.store.writer.holder() == str(os.getpid())
        assert reader.status(per_file=False)["writer_pid"] == str(os.getpid())
        assert not reader.take_over_writing(), "already the writer"
        reader.index()
        assert [r.path for r in reader.search("quorvantic", mode="lexical").results][:1] == ["Fresh.md"]
        assert reader.store.consistency()["agree"]
    finally:
        reader.close()
        writer.close()
