"""``/api/openapi.json``: the OpenAPI 3.1 description built from the route registry (never by hand)."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from cognivault import __version__
from cognivault.companion import api

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["error"],
    "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {
        "code": {"type": "string", "examples": ["unauthorized", "bad_host", "bad_origin", "rate_limited",
                                                 "body_too_large", "invalid_json", "invalid_request",
                                                 "bad_path", "not_found"]},
        "message": {"type": "string"}}}},
}
_REFUSALS = {
    "400": "Invalid request (malformed JSON, failed validation, unsafe path)",
    "401": "Missing or wrong token, or a token in the query string of an API route",
    "403": "Host is not loopback with this port, or the Origin is not allowed",
    "413": "Request body over the route's limit",
    "415": "Body is not of the route's media type (application/json unless its requestBody says otherwise)",
    "429": "Rate limited; see Retry-After",
}


def _schema_without_extras(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "required" or isinstance(v, list)}


def build_openapi(app: web.Application) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    error_ref = {"$ref": "#/components/schemas/Error"}
    for spec in sorted(app[api.ROUTES_KEY].values(), key=lambda s: (s.path, s.method)):
        operation: dict[str, Any] = {"summary": spec.summary, "tags": [spec.tag],
                                     "operationId": f"{spec.method.lower()}_" +
                                     re.sub(r"[^A-Za-z0-9]+", "_", spec.path).strip("_")}
        parameters = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                      for name in re.findall(r"\{(\w+)[^}]*\}", spec.path)]
        for name, schema in spec.query.items():
            parameters.append({"name": name, "in": "query", "required": bool(schema.get("required")),
                               "schema": _schema_without_extras(schema)})
        if spec.description:
            operation["description"] = spec.description
        if parameters:
            operation["parameters"] = parameters
        if spec.body is not None:
            operation["requestBody"] = {"required": True,
                                        "content": {kind: {"schema": spec.body} for kind in spec.request_types},
                                        "x-max-bytes": spec.max_body}
        success: dict[str, Any] = {"description": "OK"}
        if spec.content_type == "application/json":
            success["content"] = {"application/json": {"schema": spec.response or {"type": "object"}}}
        else:
            success["content"] = {spec.content_type: {"schema": spec.response or {"type": "string"}}}
        responses: dict[str, Any] = {"200": success}
        if spec.page:
            responses["303"] = {"description": "?token= exchanged for an HttpOnly SameSite=Strict cookie; "
                                               "redirect to the same URL without it"}
        for status, description in _REFUSALS.items():
            responses[status] = {"description": description, "content": {"application/json": {"schema": error_ref}}}
        operation["responses"] = responses
        if spec.page:
            operation["security"] = [{"bearer": []}, {"cookie": []}]
        paths.setdefault(spec.path, {})[spec.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "CogniVault companion", "version": __version__,
                 "description": "Local HTTP API of CogniVault. Listens on 127.0.0.1 only; every route "
                                "and method needs the per-start token from <vault>/.cognivault/companion.json "
                                "as `Authorization: Bearer <token>`."},
        "servers": [{"url": "http://127.0.0.1:{port}", "variables": {"port": {"default": "0"}}}],
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "cognivault_session"},
            },
            "schemas": {"Error": ERROR_SCHEMA},
        },
        "paths": paths,
    }
