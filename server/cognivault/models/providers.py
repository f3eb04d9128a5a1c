"""The chat and embedding providers a setting can name, listed once.

``models.chat_provider`` and ``embedding.provider`` take a name from here; the config
check, ``vault_schema/config.schema.json`` (``scripts/make_config_schema.py``), the CLI's
``--chat-provider`` choices, the companion's request schema and the language server's
``chatProvider`` all read these tables, so a provider added here is offered everywhere.

A chat provider is a module with a ``from_settings(settings, model, embedder)`` function
(``model`` overrides the configured model, ``embedder`` is the index's embedding model) and
one entry in :data:`CHAT_PROVIDERS`. This module imports none of them: a provider's module
(and its libraries) is imported only when it is built.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ProviderEntry:
    """A provider by the name settings give it: what it is, and the function that builds it."""

    name: str
    summary: str  # for the settings schema: "extractive (no LLM)"
    factory: str  # "module:function", imported when the provider is built

    def build(self, *args: Any) -> Any:
        module, _, function = self.factory.partition(":")
        return getattr(importlib.import_module(module), function)(*args)


def _table(*entries: ProviderEntry) -> dict[str, ProviderEntry]:
    return {entry.name: entry for entry in entries}


CHAT_PROVIDERS = _table(
    ProviderEntry("ollama", "ollama", "cognivault.models.ollama_chat:from_settings"),
    ProviderEntry("extractive", "extractive (no LLM)", "cognivault.models.extractive_chat:from_settings"),
    ProviderEntry("llamacpp", "llamacpp", "cognivault.models.llamacpp_chat:from_settings"),
)
# "auto": Ollama when it answers, else the extractive answerer (models.chat.resolve_chat_provider)
CHAT_PROVIDER_CHOICES = ("auto", *CHAT_PROVIDERS)

EMBEDDING_PROVIDERS = _table(
    ProviderEntry("embedded", "embedded", "cognivault.models.registry:embedded_provider"),
    ProviderEntry("ollama", "ollama", "cognivault.models.registry:checked_ollama_embedder"),
)
# "auto": Ollama when it serves the model, else embedded (models.registry); "none": keyword search only
EMBEDDING_PROVIDER_CHOICES = ("auto", *EMBEDDING_PROVIDERS, "none")
