"""Typed settings for one vault, with documented defaults.

Sources, later ones winning: built-in defaults, ``<vault>/.cognivault/config.toml``,
environment variables ``COGNIVAULT_<SECTION>_<KEY>`` (for example
``COGNIVAULT_EMBEDDING_PROVIDER=embedded``), then explicit overrides from a
front end (LSP initialization options, CLI flags). The JSON Schema of the file
is ``vault_schema/config.schema.json``.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints


class ConfigError(ValueError):
    """A setting has a value of the wrong type or outside its allowed set."""


@dataclass
class EmbeddingSettings:
    provider: str = "auto"  # auto | embedded | ollama | none (no model: keyword search only)
    ollama_model: str = "embeddinggemma"
    embedded_model: str = "all-MiniLM-L6-v2"
    batch_size: int = 32


@dataclass
class ModelSettings:
    ollama_host: str = "http://127.0.0.1:11434"
    allow_remote_model_host: bool = False
    chat_provider: str = "auto"  # auto | ollama | extractive | llamacpp
    chat_model: str = "gemma4:e4b"
    gguf_path: str = ""  # the GGUF file that chat_provider = "llamacpp" runs
    request_timeout_s: float = 120.0


@dataclass
class IndexSettings:
    index_dir: str = ""  # empty: the per-user cache dir, one folder per vault
    max_file_mb: float = 50.0
    extract_timeout_s: float = 120.0
    ocr_languages: str = "deu+eng"
    whisper_model_dir: str = ""
    chunk_chars: int = 1000
    chunk_overlap: int = 100


@dataclass
class StudySettings:
    folder: str = "Study"


@dataclass
class UrlImportSettings:
    """Saving web pages as notes: the one feature that goes to the network, so it is off by default."""

    enabled: bool = False
    folder: str = "Imported"
    max_mb: float = 5.0
    timeout_s: float = 20.0
    max_redirects: int = 5


@dataclass
class Settings:
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    study: StudySettings = field(default_factory=StudySettings)
    url_import: UrlImportSettings = field(default_factory=UrlImportSettings)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_CHOICES = {
    ("embedding", "provider"): {"auto", "embedded", "ollama", "none"},
    ("models", "chat_provider"): {"auto", "ollama", "extractive", "llamacpp"},
}


def _coerce(section: str, key: str, value: Any, kind: type) -> Any:
    if kind is bool and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
            raise ConfigError(f"{section}.{key}: expected true/false, got {value!r}")
        value = lowered in {"1", "true", "yes", "on"}
    try:
        coerced = kind(value) if not isinstance(value, kind) else value
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{section}.{key}: expected {kind.__name__}, got {value!r}") from exc
    choices = _CHOICES.get((section, key))
    if choices and coerced not in choices:
        raise ConfigError(f"{section}.{key}: {coerced!r} is not one of {sorted(choices)}")
    return coerced


def apply_overrides(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """Apply ``{"section": {"key": value}}`` onto ``settings`` with type checks; unknown keys are errors."""
    for section_name, values in overrides.items():
        section = getattr(settings, section_name, None)
        if section is None or not dataclasses.is_dataclass(section):
            raise ConfigError(f"unknown settings section {section_name!r}")
        if not isinstance(values, dict):
            raise ConfigError(f"settings section {section_name!r} must be a table")
        hints = get_type_hints(type(section))
        for key, value in values.items():
            if key not in hints:
                raise ConfigError(f"unknown setting {section_name}.{key}")
            setattr(section, key, _coerce(section_name, key, value, hints[key]))
    return settings


def _env_overrides(environ: dict[str, str]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for section in dataclasses.fields(Settings):
        for key in dataclasses.fields(section.default_factory()):  # type: ignore[misc]
            name = f"COGNIVAULT_{section.name}_{key.name}".upper()
            if name in environ:
                found.setdefault(section.name, {})[key.name] = environ[name]
    return found


def config_file(vault: Path) -> Path:
    return vault / ".cognivault" / "config.toml"


def load_settings(vault: Path, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Settings for ``vault`` from its config file, the environment and ``overrides``."""
    settings = Settings()
    path = config_file(vault)
    if path.is_file():
        try:
            apply_overrides(settings, tomllib.loads(path.read_text("utf-8")))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    apply_overrides(settings, _env_overrides(dict(os.environ if environ is None else environ)))
    if overrides:
        apply_overrides(settings, overrides)
    return settings
