"""A small fake Ollama for the chat tests: a real aiohttp server on 127.0.0.1 speaking Ollama's NDJSON.

``/api/tags``, ``/api/show`` (with ``capabilities``) and streaming ``/api/chat``
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
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Reply = Callable[[dict[str, Any]], list[Any]]


def default_reply(body: dict[str, Any]) -> list[Any]:
    if body.get("think"):
        return [{"thinking": "S1 covers it. "}, {"content": "Plan: cite S1."}]
    return [{"content": "Mitochondria store energy as ATP "}, {"content": "[S1]."}]


@dataclass
class FakeOllama:
    models: list[str] = field(default_factory=lambda: ["gemma4:e4b"])
    capabilities: list[str] = field(default_factory=lambda: ["completion", "thinking", "tools"])
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
                                  "model_info": {}, "capabilities": self.capabilities})

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
