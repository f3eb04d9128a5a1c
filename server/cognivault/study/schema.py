"""Frontmatter of generated notes: rendering, reading back, and validation against the JSON Schema.

The schema is ``vault_schema/generated-note.schema.json``, shipped with the
package. The validator here covers the JSON Schema (2020-12) keywords that schema uses: ``type``,
``const``, ``enum``, ``properties``, ``required``, ``additionalProperties``,
``items``, ``minItems``, ``minLength``, ``maxLength``, ``pattern``,
``minimum``, ``format: date-time``, ``$ref`` to ``#/$defs/...``, ``allOf`` and
``if``/``then``. An unknown keyword is an error, so the schema cannot quietly
ask for more than is checked.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from importlib.resources.abc import Traversable
from typing import Any

import yaml

from cognivault.errors import CogniVaultError
from cognivault.shipped import shipped

SCHEMA_FILE = "generated-note.schema.json"
_KNOWN = {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "type", "const", "enum",
          "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength",
          "maxLength", "pattern", "minimum", "maximum", "format", "$ref", "allOf", "if", "then", "default"}
_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
                                       "integer": (int,), "number": (int, float), "null": (type(None),)}


class SchemaError(CogniVaultError, ValueError):
    """A document does not match the schema; the message says where and why."""

    code = "schema_mismatch"
    status = 422


def vault_schema_dir() -> Traversable:
    return shipped("vault_schema")


@lru_cache(maxsize=4)
def load_schema(name: str = SCHEMA_FILE) -> dict[str, Any]:
    path = vault_schema_dir() / name
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError as exc:
        raise SchemaError(f"schema {name} not found in {vault_schema_dir()}") from exc


def _is_type(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[kind])


def validate(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, where: str = "$") -> None:
    """Raise SchemaError when ``value`` does not match ``schema``."""
    root = root if root is not None else schema
    unknown = set(schema) - _KNOWN
    if unknown:
        raise SchemaError(f"schema at {where} uses unsupported keywords {sorted(unknown)}")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise SchemaError(f"unsupported $ref {ref}")
        validate(value, root["$defs"][ref[len("#/$defs/"):]], root, where)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is_type(value, k) for k in kinds):
            raise SchemaError(f"{where}: expected {' or '.join(kinds)}, got {type(value).__name__}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(f"{where}: must be {json.dumps(schema['const'])}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{where}: must be one of {', '.join(json.dumps(e) for e in schema['enum'])}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise SchemaError(f"{where}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise SchemaError(f"{where}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise SchemaError(f"{where}: does not match {schema['pattern']}")
        if schema.get("format") == "date-time":
            try:
                parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise SchemaError(f"{where}: not an ISO 8601 date-time") from None
            if parsed.tzinfo is None or "T" not in value:
                raise SchemaError(f"{where}: a date-time needs a 'T' and a time zone")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaError(f"{where}: less than {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaError(f"{where}: more than {schema['maximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise SchemaError(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise SchemaError(f"{where}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                validate(item, schema["items"], root, f"{where}[{index}]")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                raise SchemaError(f"{where}: missing required property {name!r}")
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                validate(item, properties[name], root, f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                raise SchemaError(f"{where}: unexpected property {name!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                validate(item, schema["additionalProperties"], root, f"{where}.{name}")
    for sub in schema.get("allOf", []):
        validate(value, sub, root, where)
    if "if" in schema:
        try:
            validate(value, schema["if"], root, where)
        except SchemaError:
            pass
        else:
            if "then" in schema:
                validate(value, schema["then"], root, where)


def validate_frontmatter(data: dict[str, Any]) -> None:
    validate(data, load_schema())


def render_frontmatter(data: dict[str, Any]) -> str:
    """``---``-fenced YAML in the given key order (validated first)."""
    validate_frontmatter(data)
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)
    return f"---\n{body}---\n"
