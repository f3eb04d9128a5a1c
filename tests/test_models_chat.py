"""The Ollama chat provider over real HTTP (the official client against a fake Ollama), and provider choice."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator

import pytest

from answer_support import collect, final, indexed_vault, shared_engine  # noqa: F401 - fixtures
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.config import Settings
from cognivault.models.chat import (
    ChatError,
    ChatMessage,
    ChatOptions,
    ToolSpec,
    make_chat_provider,
    resolve_chat_provider,
)
from cognivault.models.extractive_chat import ExtractiveChat
from cognivault.models.ollama_chat import OllamaChat
from fake_ollama import FakeOllama, tool_calls

QUESTION = "What do mitochondria store energy as?"


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllama]:
    server = await FakeOllama().start()
    yield server
    await server.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _chunks(provider: OllamaChat, **kwargs) -> list:  # noqa: ANN003
    return [chunk async for chunk in provider.stream([ChatMessage("user", "hi")], **kwargs)]


async def _until_disconnected(ollama: FakeOllama) -> None:
    """Wait until the fake server saw the client hang up. Its reply streams for at least 200 s and a
    hang-up is only recorded before the reply's end, so any speed passes and a kept connection fails."""
    async with asyncio.timeout(120):
        while not ollama.disconnects:
            await asyncio.sleep(0.025)


async def test_streams_thinking_text_tool_calls_and_usage(ollama: FakeOllama) -> None:
    ollama.reply = lambda body: [{"thinking": "let me see "}, {"content": "Hello "}, {"content": "there"},
                                 tool_calls("calculator", expression="2+2")]
    provider = OllamaChat(ollama.url, "gemma4:e4b", keep_alive="5m")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    tool = ToolSpec("calculator", "math", {"type": "object", "properties": {"expression": {"type": "string"}}})
    chunks = await _chunks(provider, think=True, schema=schema, tools=[tool], options=ChatOptions(max_tokens=77))
    kinds = [c.kind for c in chunks]
    assert kinds == ["thinking", "text", "text", "tool_call", "done"]
    assert chunks[3].tool_call.name == "calculator" and chunks[3].tool_call.arguments == {"expression": "2+2"}
    assert chunks[-1].usage.completion_tokens == 4 and chunks[-1].usage.prompt_tokens == 42
    sent = ollama.chats()[-1]
    assert sent["think"] is True and sent["format"] == schema and sent["keep_alive"] == "5m"
    assert sent["tools"][0]["function"]["name"] == "calculator" and sent["stream"] is True
    assert sent["options"]["num_predict"] == 77
    capabilities = await provider.capabilities()
    assert capabilities.thinking and capabilities.tools and not capabilities.vision
    # with capabilities known, the answer phase turns thinking off explicitly
    await _chunks(provider)
    assert ollama.chats()[-1]["think"] is False
    assert await provider.probe() is None
    await provider.aclose()


async def test_missing_model_names_the_pull_command(ollama: FakeOllama) -> None:
    provider = OllamaChat(ollama.url, "gemma4:e4b")
    ollama.models = ["llama3.2"]
    with pytest.raises(ChatError) as error:
        await _chunks(provider)
    assert error.value.code == "model_not_found" and "ollama pull gemma4:e4b" in error.value.message
    problem = await provider.probe()
    assert problem is not None and problem.code == "model_not_found"
    await provider.aclose()


async def test_ollama_down_names_ollama_serve_quickly() -> None:
    provider = OllamaChat(f"http://127.0.0.1:{_free_port()}", "gemma4:e4b", timeout_s=120)
    started = time.perf_counter()
    with pytest.raises(ChatError) as error:
        await _chunks(provider)
    assert error.value.code == "model_unreachable" and "ollama serve" in error.value.message
    problem = await provider.probe()
    assert problem is not None and problem.code == "model_unreachable"
    assert time.perf_counter() - started < 60  # reported as refused, not waited out to the 120 s timeout
    await provider.aclose()


async def test_silence_times_out_instead_of_hanging(ollama: FakeOllama) -> None:
    ollama.reply = lambda body: [{"content": "a"}, ("sleep", 600.0), {"content": "b"}]
    provider = OllamaChat(ollama.url, "gemma4:e4b", timeout_s=0.5)
    async with asyncio.timeout(120):  # the server stays silent for 600 s: only the provider's own timeout ends this
        with pytest.raises(ChatError) as error:
            await _chunks(provider)
    assert error.value.code == "model_timeout"
    await provider.aclose()


@pytest.mark.parametrize("host", ["http://10.0.0.5:11434", "http://ollama.example.com", "http://0.0.0.0:11434",
                                  "http://192.168.1.20:11434"])
async def test_non_loopback_hosts_are_refused_without_connecting(host: str) -> None:
    provider = OllamaChat(host, "gemma4:e4b")
    with pytest.raises(ChatError) as error:
        await _chunks(provider)  # the conftest guard would fail the test on any outside connection
    assert error.value.code == "model_host_refused" and "allow_remote_model_host" in error.value.message
    assert (await provider.probe()).code == "model_host_refused"


@pytest.mark.parametrize("host", ["http://127.0.0.1:11434", "http://localhost:11434", "http://[::1]:11434",
                                  "127.0.0.1:11434"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert OllamaChat(host, "gemma4:e4b")._refused is None


async def test_closing_the_stream_closes_the_connection(ollama: FakeOllama) -> None:
    ollama.reply = lambda body: [{"content": "first "}] + [("sleep", 0.05), {"content": "more "}] * 4000
    provider = OllamaChat(ollama.url, "gemma4:e4b")
    stream = provider.stream([ChatMessage("user", "hi")])
    async for chunk in stream:
        if chunk.kind == "text":
            break
    await stream.aclose()
    await _until_disconnected(ollama)
    await provider.aclose()


async def test_garbage_and_error_lines_become_model_errors(ollama: FakeOllama) -> None:
    provider = OllamaChat(ollama.url, "gemma4:e4b")
    ollama.reply = lambda body: [{"content": "ok "}, ("raw", "{not json")]
    with pytest.raises(ChatError) as error:
        await _chunks(provider)
    assert error.value.code == "model_error"
    ollama.reply = lambda body: [{"content": "ok "}, ("error", "out of memory")]
    with pytest.raises(ChatError) as error:
        await _chunks(provider)
    assert error.value.code == "model_error" and "out of memory" in error.value.message
    await provider.aclose()


async def test_pipeline_over_http_two_phases_tools_and_citations(ollama: FakeOllama,
                                                                 shared_engine) -> None:  # noqa: ANN001
    def reply(body):  # noqa: ANN001, ANN202
        if body.get("think"):
            return [{"thinking": "Mitochondria are in S1. "}, {"content": "Plan: answer from S1."}]
        if body.get("tools") and not any(m["role"] == "tool" for m in body["messages"]):
            return [tool_calls("calculator", expression="2 ** 5")]
        tool_result = next(json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool")
        return [{"content": f"They store it as ATP [S1] ({tool_result['data']['result']}) "},
                {"content": "[S7][S1][S1]."}]

    ollama.reply = reply
    provider = OllamaChat(ollama.url, "gemma4:e4b")
    envelopes = await collect(stream_answer(shared_engine, AskRequest(QUESTION), provider, SessionStore(None),
                                            cache=None))
    data = final(envelopes)["data"]
    assert data["answer"].startswith("They store it as ATP [S1] (32)")
    assert data["citations"] == ["S1"] and {d["label"] for d in data["dropped_citations"]} == {"S7", "S1"}
    assert [e["data"]["kind"] for e in envelopes if e["type"] == "thinking"] == ["reasoning", "plan"]
    chats = ollama.chats()
    assert chats[0]["think"] is True and chats[1]["think"] is False and "tools" in chats[1]
    assert chats[2]["messages"][-1]["role"] == "tool" and chats[2]["messages"][-1]["tool_name"] == "calculator"
    assert data["usage"]["prompt_tokens"] == 84
    await provider.aclose()


async def test_pipeline_cancel_over_http_frees_the_model_call(ollama: FakeOllama,
                                                              shared_engine) -> None:  # noqa: ANN001
    ollama.reply = lambda body: [{"content": "Slowly [S1] "}] + [("sleep", 0.05), {"content": "more "}] * 4000
    provider = OllamaChat(ollama.url, "gemma4:e4b")
    cancel = asyncio.Event()
    stream = stream_answer(shared_engine, AskRequest(QUESTION, think=False, tools=False), provider,
                           SessionStore(None), cancel, cache=None)
    async for envelope in stream:
        if envelope["type"] == "text" and not cancel.is_set():
            cancel.set()
        last = envelope
    assert last["type"] == "error" and last["data"]["code"] == "cancelled"
    await _until_disconnected(ollama)
    await provider.aclose()


async def test_pipeline_reports_ollama_down_as_an_error_envelope(shared_engine) -> None:  # noqa: ANN001
    provider = OllamaChat(f"http://127.0.0.1:{_free_port()}", "gemma4:e4b")
    envelopes = await collect(stream_answer(shared_engine, AskRequest(QUESTION), provider, SessionStore(None),
                                            cache=None))
    error = final(envelopes)
    assert error["type"] == "error" and error["data"]["code"] == "model_unreachable"


async def test_provider_choice(ollama: FakeOllama) -> None:
    settings = Settings()
    settings.models.ollama_host = ollama.url
    provider, note = await resolve_chat_provider(settings)
    assert provider.name == "ollama" and note is None
    await provider.aclose()
    settings.models.chat_model = "not-pulled:1b"
    provider, note = await resolve_chat_provider(settings)
    assert isinstance(provider, ExtractiveChat) and "ollama pull not-pulled:1b" in note
    settings.models.ollama_host = f"http://127.0.0.1:{_free_port()}"
    provider, note = await resolve_chat_provider(settings)
    assert isinstance(provider, ExtractiveChat) and "ollama serve" in note
    settings.models.ollama_host = "http://10.1.2.3:11434"
    provider, note = await resolve_chat_provider(settings)
    assert isinstance(provider, ExtractiveChat) and "Refusing" in note
    explicit, note = await resolve_chat_provider(settings, "ollama")
    assert explicit.name == "ollama" and note is None  # an explicit choice is never replaced
    assert make_chat_provider(settings, "extractive").name == "extractive"
    with pytest.raises(ChatError):
        make_chat_provider(settings, "gpt-cloud")


async def test_extractive_chat_through_the_plain_protocol() -> None:
    messages = [ChatMessage("system", "Passages:\n<passages>\n[S1] a.md\nMitochondria store energy as ATP in "
                                      "the cell.\n\n[S2] b.md\nBread needs flour and water and salt.\n</passages>"),
                ChatMessage("user", "How do mitochondria store energy?")]
    text = "".join([c.text async for c in ExtractiveChat().stream(messages) if c.kind == "text"])
    assert "[S1]" in text and "[S2]" not in text


async def test_llamacpp_runs_the_file_named_by_models_gguf_path(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from cognivault.config import load_settings, user_config_file
    from cognivault.doctor import diagnose
    from cognivault.models.llamacpp_chat import LlamaCppChat

    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    vault = tmp_path / "vault"
    (vault / ".cognivault").mkdir(parents=True)
    (vault / ".cognivault" / "config.toml").write_text('[models]\nchat_provider = "llamacpp"\n', "utf-8")
    user_config = user_config_file()  # the model file is the user's choice, never a vault's
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[models]\ngguf_path = "{model}"\n', "utf-8")
    settings = load_settings(vault)
    provider = make_chat_provider(settings)
    assert isinstance(provider, LlamaCppChat) and provider.path == model and provider.model == "tiny.gguf"
    assert make_chat_provider(settings, model=str(tmp_path / "other.gguf")).path.name == "other.gguf"
    report = diagnose(vault, settings)["models"]["llamacpp"]  # type: ignore[index]
    assert report["gguf_path"] == str(model) and report["exists"] is True

    monkeypatch.setenv("COGNIVAULT_MODELS_GGUF_PATH", str(tmp_path / "missing.gguf"))
    missing = load_settings(vault)
    problem = await make_chat_provider(missing).probe()  # type: ignore[attr-defined]
    assert problem is not None and problem.code == "model_not_found" and "models.gguf_path" in problem.message
    assert "missing.gguf" in diagnose(vault, missing)["models"]["llamacpp"]["fix"]  # type: ignore[index]

    unset = Settings()
    unset.models.chat_provider = "llamacpp"
    with pytest.raises(ChatError) as error:
        make_chat_provider(unset)
    assert error.value.code == "model_unavailable" and "models.gguf_path" in error.value.message
    assert diagnose(vault, unset)["models"]["llamacpp"]["gguf_path"] == ""  # type: ignore[index]
