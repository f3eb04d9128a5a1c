"""``POST /api/ask`` (an NDJSON stream of answer envelopes) and ``POST /api/sessions/{id}/truncate``.

The answer pipeline (``cognivault.answer``) produces the envelopes; this module
only validates the request, streams each envelope as one JSON line, and cancels
the pipeline when the client goes away (a disconnect sets the cancel event
within ~0.1 s, and the handler task is cancelled by aiohttp as well).
Every stream ends with exactly one ``done`` or ``error`` envelope, even when the
pipeline itself fails unexpectedly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from cognivault.companion import api
from cognivault.companion.api import ApiError, add_route, read_json
from cognivault.companion.routes import SCOPE_SCHEMA, parse_scope

log = logging.getLogger(__name__)

SESSION_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"  # as cognivault.answer.sessions validates it
MAX_ASK_BODY = 28 * 1024 * 1024  # up to 20 MB of attachments, base64-encoded, plus the question
ASK_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["question"],
    "properties": {
        "question": {"type": "string", "minLength": 1, "maxLength": 8000,
                     "description": "1 to 4,000 characters after trimming"},
        "session_id": {"type": ["string", "null"], "pattern": SESSION_ID},
        "scope": SCOPE_SCHEMA,
        "attachments": {"type": "array", "maxItems": 4, "items": {
            "type": "object", "required": ["name", "data"], "additionalProperties": False,
            "properties": {"name": {"type": "string", "maxLength": 255},
                           "data": {"type": "string", "description": "base64"}}}},
        "think": {"type": ["boolean", "null"], "description": "null: when the model can and the question merits it"},
        "tools": {"type": "boolean", "default": True},
        "truncate_to": {"type": ["integer", "null"], "minimum": 0,
                        "description": "edit/regenerate: keep this many earlier turns first"},
        "new_topic": {"type": "boolean", "default": False},
        "use_cache": {"type": "boolean", "default": True},
        "max_sources": {"type": "integer", "minimum": 1, "maximum": 12, "default": 6},
    },
}
TRUNCATE_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["turn"],
    "properties": {"turn": {"type": "integer", "minimum": 0, "maximum": 100000,
                            "description": "keep turns before this one (0 clears the session)"}},
}
ENVELOPE: dict[str, Any] = {
    "type": "object", "required": ["type", "data"],
    "properties": {"type": {"enum": ["thinking", "confidence", "metadata", "text", "memory", "done", "error"]},
                   "data": {}},
    "description": "One JSON object per line; the stream ends with exactly one done or error.",
}
DISCONNECT_POLL_S = 0.1


async def _watch_disconnect(request: web.Request, cancel: asyncio.Event) -> None:
    while not cancel.is_set():
        transport = request.transport
        if transport is None or transport.is_closing():
            cancel.set()
            return
        await asyncio.sleep(DISCONNECT_POLL_S)


async def ask(request: web.Request) -> web.StreamResponse:
    """The answer stream, counted as a request by the idle collector: its end arms the next full
    collection (automatic ones are off once ``serve`` is warm; an editor's chat never polls anything
    else, and each answer left ~110 KB behind)."""
    with request.app[api.COLLECTOR_KEY].busy():
        return await _answer(request)


async def _answer(request: web.Request) -> web.StreamResponse:
    from cognivault.companion import answering

    body = await read_json(request)
    question = body["question"].strip()
    if not question:
        raise ApiError(400, "invalid_request", "body.question is empty after trimming")
    body["question"] = question
    parse_scope(request, body.get("scope"))  # vault paths checked before anything streams
    stream_factory = answering.stream_factory(request.app)
    stream = await stream_factory(request, body)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson; charset=utf-8",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    cancel = stream.cancel
    watcher = asyncio.ensure_future(_watch_disconnect(request, cancel))
    finished = False
    try:
        async for envelope in _guarded(stream.envelopes):
            await response.write((json.dumps(envelope, ensure_ascii=False, default=str) + "\n").encode("utf-8"))
            finished = envelope.get("type") in ("done", "error")
            if envelope.get("type") == "done":
                await api.answered(request, envelope["data"])
            if finished or cancel.is_set():
                break
        if not finished and not cancel.is_set():
            await response.write(_line({"type": "error", "data": {
                "code": "internal", "message": "the answer stream ended without a result"}}))
        with contextlib.suppress(ConnectionResetError):
            await response.write_eof()
    except (ConnectionResetError, asyncio.CancelledError):
        cancel.set()
        raise
    finally:
        cancel.set()
        watcher.cancel()
        with contextlib.suppress(Exception):
            await stream.envelopes.aclose()
    return response


def _line(envelope: dict[str, Any]) -> bytes:
    return (json.dumps(envelope, ensure_ascii=False) + "\n").encode("utf-8")


async def _guarded(envelopes: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """The pipeline's envelopes; an unexpected exception becomes one final ``error`` envelope."""
    try:
        async for envelope in envelopes:
            yield envelope
    except (asyncio.CancelledError, GeneratorExit):
        raise
    except Exception:
        log.exception("the answer pipeline failed")
        yield {"type": "error", "data": {"code": "internal", "message": "answering failed; see the server log"}}


async def truncate(request: web.Request) -> web.Response:
    from cognivault.companion import answering

    session_id = request.match_info["session_id"]
    body = await read_json(request)
    result = await answering.truncate_session(request.app, session_id, body["turn"])
    return web.json_response(result)


def setup_routes(app: web.Application) -> None:
    from cognivault.companion import answering

    answering.setup(app)
    add_route(app, "POST", "/api/ask", ask, summary="Ask the vault: an NDJSON stream of answer envelopes",
              body=ASK_BODY, response=ENVELOPE, content_type="application/x-ndjson", max_body=MAX_ASK_BODY)
    add_route(app, "POST", "/api/sessions/{session_id:" + SESSION_ID + "}/truncate", truncate,
              summary="Cut a conversation back to turn N (edit / regenerate)", body=TRUNCATE_BODY,
              max_body=4 * 1024)

