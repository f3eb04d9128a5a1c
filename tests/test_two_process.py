"""Two processes on one vault: the editor's language server and ``cognivault serve``, at once.

Both are the real commands: ``cognivault lsp`` over stdio (pytest-lsp client)
and ``cognivault serve`` on loopback, sharing one index folder. The language
server starts first and becomes the only index writer (``writer.lock`` holds
its pid); the companion opens the index read-only, a third writer is refused
with the holder's pid, and an edit made through the editor reaches the
companion's search within a bounded wait. Then the writer is killed with
SIGKILL: its stale lock must not block the next writer (``cognivault index``),
whose changes the companion picks up as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil
from lsp.harness import plain, start_session
from lsprotocol import types

NOTE = "Photosynthesis.md"
FOLLOW_WAIT_S = 15.0  # the companion re-reads the index every 2 s; generous for a loaded machine


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


async def test_language_server_writes_companion_reads_and_a_killed_writer_leaves_no_stale_lock(
        tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    session = await start_session(tmp_path)  # index_dir = tmp_path / "index", keyword-only
    vault = session.vault
    env = {**os.environ, "COGNIVAULT_INDEX_INDEX_DIR": str(index_dir)}
    serve = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                              "--keyword-only", "--port", "0"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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

        # kill -9 the writer: the lock file still names it, yet the next writer gets the lock.
        lsp_process.send_signal(signal.SIGKILL)
        await asyncio.wait_for(lsp_process.wait(), 10)
        assert _lock_pid(index_dir) == writer_pid and not psutil.pid_exists(int(writer_pid))
        (vault / "Fresh.md").write_text("# Fresh\n\nA quorvantic note written after the writer died.\n", "utf-8")
        next_writer = subprocess.run([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault),
                                      "--json"], env=env, capture_output=True, text=True, timeout=120)
        assert next_writer.returncode == 0, next_writer.stderr[-3000:]
        states = {f["path"]: f["state"] for f in json.loads(next_writer.stdout)["files"]}
        assert states["Fresh.md"] == "indexed"
        assert _lock_pid(index_dir) == "", "a writer that finished leaves the lock free"
        found, waited = await _search_until_found(info, "quorvantic")
        assert [r["path"] for r in found][:1] == ["Fresh.md"], f"not found after {waited:.1f} s"
        companion = await asyncio.to_thread(_http, info, "GET", "/api/status")
        assert companion["consistency"]["agree"], companion["consistency"]
    finally:
        serve.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            serve.wait(15)
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        if lsp_process.returncode is None:
            lsp_process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.client.stop(), 10)
    assert serve.returncode == 0, serve.stderr.read()[-3000:]  # type: ignore[union-attr]
