"""Core companion routes: search, related notes, status, audit, URL import, OpenAPI, the landing page."""

from __future__ import annotations

import html
import json
from typing import Any

from aiohttp import web

from cognivault import search_request
from cognivault.companion import api
from cognivault.companion.api import ApiError, add_route, engine_of, read_json, run_blocking
from cognivault.engine import SEARCH_MODES
from cognivault.search_request import MAX_K, MAX_QUERY_CHARS, SearchRequest

_PATHS = {"type": ["array", "string"], "items": {"type": "string", "maxLength": 1024}, "maxItems": 64}
SCOPE_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "additionalProperties": False,
    "description": "Limit to folders, tags (with sub-tags), files, frontmatter properties; "
                   "same kind widens, different kinds narrow.",
    "properties": {
        "folders": _PATHS, "files": _PATHS,
        "tags": {"type": ["array", "string"], "items": {"type": "string", "maxLength": 256}, "maxItems": 64},
        "properties": {"type": "object", "description": "key -> value (null: the key is present)"},
        "study": {"type": "string", "enum": ["only", "exclude"],
                  "description": "only generated study notes, or none of them"},
    },
}
SEARCH_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["query"],
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
        "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 10},
        "mode": {"type": "string", "enum": list(SEARCH_MODES), "default": "hybrid"},
        "scope": SCOPE_SCHEMA,
        "per_note": {"type": "boolean", "default": False},
    },
}
SEARCH_RESULT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"}, "mode": {"type": "string"}, "language": {"type": ["string", "null"]},
        "notes": {"type": "array", "items": {"type": "string"}}, "elapsed_ms": {"type": "number"},
        "results": {"type": "array", "items": {"type": "object", "properties": {
            "chunk_id": {"type": "string"}, "path": {"type": "string"}, "title": {"type": "string"},
            "heading_path": {"type": "array", "items": {"type": "string"}},
            "line_start": {"type": "integer"}, "line_end": {"type": "integer"},
            "locator": {"type": "string"}, "score": {"type": "number"}, "snippet": {"type": "string"},
            "highlights": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}}},
        "indexing": {"type": "object", "description": "while an index pass runs: files read, then passages "
                     "embedded", "properties": {"done": {"type": "integer"}, "total": {"type": "integer"}}},
    },
}
IMPORT_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["url"],
    "properties": {
        "url": {"type": "string", "minLength": 1, "maxLength": 2048},
        "folder": {"type": "string", "maxLength": 512,
                   "description": "vault folder for the new note (default: the url_import.folder setting)"},
    },
}


def parse_scope(request: web.Request, raw: Any) -> Any:
    """A Scope from a JSON request, its folders and files checked as vault paths (``search_request``)."""
    return search_request.parse_scope(engine_of(request).vault, raw or None)


async def search(request: web.Request) -> web.Response:
    body = await read_json(request)
    engine = engine_of(request)
    query = SearchRequest.build(engine.vault, body["query"], k=body["k"], mode=body["mode"],
                                scope=body.get("scope") or None, per_note=body["per_note"])
    response = await run_blocking(request, query.run, engine)  # an EngineError is a 400 bad_request
    return web.json_response(response.to_dict())


async def related(request: web.Request) -> web.Response:
    from cognivault.engine import EngineError

    params = api.query_params(request)
    engine = engine_of(request)
    note = api.safe_vault_path(engine.vault, params["path"])
    try:
        notes = await run_blocking(request, engine.related, note, k=params["k"],
                                   include_linked=params["include_linked"])
    except EngineError as exc:
        raise ApiError(404, "not_found", str(exc)) from None
    answer: dict[str, Any] = {"note": note, "related": [n.to_dict() for n in notes]}
    progress = engine.indexing()
    if progress is not None:
        answer["indexing"] = progress  # results may be missing while the index is being built
    return web.json_response(answer)


async def status(request: web.Request) -> web.Response:
    params = api.query_params(request)
    engine = engine_of(request)
    result = await run_blocking(request, engine.status, per_file=params["per_file"])
    config = request.app[api.CONFIG_KEY]
    result["companion"] = {"pid": config.info.get("pid"), "url": config.info.get("url"),
                           "routes": len(request.app[api.ROUTES_KEY])}
    result["watching"] = config.watching
    return web.json_response(result, dumps=_dumps)


async def audit(request: web.Request) -> web.Response:
    from cognivault.audit import vault_audit

    engine = engine_of(request)
    report = await run_blocking(request, vault_audit, engine, request.app[api.SETTINGS_KEY])
    return web.json_response(report, dumps=_dumps)


async def import_url(request: web.Request) -> web.Response:
    from cognivault import urlimport

    body = await read_json(request)
    engine = engine_of(request)
    settings = request.app[api.SETTINGS_KEY]
    if not urlimport.import_enabled(settings):
        raise ApiError(403, "import_disabled", "URL import is off; it is the one feature that goes to the "
                       f"network. Turn it on with {urlimport.ENABLE_HINT}")
    folder = body.get("folder")
    if folder is not None:
        folder = api.safe_vault_path(engine.vault, folder, "folder", allow_root=True)
    policy = api.service(request, "import_policy") or urlimport.policy_from_settings(settings)
    # ImportRefused (400) and ImportFailed (502) carry their code: the error middleware answers them
    result = await api.run_in_background(request, urlimport.import_url, engine.vault, body["url"], policy,
                                         folder=folder, settings=settings)
    if engine.store.writable:
        api.spawn(request.app, api.live_of(request).index_vault())
    return web.json_response(result.to_dict())


async def reindex(request: web.Request) -> web.Response:
    """Start bringing the index up to date in the background (progress: GET /api/status)."""
    await read_json(request)
    engine = engine_of(request)
    if not engine.store.writable:
        raise ApiError(409, "index_busy", "another CogniVault process writes this index and keeps it up to "
                       "date; nothing to start here")
    api.spawn(request.app, api.live_of(request).index_vault())
    return web.json_response({"started": True})


async def openapi(request: web.Request) -> web.Response:
    from cognivault.companion.openapi import build_openapi

    return web.json_response(build_openapi(request.app), dumps=_dumps)


async def landing_page(request: web.Request) -> web.Response:
    """The dashboard (a 303 to it) when the study hub is installed; else what this server is and its routes."""
    if ("GET", DASHBOARD_PATH) in request.app[api.ROUTES_KEY]:
        return web.Response(status=303, headers={"Location": DASHBOARD_PATH})
    specs = sorted(request.app[api.ROUTES_KEY].values(), key=lambda s: (s.path, s.method))
    rows = "\n".join(f"<tr><td>{html.escape(s.method)}</td><td><code>{html.escape(s.path)}</code></td>"
                     f"<td>{html.escape(s.summary)}</td></tr>" for s in specs)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CogniVault companion</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}}td{{padding:.2rem .6rem}}</style>
</head><body><h1>CogniVault companion</h1>
<p>This local server answers your editor. It listens on this machine only.</p>
<p id="status">Index: loading…</p>
<table>{rows}</table>
<script>
fetch("/api/status?per_file=false", {{credentials: "same-origin"}}).then(r => r.json()).then(s => {{
  const el = document.getElementById("status");
  el.textContent = s.error ? "Index: " + s.error.message
    : `Index: ${{s.files.total}} files, ${{s.stages.lexical.total}} passages`;
}});
</script></body></html>"""
    return web.Response(text=page, content_type="text/html")


DASHBOARD_PATH = "/dashboard"


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)


def setup_routes(app: web.Application) -> None:
    add_route(app, "GET", "/", landing_page, page=True, content_type="text/html",
              summary="The dashboard, or a list of routes without the study hub (open with ?code= or ?token=)")
    add_route(app, "GET", "/api/openapi.json", openapi, summary="This API, described in OpenAPI 3.1")
    add_route(app, "POST", "/api/search", search, summary="Search passages (hybrid, lexical or dense)",
              body=SEARCH_BODY, response=SEARCH_RESULT, max_body=64 * 1024)
    add_route(app, "GET", "/api/related", related, summary="Notes related to a note (meaning, links, tags)",
              query={"path": {"type": "string", "required": True, "minLength": 1, "maxLength": 1024,
                              "description": "vault-relative path or note name"},
                     "k": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                     "include_linked": {"type": "boolean", "default": False}})
    add_route(app, "GET", "/api/status", status, summary="Index progress per stage (and per file); "
              "whether the vault is watched",
              query={"per_file": {"type": "boolean", "default": False}})
    add_route(app, "POST", "/api/reindex", reindex, summary="Start re-indexing the vault in the background",
              body={"type": "object", "properties": {}, "additionalProperties": False})
    add_route(app, "GET", "/api/audit", audit,
              summary="Vault audit: model host, every socket of this process, non-loopback peers")
    add_route(app, "POST", "/api/import-url", import_url, summary="Save a web page as a note (off unless "
              "enabled; refuses private, loopback and link-local targets)", body=IMPORT_BODY, max_body=8 * 1024)
