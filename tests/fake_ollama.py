"""A fake Ollama for the tests: a real aiohttp server on 127.0.0.1 speaking Ollama's HTTP protocol.

Endpoints, with the shapes real Ollama sends (checked against the official
``ollama`` Python client's types):

- ``GET /api/tags``: ``{"models": [{"name", "model", "modified_at", "size", "digest", "details"}]}``,
  names with their tag (``embeddinggemma:latest``).
- ``POST /api/show``: ``model_info`` with ``general.architecture``,
  ``<arch>.context_length`` and ``<arch>.embedding_length``, ``capabilities``
  (``["embedding"]`` for embedding models), ``parameters``; 404 ``model 'x' not found``.
- ``POST /api/embed``: batch ``input`` (string or list), deterministic unit
  vectors (a bag of hashed words, so texts sharing words are similar); 404
  ``model "x" not found, try pulling it first`` for unknown models;
  ``truncate: false`` with an input over the context length is a 400 ``the input
  length exceeds the context length`` (tokens counted as ``len(text) /
  chars_per_token``); ``truncate`` true or absent embeds the cut text.
- ``POST /api/chat``: NDJSON stream (``stream`` absent or true) of
  ``{"model", "created_at", "message": {"role": "assistant", "content", "thinking"?,
  "tool_calls"?}, "done": false}`` lines and a final ``done: true`` line with
  ``done_reason``, ``total_duration``, ``load_duration``, ``prompt_eval_count``,
  ``eval_count`` and their durations; with ``stream: false`` one JSON object with
  the whole message. ``format`` is recorded, never enforced (scripted content is
  sent as is). An error mid-stream is a ``{"error": ...}`` line, as in Ollama.
- ``POST /api/generate``: the same, with ``response`` instead of ``message``.
- ``GET /api/version``, ``GET /api/ps``.

Scripting chat replies: ``fake.script_chat(content=["Hel", "lo"], thinking="hmm",
tool_calls=[...], chunk_delay_s=0.01, error="boom", error_after=1)`` queues one
reply (consumed in order, by /api/chat and /api/generate); when the queue is
empty, ``fake.reply(request_json)`` decides (a list of steps: ``{"thinking": ...}``,
``{"content": ...}``, ``{"tool_calls": [...]}``, ``("sleep", seconds)``,
``("raw", "not json")``, ``("error", "message")``, ``("status", code, "message")``).

Every request is recorded in ``fake.requests`` as its JSON body plus ``_path``
and ``_method`` (``fake.chats()``, ``fake.embeddings()``, ``fake.requests_to(path)``);
every stream the client abandoned is counted in ``fake.disconnects``.
``fake.models`` is the set of pulled model names (``add``/``append``, ``remove``,
``discard``; a name without a tag means ``:latest``).

Use: the ``fake_ollama`` pytest fixture below (a server in a background thread,
fresh per test), ``with fake_ollama_in_thread(...) as fake`` in synchronous code,
or ``await FakeOllama().start()`` / ``await fake.stop()`` inside an event loop.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from aiohttp import web

Reply = Callable[[dict[str, Any]], list[Any]]
CREATED_AT = "2025-01-01T00:00:00Z"


def _tagged(name: str) -> str:
    name = name.strip()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


class ModelSet(set):
    """Pulled model names; compares tag-insensitively for ``:latest`` and also has ``append`` (= ``add``)."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        super().__init__(_tagged(name) for name in names)

    def add(self, name: str) -> None:  # type: ignore[override]
        super().add(_tagged(name))

    append = add

    def remove(self, name: str) -> None:  # type: ignore[override]
        super().remove(_tagged(name))

    def discard(self, name: str) -> None:  # type: ignore[override]
        super().discard(_tagged(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(_tagged(name))


def default_reply(body: dict[str, Any]) -> list[Any]:
    if body.get("think"):
        return [{"thinking": "S1 covers it. "}, {"content": "Plan: cite S1."}]
    return [{"content": "Mitochondria store energy as ATP "}, {"content": "[S1]."}]


def tool_calls(name: str, **arguments: Any) -> dict[str, Any]:
    """A chat step in which the model calls tool ``name`` with ``arguments``."""
    return {"tool_calls": [{"function": {"name": name, "arguments": arguments}}]}


@dataclass
class ScriptedReply:
    """One scripted chat/generate reply (see :meth:`FakeOllama.script_chat`)."""

    steps: list[Any]
    status: int | None = None
    status_message: str = ""
    done_reason: str = "stop"
    eval_count: int | None = None
    prompt_eval_count: int | None = None


@functools.lru_cache(maxsize=65536)
def _word_vector(word: str, dimension: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dimension)


@dataclass
class FakeOllama:
    models: Any = field(default_factory=lambda: ["gemma4:e4b", "embeddinggemma"])
    capabilities: list[str] = field(default_factory=lambda: ["completion", "thinking", "tools"])
    embedding_dimension: int = 32
    context_length: int = 2048
    chars_per_token: float = 3.0  # how the fake counts tokens for the context check
    embed_delay_s: float = 0.0  # per /api/embed request: makes indexing slow enough to interrupt
    tags_delay_s: float = 0.0  # before /api/tags answers: an Ollama on a busy machine
    reply: Reply = default_reply
    requests: list[dict[str, Any]] = field(default_factory=list)
    disconnects: list[float] = field(default_factory=list)
    model_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    url: str = ""
    _runner: web.AppRunner | None = None
    _scripts: deque = field(default_factory=deque)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "models" and not isinstance(value, ModelSet):
            value = ModelSet(value)  # tests may assign a plain list: keep tag-insensitive lookups
        super().__setattr__(name, value)

    # -- lifecycle ------------------------------------------------------------

    async def start(self) -> FakeOllama:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._root)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/version", self._version)
        app.router.add_get("/api/ps", self._ps)
        app.router.add_post("/api/show", self._show)
        app.router.add_post("/api/chat", self._chat)
        app.router.add_post("/api/generate", self._generate)
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
            self._runner = None

    # -- test-side helpers ----------------------------------------------------

    def script_chat(
        self,
        content: str | Iterable[str] = "",
        *,
        thinking: str | Iterable[str] | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        chunk_delay_s: float = 0.0,
        first_delay_s: float = 0.0,
        error: str | None = None,
        error_after: int = 0,
        status: int | None = None,
        done_reason: str = "stop",
        eval_count: int | None = None,
        prompt_eval_count: int | None = None,
        steps: list[Any] | None = None,
    ) -> ScriptedReply:
        """Queue the next chat (or generate) reply.

        ``content``/``thinking``: one string (sent as one chunk) or a list of
        chunks; thinking chunks come first, then content, then ``tool_calls``
        (a list of ``{"function": {"name", "arguments"}}``). ``chunk_delay_s``
        sleeps between chunks, ``first_delay_s`` before the first. ``error``
        sends ``{"error": ...}`` after ``error_after`` chunks and ends the
        stream. ``status`` answers with that HTTP status and ``{"error": error}``
        instead of a reply. ``steps`` replaces all of that with raw steps.
        """
        if steps is None:
            chunks: list[Any] = []
            if thinking:
                chunks += [{"thinking": t} for t in ([thinking] if isinstance(thinking, str) else thinking)]
            if content:
                chunks += [{"content": c} for c in ([content] if isinstance(content, str) else content)]
            if tool_calls:
                chunks.append({"tool_calls": tool_calls})
            steps = []
            if first_delay_s:
                steps.append(("sleep", first_delay_s))
            for index, chunk in enumerate(chunks):
                if error is not None and index == error_after:
                    break
                if index and chunk_delay_s:
                    steps.append(("sleep", chunk_delay_s))
                steps.append(chunk)
            if error is not None and status is None:
                steps.append(("error", error))
        scripted = ScriptedReply(steps=list(steps), status=status, status_message=error or "scripted failure",
                                 done_reason=done_reason, eval_count=eval_count,
                                 prompt_eval_count=prompt_eval_count)
        self._scripts.append(scripted)
        return scripted

    def set_model(self, name: str, **facts: Any) -> None:
        """Pull ``name`` and override its facts: ``context_length``, ``embedding_length``,
        ``capabilities``, ``architecture``, ``chars_per_token``, ``parameters``."""
        self.models.add(name)
        self.model_overrides[_tagged(name)] = facts

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("_path") == path]

    def chats(self) -> list[dict[str, Any]]:
        return self.requests_to("/api/chat")

    def embeddings(self) -> list[dict[str, Any]]:
        return self.requests_to("/api/embed")

    def vector(self, text: str) -> list[float]:
        """The fake model's embedding: a normalized sum of hashed word vectors (same text, same vector)."""
        words = re.findall(r"\w+", text.lower()) or [text]
        total = np.zeros(self.embedding_dimension)
        for word in words:
            total += _word_vector(word, self.embedding_dimension)
        norm = float(np.linalg.norm(total))
        return (total / norm if norm else total).tolist()

    # -- model facts -------------------------------------------------------------

    def _facts(self, model: str) -> dict[str, Any]:
        tagged = _tagged(model)
        embedding = "embed" in tagged.split(":", 1)[0]
        facts = {
            "architecture": "gemma3",
            "context_length": self.context_length,
            "embedding_length": self.embedding_dimension,
            "capabilities": ["embedding"] if embedding else list(self.capabilities),
            "chars_per_token": self.chars_per_token,
            "parameters": "",
        }
        facts.update(self.model_overrides.get(tagged, {}))
        return facts

    def _record(self, request: web.Request, body: dict[str, Any]) -> None:
        self.requests.append({**body, "_path": request.path, "_method": request.method})

    @staticmethod
    async def _body(request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise web.HTTPBadRequest(text=json.dumps({"error": "invalid JSON body"}),
                                     content_type="application/json") from None
        return body if isinstance(body, dict) else {}

    @staticmethod
    def _not_found(model: Any) -> web.Response:
        return web.json_response({"error": f'model "{model}" not found, try pulling it first'}, status=404)

    # -- handlers -------------------------------------------------------------

    async def _root(self, request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.12.0"})

    async def _tags(self, request: web.Request) -> web.Response:
        self.requests.append({"_path": request.path, "_method": request.method})
        if self.tags_delay_s:
            await asyncio.sleep(self.tags_delay_s)
        entries = []
        for name in sorted(self.models):
            facts = self._facts(name)
            entries.append({
                "name": name, "model": name, "modified_at": CREATED_AT, "size": 1_000_000,
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "details": {"parent_model": "", "format": "gguf", "family": facts["architecture"],
                            "families": [facts["architecture"]], "parameter_size": "300M",
                            "quantization_level": "Q8_0"},
            })
        return web.json_response({"models": entries})

    async def _ps(self, request: web.Request) -> web.Response:
        return web.json_response({"models": []})

    async def _show(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._record(request, body)
        model = body.get("model") or body.get("name")
        if model not in self.models:
            return web.json_response({"error": f"model '{model}' not found"}, status=404)
        facts = self._facts(model)
        arch = facts["architecture"]
        return web.json_response({
            "license": "", "modelfile": f"FROM {model}", "parameters": facts["parameters"], "template": "",
            "details": {"parent_model": "", "format": "gguf", "family": arch, "families": [arch],
                        "parameter_size": "300M", "quantization_level": "Q8_0"},
            "model_info": {"general.architecture": arch, f"{arch}.context_length": facts["context_length"],
                           f"{arch}.embedding_length": facts["embedding_length"]},
            "capabilities": facts["capabilities"], "modified_at": CREATED_AT,
        })

    async def _embed(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._record(request, body)
        model = body.get("model")
        if model not in self.models:
            return self._not_found(model)
        facts = self._facts(model)
        if "embedding" not in facts["capabilities"]:
            return web.json_response({"error": f'"{model}" does not support embeddings'}, status=400)
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        if self.embed_delay_s:
            await self._sleep(request, lambda: self.embed_delay_s)  # lowering the delay releases waiting requests
        limit_chars = int(facts["context_length"] * facts["chars_per_token"])
        if any(len(text) > limit_chars for text in texts):
            if body.get("truncate") is False:
                return web.json_response({"error": "the input length exceeds the context length"}, status=400)
            texts = [text[:limit_chars] for text in texts]
        dimension = int(facts["embedding_length"])
        saved, self.embedding_dimension = self.embedding_dimension, dimension
        try:
            vectors = [self.vector(text) for text in texts]
        finally:
            self.embedding_dimension = saved
        return web.json_response({
            "model": model, "embeddings": vectors, "total_duration": 1_000_000, "load_duration": 1000,
            "prompt_eval_count": sum(max(1, int(len(t) / facts["chars_per_token"])) for t in texts),
        })

    def _next_reply(self, body: dict[str, Any]) -> ScriptedReply:
        if self._scripts:
            return self._scripts.popleft()
        steps = self.reply(body)
        for step in steps:
            if isinstance(step, tuple) and step and step[0] == "status":
                return ScriptedReply(steps=[], status=int(step[1]), status_message=str(step[2]))
        return ScriptedReply(steps=list(steps))

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._converse(request, kind="chat")

    async def _generate(self, request: web.Request) -> web.StreamResponse:
        return await self._converse(request, kind="generate")

    def _line(self, model: str, kind: str, step: dict[str, Any], done: bool, think: Any) -> dict[str, Any]:
        thinking = step.get("thinking") if think is not False else None
        if kind == "chat":
            message: dict[str, Any] = {"role": "assistant", "content": step.get("content", "")}
            if thinking is not None:
                message["thinking"] = thinking
            if "tool_calls" in step:
                message["tool_calls"] = [
                    {"id": f"call_{index}", "function": {"index": index, **call.get("function", call)}}
                    for index, call in enumerate(step["tool_calls"])
                ]
            return {"model": model, "created_at": CREATED_AT, "message": message, "done": done}
        line = {"model": model, "created_at": CREATED_AT, "response": step.get("content", ""), "done": done}
        if thinking is not None:
            line["thinking"] = thinking
        return line

    def _final(self, model: str, kind: str, scripted: ScriptedReply, count: int, body: dict[str, Any],
               merged: dict[str, Any]) -> dict[str, Any]:
        prompt_tokens = scripted.prompt_eval_count
        if prompt_tokens is None:
            prompt_tokens = 42
        final = self._line(model, kind, merged, True, body.get("think"))
        final.update({
            "done_reason": scripted.done_reason, "total_duration": 1_000_000 + count * 1000,
            "load_duration": 1000, "prompt_eval_count": prompt_tokens, "prompt_eval_duration": 500,
            "eval_count": scripted.eval_count if scripted.eval_count is not None else count,
            "eval_duration": count * 1000,
        })
        if kind == "generate":
            final["context"] = [1, 2, 3]
        return final

    async def _converse(self, request: web.Request, kind: str) -> web.StreamResponse:
        body = await self._body(request)
        self._record(request, body)
        model = body.get("model")
        if model not in self.models:
            return self._not_found(model)
        if kind == "chat" and "completion" not in self._facts(model)["capabilities"]:
            return web.json_response({"error": f'"{model}" does not support chat'}, status=400)
        scripted = self._next_reply(body)
        if scripted.status is not None:
            return web.json_response({"error": scripted.status_message}, status=scripted.status)
        think = body.get("think")
        if body.get("stream") is False:
            return await self._whole(request, model, kind, scripted, body)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        count = 0
        try:
            for step in scripted.steps:
                if isinstance(step, tuple) and step[0] == "sleep":
                    await self._sleep(request, step[1])
                    continue
                if isinstance(step, tuple) and step[0] == "raw":
                    await response.write(step[1].encode() + b"\n")
                    continue
                if isinstance(step, tuple) and step[0] == "error":
                    await response.write(json.dumps({"error": step[1]}).encode() + b"\n")
                    await response.write_eof()
                    return response
                if isinstance(step, tuple):
                    continue
                if "thinking" in step and think is False and len(step) == 1:
                    continue
                count += 1
                line = self._line(model, kind, step, False, think)
                await response.write(json.dumps(line).encode() + b"\n")
            await response.write(json.dumps(self._final(model, kind, scripted, count, body, {})).encode() + b"\n")
            await response.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            self.disconnects.append(time.perf_counter())
            raise
        return response

    async def _whole(self, request: web.Request, model: str, kind: str, scripted: ScriptedReply,
                     body: dict[str, Any]) -> web.Response:
        merged: dict[str, Any] = {"content": ""}
        thinking: list[str] = []
        calls: list[dict[str, Any]] = []
        count = 0
        for step in scripted.steps:
            if isinstance(step, tuple):
                if step[0] == "sleep":
                    await self._sleep(request, step[1])
                elif step[0] == "error":
                    return web.json_response({"error": step[1]}, status=500)
                elif step[0] == "raw":
                    return web.Response(text=step[1], content_type="application/json")
                continue
            count += 1
            merged["content"] += step.get("content", "")
            if "thinking" in step:
                thinking.append(step["thinking"])
            calls += step.get("tool_calls", [])
        if thinking:
            merged["thinking"] = "".join(thinking)
        if calls:
            merged["tool_calls"] = calls
        return web.json_response(self._final(model, kind, scripted, count, body, merged))

    @staticmethod
    async def _sleep(request: web.Request, seconds: float | Callable[[], float]) -> None:
        """Sleep, but notice a client that went away (aiohttp does not cancel handlers by default).
        A callable length is read again as time passes, so a test can end the sleep early."""
        length = seconds if callable(seconds) else lambda: seconds
        started = time.perf_counter()
        while (left := started + length() - time.perf_counter()) > 0:
            transport = request.transport
            if transport is None or transport.is_closing():
                raise ConnectionResetError("client went away")
            await asyncio.sleep(min(0.02, left))


@contextmanager
def fake_ollama_in_thread(**options: Any) -> Iterator[FakeOllama]:
    """Run a FakeOllama on its own event loop in a thread, for synchronous tests and subprocesses."""
    loop = asyncio.new_event_loop()
    fake = FakeOllama(**options)
    ready = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(fake.start())
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            failure.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="fake-ollama", daemon=True)
    thread.start()
    if not ready.wait(10) or failure:
        raise RuntimeError(f"the fake Ollama did not start: {failure}")
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def closed_loopback_url() -> str:
    """``http://127.0.0.1:<port>`` of a port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A fresh fake Ollama on 127.0.0.1 (background thread).

    ``.url``, ``.script_chat()``, ``.requests``, ``.models``.
    """
    with fake_ollama_in_thread() as fake:
        yield fake
