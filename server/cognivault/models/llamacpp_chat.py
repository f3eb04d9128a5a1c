"""Chat with any local GGUF file through llama-cpp-python (the optional ``llamacpp`` extra).

``models.chat_provider = "llamacpp"`` and ``models.gguf_path = "/path/to/model.gguf"``.
The model runs in a child process of its own (:mod:`cognivault.models.llamacpp_runner`):
a llama.cpp crash ends the answer with a ``model_crashed`` error instead of taking the
companion or the editor's language server down, and this process never loads
``libllama``. Tokens stream back as they are made; closing the stream stops the
generation at the next token. A JSON Schema becomes grammar-constrained output
(``response_format={"type": "json_object", "schema": ...}``). No thinking, no native
tools. Whatever a small model produces (loops, broken Unicode, nonsense) is just text to
the pipeline: it is bounded by ``max_tokens`` and checked like any other answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
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
    ToolSpec,
)
from cognivault.models.llamacpp_runner import runner_for

DEFAULT_CONTEXT = 8192


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
        runner = runner_for(self.path, self.n_ctx)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[ChatChunk | ChatError] = asyncio.Queue()
        stop = threading.Event()
        payload = [{"role": m.role if m.role != "tool" else "user", "content": m.content} for m in messages]
        limit = min(opts.max_tokens, self.max_tokens) if self.max_tokens else opts.max_tokens
        kwargs: dict[str, Any] = {"messages": payload, "stream": True, "max_tokens": limit,
                                  "temperature": opts.temperature}
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}

        def put(item: ChatChunk | ChatError) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is listening
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def work() -> None:
            try:
                for chunk in runner.generate(kwargs, stop):
                    put(chunk)
            except ChatError as exc:
                put(exc)
            except Exception as exc:  # noqa: BLE001 - e.g. no process could be started: the stream ends with it
                put(ChatError("model_error", f"cannot run the local model ({type(exc).__name__}: {exc})"))

        worker = threading.Thread(target=work, name="cognivault-llamacpp", daemon=True)
        worker.start()
        try:
            while True:
                try:
                    async with asyncio.timeout(idle):
                        item = await queue.get()
                except TimeoutError as exc:
                    raise ChatError("model_timeout", f"{self.model} produced nothing for {idle:.0f} s") from exc
                if isinstance(item, ChatError):
                    raise item
                yield item
                if item.kind == "done":
                    return
        finally:
            stop.set()  # the child stops at its next token
