"""Settings: defaults, config file, environment, overrides, errors, and the published JSON Schema."""

import json
import os
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


# -- issue 13 ----------------------------------------------------------------------------------
def _vault_config(vault: Path, text: str) -> None:
    (vault / ".cognivault").mkdir(exist_ok=True)
    (vault / ".cognivault" / "config.toml").write_text(text, "utf-8")


def test_a_vault_cannot_allow_a_remote_model_host_for_its_user(tmp_path: Path, caplog) -> None:
    _vault_config(tmp_path, '[models]\nallow_remote_model_host = true\nollama_host = "http://10.0.0.5:11434"\n')
    with caplog.at_level("WARNING", logger="cognivault.config"):
        settings = load_settings(tmp_path, environ={})
    assert settings.models.allow_remote_model_host is False
    assert settings.models.ollama_host == "http://10.0.0.5:11434"  # refused later by the host policy
    assert any("allow_remote_model_host" in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)


def test_the_users_own_config_may_allow_it(tmp_path: Path) -> None:
    from cognivault.config import user_config_file

    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text("[models]\nallow_remote_model_host = true\n", "utf-8")
    assert str(user_config_file()).startswith(os.environ["XDG_CONFIG_HOME"])
    vault = tmp_path / "vault"
    vault.mkdir()
    assert load_settings(vault, environ={}).models.allow_remote_model_host is True
    _vault_config(vault, "[models]\nallow_remote_model_host = false\n")  # nor can a vault take it away
    assert load_settings(vault, environ={}).models.allow_remote_model_host is True


@pytest.mark.parametrize(("section", "key", "value"), [("models", "gguf_path", "models/shipped.gguf"),
                                                       ("index", "whisper_model_dir", "models/whisper")])
def test_a_vault_cannot_name_a_model_file_for_its_user_to_load(tmp_path: Path, caplog, section: str, key: str,
                                                               value: str) -> None:
    """Issue 28: a shared vault could make us load a model file it ships; only the user's own config names one."""
    from cognivault.config import user_config_file

    vault = tmp_path / "vault"
    vault.mkdir()
    _vault_config(vault, f'[{section}]\n{key} = "{value}"\n')
    with caplog.at_level("WARNING", logger="cognivault.config"):
        settings = load_settings(vault, environ={})
    assert getattr(getattr(settings, section), key) == ""
    assert any(f"{section}.{key}" in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)
    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text(f'[{section}]\n{key} = "/home/me/{key}"\n', "utf-8")
    assert getattr(getattr(load_settings(vault, environ={}), section), key) == f"/home/me/{key}"


def test_the_refusal_of_a_remote_host_says_where_the_setting_counts() -> None:
    """Issue 28: it said to set allow_remote_model_host in the vault's config, where it is ignored."""
    from cognivault.config import user_config_file
    from cognivault.errors import display_path
    from cognivault.models.base import ModelUnavailable
    from cognivault.models.hostpolicy import check_model_host

    with pytest.raises(ModelUnavailable) as refused:
        check_model_host("http://10.0.0.5:11434", allow_remote=False)
    message = str(refused.value)
    assert display_path(user_config_file()) in message and "<vault>/.cognivault/config.toml" not in message


@pytest.mark.parametrize("content", [bytes(range(256)) * 4, b"\xff\xfe[models]\n", b"\x00" * 64])
def test_a_config_file_of_random_bytes_is_a_one_line_error(tmp_path: Path, content: bytes) -> None:
    (tmp_path / ".cognivault").mkdir()
    (tmp_path / ".cognivault" / "config.toml").write_bytes(content)
    with pytest.raises(ConfigError) as error:
        load_settings(tmp_path, environ={})
    assert "config.toml" in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("folder", ["/home/someone/.ssh", "../../elsewhere", "~/x"])
def test_a_vault_cannot_put_its_index_outside_itself(tmp_path: Path, folder: str, caplog) -> None:
    _vault_config(tmp_path, f'[index]\nindex_dir = "{folder}"\n')
    with caplog.at_level("WARNING", logger="cognivault.config"):
        settings = load_settings(tmp_path, environ={})
    assert settings.index.index_dir == ""  # the per-user cache, as if unset
    assert any("index.index_dir" in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)
    _vault_config(tmp_path, '[index]\nindex_dir = ".index"\n')  # inside the vault: the vault may
    assert load_settings(tmp_path, environ={}).index.index_dir == ".index"
    assert load_settings(tmp_path, {"index": {"index_dir": folder}}, environ={}).index.index_dir == folder


def test_a_vault_cannot_put_its_index_outside_itself_through_a_symlink(tmp_path: Path, caplog) -> None:
    vault, elsewhere = tmp_path / "vault", tmp_path / "elsewhere"
    vault.mkdir()
    elsewhere.mkdir()
    (vault / "index-link").symlink_to(elsewhere, target_is_directory=True)
    _vault_config(vault, '[index]\nindex_dir = "index-link/idx"\n')
    with caplog.at_level("WARNING", logger="cognivault.config"):
        assert load_settings(vault, environ={}).index.index_dir == ""
    assert any("index.index_dir" in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)
