"""Chat through a local Ollama server with the official ``ollama`` client.

Streaming ``/api/chat`` with ``think`` (reasoning tokens arrive in
``message.thinking``), ``format`` set to a JSON Schema for structured
output, native tool calls and ``keep_alive``. The host must be loopback
unless ``models.allow_remote_model_host`` is set; anything else is refused
with the reason. Failures become :class:`ChatError` naming the fix
(``ollama serve``, ``ollama pull <model>``); silence longer than the timeout
ends the call, so nothing ever hangs. Closing the stream closes the HTTP
response, which makes Ollama stop generating.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from cognivault.models.chat import (
    ChatCapabilities,
    ChatChunk,
    ChatError,
    ChatMessage,
    ChatOptions,
    ChatUsage,
    ToolCall,
    ToolSpec,
)
from cognivault.models.hostpolicy import tls_verification

log = logging.getLogger(__name__)

DEFAULT_KEEP_ALIVE = "10m"
CONNECT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 3.0


def _check_host(url: str, allow_remote: bool) -> tuple[str, ChatError | None]:
    """(normalized base URL, None) when ``url`` may be used as the model host, else (url, the refusal)."""
    from cognivault.models.base import ModelUnavailable
    from cognivault.models.hostpolicy import check_model_host

    try:
        return check_model_host(url, allow_remote), None
    except ModelUnavailable as exc:
        return url, ChatError("model_host_refused", str(exc))


def _text_of_response_error(exc: Exception) -> str:
    return str(getattr(exc, "error", "") or exc)


def from_settings(settings: Any, model: str | None, embedder: Any) -> OllamaChat:
    """``chat_provider = "ollama"`` (and ``auto`` before its probe): ``model`` or ``models.chat_model``."""
    models = settings.models
    return OllamaChat(models.ollama_host, model or models.chat_model,
                      allow_remote=models.allow_remote_model_host, timeout_s=models.request_timeout_s)


class OllamaChat:
    """A :class:`~cognivault.models.chat.ChatProvider` over Ollama's ``/api/chat``."""

    def __init__(self, host: str, model: str, *, allow_remote: bool = False, timeout_s: float = 120.0,
                 keep_alive: str | float | None = DEFAULT_KEEP_ALIVE) -> None:
        self.host, self._refused = _check_host(host.rstrip("/"), allow_remote)
        self._model = model
        self.timeout_s = float(timeout_s)
        self.keep_alive = keep_alive
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._capabilities: ChatCapabilities | None = None

    # -- identity -----------------------------------------------------------
    @property
    def name(self) -> str:
        return "ollama"

    @property
    def model(self) -> str:
        return self._model

    # -- client -------------------------------------------------------------
    def _client_for_loop(self) -> Any:
        if self._refused is not None:
            raise self._refused
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            import httpx
            import ollama

            # trust_env=False: no proxy from the environment ever sees a prompt.
            self._client = ollama.AsyncClient(
                host=self.host, trust_env=False, verify=tls_verification(self.host),
                timeout=httpx.Timeout(self.timeout_s, connect=CONNECT_TIMEOUT_S))
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                await client._client.aclose()  # the ollama client wraps an httpx.AsyncClient
            except Exception:  # noqa: BLE001 - closing on a finished loop is harmless
                pass

    # -- errors -------------------------------------------------------------
    def _unreachable(self) -> ChatError:
        return ChatError("model_unreachable",
                         f"Ollama is not reachable at {self.host}: start it with `ollama serve` "
                         f"(and `ollama pull {self.model}` once), or use the offline extractive answerer "
                         "(models.chat_provider = \"extractive\")")

    def _not_found(self) -> ChatError:
        return ChatError("model_not_found", f"the model {self.model!r} is not installed in Ollama: "
                                            f"run `ollama pull {self.model}`")

    def _timeout(self, seconds: float) -> ChatError:
        return ChatError("model_timeout", f"Ollama at {self.host} sent nothing for {seconds:.0f} s "
                                          f"(model {self.model} may still be loading): try again, or raise "
                                          "models.request_timeout_s")

    def _translate(self, exc: BaseException) -> ChatError:
        import httpx
        import ollama

        if isinstance(exc, ChatError):
            return exc
        if isinstance(exc, ConnectionError | httpx.ConnectError | httpx.RemoteProtocolError) and \
                not isinstance(exc, httpx.ReadError):
            return self._unreachable()
        if isinstance(exc, httpx.TimeoutException | asyncio.TimeoutError | TimeoutError):
            return self._timeout(self.timeout_s)
        if isinstance(exc, ollama.ResponseError):
            text = _text_of_response_error(exc)
            lowered = text.lower()
            if exc.status_code == 404 or ("not found" in lowered and "model" in lowered):
                return self._not_found()
            if "does not support" in lowered:
                return ChatError("model_unsupported", f"{self.model}: {text}")
            return ChatError("model_error", f"Ollama reported an error for {self.model}: {text}")
        if isinstance(exc, httpx.HTTPError):
            return ChatError("model_unreachable", f"the connection to Ollama at {self.host} failed "
                                                  f"({type(exc).__name__}: {exc}); is `ollama serve` running?")
        if isinstance(exc, json.JSONDecodeError | ValueError | TypeError | KeyError):
            return ChatError("model_error", f"Ollama sent a reply that cannot be read ({type(exc).__name__})")
        return ChatError("model_error", f"chat with Ollama failed ({type(exc).__name__}: {exc})")

    # -- probing ------------------------------------------------------------
    async def probe(self) -> ChatError | None:
        """None when the server answers and has the model, else the problem (quick: a few seconds at most)."""
        try:
            client = self._client_for_loop()
            listing = await asyncio.wait_for(client.list(), PROBE_TIMEOUT_S)
        except ChatError as exc:
            return exc
        except Exception as exc:  # noqa: BLE001
            error = self._translate(exc)
            return self._unreachable() if error.code == "model_timeout" else error
        names = set()
        for entry in getattr(listing, "models", None) or []:
            name = getattr(entry, "model", None) or getattr(entry, "name", None)
            if name:
                names.add(name)
                if name.endswith(":latest"):
                    names.add(name.removesuffix(":latest"))
        if self.model not in names and f"{self.model}:latest" not in names:
            return self._not_found()
        return None

    async def capabilities(self) -> ChatCapabilities:
        if self._capabilities is not None:
            return self._capabilities
        found: ChatCapabilities | None = None
        try:
            client = self._client_for_loop()
            shown = await asyncio.wait_for(client.show(self.model), PROBE_TIMEOUT_S)
            listed = getattr(shown, "capabilities", None)
            if listed is not None:
                caps = set(listed)
                found = ChatCapabilities(thinking="thinking" in caps, tools="tools" in caps, schema=True,
                                         vision="vision" in caps)
        except ChatError:
            raise
        except Exception as exc:  # noqa: BLE001 - an older server without capabilities: assume the usual
            log.debug("could not read capabilities of %s: %s", self.model, exc)
        if found is None:
            # Unknown: try everything; each phase degrades on a "does not support" error.
            found = ChatCapabilities(thinking=True, tools=True, schema=True, vision=False)
            return found  # not cached: the next call may learn more
        self._capabilities = found
        return found

    # -- chat ---------------------------------------------------------------
    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncGenerator[ChatChunk, None]:
        opts = options or ChatOptions()
        idle = float(opts.timeout_s or self.timeout_s)
        started = time.perf_counter()
        client = self._client_for_loop()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_ollama() for m in messages],
            "stream": True,
            "options": {"num_predict": opts.max_tokens, "temperature": opts.temperature, **opts.extra},
        }
        if think:
            kwargs["think"] = True
        elif self._capabilities is not None and self._capabilities.thinking:
            kwargs["think"] = False  # a thinking model would otherwise think in the answer phase
        if schema is not None:
            kwargs["format"] = schema
        if tools:
            kwargs["tools"] = [t.to_ollama() for t in tools]
        if self.keep_alive is not None:
            kwargs["keep_alive"] = self.keep_alive
        iterator: Any = None
        try:
            try:
                async with asyncio.timeout(idle):
                    iterator = await client.chat(**kwargs)
            except Exception as exc:  # noqa: BLE001
                raise self._translate(exc) from exc
            while True:
                try:
                    # asyncio.timeout, not wait_for: the HTTP stream must stay in this task.
                    async with asyncio.timeout(idle):
                        part = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as exc:  # noqa: BLE001
                    raise self._translate(exc) from exc
                message = getattr(part, "message", None)
                if message is not None:
                    if message.thinking:
                        yield ChatChunk("thinking", message.thinking)
                    if message.content:
                        yield ChatChunk("text", message.content)
                    for call in message.tool_calls or []:
                        function = getattr(call, "function", None)
                        if function is None or not getattr(function, "name", None):
                            continue
                        arguments = function.arguments
                        if isinstance(arguments, str):
                            try:
                                arguments = json.loads(arguments)
                            except json.JSONDecodeError:
                                arguments = {}
                        yield ChatChunk("tool_call", tool_call=ToolCall(
                            str(function.name), dict(arguments) if isinstance(arguments, dict) else {}))
                if getattr(part, "done", False):
                    yield ChatChunk("done", usage=ChatUsage(
                        prompt_tokens=int(getattr(part, "prompt_eval_count", 0) or 0),
                        completion_tokens=int(getattr(part, "eval_count", 0) or 0),
                        done_reason=str(getattr(part, "done_reason", "") or "stop"),
                        total_ms=(time.perf_counter() - started) * 1000))
                    break
        finally:
            if iterator is not None:
                # Closing the generator closes the HTTP response: Ollama stops generating.
                try:
                    await iterator.aclose()
                except Exception:  # noqa: BLE001
                    pass
