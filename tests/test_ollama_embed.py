"""The Ollama embedding provider and host policy: the real ``ollama`` client against the fake over real HTTP."""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import ollama
import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.models.base import EmbeddingProvider, ModelUnavailable
from cognivault.models.hostpolicy import check_model_host, is_loopback_host, parse_host
from cognivault.models.ollama_embed import OllamaEmbedder, char_windows, probe_ollama, split_windows
from fake_ollama import FakeOllama, closed_loopback_url, fake_ollama, fake_ollama_in_thread  # noqa: F401

DOC = "title: none | text: "
QUERY = "task: search result | query: "


@pytest.fixture
def fake(fake_ollama: FakeOllama) -> FakeOllama:  # noqa: F811 - the shared fixture under a short name
    return fake_ollama


# -- embedding over HTTP -------------------------------------------------------------------------


def test_batch_embedding_with_prefixes(fake: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    assert isinstance(embedder, EmbeddingProvider)
    vectors = embedder.embed_documents(["first passage", "second passage"])
    assert vectors.shape == (2, fake.embedding_dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sent = fake.embeddings()[-1]
    assert sent["input"] == [f"{DOC}first passage", f"{DOC}second passage"]
    assert sent["truncate"] is False and sent["model"] == "embeddinggemma"
    query = embedder.embed_query("what is a passage")
    assert fake.embeddings()[-1]["input"] == [f"{QUERY}what is a passage"]
    assert query.shape == (fake.embedding_dimension,)
    assert np.allclose(vectors[0], fake.vector(f"{DOC}first passage"), atol=1e-6)
    assert embedder.model_id == "ollama:embeddinggemma" and embedder.languages is None


def test_batches_follow_batch_size_and_keep_order(fake: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake.url, "embeddinggemma", batch_size=4)
    texts = [f"passage number {i}" for i in range(10)]
    vectors = embedder.embed_documents(texts)
    calls = fake.embeddings()
    assert [len(call["input"]) for call in calls] == [4, 4, 2]
    expected = np.asarray([fake.vector(DOC + text) for text in texts])
    assert np.allclose(vectors, expected, atol=1e-6)


def test_prefixes_only_for_embeddinggemma(fake: FakeOllama) -> None:
    fake.models.add("nomic-embed-text")
    embedder = OllamaEmbedder(fake.url, "nomic-embed-text:latest")
    embedder.embed_documents(["plain passage"])
    embedder.embed_query("plain question")
    assert [call["input"] for call in fake.embeddings()] == [["plain passage"], ["plain question"]]
    assert embedder.model_id == "ollama:nomic-embed-text"


def test_context_and_dimension_come_from_show(fake: FakeOllama) -> None:
    fake.set_model("embeddinggemma", context_length=512, embedding_length=48)
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    assert embedder.context_length == 512 and embedder.dimension == 48
    assert embedder.embed_documents(["x"]).shape == (1, 48)
    assert fake.requests_to("/api/show")[0]["model"] == "embeddinggemma"


def test_empty_input_needs_no_embed_call(fake: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    assert embedder.embed_documents([]).shape == (0, fake.embedding_dimension)
    assert fake.embeddings() == []


def test_long_text_is_windowed_never_truncated(fake: FakeOllama) -> None:
    fake.context_length = 100  # 300 characters at our conservative 3 characters per token
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    text = " ".join(f"word{i}" for i in range(300))  # ~2,400 characters
    vector = embedder.embed_documents([text])[0]
    windows = fake.embeddings()[-1]["input"]
    assert len(windows) > 4
    assert all(len(window) <= 300 and window.startswith(DOC) for window in windows)
    covered = " ".join(w.removeprefix(DOC) for w in windows)
    assert set(text.split()) <= set(covered.split())  # every word was embedded somewhere
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    # the average of the window vectors, not any single window
    singles = np.asarray([fake.vector(w) for w in windows])
    assert float(vector @ singles.mean(axis=0) / np.linalg.norm(singles.mean(axis=0))) > 0.99


def test_overflow_reported_by_ollama_is_split_further(fake: FakeOllama) -> None:
    # the server counts 1.5 characters per token: our 3-per-token windows are too long for it
    fake.set_model("embeddinggemma", context_length=200, chars_per_token=1.5)
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    text = "dense " * 200  # 1,200 characters
    vector = embedder.embed_documents([text, "short one"])
    assert vector.shape == (2, fake.embedding_dimension)
    accepted = [call for call in fake.embeddings() if all(len(t) <= 300 for t in call["input"])]
    assert accepted, "the provider never sent windows small enough"
    assert any(len(t) > 300 for call in fake.embeddings() for t in call["input"])  # it did try first


def test_split_windows_cover_the_text() -> None:
    text = "abcdefghij" * 10
    windows = split_windows(text, 30, 5)
    assert all(len(w) <= 30 for w in windows)
    assert windows[0] == text[: len(windows[0])] and text.endswith(windows[-1])
    spans = char_windows(text, 30, 5)
    assert all(b > a for a, b in spans) and spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(later[0] <= earlier[1] for earlier, later in pairwise(spans))  # no gaps
    assert split_windows("short", 30, 5) == ["short"]
    words = "alpha beta gamma delta " * 20
    assert all(not w.startswith(" ") for w in split_windows(words, 40, 8)[1:])  # cut at spaces


def test_missing_model_names_the_pull_command(fake: FakeOllama) -> None:
    with pytest.raises(ModelUnavailable, match="ollama pull nomic-embed-text"):
        OllamaEmbedder(fake.url, "nomic-embed-text").embed_documents(["x"])


def test_chat_only_model_is_refused_as_embedder(fake: FakeOllama) -> None:
    with pytest.raises(ModelUnavailable, match="cannot make embeddings"):
        OllamaEmbedder(fake.url, "gemma4:e4b").check()


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "closed"])
def test_stopped_server_names_ollama_serve(url: str) -> None:
    url = closed_loopback_url() if url == "closed" else url
    started = time.perf_counter()
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        OllamaEmbedder(url, "embeddinggemma", timeout_s=120).embed_documents(["x"])
    assert time.perf_counter() - started < 60  # a refused connection is reported, not waited out to the timeout


def test_slow_server_times_out_with_a_clear_message(fake: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake.url, "embeddinggemma", timeout_s=0.3)
    embedder.check()
    fake.embed_delay_s = 120.0
    started = time.perf_counter()
    with pytest.raises(ModelUnavailable, match="did not answer within"):
        embedder.embed_documents(["x"])
    assert time.perf_counter() - started < 60  # gave up on its own 0.3 s timeout, not on the server's answer


def test_probe_lists_models_fast(fake: FakeOllama) -> None:
    probe = probe_ollama(fake.url)
    assert probe.reachable and "embeddinggemma:latest" in probe.models
    down = probe_ollama(closed_loopback_url())
    assert not down.reachable and "ollama serve" in (down.error or "")
    assert OllamaEmbedder(fake.url, "embeddinggemma").available()
    assert not OllamaEmbedder(fake.url, "nomic-embed-text").available()


def test_probe_waits_for_a_busy_ollama_that_accepted_the_connection(fake: FakeOllama) -> None:
    fake.tags_delay_s = 1.0  # over the 0.3 s connect budget: only the connect is meant to be that fast
    probe = probe_ollama(fake.url)
    assert probe.reachable and "embeddinggemma:latest" in probe.models, probe.error


# -- host policy ---------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["http://10.0.0.5:11434", "http://example.com", "http://0.0.0.0:11434",
                                  "http://169.254.169.254", "https://localhost.example.com", "[::]:11434",
                                  "192.168.1.20"])
def test_remote_hosts_are_refused_unless_allowed(host: str) -> None:
    with pytest.raises(ModelUnavailable, match="allow_remote_model_host = true"):
        check_model_host(host, allow_remote=False)
    with pytest.raises(ModelUnavailable, match="allow"):
        OllamaEmbedder(host, "embeddinggemma")
    assert OllamaEmbedder(host, "embeddinggemma", allow_remote=True).host  # nothing is sent yet


@pytest.mark.parametrize(("host", "normalized"), [
    ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
    ("127.0.0.1", "http://127.0.0.1:11434"),
    ("http://127.8.9.10:8080/", "http://127.8.9.10:8080"),
    ("http://[::1]:11434", "http://[::1]:11434"),
    ("[::1]", "http://[::1]:11434"),
    ("http://localhost:11434", "http://localhost:11434"),
    ("LOCALHOST", "http://localhost:11434"),
    ("http://[::ffff:127.0.0.1]:11434", "http://[::ffff:127.0.0.1]:11434"),
    ("", "http://127.0.0.1:11434"),
    (":5000", "http://127.0.0.1:5000"),
    ("https://localhost", "https://localhost:443"),
])
def test_loopback_hosts_are_accepted(host: str, normalized: str) -> None:
    assert check_model_host(host, allow_remote=False) == normalized
    assert OllamaEmbedder(host, "embeddinggemma").host == normalized


def test_host_parsing_edges() -> None:
    assert parse_host("http://example.com/prefix/") == ("http", "example.com", 80, "/prefix")
    assert check_model_host("example.com:1234", allow_remote=True) == "http://example.com:1234"
    assert not is_loopback_host("localhost.evil.example") and is_loopback_host("127.255.0.1")
    for bad in ("ftp://127.0.0.1", "http://user:pw@127.0.0.1:11434", "http://127.0.0.1:99999"):
        with pytest.raises(ModelUnavailable):
            check_model_host(bad, allow_remote=True)


# -- the fake itself speaks Ollama's protocol to the official client ----------------------------------


def test_fake_chat_streams_scripted_thinking_content_and_tool_calls(fake: FakeOllama) -> None:
    fake.script_chat(["Hel", "lo"], thinking=["let me ", "think"],
                     tool_calls=[{"function": {"name": "search", "arguments": {"q": "cells"}}}],
                     chunk_delay_s=0.01, eval_count=7, prompt_eval_count=11, done_reason="stop")
    client = ollama.Client(host=fake.url)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    parts = list(client.chat(model="gemma4:e4b", messages=[{"role": "user", "content": "hi"}],
                             stream=True, think=True, format=schema))
    assert [p.message.thinking for p in parts[:2]] == ["let me ", "think"]
    assert "".join(p.message.content or "" for p in parts) == "Hello"
    calls = [c for p in parts for c in (p.message.tool_calls or [])]
    assert calls[0].function.name == "search" and calls[0].function.arguments == {"q": "cells"}
    last = parts[-1]
    assert last.done and last.done_reason == "stop" and last.eval_count == 7 and last.prompt_eval_count == 11
    assert last.total_duration and not any(p.done for p in parts[:-1])
    recorded = fake.chats()[-1]
    assert recorded["format"] == schema and recorded["think"] is True and recorded["_method"] == "POST"


def test_fake_chat_without_stream_and_with_errors(fake: FakeOllama) -> None:
    client = ollama.Client(host=fake.url)
    fake.script_chat("whole answer", thinking="quietly")
    whole = client.chat(model="gemma4:e4b", messages=[{"role": "user", "content": "hi"}], think=True)
    assert whole.message.content == "whole answer" and whole.message.thinking == "quietly" and whole.done
    fake.script_chat(["a", "b", "c"], error="out of memory", error_after=1)
    with pytest.raises(ollama.ResponseError, match="out of memory"):
        list(client.chat(model="gemma4:e4b", messages=[{"role": "user", "content": "hi"}], stream=True))
    fake.script_chat(status=503, error="busy")
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat(model="gemma4:e4b", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 503
    with pytest.raises(ollama.ResponseError, match="not found, try pulling it first") as missing:
        client.chat(model="llama9", messages=[{"role": "user", "content": "hi"}])
    assert missing.value.status_code == 404
    # without a script the default reply answers
    assert client.chat(model="gemma4:e4b", messages=[{"role": "user", "content": "hi"}]).message.content


def test_fake_generate_tags_show_and_model_set(fake: FakeOllama) -> None:
    client = ollama.Client(host=fake.url)
    fake.script_chat(["one ", "two"])
    streamed = list(client.generate(model="gemma4:e4b", prompt="count", stream=True))
    assert "".join(p.response for p in streamed) == "one two" and streamed[-1].done
    assert {m.model for m in client.list().models} == {"gemma4:e4b", "embeddinggemma:latest"}
    shown = client.show("embeddinggemma")
    assert shown.capabilities == ["embedding"] and shown.modelinfo["gemma3.context_length"] == 2048
    fake.models.discard("embeddinggemma:latest")
    assert "embeddinggemma" not in fake.models
    fake.models = ["only-this"]
    assert "only-this:latest" in fake.models


def test_fake_runs_in_a_thread_for_sync_code() -> None:
    with fake_ollama_in_thread(embedding_dimension=8) as server:
        vectors = OllamaEmbedder(server.url, "embeddinggemma").embed_documents(["a b", "b c"])
        assert vectors.shape == (2, 8)
        assert float(vectors[0] @ vectors[1]) > 0.0  # shared word "b": the fake's bag of words


# -- the engine on top of the provider -------------------------------------------------------------


def test_auto_prefers_ollama_when_it_has_the_model(fake: FakeOllama, tmp_path: Path) -> None:
    from cognivault.models.embedded import EmbeddedProvider
    from cognivault.models.registry import make_embedding_provider

    settings = load_settings(tmp_path, {"models": {"ollama_host": fake.url}})
    assert make_embedding_provider(settings).model_id == "ollama:embeddinggemma"
    fake.models.remove("embeddinggemma")
    assert isinstance(make_embedding_provider(settings), EmbeddedProvider)


def _vault(root: Path) -> Path:
    for number in range(6):
        note = root / f"Notes/Topic {number}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Topic {number}\n\n## Part A\n\n" + f"Topic {number} part A explains leaves. " * 6
                        + "\n\n## Part B\n\n" + f"Topic {number} part B explains roots and water. " * 6, "utf-8")
    return root


def test_incremental_embedding_model_switch_and_restart(fake: FakeOllama, tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    fake.models.append("other-embed")

    def engine(model: str) -> Engine:
        settings = load_settings(vault, {"models": {"ollama_host": fake.url},
                                         "embedding": {"provider": "ollama", "ollama_model": model}})
        return Engine(vault, settings)

    with engine("embeddinggemma") as first:
        report = first.index()
        chunks = report.totals()["chunks"]
        assert report.embedded_chunks == chunks and report.reused_chunks == 0
        assert first.status()["consistency"]["agree"]
        assert first.search("roots and water", mode="dense").results
        note = vault / "Notes/Topic 0.md"
        note.write_text(note.read_text("utf-8").replace("part B explains roots", "part B describes roots"),
                        "utf-8")
        edit = first.index()
        assert edit.embedded_chunks == 1  # only the edited section
    with engine("embeddinggemma") as again:
        calls = len(fake.embeddings())
        restart = again.index()
        assert restart.embedded_chunks == 0
        assert len(fake.embeddings()) == calls  # nothing was sent to the model
        assert len(again.store.dense) == chunks
    with engine("other-embed") as switched:
        report = switched.index()
        assert report.embedded_chunks == chunks  # a new model embeds everything again...
        assert switched.status()["embedding"]["models_in_cache"] == {"ollama:embeddinggemma": chunks + 1,
                                                                      "ollama:other-embed": chunks}
        dense_files = sorted(p.name for p in Path(switched.index_dir).glob("dense-*.faiss"))
        assert dense_files == ["dense-ollama_embeddinggemma.faiss", "dense-ollama_other-embed.faiss"]
    with engine("embeddinggemma") as back:
        assert back.index().embedded_chunks == 0  # ...and switching back reuses the cache
        assert len(back.store.dense) == chunks
