"""Choosing the embedding model: Ollama when the user runs it, the offline embedded model otherwise.

``embedding.provider``:

- ``"ollama"``: :class:`OllamaEmbedder` on ``models.ollama_host`` (loopback only
  unless ``models.allow_remote_model_host``). Checked at once (``/api/show``), so
  a stopped server or a missing model raises :class:`ModelUnavailable` naming
  ``ollama serve`` / ``ollama pull <model>`` instead of failing later.
- ``"embedded"``: the in-process :class:`EmbeddedProvider` (installed as
  :func:`cognivault.extras.install_hint` says).
- ``"none"``: no model; search, related notes and completion use keywords only
  (:func:`make_embedding_provider` raises :class:`ModelUnavailable` saying so).
- ``"auto"`` (default): Ollama when a fast probe (``GET /api/tags``: 300 ms to connect, 3 s to answer) on an
  allowed host answers and lists the embedding model, else embedded. A caller
  that already has an index can pass ``prefer_model_id`` (the index's model id)
  so that ``auto`` keeps using that model while it is available, instead of
  re-embedding the vault because Ollama happens to be up (or down) today.

Vectors of different models never mix: the index keys its vectors by ``model_id``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cognivault.config import Settings
from cognivault.extras import install_hint
from cognivault.models.base import EmbeddingProvider, ModelUnavailable
from cognivault.models.embedded import INSTALL_HINT, EmbeddedProvider, embedded_status
from cognivault.models.hostpolicy import check_model_host, is_loopback_host, parse_host
from cognivault.models.ollama_embed import (
    PROBE_TIMEOUT_S,
    OllamaEmbedder,
    OllamaProbe,
    model_is_listed,
    normalize_model_name,
    probe_ollama,
)
from cognivault.models.providers import EMBEDDING_PROVIDER_CHOICES, EMBEDDING_PROVIDERS


@dataclass
class _OllamaView:
    """What one look at the configured Ollama found (host policy + probe)."""

    host: str
    base_url: str | None = None
    refused: str | None = None
    probe: OllamaProbe | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def reachable(self) -> bool:
        return self.probe is not None and self.probe.reachable

    def has(self, model: str) -> bool:
        probe = self.probe
        return probe is not None and probe.reachable and model_is_listed(model, probe.models)


def _look_at_ollama(settings: Settings, timeout_s: float = PROBE_TIMEOUT_S) -> _OllamaView:
    models = settings.models
    view = _OllamaView(host=models.ollama_host)
    try:
        view.base_url = check_model_host(models.ollama_host, models.allow_remote_model_host)
    except ModelUnavailable as exc:
        view.refused = str(exc)
        return view
    view.probe = probe_ollama(view.base_url, timeout_s)
    return view


def _ollama_embedder(settings: Settings) -> OllamaEmbedder:
    models = settings.models
    return OllamaEmbedder(
        models.ollama_host, settings.embedding.ollama_model,
        allow_remote=models.allow_remote_model_host, timeout_s=models.request_timeout_s,
        batch_size=settings.embedding.batch_size,
    )


def embedded_provider(settings: Settings) -> EmbeddedProvider:
    """``embedding.provider = "embedded"``: the in-process model ``embedding.embedded_model``."""
    return EmbeddedProvider(settings.embedding.embedded_model)


def checked_ollama_embedder(settings: Settings) -> OllamaEmbedder:
    """``embedding.provider = "ollama"``: the Ollama model, checked at once (a stopped server fails here)."""
    embedder = _ollama_embedder(settings)
    embedder.check()
    return embedder


def make_embedding_provider(settings: Settings, *, prefer_model_id: str | None = None) -> EmbeddingProvider:
    """The embedding provider ``settings.embedding.provider`` asks for; raises :class:`ModelUnavailable`."""
    provider, _ = _choose(settings, prefer_model_id=prefer_model_id)
    return provider


def _choose(settings: Settings, *, prefer_model_id: str | None = None,
            view: _OllamaView | None = None) -> tuple[EmbeddingProvider, str]:
    choice = settings.embedding.provider
    if choice == "none":
        raise ModelUnavailable("embedding.provider = none: no embedding model, keyword search only")
    if choice in EMBEDDING_PROVIDERS:
        return EMBEDDING_PROVIDERS[choice].build(settings), f"embedding.provider = {choice}"
    if choice != "auto":
        raise ModelUnavailable(f"unknown embedding.provider {choice!r}: use "
                               f"{', '.join(EMBEDDING_PROVIDER_CHOICES)}")

    ollama_id = f"ollama:{normalize_model_name(settings.embedding.ollama_model)}"
    embedded_error: ModelUnavailable | None = None
    if prefer_model_id and prefer_model_id.startswith("embedded:"):
        try:
            embedded = embedded_provider(settings)
            if embedded.model_id == prefer_model_id:
                return embedded, "auto: the index was built with this embedded model"
        except ModelUnavailable as exc:
            embedded_error = exc
    view = view or _look_at_ollama(settings)
    why_not_ollama = view.refused or (view.probe.error if view.probe and view.probe.error else None)
    if view.has(settings.embedding.ollama_model):
        try:
            embedder = _ollama_embedder(settings)
            embedder.check()
            reason = "auto: Ollama answers and has the model"
            if prefer_model_id and prefer_model_id == ollama_id:
                reason = "auto: the index was built with this Ollama model"
            return embedder, reason
        except ModelUnavailable as exc:
            why_not_ollama = str(exc)
    elif view.reachable:
        model = settings.embedding.ollama_model
        why_not_ollama = f"Ollama has no {model!r} (`ollama pull {model}`)"
    try:
        return embedded_provider(settings), f"auto: embedded model ({why_not_ollama or 'Ollama not available'})"
    except ModelUnavailable as exc:
        embedded_error = exc
    model = settings.embedding.ollama_model
    raise ModelUnavailable(
        "no embedding model is available: either start Ollama (`ollama serve`) and "
        f"`ollama pull {model}`, or install the offline model: {INSTALL_HINT}. "
        f"(Ollama: {why_not_ollama or 'not available'}; embedded: {embedded_error})"
    )


def describe_gguf(gguf_path: str) -> dict[str, Any]:
    """For ``cognivault doctor``: the llama.cpp model file (``models.gguf_path``) and whether it can run."""
    installed = importlib.util.find_spec("llama_cpp") is not None
    report: dict[str, Any] = {"gguf_path": gguf_path, "installed": installed}
    fixes = [] if installed else [install_hint("llamacpp")]
    if not gguf_path:
        fixes.append("set models.gguf_path to a .gguf file to use chat_provider = llamacpp")
    else:
        path = Path(gguf_path).expanduser()
        report["exists"] = path.is_file()
        if path.is_file():
            report["size_mb"] = round(path.stat().st_size / 1e6, 1)
        else:
            fixes.append(f"no file at {path}: set models.gguf_path to the path of a .gguf file")
    if fixes:
        report["fix"] = "; ".join(fixes)
    return report


def describe_providers(settings: Settings) -> dict[str, Any]:
    """For ``cognivault doctor``: what Ollama and the embedded model offer here, and which is chosen."""
    models = settings.models
    view = _look_at_ollama(settings)
    ollama_report: dict[str, Any] = {"host": models.ollama_host,
                                     "allow_remote_model_host": models.allow_remote_model_host}
    if view.refused:
        ollama_report["refused"] = view.refused
        ollama_report["reachable"] = False
    else:
        assert view.base_url is not None and view.probe is not None
        ollama_report["url"] = view.base_url
        ollama_report["loopback"] = is_loopback_host(parse_host(view.base_url)[1])
        ollama_report["reachable"] = view.probe.reachable
        if not view.probe.reachable:
            ollama_report["error"] = view.probe.error
            ollama_report["fix"] = "start Ollama with `ollama serve`"
        else:
            ollama_report["models"] = sorted(view.probe.models)
            for role, model in (("embedding_model", settings.embedding.ollama_model),
                                ("chat_model", models.chat_model)):
                present = model_is_listed(model, view.probe.models)
                ollama_report[role] = {"name": model, "pulled": present,
                                       **({} if present else {"fix": f"ollama pull {model}"})}
    report: dict[str, Any] = {
        "embedding_provider": settings.embedding.provider,
        "chat_provider": models.chat_provider,
        "ollama": ollama_report,
        "embedded": embedded_status(settings.embedding.embedded_model),
        "llamacpp": describe_gguf(models.gguf_path),
    }
    try:
        provider, reason = _choose(settings, view=view)
    except ModelUnavailable as exc:
        report["active_embedding_model"] = None
        report["embedding_error"] = str(exc)
    else:
        report["active_embedding_model"] = provider.model_id
        report["reason"] = reason
        if isinstance(provider, OllamaEmbedder):
            info = provider.check()
            ollama_report["embedding_model"] = {**ollama_report.get("embedding_model", {}),
                                                "context_length": info.context_length,
                                                "dimension": info.dimension}
    return report
