"""The companion's building blocks for route modules: registration, errors, JSON validation, safe paths.

A feature module adds routes with :func:`add_route` (never ``app.router`` directly),
so every route is described in ``/api/openapi.json``, carries its own body cap,
and is covered by the security middlewares and the table tests that walk the
registry. Handlers raise :class:`ApiError` for anything the client did wrong;
the error middleware turns it into ``{"error": {"code", "message"}}``.

Blocking work never runs on the event loop: a handler's short engine work goes
through :func:`run_blocking`, answer-sized work through :func:`run_answer_work`,
long work through :func:`run_in_background` (the lanes of
:mod:`cognivault.companion.workers`), context variables carried over; writes to the
index through the live vault (:func:`live_of`, :mod:`cognivault.live`).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from cognivault.collector import IdleCollector
from cognivault.errors import CogniVaultError
from cognivault.threads import run_on
from cognivault.vault.guard import inside_vault

if TYPE_CHECKING:
    from cognivault.companion.app import CompanionConfig
    from cognivault.companion.workers import Workers
    from cognivault.config import Settings
    from cognivault.engine import Engine
    from cognivault.live import LiveVault

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

DEFAULT_MAX_BODY = 1024 * 1024  # 1 MiB: questions, searches, settings; attachments ask for more per route


# -- application state -------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RouteSpec:
    """What a route is, for the OpenAPI document, the body cap and the auth rules."""

    method: str
    path: str
    summary: str
    tag: str = "core"
    body: dict[str, Any] | None = None  # JSON Schema of the request body (validated by read_json)
    query: Mapping[str, dict[str, Any]] = field(default_factory=dict)  # name -> JSON Schema (+ "required")
    response: dict[str, Any] | None = None  # JSON Schema of a 200 response (informative)
    content_type: str = "application/json"  # of the success response
    page: bool = False  # an HTML page: may be opened once with ?token= (exchanged for a cookie)
    max_body: int = DEFAULT_MAX_BODY
    request_types: tuple[str, ...] = ("application/json",)  # accepted body media types ("audio/*" ok)
    description: str = ""  # longer OpenAPI text: how to call it when the summary is not enough


ROUTES_KEY = web.AppKey("cognivault_routes", dict)  # (METHOD, path) -> RouteSpec
ENGINE_KEY: web.AppKey[Engine] = web.AppKey("cognivault_engine")
SETTINGS_KEY: web.AppKey[Settings] = web.AppKey("cognivault_settings")
CONFIG_KEY: web.AppKey[CompanionConfig] = web.AppKey("cognivault_companion_config")
WORKERS_KEY: web.AppKey[Workers] = web.AppKey("cognivault_workers")
LIVE_KEY: web.AppKey[LiveVault] = web.AppKey("cognivault_live")  # keeps the engine's index current
TASKS_KEY: web.AppKey[set[asyncio.Task[Any]]] = web.AppKey("cognivault_background_tasks")
# Full garbage collections between requests (started by `serve` after its warm-up; idle in tests).
COLLECTOR_KEY: web.AppKey[IdleCollector] = web.AppKey("cognivault_collector")
SERVICES_KEY = web.AppKey("cognivault_services", dict)  # name -> object given to create_app(**services)
ANSWERED_KEY = web.AppKey("cognivault_answered", list)  # what runs after each answer of POST /api/ask


def add_route(app: web.Application, method: str, path: str, handler: Handler, *, summary: str,
              tag: str | None = None, body: dict[str, Any] | None = None,
              query: Mapping[str, dict[str, Any]] | None = None, response: dict[str, Any] | None = None,
              content_type: str = "application/json", page: bool = False,
              max_body: int = DEFAULT_MAX_BODY, request_types: tuple[str, ...] = ("application/json",),
              description: str = "") -> RouteSpec:
    """Register ``handler`` for ``method path`` and describe it (OpenAPI, body cap, page flag).

    ``tag`` defaults to the feature package of the handler (``core`` for the companion's own).
    """
    method = method.upper()
    if tag is None:
        module = getattr(handler, "__module__", "") or ""
        parts = module.split(".")
        tag = "core" if module.startswith("cognivault.companion") or len(parts) < 2 or parts[0] != "cognivault" \
            else parts[1]
    registry: dict[tuple[str, str], RouteSpec] = app[ROUTES_KEY]
    try:
        if method == "GET":
            route = app.router.add_get(path, handler, allow_head=False)
        else:
            route = app.router.add_route(method, path, handler)
    except RuntimeError as exc:  # aiohttp: "method GET is already registered"
        raise ValueError(f"route {method} {path} is registered twice") from exc
    canonical = route.resource.canonical if route.resource is not None else path
    if (method, canonical) in registry:
        raise ValueError(f"route {method} {canonical} is registered twice")
    spec = RouteSpec(method, canonical, summary, tag, body, dict(query or {}), response, content_type, page,
                     max_body, tuple(request_types), description)
    registry[(method, canonical)] = spec
    return spec


def route_spec(request: web.Request) -> RouteSpec | None:
    """The spec of the route ``request`` matched, None for unknown paths or methods."""
    resource = request.match_info.route.resource
    if resource is None:
        return None
    return request.app[ROUTES_KEY].get((request.method, resource.canonical))


def engine_of(request: web.Request) -> Engine:
    return request.app[ENGINE_KEY]


def _app(request_or_app: web.Request | web.Application) -> web.Application:
    return request_or_app.app if isinstance(request_or_app, web.Request) else request_or_app


def service(request_or_app: web.Request | web.Application, name: str, default: Any = None) -> Any:
    """An object passed to ``create_app(..., name=obj)`` (e.g. ``provider``, ``sessions``)."""
    return _app(request_or_app)[SERVICES_KEY].get(name, default)


def set_service(app: web.Application, name: str, value: Any) -> None:
    app[SERVICES_KEY][name] = value


AnswerListener = Callable[[web.Request, dict[str, Any]], Awaitable[None]]


def on_answered(app: web.Application, listener: AnswerListener) -> None:
    """Run ``listener(request, done)`` after every answer ``POST /api/ask`` completes (a feature, such as
    the study hub recording the question, subscribes here; the ask route knows no feature)."""
    app.setdefault(ANSWERED_KEY, []).append(listener)


async def answered(request: web.Request, done: dict[str, Any]) -> None:
    """Tell every listener of :func:`on_answered` about a completed answer (its ``done`` envelope's data)."""
    for listener in request.app.get(ANSWERED_KEY, ()):
        await listener(request, done)


def workers_of(request_or_app: web.Request | web.Application) -> Workers:
    return _app(request_or_app)[WORKERS_KEY]


def live_of(request_or_app: web.Request | web.Application) -> LiveVault:
    """The live vault that writes the index (passes, updates) on its one writer thread."""
    return _app(request_or_app)[LIVE_KEY]


async def run_blocking(request_or_app: web.Request | web.Application, function: Callable[..., T],
                       *args: Any, **kwargs: Any) -> T:
    """A request handler's short blocking work (a search, a status): the requests lane."""
    workers = workers_of(request_or_app)
    with _app(request_or_app)[COLLECTOR_KEY].busy(), workers.gate.request():
        return await run_on(workers.requests, function, *args, **kwargs)


async def run_answer_work(request_or_app: web.Request | web.Application, function: Callable[..., T],
                          *args: Any, **kwargs: Any) -> T:
    """Answer-sized work (composing an answer, gathering sources): the answers lane, after requests."""
    with _app(request_or_app)[COLLECTOR_KEY].busy():
        return await run_on(workers_of(request_or_app).answers, function, *args, **kwargs)


async def run_in_background(request_or_app: web.Request | web.Application, function: Callable[..., T],
                            *args: Any, **kwargs: Any) -> T:
    """Long work (an index pass, a URL import, a transcription): the background lane."""
    return await run_on(workers_of(request_or_app).background, function, *args, **kwargs)


def spawn(app: web.Application, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
    """A background task the app waits for (or cancels) on shutdown."""
    task = asyncio.ensure_future(coroutine)
    tasks: set[asyncio.Task[Any]] = app[TASKS_KEY]
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    return task


# -- errors ------------------------------------------------------------------
class ApiError(CogniVaultError):
    """A request the companion refuses: HTTP status, a stable machine code, a message for people."""

    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message, code, status, dict(headers or {}))


def error_response(status: int, code: str, message: str, headers: Mapping[str, str] | None = None
                   ) -> web.Response:
    body = json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False)
    return web.Response(status=status, text=body, content_type="application/json", headers=headers)


def bad_request(message: str, code: str = "bad_request") -> ApiError:
    return ApiError(400, code, message)


# -- JSON bodies -------------------------------------------------------------
async def read_body(request: web.Request, cap: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``cap`` (also for chunked uploads)."""
    length = request.content_length
    if length is not None and length > cap:
        raise ApiError(413, "body_too_large", f"request body is {length} bytes; the limit is {cap}")
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.readany()
        if not chunk:
            break
        size += len(chunk)
        if size > cap:
            raise ApiError(413, "body_too_large", f"request body is over the limit of {cap} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_upload(request: web.Request) -> bytes:
    """The raw body of a non-JSON route (a recording, a file), its media type checked, capped while read."""
    spec = route_spec(request)
    accepted = spec.request_types if spec else ()
    media = request.content_type
    if not any(media == kind or kind.endswith("/*") and media.startswith(kind[:-1]) for kind in accepted):
        raise ApiError(415, "unsupported_media_type",
                       f"send the body as {' or '.join(accepted)} (got {media or 'no content type'})")
    return await read_body(request, spec.max_body if spec else DEFAULT_MAX_BODY)


MAX_NUMBER_CHARS = 40  # digits of a number in a body: ids, counts and limits need far fewer


def _number(text: str, kind: type) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} characters (the limit is {MAX_NUMBER_CHARS})")
    value = kind(text)
    if kind is float and not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


MAX_JSON_DEPTH = 64  # arrays and objects inside each other: request bodies need a handful


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep."""
    level = [value]
    for _ in range(limit + 1):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return False
    return True


def parse_json_body(raw: bytes) -> Any:
    """The JSON value of a request body, or ApiError 400 ``invalid_json`` with a one-line reason.

    Beyond the JSON grammar it refuses what Python would accept and the engine could not use:
    numbers longer than :data:`MAX_NUMBER_CHARS` characters (a 5,000-digit integer), ``NaN`` and
    ``Infinity``, floats that overflow, nesting deeper than :data:`MAX_JSON_DEPTH`, and strings
    holding an unpaired surrogate escape (``"\\ud800"``), which is no character at all.
    """
    if not raw.strip():
        raise bad_request("the request body is empty; send a JSON object", "invalid_json")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request("the request body is not UTF-8", "invalid_json") from None
    try:
        data = json.loads(text, parse_int=lambda t: _number(t, int), parse_float=lambda t: _number(t, float),
                          parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise bad_request(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                          "invalid_json") from None
    except RecursionError:
        raise bad_request("malformed JSON: nested too deeply", "invalid_json") from None
    except ValueError as exc:
        raise bad_request(f"malformed JSON: {exc}", "invalid_json") from None
    if _depth_over(data, MAX_JSON_DEPTH):  # what is stored later (orjson) takes 254 levels at most
        raise bad_request(f"JSON nested more than {MAX_JSON_DEPTH} levels deep", "invalid_json")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise bad_request("malformed JSON: a string holds an unpaired surrogate escape (\\ud800-\\udfff), "
                          "which is not a character", "invalid_json") from None
    except RecursionError:
        raise bad_request("malformed JSON: nested too deeply", "invalid_json") from None
    return data


async def read_json(request: web.Request, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON object in the body, checked against ``schema`` (defaults filled in)."""
    spec = route_spec(request)
    cap = spec.max_body if spec else DEFAULT_MAX_BODY
    if schema is None and spec is not None:
        schema = spec.body
    media = request.content_type
    if media != "application/json":
        raise ApiError(415, "unsupported_media_type",
                       f"send the body as application/json (got {media or 'no content type'})")
    data = parse_json_body(await read_body(request, cap))
    if schema is not None:
        data = validate(data, schema)
    elif not isinstance(data, dict):
        raise bad_request("the body must be a JSON object", "invalid_request")
    return data


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


def validate(value: Any, schema: Mapping[str, Any], where: str = "body") -> Any:
    """Check ``value`` against a small JSON Schema subset; returns it with object defaults filled in.

    Supported: type (one or a list), properties, required, additionalProperties (bool),
    default, enum, minLength/maxLength, pattern, minimum/maximum, items, minItems/maxItems.
    """
    kinds = schema.get("type")
    if kinds is not None:
        kinds_list = [kinds] if isinstance(kinds, str) else list(kinds)
        ok = any(isinstance(value, _TYPES[k]) and not (k in ("integer", "number") and isinstance(value, bool))
                 for k in kinds_list)
        if not ok:
            raise bad_request(f"{where} must be {' or '.join(kinds_list)}", "invalid_request")
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(json.dumps(c) for c in schema["enum"])
        raise bad_request(f"{where} must be one of {choices}", "invalid_request")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise bad_request(f"{where} must have at least {schema['minLength']} characters", "invalid_request")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise bad_request(f"{where} must have at most {schema['maxLength']} characters", "invalid_request")
        if "pattern" in schema and not re.fullmatch(schema["pattern"], value):
            raise bad_request(f"{where} has an invalid format", "invalid_request")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise bad_request(f"{where} must be at least {schema['minimum']}", "invalid_request")
        if "maximum" in schema and value > schema["maximum"]:
            raise bad_request(f"{where} must be at most {schema['maximum']}", "invalid_request")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise bad_request(f"{where} must have at least {schema['minItems']} items", "invalid_request")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise bad_request(f"{where} must have at most {schema['maxItems']} items", "invalid_request")
        if "items" in schema:
            value = [validate(item, schema["items"], f"{where}[{n}]") for n, item in enumerate(value)]
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties", {})
        value = dict(value)
        for name in schema.get("required", []):
            if name not in value:
                raise bad_request(f"{where}.{name} is required", "invalid_request")
        if schema.get("additionalProperties", True) is False:
            unknown = sorted(set(value) - set(properties))
            if unknown:
                allowed = ", ".join(sorted(properties)) or "none"
                raise bad_request(f"{where}: unknown field {unknown[0]!r} (allowed: {allowed})", "invalid_request")
        for name, sub in properties.items():
            if name in value:
                value[name] = validate(value[name], sub, f"{where}.{name}")
            elif "default" in sub:
                value[name] = sub["default"]
    return value


def query_params(request: web.Request) -> dict[str, Any]:
    """The query string checked against the route's ``query`` spec (ints and booleans converted)."""
    spec = route_spec(request)
    declared = spec.query if spec else {}
    found: dict[str, Any] = {}
    for name in request.query:
        if name not in declared:
            allowed = ", ".join(sorted(declared)) or "none"
            raise bad_request(f"unknown query parameter {name!r} (allowed: {allowed})", "invalid_request")
        values = request.query.getall(name)
        if len(values) > 1:
            raise bad_request(f"query parameter {name!r} is given more than once", "invalid_request")
    for name, schema in declared.items():
        raw = request.query.get(name)
        if raw is None:
            if schema.get("required"):
                raise bad_request(f"query parameter {name!r} is required", "invalid_request")
            if "default" in schema:
                found[name] = schema["default"]
            continue
        kind = schema.get("type", "string")
        value: Any = raw
        if kind == "integer":
            if not re.fullmatch(r"-?\d{1,9}", raw):
                raise bad_request(f"query parameter {name!r} must be an integer", "invalid_request")
            value = int(raw)
        elif kind == "boolean":
            lowered = raw.lower()
            if lowered not in {"true", "false", "1", "0"}:
                raise bad_request(f"query parameter {name!r} must be true or false", "invalid_request")
            value = lowered in {"true", "1"}
        found[name] = validate(value, {k: v for k, v in schema.items() if k != "required"}, f"query.{name}")
    return found


# -- vault paths -------------------------------------------------------------
# A request's vault path goes through the one guard of every path a user or a setting names;
# its VaultPathError is answered as 400 ``bad_path`` by the error middleware.
safe_vault_path = inside_vault
