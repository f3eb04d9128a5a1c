"""Tolerant reading of a model's JSON: object or bare array or fenced JSON, one trailing-comma repair.

Nothing cleverer: a reply that is still not JSON after the one repair pass is
a parse failure the caller reports (or retries, for the workshop outline).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cognivault.errors import CogniVaultError

_FENCE_RE = re.compile(r"```(?:json|JSON)?[ \t]*\n(?P<body>.*?)(?:\n```|$)", re.S)


class JSONParseError(CogniVaultError, ValueError):
    """The model's reply holds no readable JSON."""

    code = "unreadable_model_output"
    status = 502
    exit_code = 1


def _remove_trailing_commas(text: str) -> str:
    """Drop commas directly before ``}`` or ``]`` (outside strings): the one repair pass."""
    out: list[str] = []
    in_string = False
    escaped = False
    index = 0
    while index < len(text):
        char = text[index]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif char == ",":
            look = index + 1
            while look < len(text) and text[look] in " \t\r\n":
                look += 1
            if look < len(text) and text[look] in "}]":
                index += 1
                continue
            out.append(char)
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _candidates(text: str) -> list[str]:
    stripped = text.strip().lstrip("\ufeff")
    found = []
    fence = _FENCE_RE.search(stripped)
    if fence:
        found.append(fence["body"].strip())
    found.append(stripped)
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if starts:
        start = min(starts)
        closing = "}" if stripped[start] == "{" else "]"
        end = stripped.rfind(closing)
        if end > start:
            found.append(stripped[start:end + 1])
    return found


def parse_model_json(text: str) -> Any:
    """The JSON value in a model reply (see the module docstring for what is tolerated)."""
    if not text or not text.strip():
        raise JSONParseError("the model returned nothing")
    candidates = _candidates(text)
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    for candidate in candidates:
        try:
            return json.loads(_remove_trailing_commas(candidate))
        except json.JSONDecodeError:
            continue
    raise JSONParseError("the model's reply is not JSON: " + " ".join(text.split())[:120])


def items_of(value: Any, keys: tuple[str, ...]) -> list[Any]:
    """The list of items in a parsed reply: a bare array, or the first list under one of ``keys``.

    An object with none of the keys but exactly one list value gives that list; a
    lone object that looks like one item gives ``[object]``.
    """
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), list):
                return value[key]
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
        return [value]
    raise JSONParseError("the model's JSON is neither an object nor an array")
