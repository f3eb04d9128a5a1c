"""The language server's settings: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

Both carry the same object (documented by ``vault_schema/lsp-settings.schema.json``),
either at the top level or under a ``"cognivault"`` key (how editors group
settings per extension)::

    {"vault": "/path/to/vault",            # default: the workspace root
     "embeddings": false,                  # keyword search only, no embedding model
     "embedding": {"provider": "ollama"},  # any section of the vault config file
     "models": {...}, "index": {...}, "study": {"folder": "Study"},
     "search": {"mode": "hybrid", "k": 10, "scope": ["folder:Biology"]},
     "diagnostics": {"enabled": true, "debounceMs": 250},
     "codeLens": {"enabled": true},
     "completion": {"maxItems": 100},
     "indexing": {"onStart": true, "debounceMs": 300}}
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from cognivault.config import ConfigError, Settings, apply_overrides

CONFIG_SECTIONS = ("embedding", "models", "index", "study")
SEARCH_MODES = ("hybrid", "lexical", "dense")


@dataclass
class LspOptions:
    vault: str | None = None
    embeddings: bool = True
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # vault config overrides
    search_mode: str = "hybrid"
    search_k: int = 10
    search_scope: list[str] = field(default_factory=list)
    diagnostics: bool = True
    diagnostics_debounce_ms: int = 250
    code_lens: bool = True
    completion_max_items: int = 100
    index_on_start: bool = True
    debounce_ms: int = 300

    def engine_key(self) -> tuple[object, ...]:
        """What the engine is built from: a change here needs a server restart."""
        return (self.vault, self.embeddings, repr(sorted((k, sorted(v.items())) for k, v in self.settings.items()
                                                         if k in ("embedding", "index"))))


def _unwrap(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    merged = {k: v for k, v in raw.items() if k != "cognivault"}
    inner = raw.get("cognivault")
    if isinstance(inner, dict):
        merged.update(inner)
    return merged


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError(f"{name}: expected true or false, got {value!r}")


def _int(value: Any, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return value


def parse_options(raw: Any, base: LspOptions | None = None) -> tuple[LspOptions, list[str]]:
    """Options from a settings object; returns them and the problems found (bad values are skipped)."""
    options = copy.deepcopy(base) if base is not None else LspOptions()
    problems: list[str] = []
    data = _unwrap(raw)

    def attempt(action) -> None:
        try:
            action()
        except ConfigError as exc:
            problems.append(str(exc))

    if "vault" in data:
        def set_vault() -> None:
            if data["vault"] is not None and not isinstance(data["vault"], str):
                raise ConfigError(f"vault: expected a folder path, got {data['vault']!r}")
            options.vault = data["vault"] or None
        attempt(set_vault)
    if "embeddings" in data:
        attempt(lambda: setattr(options, "embeddings", _bool(data["embeddings"], "embeddings")))
    for section in CONFIG_SECTIONS:
        values = data.get(section)
        if values is None:
            continue
        if not isinstance(values, dict):
            problems.append(f"{section}: expected an object")
            continue
        values = dict(values)
        if section == "embedding" and str(values.get("provider", "")).lower() in ("none", "off", "disabled"):
            values["provider"] = "none"  # a config value like any other; "off" and "disabled" say the same
            options.embeddings = False
        candidate = {**options.settings.get(section, {}), **values}

        def check(section: str = section, candidate: dict[str, Any] = candidate) -> None:
            apply_overrides(Settings(), {section: candidate})  # validates types and choices
            options.settings[section] = candidate
        attempt(check)
    search = data.get("search")
    if isinstance(search, dict):
        if "mode" in search:
            def set_mode() -> None:
                if search["mode"] not in SEARCH_MODES:
                    raise ConfigError(f"search.mode: {search['mode']!r} is not one of {list(SEARCH_MODES)}")
                options.search_mode = search["mode"]
            attempt(set_mode)
        if "k" in search:
            attempt(lambda: setattr(options, "search_k", _int(search["k"], "search.k", 1)))
        if "scope" in search:
            def set_scope() -> None:
                scope = search["scope"]
                if isinstance(scope, str):
                    scope = [scope]
                if not isinstance(scope, list) or not all(isinstance(s, str) for s in scope):
                    raise ConfigError("search.scope: expected a list like [\"folder:Biology\", \"tag:exam\"]")
                options.search_scope = list(scope)
            attempt(set_scope)
    diagnostics = data.get("diagnostics")
    if isinstance(diagnostics, dict):
        if "enabled" in diagnostics:
            attempt(lambda: setattr(options, "diagnostics", _bool(diagnostics["enabled"], "diagnostics.enabled")))
        if "debounceMs" in diagnostics:
            attempt(lambda: setattr(options, "diagnostics_debounce_ms",
                                    _int(diagnostics["debounceMs"], "diagnostics.debounceMs")))
    lens = data.get("codeLens")
    if isinstance(lens, dict) and "enabled" in lens:
        attempt(lambda: setattr(options, "code_lens", _bool(lens["enabled"], "codeLens.enabled")))
    completion = data.get("completion")
    if isinstance(completion, dict) and "maxItems" in completion:
        attempt(lambda: setattr(options, "completion_max_items",
                                _int(completion["maxItems"], "completion.maxItems", 1)))
    indexing = data.get("indexing")
    if isinstance(indexing, dict):
        if "onStart" in indexing:
            attempt(lambda: setattr(options, "index_on_start", _bool(indexing["onStart"], "indexing.onStart")))
        if "debounceMs" in indexing:
            attempt(lambda: setattr(options, "debounce_ms", _int(indexing["debounceMs"], "indexing.debounceMs")))
    return options, problems
