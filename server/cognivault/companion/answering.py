"""The companion's bridge to the answer pipeline: parse the request, pick the provider, hold the sessions.

``create_app(..., provider=..., sessions=...)`` may pass both in (the language
server shares its own); otherwise the first ask resolves the configured chat
provider (``auto``: Ollama on loopback when it answers, else the offline
extractive answerer) and opens the vault's session store. ``ask_stream=``
replaces the whole pipeline (tests, benchmarks).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from cognivault.companion import api


@dataclass
class AskStream:
    envelopes: AsyncGenerator[dict[str, Any], None]
    cancel: asyncio.Event


StreamFactory = Callable[[web.Request, dict[str, Any]], Awaitable[AskStream]]
_LOCK = "_provider_lock"
_OWNED = "_owned_provider"


def stream_factory(app: web.Application) -> StreamFactory:
    custom = api.service(app, "ask_stream")
    return custom if custom is not None else _pipeline_stream


def sessions_of(app: web.Application) -> Any:
    from cognivault.answer.sessions import SessionStore

    sessions = api.service(app, "sessions")
    if sessions is None:
        sessions = SessionStore.for_vault(app[api.ENGINE_KEY].vault)
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


async def _pipeline_stream(request: web.Request, body: dict[str, Any]) -> AskStream:
    from cognivault.answer.pipeline import stream_answer
    from cognivault.answer.request import AskRequest

    ask_request = AskRequest.from_json(body)  # an AskError is answered by the error middleware
    app = request.app
    provider = await provider_of(app)
    sessions = sessions_of(app)
    cancel = asyncio.Event()
    envelopes = stream_answer(app[api.ENGINE_KEY], ask_request, provider, sessions, cancel,
                              executor=api.workers_of(app).answers)
    return AskStream(envelopes, cancel)


async def truncate_session(app: web.Application, session_id: str, turn: int) -> dict[str, Any]:
    session = await sessions_of(app).truncate(session_id, turn)  # a SessionError is a 400 with its code
    return {"session_id": session_id, "turns": len(session.turns)}
