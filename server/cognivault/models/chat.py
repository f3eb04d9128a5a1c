"""The chat side of the model Protocol: messages in, a stream of typed chunks out.

Every chat backend (``ollama``, ``extractive``, ``llamacpp``, test fakes)
implements :class:`ChatProvider`: one async streaming call taking the
conversation, whether to think, an optional JSON Schema for structured
output and optional tools. Chunks are :class:`ChatChunk` of kind
``thinking`` (reasoning tokens), ``text`` (answer tokens), ``tool_call`` or
``done`` (with token counts). Failures are :class:`ChatError` with a stable
``code`` and a message that names the fix (``ollama serve``,
``ollama pull gemma4:e4b``); a provider never hangs: it times out.

``make_chat_provider(settings)`` builds the configured backend (the names and
their factories are listed once, in :mod:`cognivault.models.providers`);
``resolve_chat_provider(settings)`` does the same for ``auto`` by probing
the local Ollama once and falling back to the offline extractive provider.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from cognivault.models.base import ModelUnavailable
from cognivault.models.providers import CHAT_PROVIDER_CHOICES, CHAT_PROVIDERS

log = logging.getLogger(__name__)

Role = Literal["system", "user", "assistant", "tool"]
ChunkKind = Literal["thinking", "text", "tool_call", "done"]


class ChatError(ModelUnavailable):
    """A chat call failed; ``code`` is stable for clients, the message says what to do.

    Codes: ``model_unreachable`` (server down), ``model_not_found`` (not pulled),
    ``model_timeout``, ``model_host_refused`` (non-loopback host not allowed),
    ``model_unsupported`` (the model lacks thinking/tools/vision), ``model_error``
    (anything else the backend reported), ``model_unavailable`` (a backend cannot
    load at all, e.g. an optional package missing), ``model_crashed`` (a local model's
    process died mid-reply: a signal, out of memory; the next request starts it anew).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "id": self.id}


@dataclass(slots=True)
class ToolSpec:
    """A function the model may call: name, description, JSON Schema of the arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_ollama(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass(slots=True)
class ChatMessage:
    role: Role
    content: str = ""
    images: list[bytes] = field(default_factory=list)  # raw image bytes (vision models)
    tool_calls: list[ToolCall] = field(default_factory=list)  # assistant turns that called tools
    tool_name: str = ""  # role "tool": which tool produced this result

    def to_ollama(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.images:
            import base64

            message["images"] = [base64.b64encode(image).decode("ascii") for image in self.images]
        if self.tool_calls:
            message["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}}
                                     for c in self.tool_calls]
        if self.tool_name:
            message["tool_name"] = self.tool_name
        return message


@dataclass(slots=True)
class ChatUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    done_reason: str = ""
    total_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "done_reason": self.done_reason, "total_ms": round(self.total_ms, 2)}


@dataclass(slots=True)
class ChatChunk:
    kind: ChunkKind
    text: str = ""
    tool_call: ToolCall | None = None
    usage: ChatUsage | None = None


@dataclass(frozen=True, slots=True)
class ChatCapabilities:
    thinking: bool = False
    tools: bool = False
    schema: bool = False
    vision: bool = False

    def to_dict(self) -> dict[str, bool]:
        return {"thinking": self.thinking, "tools": self.tools, "schema": self.schema, "vision": self.vision}


@dataclass(slots=True)
class ChatOptions:
    """Per-call limits; ``max_tokens`` bounds a model that loops, ``timeout_s`` bounds silence."""

    max_tokens: int = 1024
    temperature: float = 0.2
    timeout_s: float | None = None  # None: the provider's own default
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ChatProvider(Protocol):
    @property
    def name(self) -> str:
        """``ollama``, ``extractive``, ``llamacpp``, ``fake``..."""
        ...

    @property
    def model(self) -> str:
        """The model id as the user configured it (``gemma4:e4b``, a GGUF file name)."""
        ...

    async def capabilities(self) -> ChatCapabilities:
        """What this model can do (probed once, then cached)."""
        ...

    async def probe(self) -> ChatError | None:
        """None when the model can answer now, else the error a request would meet."""
        ...

    def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
               schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
               options: ChatOptions | None = None) -> AsyncGenerator[ChatChunk, None]:
        """Stream one reply. Raises :class:`ChatError`. Closing the iterator aborts the model call."""
        ...

    async def aclose(self) -> None: ...


async def complete(provider: ChatProvider, messages: Sequence[ChatMessage], **kwargs: Any) -> str:
    """The whole text of one reply (convenience for non-streaming callers such as JSON generators)."""
    parts: list[str] = []
    stream = provider.stream(messages, **kwargs)
    try:
        async for chunk in stream:
            if chunk.kind == "text":
                parts.append(chunk.text)
    finally:
        await stream.aclose()
    return "".join(parts)


def make_chat_provider(settings: Any, name: str | None = None, model: str | None = None,
                       embedder: Any = None) -> ChatProvider:
    """The chat provider ``name`` (default: ``settings.models.chat_provider``; ``auto`` means ollama).

    Raises :class:`ChatError` (``model_host_refused``, ``model_unavailable``) when it cannot be built.
    """
    chosen = (name or settings.models.chat_provider or "auto").lower()
    if chosen not in CHAT_PROVIDER_CHOICES:
        raise ChatError("model_unavailable", f"unknown chat provider {chosen!r}: use one of "
                                             f"{', '.join(CHAT_PROVIDER_CHOICES)}")
    entry = CHAT_PROVIDERS["ollama" if chosen == "auto" else chosen]
    provider: ChatProvider = entry.build(settings, model, embedder)
    return provider


async def resolve_chat_provider(settings: Any, name: str | None = None, model: str | None = None,
                                embedder: Any = None) -> tuple[ChatProvider, str | None]:
    """Like :func:`make_chat_provider`, but ``auto`` probes Ollama and falls back to extractive.

    Returns ``(provider, note)``; ``note`` says why the fallback was taken (None when it was not).
    An explicit ``ollama`` is never replaced: its errors reach the user.
    """
    chosen = (name or settings.models.chat_provider or "auto").lower()
    if chosen != "auto":
        return make_chat_provider(settings, chosen, model, embedder), None
    from cognivault.models.extractive_chat import ExtractiveChat

    try:
        provider = make_chat_provider(settings, "ollama", model, embedder)
    except ChatError as exc:
        return ExtractiveChat(embedder=embedder), f"using the extractive answerer: {exc.message}"
    problem = await provider.probe()
    if problem is None:
        return provider, None
    await provider.aclose()
    return ExtractiveChat(embedder=embedder), f"using the extractive answerer: {problem.message}"
