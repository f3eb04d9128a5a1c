"""Settings: defaults, config file, environment, overrides, errors, and the published JSON Schema."""

import json
from pathlib import Path

import pytest

from cognivault.config import ConfigError, Settings, load_settings

SCHEMA = Path(__file__).resolve().parents[1] / "vault_schema" / "config.schema.json"


def test_defaults_without_file(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, environ={})
    assert settings.embedding.provider == "auto"
    assert settings.study.folder == "Study"


def test_file_env_and_overrides_in_order(tmp_path: Path) -> None:
    (tmp_path / ".cognivault").mkdir()
    (tmp_path / ".cognivault" / "config.toml").write_text(
        '[embedding]\nprovider = "ollama"\n[index]\nmax_file_mb = 5\n', "utf-8")
    settings = load_settings(tmp_path, {"index": {"max_file_mb": 7}},
                             environ={"COGNIVAULT_EMBEDDING_PROVIDER": "embedded",
                                      "COGNIVAULT_MODELS_ALLOW_REMOTE_MODEL_HOST": "yes"})
    assert settings.embedding.provider == "embedded"
    assert settings.index.max_file_mb == 7.0
    assert settings.models.allow_remote_model_host is True


@pytest.mark.parametrize("overrides", [
    {"embedding": {"provider": "cloud"}},
    {"index": {"max_file_mb": "lots"}},
    {"index": {"no_such_key": 1}},
    {"nosection": {}},
    {"models": {"allow_remote_model_host": "maybe"}},
])
def test_bad_values_are_clear_errors(tmp_path: Path, overrides: dict) -> None:
    with pytest.raises(ConfigError):
        load_settings(tmp_path, overrides, environ={})


def test_broken_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".cognivault").mkdir()
    (tmp_path / ".cognivault" / "config.toml").write_text("[embedding\n", "utf-8")
    with pytest.raises(ConfigError, match="config.toml"):
        load_settings(tmp_path, environ={})


def test_schema_matches_settings() -> None:
    """The committed schema is what scripts/make_config_schema.py writes from the dataclasses."""
    schema = json.loads(SCHEMA.read_text("utf-8"))
    defaults = Settings().to_dict()
    assert set(schema["properties"]) == set(defaults)
    for section, values in defaults.items():
        properties = schema["properties"][section]["properties"]
        assert set(properties) == set(values)
        for key, value in values.items():
            assert properties[key]["default"] == value
