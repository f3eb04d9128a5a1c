"""Typed settings for one vault, with documented defaults.

Sources, later ones winning: built-in defaults, the user's own
``$XDG_CONFIG_HOME/cognivault/config.toml``, ``<vault>/.cognivault/config.toml``,
environment variables ``COGNIVAULT_<SECTION>_<KEY>`` (for example
``COGNIVAULT_EMBEDDING_PROVIDER=embedded``), then explicit overrides from a
front end (LSP initialization options, CLI flags). The JSON Schema of the file
is ``vault_schema/config.schema.json``.

A vault travels (sync, git, a shared folder), so what a vault's own file may
say is limited: settings that decide where questions may go
(``models.allow_remote_model_host``) or which model files are loaded
(``models.gguf_path``, ``index.whisper_model_dir``) are read only from the user's own file,
the environment or a front end, and so is an index folder outside the vault
(``index.index_dir``); a vault file that sets one gets a warning that it was
ignored. Settings naming a folder inside the vault
(``study.folder``, ``url_import.folder``) must be vault-relative paths without
``..``: the one path guard of :mod:`cognivault.vault.guard` checks them here.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import platformdirs

from cognivault.errors import CogniVaultError, display_path
from cognivault.models.providers import CHAT_PROVIDER_CHOICES, EMBEDDING_PROVIDER_CHOICES
from cognivault.vault.guard import VaultPathError, clean_relative, inside_vault

log = logging.getLogger(__name__)


class ConfigError(CogniVaultError, ValueError):
    """A setting has a value of the wrong type or outside its allowed set, or a config file is unreadable."""

    code = "bad_config"


@dataclass
class EmbeddingSettings:
    provider: str = "auto"  # auto | embedded | ollama | none (no model: keyword search only)
    ollama_model: str = "embeddinggemma"
    embedded_model: str = "all-MiniLM-L6-v2"
    batch_size: int = 32
    multilingual: bool = True  # the German meaning side (extra `multilingual`, index/multilingual.py)


@dataclass
class ModelSettings:
    ollama_host: str = "http://127.0.0.1:11434"
    allow_remote_model_host: bool = False
    chat_provider: str = "auto"  # auto or a name in models.providers.CHAT_PROVIDERS
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


# Settings only the user's own config (or environment, or a front end) may set: never a vault's file.
# A model file a vault names would be loaded by the user's machine: a shared vault could ship one.
USER_ONLY = frozenset({("models", "allow_remote_model_host"), ("models", "gguf_path"),
                       ("index", "whisper_model_dir")})
# A vault's own file may put the index only inside the vault; elsewhere is for the user's config to say.
INDEX_INSIDE = frozenset({("index", "index_dir")})
# Settings that name a folder inside the vault.
VAULT_FOLDERS = frozenset({("study", "folder"), ("url_import", "folder")})

_CHOICES = {
    ("embedding", "provider"): frozenset(EMBEDDING_PROVIDER_CHOICES),
    ("models", "chat_provider"): frozenset(CHAT_PROVIDER_CHOICES),
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
    if (section, key) in VAULT_FOLDERS:
        try:
            clean_relative(coerced, f"{section}.{key}", allow_root=True)
        except VaultPathError as exc:
            raise ConfigError(f"{exc} (got {coerced!r})") from None
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
        factory = section.default_factory
        if factory is dataclasses.MISSING:  # every section has a factory; a plain value is no section
            continue
        for key in dataclasses.fields(factory()):
            name = f"COGNIVAULT_{section.name}_{key.name}".upper()
            if name in environ:
                found.setdefault(section.name, {})[key.name] = environ[name]
    return found


def config_file(vault: Path) -> Path:
    return vault / ".cognivault" / "config.toml"


def user_config_file() -> Path:
    """The user's own settings for every vault (``$XDG_CONFIG_HOME/cognivault/config.toml``)."""
    return Path(platformdirs.user_config_dir("cognivault", appauthor=False)) / "config.toml"


def _read_config_file(path: Path) -> dict[str, Any]:
    """The tables of a TOML config file ({} when there is none); unreadable or malformed: ConfigError."""
    try:
        if not path.is_file():
            return {}
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{display_path(path)}: not a text file (TOML must be UTF-8)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display_path(path)}: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{display_path(path)}: cannot read it ({exc.strerror or exc})") from None


def _vault_file_tables(tables: dict[str, Any], vault: Path, path: Path) -> dict[str, Any]:
    """A vault file's tables minus what a vault may not decide for its user (each with a warning): the
    settings only the user's own config may set, and an index folder outside the vault (also through a
    symlink inside it, since the index is written where the link points)."""
    kept = dict(tables)
    for section, key in USER_ONLY | INDEX_INSIDE:
        values = kept.get(section)
        if not isinstance(values, dict) or key not in values:
            continue
        if (section, key) in INDEX_INSIDE:
            try:
                inside_vault(vault, values[key], f"{section}.{key}", allow_root=True)
                continue
            except VaultPathError:
                pass
        kept[section] = {k: v for k, v in values.items() if k != key}
        log.warning("%s sets %s.%s%s, which is ignored there: a vault's settings travel with it; set it in "
                    "your own %s instead", display_path(path), section, key,
                    " to a folder outside the vault" if (section, key) in INDEX_INSIDE else "",
                    display_path(user_config_file()))
    return kept


def load_settings(vault: Path, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Settings for ``vault`` from the user's config file, the vault's, the environment and ``overrides``."""
    settings = Settings()
    apply_overrides(settings, _read_config_file(user_config_file()))
    path = config_file(vault)
    apply_overrides(settings, _vault_file_tables(_read_config_file(path), vault, path))
    apply_overrides(settings, _env_overrides(dict(os.environ if environ is None else environ)))
    if overrides:
        apply_overrides(settings, overrides)
    return settings
