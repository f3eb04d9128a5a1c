"""The companion doing its job: routes over a real loopback server and a real index, NDJSON streams
and cancellation, URL import through the API, companion.json, ``cognivault serve``, and the audit light."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault import urlimport
from cognivault.companion import api
from cognivault.companion.answering import AskStream
from cognivault.companion.app import create_app
from cognivault.companion.runner import CompanionRunning, info_path, start_companion
from cognivault.config import load_settings
from cognivault.engine import Engine

TOKEN = "server-test-token-" + "z" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}
NOTES = {
    "Biology/Cells.md": "---\ntags: [biology]\n---\n# Cells\n\nMitochondria are the powerhouse of the cell. "
                        "They make ATP from sugar and oxygen.\n\n"
                        "## Membranes\n\nThe cell membrane is a lipid bilayer.\n",
    "Biology/Plants.md": "---\ntags: [biology]\n---\n# Plants\n\nChloroplasts run photosynthesis and make sugar "
                         "from light. Plant cells also have mitochondria.\n",
    "Physics/Energy.md": "# Energy\n\nEnergy is conserved in every reaction. See [[Cells]] for ATP.\n",
}


def _make_vault(root: Path) -> tuple[Path, object]:
    vault = root / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")},
                                     "models": {"chat_provider": "extractive"}}, environ={})
    return vault, settings


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("companion-server")
    vault, settings = _make_vault(root)
    engine = Engine(vault, settings, embedder=None)
    engine.index()
    yield engine, settings
    engine.close()


@pytest.fixture
async def client(indexed):
    engine, settings = indexed
    client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[]), host="127.0.0.1"))
    await client.start_server()
    yield client
    await client.close()


# -- routes ------------------------------------------------------------------
async def test_search_with_scope_and_per_note(client):
    async with client.post("/api/search", json={"query": "mitochondria", "mode": "lexical"}, headers=AUTH) as r:
        assert r.status == 200
        data = await r.json()
    paths = [hit["path"] for hit in data["results"]]
    assert paths and set(paths) <= {"Biology/Cells.md", "Biology/Plants.md"}
    assert data["results"][0]["snippet"] and data["results"][0]["line_start"] >= 1
    body = {"query": "mitochondria", "scope": {"files": ["Biology/Plants.md"]}, "per_note": True, "k": 5}
    async with client.post("/api/search", json=body, headers=AUTH) as r:
        assert [hit["path"] for hit in (await r.json())["results"]] == ["Biology/Plants.md"]
    body = {"query": "energy", "scope": {"folders": "Biology", "tags": ["biology"]}}
    async with client.post("/api/search", json=body, headers=AUTH) as r:
        assert all(hit["path"].startswith("Biology/") for hit in (await r.json())["results"])
    async with client.post("/api/search", json={"query": "x", "mode": "dense"}, headers=AUTH) as r:
        assert r.status == 200 and (await r.json())["notes"]  # says why meaning search is unavailable


async def test_related_status_and_unknown_note(client):
    async with client.get("/api/related", params={"path": "Physics/Energy.md", "include_linked": "true"},
                          headers=AUTH) as r:
        assert r.status == 200
        related = (await r.json())["related"]
    assert any(note["path"] == "Biology/Cells.md" for note in related)
    async with client.get("/api/related", params={"path": "Nope.md"}, headers=AUTH) as r:
        assert r.status == 404 and (await r.json())["error"]["code"] == "not_found"
    async with client.get("/api/related", params={"path": "Energy.md", "k": "many"}, headers=AUTH) as r:
        assert r.status == 400
    async with client.get("/api/related", params={"path": "Energy.md", "colour": "red"}, headers=AUTH) as r:
        assert r.status == 400 and "unknown query parameter" in (await r.json())["error"]["message"]
    async with client.get("/api/status", headers=AUTH) as r:
        status = await r.json()
    assert status["files"]["total"] == 3 and "per_file" not in status
    async with client.get("/api/status", params={"per_file": "true"}, headers=AUTH) as r:
        assert len((await r.json())["per_file"]) == 3


async def test_audit_shows_zero_external_peers_after_search_and_ask(client):
    for _ in range(3):
        async with client.post("/api/search", json={"query": "sugar"}, headers=AUTH) as r:
            assert r.status == 200
    async with client.post("/api/ask", json={"question": "What do mitochondria make?"}, headers=AUTH) as r:
        await r.read()
    async with client.get("/api/audit", headers=AUTH) as r:
        report = await r.json()
    assert report["zero_external"] is True
    assert report["non_loopback_peers"] == 0 and report["non_loopback_listeners"] == 0
    local = f"127.0.0.1:{client.port}"
    assert any(s["local"] == local and s["status"] == "LISTEN" for s in report["sockets"])
    assert any(s["peer"] == local for s in report["sockets"])  # the test client's own connection
    assert report["index"]["documents"] == 3 and report["model"]["host_is_loopback"] is True


async def test_concurrent_searches_do_not_mix(client):
    async def one(query: str, path: str) -> None:
        body = {"query": query, "mode": "lexical", "scope": {"files": [path]}}
        async with client.post("/api/search", json=body, headers=AUTH) as r:
            results = (await r.json())["results"]
        assert results and {hit["path"] for hit in results} == {path}

    jobs = [one("mitochondria", "Biology/Cells.md"), one("mitochondria", "Biology/Plants.md"),
            one("energy", "Physics/Energy.md")] * 10
    await asyncio.gather(*jobs)


# -- ask ---------------------------------------------------------------------
async def _envelopes(response: aiohttp.ClientResponse) -> list[dict]:
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    lines = (await response.text()).splitlines()
    return [json.loads(line) for line in lines if line.strip()]


async def test_ask_streams_ndjson_ending_in_one_done(client):
    async with client.post("/api/ask", json={"question": "What do mitochondria make?"}, headers=AUTH) as r:
        assert r.status == 200
        envelopes = await _envelopes(r)
    kinds = [e["type"] for e in envelopes]
    assert all(set(e) == {"type", "data"} for e in envelopes)
    assert kinds.count("done") + kinds.count("error") == 1 and kinds[-1] in ("done", "error")
    assert kinds[-1] == "done" and "confidence" in kinds
    cited_paths = {e["data"]["path"] for e in envelopes if e["type"] == "metadata"}
    assert cited_paths and cited_paths <= set(NOTES)


async def test_ask_request_errors_come_before_the_stream(client):
    for body in ({"question": "x", "attachments": [{"name": "a.exe", "data": "AAAA"}]},
                 {"question": "x", "max_sources": 99}, {"question": "x", "sesion": "typo"}):
        async with client.post("/api/ask", json=body, headers=AUTH) as r:
            assert 400 <= r.status < 500, body
            assert r.headers["Content-Type"].startswith("application/json")
            assert set((await r.json())["error"]) == {"code", "message"}


async def test_a_client_disconnect_cancels_the_answer(indexed):
    engine, settings = indexed
    cancelled = asyncio.Event()
    closed = asyncio.Event()

    async def slow_stream(request, body):  # type: ignore[no-untyped-def]
        cancel = asyncio.Event()

        async def envelopes():  # type: ignore[no-untyped-def]
            try:
                yield {"type": "confidence", "data": {"label": "low", "reason": "test"}}
                for n in range(6000):  # 300 s of tokens: only the cancel ends it within the 60 s bound
                    if cancel.is_set():
                        cancelled.set()
                        return
                    yield {"type": "text", "data": {"text": f"token{n} "}}
                    await asyncio.sleep(0.05)
                yield {"type": "done", "data": {}}
            finally:
                closed.set()

        return AskStream(envelopes(), cancel)

    app = create_app(engine, settings, TOKEN, features=[], ask_stream=slow_stream)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        response = await client.post("/api/ask", json={"question": "tell me slowly"}, headers=AUTH)
        first = await response.content.readline()
        assert json.loads(first)["type"] == "confidence"
        response.close()  # the editor closes the panel: the stream is closed
        await asyncio.wait_for(closed.wait(), timeout=60)  # a bound for a hang, not a timing
    finally:
        await client.close()


async def test_an_answer_arms_the_idle_collection(indexed) -> None:
    """Issue 28: /api/ask never told the idle collector it ran, so with automatic full collections off
    (``serve`` after its warm-up) memory grew ~110 KB an answer in an editor chat that polls nothing else."""
    engine, settings = indexed
    busy_during_the_answer = []

    async def stream(request, body):  # type: ignore[no-untyped-def]
        async def envelopes():  # type: ignore[no-untyped-def]
            busy_during_the_answer.append(collector._busy)
            yield {"type": "done", "data": {}}

        return AskStream(envelopes(), asyncio.Event())

    client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[], ask_stream=stream),
                                   host="127.0.0.1"))
    await client.start_server()
    collector = client.app[api.COLLECTOR_KEY]
    touches = []
    collector.touched = lambda: touches.append(True)  # type: ignore[method-assign]
    try:
        async with client.post("/api/ask", json={"question": "what is ATP?"}, headers=AUTH) as response:
            assert response.status == 200 and (await response.text()).strip()
        assert busy_during_the_answer == [1] and touches == [True]
    finally:
        await client.close()


class SlowChat:
    """A chat provider that streams a token every 50 ms and records when its stream is closed."""

    name = "slow-fake"
    model = "slow-fake:1"

    def __init__(self) -> None:
        self.closed = asyncio.Event()
        self.tokens = 0

    async def capabilities(self):  # type: ignore[no-untyped-def]
        from cognivault.models.chat import ChatCapabilities

        return ChatCapabilities()

    async def stream(self, messages, *, think=False, schema=None, tools=None, options=None):  # type: ignore[no-untyped-def]
        from cognivault.models.chat import ChatChunk

        try:
            for _ in range(10_000):  # 500 s of tokens: only a close ends it within a test's 60 s bound
                self.tokens += 1
                yield ChatChunk("text", "mitochondria [S1] ")
                await asyncio.sleep(0.05)
        finally:
            self.closed.set()

    async def aclose(self) -> None:
        pass


async def test_a_disconnect_stops_the_model_call_of_the_real_pipeline(indexed):
    engine, settings = indexed
    provider = SlowChat()
    app = create_app(engine, settings, TOKEN, features=[], provider=provider)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        response = await client.post("/api/ask", json={"question": "What do mitochondria make?", "use_cache": False,
                                                        "tools": False}, headers=AUTH)
        assert response.status == 200
        seen: list[str] = []
        while "text" not in seen:
            seen.append(json.loads(await response.content.readline())["type"])
        response.close()
        await asyncio.wait_for(provider.closed.wait(), timeout=60)  # a bound for a hang, not a timing
        tokens = provider.tokens
        await asyncio.sleep(0.3)
        assert provider.tokens == tokens  # nothing is generated for nobody
    finally:
        await client.close()


async def test_a_failing_pipeline_still_ends_with_one_error(indexed):
    engine, settings = indexed

    async def broken(request, body):  # type: ignore[no-untyped-def]
        async def envelopes():  # type: ignore[no-untyped-def]
            yield {"type": "text", "data": {"text": "partial "}}
            raise RuntimeError("model exploded")

        return AskStream(envelopes(), asyncio.Event())

    async def silent(request, body):  # type: ignore[no-untyped-def]
        async def envelopes():  # type: ignore[no-untyped-def]
            yield {"type": "text", "data": {"text": "no ending"}}

        return AskStream(envelopes(), asyncio.Event())

    for factory in (broken, silent):
        client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[], ask_stream=factory),
                                       host="127.0.0.1"))
        await client.start_server()
        try:
            async with client.post("/api/ask", json={"question": "q"}, headers=AUTH) as r:
                envelopes = await _envelopes(r)
            assert [e["type"] for e in envelopes] == ["text", "error"]
            assert "exploded" not in json.dumps(envelopes)  # internals stay in the log
        finally:
            await client.close()


async def test_session_truncate(client):
    async with client.post("/api/sessions/study-1/truncate", json={"turn": 0}, headers=AUTH) as r:
        assert r.status == 200, await r.text()
        assert (await r.json())["turns"] == 0
    async with client.post("/api/sessions/study-1/truncate", json={"turn": 3}, headers=AUTH) as r:
        assert r.status == 400 and (await r.json())["error"]["code"] == "invalid_turn"
    async with client.post("/api/sessions/study-1/truncate", json={"turn": "3"}, headers=AUTH) as r:
        assert r.status == 400


# -- URL import through the API -------------------------------------------------
async def test_import_url_route(tmp_path: Path, monkeypatch):
    from aiohttp import web

    async def page(request: web.Request) -> web.StreamResponse:
        if request.path == "/to-private":
            raise web.HTTPFound("http://169.254.169.254/latest/meta-data/")
        return web.Response(text="<html><head><title>Cell biology</title></head><body><article><p>Ribosomes "
                                 "build proteins from amino acids in every living cell, reading messenger RNA."
                                 "</p><p>They are found free in the cytoplasm and on the rough endoplasmic "
                                 "reticulum.</p></article></body></html>", content_type="text/html")

    source_app = web.Application()
    source_app.router.add_get("/{tail:.*}", page)
    source = TestServer(source_app, host="127.0.0.1")
    await source.start_server()
    vault, settings = _make_vault(tmp_path)
    engine = Engine(vault, settings, embedder=None)
    policy = urlimport.ImportPolicy(allow_networks=urlimport.allow_networks(["127.0.0.1/32"]), timeout_s=5)
    client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[], import_policy=policy),
                                   host="127.0.0.1"))
    await client.start_server()
    try:
        url = f"http://127.0.0.1:{source.port}/ribosomes"
        async with client.post("/api/import-url", json={"url": url}, headers=AUTH) as r:
            assert r.status == 403 and (await r.json())["error"]["code"] == "import_disabled"
        settings.url_import.enabled = True
        async with client.post("/api/import-url", json={"url": url, "folder": "Web"}, headers=AUTH) as r:
            assert r.status == 200, await r.text()
            result = await r.json()
        assert result["path"] == "Web/Cell biology.md"
        assert "Ribosomes build proteins" in (vault / result["path"]).read_text("utf-8")
        async with client.post("/api/import-url", json={"url": f"http://127.0.0.1:{source.port}/to-private"},
                               headers=AUTH) as r:
            assert r.status == 400 and (await r.json())["error"]["code"] == "import_refused"
        async with client.post("/api/import-url", json={"url": "file:///etc/passwd"}, headers=AUTH) as r:
            assert r.status == 400
        async with client.get("/api/audit", headers=AUTH) as r:
            report = await r.json()
        assert report["url_import"]["enabled"] is True and report["url_import"]["last_url"] == url
        assert report["url_import"]["last_used"]
        for task in list(client.app[api.TASKS_KEY]):  # the re-index started after the import
            await task
    finally:
        await client.close()
        await source.close()
        engine.close()


# -- running it -----------------------------------------------------------------
async def test_companion_json_is_written_0600_and_removed(tmp_path: Path):
    vault, settings = _make_vault(tmp_path)
    with Engine(vault, settings, embedder=None) as engine:
        first = await start_companion(engine, settings)
        path = info_path(vault)
        try:
            assert path.stat().st_mode & 0o777 == 0o600
            info = json.loads(path.read_text("utf-8"))
            assert set(info) == {"url", "token", "pid", "vault"}
            assert info["url"] == f"http://127.0.0.1:{first.port}" and first.port > 0
            assert info["pid"] == os.getpid() and info["vault"] == str(vault.resolve())
            assert len(info["token"]) >= 43  # secrets.token_urlsafe(32)
            async with aiohttp.ClientSession() as session:
                async with session.get(info["url"] + "/api/status",
                                       headers={"Authorization": f"Bearer {info['token']}"}) as r:
                    assert r.status == 200
                async with session.get(info["url"] + "/api/status") as r:
                    assert r.status == 401
            listening = [c for c in __import__("psutil").Process().net_connections("inet")
                         if c.status == "LISTEN" and c.laddr.port == first.port]
            assert [c.laddr.ip for c in listening] == ["127.0.0.1"]
        finally:
            await first.stop()
        assert not path.exists()
        second = await start_companion(engine, settings)
        try:
            assert second.token != first.token
            path.write_text(json.dumps({**second.info(), "token": "someone-else"}), "utf-8")
        finally:
            await second.stop()
        assert path.exists()  # not ours any more: left alone


async def test_a_live_companion_is_not_overwritten(tmp_path: Path):
    vault, settings = _make_vault(tmp_path)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # alive all the test long
    try:
        info_path(vault).parent.mkdir(parents=True, exist_ok=True)
        info_path(vault).write_text(json.dumps({"url": "http://127.0.0.1:1", "token": "t", "pid": other.pid,
                                                "vault": str(vault)}), "utf-8")
        with Engine(vault, settings, embedder=None) as engine:
            with pytest.raises(CompanionRunning, match=str(other.pid)):
                await start_companion(engine, settings)
            forced = await start_companion(engine, settings, force=True)
            await forced.stop()
    finally:
        other.kill()
        other.wait()


def test_cognivault_serve_prints_one_line_and_cleans_up(tmp_path: Path):
    vault, _ = _make_vault(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        info = json.loads(line)
        assert set(info) == {"url", "token", "pid", "vault"} and info["pid"] == process.pid
        assert info["url"].startswith("http://127.0.0.1:")
        path = info_path(vault)
        assert path.stat().st_mode & 0o777 == 0o600
        assert json.loads(path.read_text("utf-8")) == info
        import urllib.request

        deadline = time.monotonic() + 120  # bounds a hang only
        while True:  # the background index finishes quickly on three notes
            request = urllib.request.Request(info["url"] + "/api/search", method="POST",
                                             data=json.dumps({"query": "mitochondria"}).encode(),
                                             headers={"Authorization": f"Bearer {info['token']}",
                                                      "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as response:
                results = json.load(response)["results"]
            if results or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert results
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0  # bounds a hang only
        assert not path.exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_reindex_starts_in_the_background_and_picks_up_new_notes(tmp_path: Path):
    vault, settings = _make_vault(tmp_path)
    engine = Engine(vault, settings, embedder=None)
    client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[]), host="127.0.0.1"))
    await client.start_server()
    try:
        (vault / "Fresh note.md").write_text("# Fresh\n\nA freshly written note about chloroplast "
                                             "thylakoids that the index has not seen yet at all.\n", "utf-8")
        async with client.post("/api/reindex", json={}, headers=AUTH) as response:
            assert response.status == 200 and (await response.json())["started"] is True
        results: list[dict] = []
        async with asyncio.timeout(120):  # bounds a hang only: the pass runs as fast as the machine lets it
            while not results:  # the note's catalog row comes before its keywords are searchable
                await asyncio.sleep(0.1)
                async with client.post("/api/search", json={"query": "freshly written thylakoids",
                                                            "mode": "lexical"}, headers=AUTH) as response:
                    results = (await response.json())["results"]
        assert results[0]["path"] == "Fresh note.md"
    finally:
        await client.close()
        engine.close()
