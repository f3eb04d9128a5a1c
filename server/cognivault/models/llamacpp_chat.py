"""Chat with any local GGUF file through llama-cpp-python (the optional ``llamacpp`` extra).

``models.chat_provider = "llamacpp"`` and ``models.gguf_path = "/path/to/model.gguf"``.
llama-cpp-python is imported on first use only. Generation runs in a worker
thread and streams tokens back; closing the stream sets a stop flag the
thread checks at every token, so a cancelled answer frees the model at
once. A JSON Schema becomes grammar-constrained output
(``response_format={"type": "json_object", "schema": ...}``). No thinking,
no native tools. Whatever a small model produces (loops, broken Unicode,
nonsense) is just text to the pipeline: it is bounded by ``max_tokens`` and
checked like any other answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from cognivault.extras import install_hint
from cognivault.models.chat import (
    ChatCapabilities,
    ChatChunk,
    ChatError,
    ChatMessage,
    ChatOptions,
    ChatUsage,
    ToolSpec,
)

log = logging.getLogger(__name__)

DEFAULT_CONTEXT = 8192
_models: dict[str, tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()


def _load(path: Path, n_ctx: int) -> tuple[Any, threading.Lock]:
    key = f"{path.resolve()}:{n_ctx}"
    with _models_lock:
        if key in _models:
            return _models[key]
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ChatError("model_unavailable", "llama-cpp-python is not installed "
                                                 f"({install_hint('llamacpp')})") from exc
        try:
            model = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=max(1, min(4, os.cpu_count() or 1)),
                          verbose=False)
        except Exception as exc:  # noqa: BLE001 - llama.cpp raises ValueError/RuntimeError on bad files
            raise ChatError("model_unavailable", f"cannot load the GGUF model {path.name}: {exc}") from exc
        _models.clear()  # one model in memory at a time
        _models[key] = (model, threading.Lock())
        return _models[key]


def from_settings(settings: Any, model: str | None, embedder: Any) -> LlamaCppChat:
    """``chat_provider = "llamacpp"``: the GGUF file ``model`` or ``models.gguf_path``."""
    path = model or settings.models.gguf_path
    if not path:
        raise ChatError("model_unavailable", "the llamacpp provider needs a GGUF file: set models.gguf_path "
                                             "(or pass --model /path/to/model.gguf)")
    return LlamaCppChat(path, timeout_s=settings.models.request_timeout_s)


class LlamaCppChat:
    def __init__(self, model_path: str, *, timeout_s: float = 120.0, n_ctx: int = DEFAULT_CONTEXT,
                 max_tokens: int | None = None) -> None:
        self.path = Path(model_path).expanduser()
        self.max_tokens = max_tokens  # a cap over every call's own limit (small or slow machines)
        self.timeout_s = float(timeout_s)
        self.n_ctx = n_ctx

    @property
    def name(self) -> str:
        return "llamacpp"

    @property
    def model(self) -> str:
        return self.path.name

    async def capabilities(self) -> ChatCapabilities:
        return ChatCapabilities(thinking=False, tools=False, schema=True, vision=False)

    async def probe(self) -> ChatError | None:
        if not self.path.is_file():
            return self._missing()
        import importlib.util

        if importlib.util.find_spec("llama_cpp") is None:
            return ChatError("model_unavailable", "llama-cpp-python is not installed "
                                                  f"({install_hint('llamacpp')})")
        return None

    async def aclose(self) -> None:
        return None

    def _missing(self) -> ChatError:
        return ChatError("model_not_found", f"no GGUF model file at {self.path}: set models.gguf_path to the "
                                            "path of a .gguf file")

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncGenerator[ChatChunk, None]:
        if not self.path.is_file():
            raise self._missing()
        opts = options or ChatOptions()
        idle = float(opts.timeout_s or self.timeout_s)
        model, lock = await asyncio.to_thread(_load, self.path, self.n_ctx)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()
        payload = [{"role": m.role if m.role != "tool" else "user", "content": m.content} for m in messages]
        limit = min(opts.max_tokens, self.max_tokens) if self.max_tokens else opts.max_tokens
        kwargs: dict[str, Any] = {"messages": payload, "stream": True, "max_tokens": limit,
                                  "temperature": opts.temperature}
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        started = time.perf_counter()

        def put(kind: str, value: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is listening
                loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def work() -> None:
            count = 0
            reason = "stop"
            try:
                with lock:
                    for part in model.create_chat_completion(**kwargs):
                        if stop.is_set():
                            reason = "cancelled"
                            break
                        choice = (part.get("choices") or [{}])[0]
                        delta = choice.get("delta") or {}
                        content = delta.get("content")
                        if content:
                            count += 1
                            put("text", content)
                        if choice.get("finish_reason"):
                            reason = str(choice["finish_reason"])
                put("done", ChatUsage(completion_tokens=count, done_reason=reason,
                                      total_ms=(time.perf_counter() - started) * 1000))
            except Exception as exc:  # noqa: BLE001 - any llama.cpp failure becomes a clean error
                put("error", ChatError("model_error", f"llama.cpp failed ({type(exc).__name__}: {exc})"))

        worker = threading.Thread(target=work, name="cognivault-llamacpp", daemon=True)
        worker.start()
        try:
            while True:
                try:
                    async with asyncio.timeout(idle):
                        kind, value = await queue.get()
                except TimeoutError as exc:
                    raise ChatError("model_timeout", f"{self.model} produced nothing for {idle:.0f} s") from exc
                if kind == "text":
                    yield ChatChunk("text", value)
                elif kind == "done":
                    yield ChatChunk("done", usage=value)
                    return
                else:
                    raise value
        finally:
            stop.set()  # the worker stops at its next token
