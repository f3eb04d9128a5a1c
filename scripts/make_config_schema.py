"""Write vault_schema/config.schema.json from the settings dataclasses (run after changing config.py)."""

from __future__ import annotations

import dataclasses
import json
import typing
from pathlib import Path

from cognivault.config import _CHOICES, Settings
from cognivault.models.providers import CHAT_PROVIDERS, EMBEDDING_PROVIDERS

DESCRIPTIONS = {
    ("embedding", "provider"): "; ".join([
        "auto: Ollama when it runs on a loopback host with the model pulled, else the embedded model",
        *(entry.summary for entry in EMBEDDING_PROVIDERS.values()), "none: no model at all, keyword search only"]),
    ("embedding", "ollama_model"): "Ollama embedding model (ollama pull <name>)",
    ("embedding", "embedded_model"): "offline in-process embedding model (pip extra 'embedded')",
    ("embedding", "batch_size"): "texts per embedding call",
    ("embedding", "multilingual"): "a second meaning model for German queries (USE-multilingual v3, pip extra "
                                   "'multilingual'), filled after the main index; false: German is ranked "
                                   "by keywords alone",
    ("models", "ollama_host"): "Ollama base URL; must be a loopback host unless allow_remote_model_host is true",
    ("models", "allow_remote_model_host"): "allow an Ollama host that is not loopback (your notes then leave "
                                           "this machine)",
    ("models", "chat_provider"): "; ".join(["auto: Ollama when reachable, else extractive",
                                            *(entry.summary for entry in CHAT_PROVIDERS.values())]),
    ("models", "chat_model"): "Ollama chat model",
    ("models", "gguf_path"): "path of the GGUF model file that chat_provider = llamacpp runs (pip extra "
                             "'llamacpp'); read from your own config only, never a vault's",
    ("models", "request_timeout_s"): "seconds before a model request is abandoned with an error",
    ("index", "index_dir"): "where the index lives; empty: the per-user cache dir (never inside the vault by "
                            "default)",
    ("index", "max_file_mb"): "files larger than this are reported failed",
    ("index", "extract_timeout_s"): "time limit for reading one attachment",
    ("index", "ocr_languages"): "tesseract languages, '+'-separated; only installed ones are used",
    ("index", "whisper_model_dir"): "local faster-whisper model folder for audio transcription; read from your "
                                    "own config only, never a vault's",
    ("index", "chunk_chars"): "target passage length in characters",
    ("index", "chunk_overlap"): "characters shared by consecutive passages of a long section",
    ("study", "folder"): "vault folder that receives generated study notes",
    ("url_import", "enabled"): "allow saving web pages as notes (the one feature that uses the network)",
    ("url_import", "folder"): "vault folder that receives imported pages",
    ("url_import", "max_mb"): "largest page accepted, in MB",
    ("url_import", "timeout_s"): "seconds before an import is abandoned",
    ("url_import", "max_redirects"): "redirects followed (each one checked again)",
}
JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
TARGET = Path(__file__).resolve().parents[1] / "vault_schema" / "config.schema.json"


def build_schema() -> dict[str, object]:
    sections: dict[str, object] = {}
    defaults = Settings()
    for section in dataclasses.fields(Settings):
        values = getattr(defaults, section.name)
        hints = typing.get_type_hints(type(values))
        properties = {}
        for item in dataclasses.fields(values):
            entry: dict[str, object] = {"type": JSON_TYPES[hints[item.name]],
                                        "default": getattr(values, item.name),
                                        "description": DESCRIPTIONS[(section.name, item.name)]}
            if (section.name, item.name) in _CHOICES:
                entry["enum"] = sorted(_CHOICES[(section.name, item.name)])
            properties[item.name] = entry
        sections[section.name] = {"type": "object", "additionalProperties": False, "properties": properties}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "CogniVault settings (<vault>/.cognivault/config.toml)",
            "type": "object", "additionalProperties": False, "properties": sections}


if __name__ == "__main__":
    TARGET.write_text(json.dumps(build_schema(), indent=2) + "\n", "utf-8")
