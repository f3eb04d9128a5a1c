"""A fake Ollama for the tests: a real aiohttp server on 127.0.0.1 speaking Ollama's HTTP protocol.

``/api/tags``, ``/api/show`` (with ``capabilities`` and ``model_info`` carrying
the context length), batch ``/api/embed`` (deterministic unit vectors from a
hash of each text; ``truncate: false`` over the context length is a 400 as in
Ollama), and streaming ``/api/chat``
(``message.thinking``, ``message.content``, ``message.tool_calls``, a final
``done`` line with ``eval_count``/``prompt_eval_count``; a 404 ``model not found``
for unknown models). A test scripts each chat reply with ``reply(request_json)``
returning a list of steps: ``{"thinking": ...}``, ``{"content": ...}``,
``{"tool_calls": [...]}``, ``("sleep", seconds)``, ``("raw", "not json")``,
``("error", "message")``. Every request body is recorded, and every response
the client abandoned is counted in ``disconnects`` (with the time).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import web

Reply = Callable[[dict[str, Any]], list[Any]]


def default_reply(body: dict[str, Any]) -> list[Any]:
    if body.get("think"):
        return [{"thinking": "S1 covers it. "}, {"content": "Plan: cite S1."}]
    return [{"content": "Mitochondria store energy as ATP "}, {"content": "[S1]."}]


@dataclass
class FakeOllama:
    models: list[str] = field(default_factory=lambda: ["gemma4:e4b", "embeddinggemma"])
    capabilities: list[str] = field(default_factory=lambda: ["completion", "thinking", "tools"])
    embedding_dimension: int = 32
    context_length: int = 2048
    embed_delay_s: float = 0.0  # per /api/embed request: makes indexing slow enough to interrupt
    reply: Reply = default_reply
    requests: list[dict[str, Any]] = field(default_factory=list)
    disconnects: list[float] = field(default_factory=list)
    url: str = ""
    _runner: web.AppRunner | None = None

    async def start(self) -> FakeOllama:
        app = web.Application()
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/version", self._version)
        app.router.add_post("/api/show", self._show)
        app.router.add_post("/api/chat", self._chat)
        app.router.add_post("/api/embed", self._embed)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def chats(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("_path") == "/api/chat"]

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.12.0"})

    async def _tags(self, request: web.Request) -> web.Response:
        return web.json_response({"models": [{"name": m, "model": m, "size": 1, "digest": "x",
                                              "modified_at": "2025-01-01T00:00:00Z"} for m in self.models]})

    async def _show(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append({**body, "_path": "/api/show"})
        if body.get("model") not in self.models:
            return web.json_response({"error": f"model '{body.get('model')}' not found"}, status=404)
        return web.json_response({"modelfile": "", "parameters": "", "template": "", "details": {},
                                  "model_info": {"general.architecture": "gemma3",
                                                 "gemma3.context_length": self.context_length},
                                  "capabilities": self.capabilities})

    def embeddings(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("_path") == "/api/embed"]

    def vector(self, text: str) -> list[float]:
        """The fake model's embedding: a unit vector seeded by the text's hash (same text, same vector)."""
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(self.embedding_dimension)
        return (vector / np.linalg.norm(vector)).tolist()

    async def _embed(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append({**body, "_path": "/api/embed"})
        model = body.get("model")
        if model not in self.models:
            return web.json_response({"error": f'model "{model}" not found, try pulling it first'}, status=404)
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else texts
        if self.embed_delay_s:
            await asyncio.sleep(self.embed_delay_s)
        if body.get("truncate") is False and any(len(t) // 3 > self.context_length for t in texts):
            return web.json_response({"error": "the input length exceeds the context length"}, status=400)
        return web.json_response({"model": model, "embeddings": [self.vector(t) for t in texts],
                                  "total_duration": 1000, "prompt_eval_count": sum(len(t) // 4 for t in texts)})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append({**body, "_path": "/api/chat"})
        model = body.get("model")
        if model not in self.models:
            return web.json_response({"error": f'model "{model}" not found, try pulling it first'}, status=404)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        count = 0
        try:
            for step in self.reply(body):
                if isinstance(step, tuple) and step[0] == "sleep":
                    await self._sleep(request, step[1])
                    continue
                if isinstance(step, tuple) and step[0] == "raw":
                    await response.write(step[1].encode() + b"\n")
                    continue
                if isinstance(step, tuple) and step[0] == "error":
                    await response.write(json.dumps({"error": step[1]}).encode() + b"\n")
                    return response
                message = {"role": "assistant", "content": step.get("content", "")}
                if "thinking" in step:
                    message["thinking"] = step["thinking"]
                if "tool_calls" in step:
                    message["tool_calls"] = step["tool_calls"]
                count += 1
                line = {"model": model, "created_at": "2025-01-01T00:00:00Z", "message": message, "done": False}
                await response.write(json.dumps(line).encode() + b"\n")
            final = {"model": model, "created_at": "2025-01-01T00:00:00Z",
                     "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
                     "total_duration": 1000, "prompt_eval_count": 42, "eval_count": count}
            await response.write(json.dumps(final).encode() + b"\n")
            await response.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            self.disconnects.append(time.perf_counter())
            raise
        return response


    @staticmethod
    async def _sleep(request: web.Request, seconds: float) -> None:
        """Sleep, but notice a client that went away (aiohttp does not cancel handlers by default)."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            transport = request.transport
            if transport is None or transport.is_closing():
                raise ConnectionResetError("client went away")
            await asyncio.sleep(min(0.02, max(0.0, deadline - time.perf_counter())))


def tool_calls(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"function": {"name": name, "arguments": arguments}}]}


@contextmanager
def fake_ollama_in_thread(**options: Any) -> Iterator[FakeOllama]:
    """Run a FakeOllama on its own event loop in a thread, for synchronous tests and subprocesses."""
    loop = asyncio.new_event_loop()
    fake = FakeOllama(**options)
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(fake.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="fake-ollama", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the fake Ollama did not start")
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
