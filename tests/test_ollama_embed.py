"""The Ollama embedding provider and the provider choice, against a fake Ollama over real HTTP."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fake_ollama import fake_ollama_in_thread

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.models.base import ModelUnavailable
from cognivault.models.embedded import EmbeddedProvider
from cognivault.models.ollama_embed import OllamaEmbedder, split_windows
from cognivault.models.registry import describe_providers, make_embedding_provider


@pytest.fixture
def fake():
    with fake_ollama_in_thread() as server:
        yield server


def test_batch_embedding_with_prefixes(fake) -> None:
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    vectors = embedder.embed_documents(["first passage", "second passage"])
    assert vectors.shape == (2, fake.embedding_dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sent = fake.embeddings()[-1]
    assert sent["input"] == ["title: none | text: first passage", "title: none | text: second passage"]
    assert sent["truncate"] is False
    query = embedder.embed_query("what is a passage")
    assert fake.embeddings()[-1]["input"] == ["task: search result | query: what is a passage"]
    assert query.shape == (fake.embedding_dimension,)
    assert embedder.model_id == "ollama:embeddinggemma" and embedder.languages is None


def test_long_text_is_windowed_never_truncated(fake) -> None:
    fake.context_length = 100  # 300 characters at our conservative 3 characters per token
    embedder = OllamaEmbedder(fake.url, "embeddinggemma")
    text = "photosynthesis " * 100  # 1,500 characters
    vector = embedder.embed_documents([text])[0]
    windows = fake.embeddings()[-1]["input"]
    assert len(windows) > 4
    assert all(len(window) <= 300 for window in windows)
    covered = "".join(w.removeprefix("title: none | text: ") for w in windows)
    assert set(text.split()) <= set(covered.split())
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_split_windows_cover_the_text() -> None:
    text = "abcdefghij" * 10
    windows = split_windows(text, 30, 5)
    assert windows[0] == text[:30] and text.endswith(windows[-1][-5:])
    assert split_windows("short", 30, 5) == ["short"]


def test_missing_model_names_the_pull_command(fake) -> None:
    with pytest.raises(ModelUnavailable, match="ollama pull nomic-embed-text"):
        OllamaEmbedder(fake.url, "nomic-embed-text").embed_documents(["x"])


def test_stopped_server_names_ollama_serve() -> None:
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        OllamaEmbedder("http://127.0.0.1:9", "embeddinggemma", timeout_s=2).embed_documents(["x"])


@pytest.mark.parametrize("host", ["http://10.0.0.5:11434", "http://example.com", "http://0.0.0.0:11434",
                                  "http://169.254.169.254"])
def test_remote_hosts_are_refused_unless_allowed(host: str) -> None:
    with pytest.raises(ModelUnavailable, match="allow"):
        OllamaEmbedder(host, "embeddinggemma")
    assert OllamaEmbedder(host, "embeddinggemma", allow_remote=True).host


@pytest.mark.parametrize("host", ["http://127.0.0.1:11434", "http://[::1]:11434", "http://localhost:11434"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert OllamaEmbedder(host, "embeddinggemma").host


def test_auto_prefers_ollama_when_it_has_the_model(fake, tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {"models": {"ollama_host": fake.url}})
    assert make_embedding_provider(settings).model_id == "ollama:embeddinggemma"
    fake.models.remove("embeddinggemma")
    assert isinstance(make_embedding_provider(settings), EmbeddedProvider)


def test_auto_falls_back_to_embedded_when_ollama_is_down(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {"models": {"ollama_host": "http://127.0.0.1:9"}})
    assert isinstance(make_embedding_provider(settings), EmbeddedProvider)
    forced = load_settings(tmp_path, {"models": {"ollama_host": "http://127.0.0.1:9"},
                                      "embedding": {"provider": "ollama"}})
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        make_embedding_provider(forced).embed_documents(["x"])


def test_doctor_report_names_fixes(fake, tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {"models": {"ollama_host": fake.url, "chat_model": "gemma4:e4b"},
                                        "embedding": {"ollama_model": "nomic-embed-text"}})
    report = describe_providers(settings)
    assert report["ollama"]["reachable"] is True and report["ollama"]["loopback"] is True
    assert report["ollama"]["embedding_model"]["fix"] == "ollama pull nomic-embed-text"
    assert report["ollama"]["chat_model"]["pulled"] is True
    assert report["active_embedding_model"].startswith("embedded:")


def _vault(root: Path) -> Path:
    for number in range(6):
        note = root / f"Notes/Topic {number}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Topic {number}\n\n## Part A\n\n" + f"Topic {number} part A explains leaves. " * 6
                        + f"\n\n## Part B\n\n" + f"Topic {number} part B explains roots and water. " * 6, "utf-8")
    return root


def test_incremental_embedding_model_switch_and_restart(fake, tmp_path: Path) -> None:
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
