"""The JSON-RPC read loop, hardened: a bad message gets an error reply and the server reads on.

pygls' loop logs a body that is not JSON, or a request whose params do not fit
the method, and sends nothing, so the client waits forever. This loop answers
as JSON-RPC 2.0 says: ``-32700`` parse error (id null), ``-32600`` invalid
request, ``-32602`` invalid params (with the request's id), and survives any
of them. Unknown methods get ``-32601`` from pygls itself.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from typing import Any

from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_CONTENT_LENGTH = re.compile(rb"^Content-Length: *(\d+)\r?\n$", re.IGNORECASE)
# Larger messages are read in pieces and dropped unparsed (answered with an error), so a runaway
# client costs bandwidth, not memory. The largest legitimate message, a note's full text, is far
# smaller: the language server is meant for notes, not data dumps.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
DISCARD_CHUNK = 1024 * 1024
MAX_HEADER_BYTES = 64 * 1024  # the reader's line limit: a header line longer than this is dropped


def send_error(protocol: JsonRPCProtocol, msg_id: Any, code: int, message: str) -> None:
    """Write an error response straight to the client (bypassing pygls' typed responses)."""
    writer = protocol.writer
    if writer is None:
        return
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
    raw = body.encode("utf-8")
    data = f"Content-Length: {len(raw)}\r\n\r\n".encode("ascii") + raw
    result = writer.write(data)
    if hasattr(result, "__await__"):
        asyncio.ensure_future(result)


def handle_body(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Decode one message body and hand it to the protocol, answering anything malformed."""
    try:
        raw = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        log.warning("received a message that is not JSON: %s", exc)
        send_error(protocol, None, PARSE_ERROR, f"parse error: {exc}")
        return
    if isinstance(raw, list):
        if not raw:
            send_error(protocol, None, INVALID_REQUEST, "invalid request: empty batch")
        for item in raw:  # batches are not part of LSP; answer each element on its own
            handle_body(protocol, json.dumps(item).encode("utf-8"))
        return
    if not isinstance(raw, dict):
        send_error(protocol, None, INVALID_REQUEST, "invalid request: expected a JSON object")
        return
    msg_id = raw.get("id")
    valid_id = isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)
    is_response = "method" not in raw and ("result" in raw or "error" in raw)
    is_request = "method" in raw and "id" in raw
    if raw.get("jsonrpc") != "2.0" or ("method" in raw and not isinstance(raw["method"], str)) or (
            "id" in raw and msg_id is not None and not valid_id) or not ("method" in raw or is_response):
        log.warning("invalid JSON-RPC message: %.200s", body)
        if not is_response:
            send_error(protocol, msg_id if valid_id else None, INVALID_REQUEST,
                       "invalid request: expected a JSON-RPC 2.0 object with a string 'method'")
        return
    try:
        message = protocol.structure_message(raw)
    except Exception as exc:  # cattrs could not build the method's params
        log.warning("bad params for %s: %s", raw.get("method"), exc)
        if is_request:
            send_error(protocol, msg_id, INVALID_PARAMS,
                       f"invalid params for {raw.get('method')}: {_reason(exc)}")
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:  # pygls raised outside a handler: answer rather than hang
        log.exception("failed to handle a message")
        if is_request:
            send_error(protocol, msg_id, INTERNAL_ERROR, f"internal error: {exc}")


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    text = str(cause).strip() or type(cause).__name__
    return text.splitlines()[0][:300]


async def run_async(stop_event: threading.Event, reader: Any, protocol: JsonRPCProtocol) -> None:
    """Read ``Content-Length`` framed messages until EOF or ``stop_event``."""
    content_length = 0
    while not stop_event.is_set():
        try:
            header = await reader.readline()
        except ValueError:  # a "line" over MAX_HEADER_BYTES: the reader dropped it
            log.error("header line over %d bytes dropped", MAX_HEADER_BYTES)
            content_length = 0
            continue
        if not header:
            break
        if not content_length:
            match = _CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
                continue
        if header.strip():
            continue  # another header (Content-Type) or garbage between messages
        if not content_length:
            continue
        try:
            if content_length > MAX_MESSAGE_BYTES:
                log.error("message of %d bytes refused", content_length)
                remaining, content_length = content_length, 0
                while remaining:
                    remaining -= len(await reader.readexactly(min(remaining, DISCARD_CHUNK)))
                send_error(protocol, None, INVALID_REQUEST,
                           f"message too large (over {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB): not read")
                continue
            body = await reader.readexactly(content_length)
        except asyncio.IncompleteReadError:
            break  # the client went away mid-message
        content_length = 0
        if not body:
            break
        try:
            handle_body(protocol, body)
        except Exception:  # never let one message end the loop
            log.exception("unexpected failure while handling a message")
