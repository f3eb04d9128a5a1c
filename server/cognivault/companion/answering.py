"""The companion's bridge to the answer pipeline: parse the request, pick the provider, hold the sessions.

``create_app(..., provider=..., sessions=...)`` may pass both in (the language
server shares its own); otherwise the first ask resolves the configured chat
provider (``auto``: Ollama on loopback when it answers, else the offline
extractive answerer) and opens the vault's session store. ``ask_stream=``
replaces the whole pipeline (tests, benchmarks).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from cognivault.companion import api


class AskRejected(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass
class AskStream:
    envelopes: AsyncIterator[dict[str, Any]]
    cancel: asyncio.Event


StreamFactory = Callable[[web.Request, dict[str, Any]], Awaitable[AskStream]]
_LOCK = "_provider_lock"
_OWNED = "_owned_provider"


def _module(name: str) -> Any:
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:
        return None
    return importlib.import_module(name)


def pipeline() -> Any:
    """The module with ``stream_answer`` (None until the answer pipeline exists)."""
    for name in ("cognivault.answer.pipeline", "cognivault.answer.stream", "cognivault.answer"):
        module = _module(name)
        if module is not None and hasattr(module, "stream_answer"):
            return module
    return None


def stream_factory(app: web.Application) -> StreamFactory:
    custom = api.service(app, "ask_stream")
    if custom is not None:
        return custom
    return _pipeline_stream if pipeline() is not None else _extractive_stream


def sessions_of(app: web.Application) -> Any:
    sessions = api.service(app, "sessions")
    if sessions is None:
        module = _module("cognivault.answer.sessions")
        if module is None:
            return None
        sessions = module.SessionStore.for_vault(app[api.ENGINE_KEY].vault)
        api.set_service(app, "sessions", sessions)
    return sessions


async def provider_of(app: web.Application) -> Any:
    provider = api.service(app, "provider")
    if provider is not None:
        return provider
    async with api.service(app, _LOCK):
        provider = api.service(app, "provider")
        if provider is None:
            from cognivault.models.chat import resolve_chat_provider

            engine = app[api.ENGINE_KEY]
            provider, _note = await resolve_chat_provider(app[api.SETTINGS_KEY], embedder=engine.embedder)
            api.set_service(app, "provider", provider)
            api.set_service(app, _OWNED, provider)
    return provider


def setup(app: web.Application) -> None:
    """Called by the ask routes' setup: a lock for resolving the provider once, and its cleanup."""
    api.set_service(app, _LOCK, asyncio.Lock())

    async def close_owned_provider(app: web.Application) -> None:
        owned = api.service(app, _OWNED)
        if owned is not None:
            await owned.aclose()

    app.on_cleanup.append(close_owned_provider)


def parse_request(body: dict[str, Any]) -> Any:
    from cognivault.answer.request import AskError, AskRequest

    try:
        return AskRequest.from_json(body)
    except AskError as exc:
        raise AskRejected(exc.status, exc.code, exc.message) from None


async def _pipeline_stream(request: web.Request, body: dict[str, Any]) -> AskStream:
    ask_request = parse_request(body)
    app = request.app
    provider = await provider_of(app)
    sessions = sessions_of(app)
    cancel = asyncio.Event()
    envelopes = pipeline().stream_answer(app[api.ENGINE_KEY], ask_request, provider, sessions, cancel,
                                         executor=api.workers_of(app).answers)
    return AskStream(envelopes, cancel)


async def _extractive_stream(request: web.Request, body: dict[str, Any]) -> AskStream:
    """Before the streaming pipeline exists: the blocking extractive answer as envelopes."""
    from cognivault.answer.extractive import answer_extractively
    from cognivault.companion.routes import parse_scope

    engine = api.engine_of(request)
    scope = parse_scope(request, body.get("scope"))
    cancel = asyncio.Event()

    async def envelopes() -> AsyncIterator[dict[str, Any]]:
        answer = await api.run_answer_work(request, answer_extractively, engine, body["question"], scope=scope)
        label = "medium" if answer.answered else "low"
        yield {"type": "confidence", "data": {"label": label, "reason": "extractive answer"}}
        for citation in answer.citations:
            if citation.label in answer.cited:
                yield {"type": "metadata", "data": citation.to_dict()}
        yield {"type": "text", "data": {"text": answer.text}}
        yield {"type": "done", "data": {"answer": answer.text, "citations": answer.cited}}

    return AskStream(envelopes(), cancel)


async def truncate_session(app: web.Application, session_id: str, turn: int) -> dict[str, Any]:
    sessions = sessions_of(app)
    if sessions is None:
        raise AskRejected(503, "unavailable", "sessions are not available in this build")
    module = _module("cognivault.answer.sessions")
    try:
        session = await sessions.truncate(session_id, turn)
    except module.SessionError as exc:
        raise AskRejected(400, exc.code, exc.message) from None
    return {"session_id": session_id, "turns": len(session.turns)}
