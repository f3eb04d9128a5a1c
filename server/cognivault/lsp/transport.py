"""The JSON-RPC read loop, hardened: a bad message gets an error reply and the server reads on.

Framing is checked too: a message without a usable ``Content-Length`` (missing,
not a number, absurdly large) or bytes between messages get a ``-32700`` reply
and the reader resynchronises on the next ``Content-Length`` header, so a
client that sent one broken frame is answered again from its next message.

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
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Larger messages are skipped unparsed (answered with an error), so a runaway client costs
# bandwidth, not memory. The largest legitimate message, a note's full text, is far
# smaller: the language server is meant for notes, not data dumps.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
MAX_HEADER_BYTES = 64 * 1024  # the reader's line limit: a header line longer than this is dropped


_PENDING_WRITES: set[asyncio.Future[Any]] = set()

def send_error(protocol: JsonRPCProtocol, msg_id: Any, code: int, message: str) -> None:
    """Write an error response straight to the client (bypassing pygls' typed responses)."""
    writer = protocol.writer
    if writer is None:
        return
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
    raw = body.encode("utf-8")
    data = f"Content-Length: {len(raw)}\r\n\r\n".encode("ascii") + raw
    result = writer.write(data)
    if result is not None and hasattr(result, "__await__"):
        pending = asyncio.ensure_future(result)
        _PENDING_WRITES.add(pending)  # held until written: the event loop keeps only a weak reference
        pending.add_done_callback(_PENDING_WRITES.discard)


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


_HEADER_NAME = b"content-length:"
_LENGTH_DIGITS = 12  # a Content-Length of more digits than this is refused unread (~1 TB)
SNIFF_BYTES = 4096  # of a refused message: enough to find its method and document


class _Overrun(Exception):
    def __init__(self, chunk: bytes) -> None:
        super().__init__(len(chunk))
        self.chunk = chunk


class FramedReader:
    """The client's byte stream with a push-back buffer, over an asyncio reader or a thread reader."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.pending = b""

    def unread(self, data: bytes) -> None:
        self.pending = data + self.pending

    async def readline(self) -> bytes:
        """One line (with its newline), or b"" at the end of the stream.

        ValueError for :data:`MAX_HEADER_BYTES` without a line break: those bytes are dropped,
        except a ``Content-Length`` header they end with (or the start of one), which is read
        again, so garbage running straight into the next message does not take its header along.
        """
        head = b""
        if self.pending:
            at = self.pending.find(b"\n")
            if at >= 0:
                line, self.pending = self.pending[:at + 1], self.pending[at + 1:]
                return line
            head, self.pending = self.pending, b""
        try:
            return head + await self._line()
        except _Overrun as over:
            chunk = head + over.chunk
            at = chunk.lower().rfind(_HEADER_NAME)
            self.pending = chunk[at:] if at > 0 else b"" if at == 0 else chunk[1 - len(_HEADER_NAME):]
            raise ValueError(f"{len(chunk)} bytes without a line break") from None

    async def _line(self) -> bytes:
        readuntil = getattr(self.reader, "readuntil", None)
        if readuntil is None:  # a thread reader over a blocking stream: no line limit there
            return await self.reader.readline()
        try:
            return await readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            return end.partial
        except asyncio.LimitOverrunError as over:
            raise _Overrun(await self.reader.readexactly(max(1, over.consumed))) from None

    async def readexactly(self, size: int) -> bytes:
        head, self.pending = self.pending[:size], self.pending[size:]
        return head + (await self.reader.readexactly(size - len(head)) if size > len(head) else b"")

    async def read_some(self, size: int) -> bytes:
        """What is there, up to ``size`` bytes, without waiting for more than one read."""
        if self.pending:
            head, self.pending = self.pending[:size], self.pending[size:]
            return head
        return await self.reader.read(size)


def _sniff(head: bytes) -> tuple[str | None, str | None]:
    """The method and the document URI at the start of a message body that will not be read."""
    method = re.search(rb'"method"\s*:\s*"([^"\\]{1,100})"', head)
    uri = re.search(rb'"uri"\s*:\s*"([^"\\]{1,2000})"', head)
    return (method[1].decode("utf-8", "replace") if method else None,
            uri[1].decode("utf-8", "replace") if uri else None)


RefusedHandler = Callable[[str | None, str | None, int], None]


async def run_async(stop_event: threading.Event, reader: Any, protocol: JsonRPCProtocol,
                    on_refused: RefusedHandler | None = None) -> None:
    """Read ``Content-Length`` framed messages until EOF or ``stop_event``, never losing the thread.

    A header block without a usable ``Content-Length`` (none, ``abc``, a number of more than
    :data:`_LENGTH_DIGITS` digits) or bytes outside any frame get a ``-32700`` error reply, and
    the reader skips to the next ``Content-Length`` header: one broken message costs that
    message, not the session. A message over :data:`MAX_MESSAGE_BYTES` gets a ``-32600`` reply
    and is skipped the same way, unread (whatever length it claims); ``on_refused(method, uri,
    size)`` is told, so the server can drop its copy of a document whose edit was refused.
    """
    stream = FramedReader(reader)
    length: int | None = None
    problem: str | None = None  # what is wrong with the header block being read
    skipping = False  # after a refused message: its bytes until the next header are dropped silently
    while not stop_event.is_set():
        try:
            line = await stream.readline()
        except ValueError:  # a "line" over MAX_HEADER_BYTES: the reader dropped it
            if not skipping:
                problem = problem or f"{MAX_HEADER_BYTES} bytes without a line break outside any message"
            continue
        if not line:
            break
        at = line.lower().rfind(_HEADER_NAME)
        if at >= 0:  # a new message starts here (bytes before it on the line belong to no message)
            if (problem or at > 0 or length is not None) and not skipping:
                send_error(protocol, None, PARSE_ERROR,
                           f"parse error: {problem or 'bytes outside any message'}; skipped to the next message")
            skipping, problem = False, None
            value = line[at + len(_HEADER_NAME):].strip()
            if value.isdigit() and value.isascii() and len(value) <= _LENGTH_DIGITS:
                length = int(value)
            else:
                length, problem = None, f"invalid Content-Length {value[:40].decode('ascii', 'replace')!r}"
            continue
        if line.strip():
            if length is None and not skipping:
                problem = problem or "a message without a Content-Length header"
            continue  # another header (Content-Type) of this message
        if skipping:
            continue
        if length is None:
            if problem is not None:  # a header block (or bytes) without a usable length
                send_error(protocol, None, PARSE_ERROR, f"parse error: {problem}; skipped to the next message")
                problem, skipping = None, True
            continue  # else a stray blank line between messages
        size, length = length, None
        try:
            if size > MAX_MESSAGE_BYTES:
                head = await stream.read_some(min(size, SNIFF_BYTES))
                stream.unread(head)
                method, uri = _sniff(head)
                log.error("message of %d bytes (%s) refused", size, method or "unknown method")
                send_error(protocol, None, INVALID_REQUEST,
                           f"message too large ({size} bytes, over {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB): "
                           "not read")
                if on_refused is not None:
                    try:
                        on_refused(method, uri, size)
                    except Exception:  # noqa: BLE001 - the loop reads on
                        log.exception("reacting to a refused message failed")
                skipping = True
                continue
            body = await stream.readexactly(size)
        except asyncio.IncompleteReadError:
            break  # the client went away mid-message
        if not body:
            continue
        try:
            handle_body(protocol, body)
        except Exception:  # never let one message end the loop
            log.exception("unexpected failure while handling a message")


def serve_stdio(server: Any, stdin: Any = None, stdout: Any = None) -> None:
    """Run ``server`` (a :class:`cognivault.lsp.server.CogniVaultServer`) over stdin/stdout until the
    client exits or goes away; then shut it down."""
    from pygls.io_ import StdoutWriter

    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))

    async def main() -> None:
        reader = await _pipe_reader(stdin, server.thread_pool)
        await run_async(server._stop_event, reader, server.protocol, server.refused_message)

    try:
        asyncio.run(main())
    except (BrokenPipeError, ConnectionResetError):
        log.error("the client went away; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def serve_tcp(server: Any, host: str, port: int) -> None:
    """Run ``server`` for one TCP client at a time on ``host:port`` until that client ends."""
    server._stop_event = stop_event = threading.Event()

    async def serve() -> None:
        done = asyncio.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if server.protocol.writer is not None:
                writer.close()  # one client at a time
                return
            server.protocol.set_writer(writer)
            try:
                await run_async(stop_event, reader, server.protocol, server.refused_message)
            finally:
                done.set()

        listening = await asyncio.start_server(connection, host, port)
        addresses = ", ".join(str(sock.getsockname()) for sock in listening.sockets)
        sys.stderr.write(f"cognivault lsp listening on {addresses}\n")
        sys.stderr.flush()
        async with listening:
            await done.wait()

    try:
        asyncio.run(serve())
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


class _ExecutorReader:
    def __init__(self, stream: Any, executor: ThreadPoolExecutor) -> None:
        self.stream = stream
        self.executor = executor

    async def readline(self) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.readline)

    async def readexactly(self, n: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.read, n)

    async def read(self, n: int) -> bytes:
        read = getattr(self.stream, "read1", self.stream.read)
        return await asyncio.get_running_loop().run_in_executor(self.executor, read, n)


async def _pipe_reader(stream: Any, executor: ThreadPoolExecutor) -> Any:
    """An asyncio stream over stdin when it is a pipe or socket (no thread hop per line)."""
    loop = asyncio.get_running_loop()
    try:
        reader = asyncio.StreamReader(limit=MAX_HEADER_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
        return reader
    except (ValueError, OSError, NotImplementedError):
        return _ExecutorReader(stream, executor)
