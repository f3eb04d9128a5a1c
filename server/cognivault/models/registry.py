"""Choosing the embedding model: Ollama when the user runs it, the offline embedded model otherwise.

``embedding.provider = "auto"`` takes Ollama when it answers on its (loopback)
host within half a second and has the embedding model pulled, else the
in-process embedded model; ``"ollama"`` and ``"embedded"`` force one. Vectors
of different models never mix: the index keeps one FAISS file per model id.
"""

from __future__ import annotations

from typing import Any

import ollama

from cognivault.config import Settings
from cognivault.models.base import EmbeddingProvider, ModelUnavailable
from cognivault.models.embedded import EmbeddedProvider, embedded_status
from cognivault.models.hostpolicy import check_model_host, is_loopback_host, parse_host
from cognivault.models.ollama_embed import OllamaEmbedder

PROBE_TIMEOUT_S = 0.5


def _ollama_models(host: str) -> list[str] | None:
    """Model names Ollama has pulled, or None when it does not answer quickly."""
    try:
        return [m.model for m in ollama.Client(host=host, timeout=PROBE_TIMEOUT_S).list().models
                if m.model]
    except Exception:  # noqa: BLE001 - down, refused, timed out: all mean "not available now"
        return None


def _has_model(names: list[str], model: str) -> bool:
    return model in names or f"{model}:latest" in names


def make_embedding_provider(settings: Settings) -> EmbeddingProvider:
    choice = settings.embedding.provider
    models = settings.models
    if choice in ("ollama", "auto"):
        try:
            embedder = OllamaEmbedder(models.ollama_host, settings.embedding.ollama_model,
                                      allow_remote=models.allow_remote_model_host,
                                      timeout_s=models.request_timeout_s)
        except ModelUnavailable:
            if choice == "ollama":
                raise
        else:
            if choice == "ollama":
                return embedder
            names = _ollama_models(embedder.host)
            if names is not None and _has_model(names, settings.embedding.ollama_model):
                return embedder
    return EmbeddedProvider(settings.embedding.embedded_model)


def describe_providers(settings: Settings) -> dict[str, Any]:
    """For ``cognivault doctor``: what Ollama and the embedded model offer here, and which is chosen."""
    models = settings.models
    ollama_report: dict[str, Any] = {"host": models.ollama_host}
    try:
        host = check_model_host(models.ollama_host, models.allow_remote_model_host)
    except ModelUnavailable as exc:
        ollama_report["refused"] = str(exc)
    else:
        ollama_report["loopback"] = is_loopback_host(parse_host(host)[1])
        names = _ollama_models(host)
        ollama_report["reachable"] = names is not None
        if names is None:
            ollama_report["fix"] = "start Ollama with `ollama serve`"
        else:
            ollama_report["models"] = names
            for role, model in (("embedding_model", settings.embedding.ollama_model),
                                ("chat_model", models.chat_model)):
                present = _has_model(names, model)
                ollama_report[role] = {"name": model, "pulled": present,
                                       **({} if present else {"fix": f"ollama pull {model}"})}
    report: dict[str, Any] = {"ollama": ollama_report,
                              "embedded": embedded_status(settings.embedding.embedded_model)}
    try:
        report["active_embedding_model"] = make_embedding_provider(settings).model_id
    except ModelUnavailable as exc:
        report["active_embedding_model"] = None
        report["embedding_error"] = str(exc)
    return report
