"""The study kinds, providers and attachment formats are listed once; every other list follows them.

Front ends take their choices from ``study.kinds``, ``models.providers`` and
``vault.extractors.FORMATS`` in code. What cannot import them (the committed settings
schema, the editors' manifests, the docs' tables) is checked against them here, so a kind
or a provider added to a registry and forgotten elsewhere fails this test.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path

import pytest

from cognivault.answer.request import DOCUMENT_SUFFIXES, IMAGE_SUFFIXES
from cognivault.config import ConfigError, load_settings
from cognivault.models.providers import (
    CHAT_PROVIDER_CHOICES,
    CHAT_PROVIDERS,
    EMBEDDING_PROVIDER_CHOICES,
    EMBEDDING_PROVIDERS,
)
from cognivault.study.kinds import KINDS, NOTE_KINDS, STUDY_KINDS
from cognivault.vault.extractors import FORMATS, suffixes_of

ROOT = Path(__file__).resolve().parents[1]


def test_every_registered_generator_and_provider_factory_imports() -> None:
    for kind in STUDY_KINDS.values():
        assert callable(kind.load()), kind.name
    for entry in (*CHAT_PROVIDERS.values(), *EMBEDDING_PROVIDERS.values()):
        module, _, function = entry.factory.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), entry.name


def test_settings_accept_exactly_the_registered_providers(tmp_path: Path) -> None:
    for name in CHAT_PROVIDER_CHOICES:
        assert load_settings(tmp_path, {"models": {"chat_provider": name}}, environ={}).models.chat_provider == name
    for name in EMBEDDING_PROVIDER_CHOICES:
        assert load_settings(tmp_path, {"embedding": {"provider": name}}, environ={}).embedding.provider == name
    with pytest.raises(ConfigError):
        load_settings(tmp_path, {"models": {"chat_provider": "psychic"}}, environ={})


def test_the_committed_settings_schema_lists_the_registered_providers() -> None:
    spec = importlib.util.spec_from_file_location("make_config_schema", ROOT / "scripts" / "make_config_schema.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    committed = json.loads((ROOT / "vault_schema" / "config.schema.json").read_text("utf-8"))
    assert committed == script.build_schema()  # run scripts/make_config_schema.py after changing a registry
    chat = committed["properties"]["models"]["properties"]["chat_provider"]
    assert chat["enum"] == sorted(CHAT_PROVIDER_CHOICES)
    assert committed["properties"]["embedding"]["properties"]["provider"]["enum"] == sorted(EMBEDDING_PROVIDER_CHOICES)


def test_the_command_line_offers_the_registered_kinds_and_providers() -> None:
    from cognivault.cli import build_parser

    parser = build_parser()
    generate = _subcommand(parser, "generate")
    assert _choices(generate, "kind") == list(KINDS)
    assert _choices(_subcommand(parser, "index"), "provider") == list(EMBEDDING_PROVIDER_CHOICES)
    for command in ("generate", "ask", "eval-answers"):
        assert _choices(_subcommand(parser, command), "chat_provider") == list(CHAT_PROVIDER_CHOICES), command


def test_the_docs_list_the_registered_names_and_the_vscode_manifest_no_other() -> None:
    manifest = json.loads((ROOT / "editor-clients" / "vscode" / "package.json").read_text("utf-8"))
    properties = manifest["contributes"]["configuration"]
    if isinstance(properties, list):
        properties = {k: v for part in properties for k, v in part["properties"].items()}
    else:
        properties = properties["properties"]
    # the editor may offer fewer (a provider it has no settings for yet), never one the server lacks
    assert set(properties["cognivault.models.chatProvider"]["enum"]) <= set(CHAT_PROVIDER_CHOICES)
    readme = (ROOT / "README.md").read_text("utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `models.chat_provider`"))
    assert set(re.findall(r"`(\w+)`", row.split("|")[3])) == set(CHAT_PROVIDER_CHOICES)
    lsp_doc = (ROOT / "docs" / "LSP.md").read_text("utf-8")
    generate_row = next(line for line in lsp_doc.splitlines() if line.startswith("| `cognivault/generate`"))
    listed = re.search(r"kind: ([\w\\|]+)", generate_row)
    assert listed is not None and listed.group(1).split("\\|") == list(NOTE_KINDS)


def test_ask_attachments_are_the_extractors_image_and_document_formats() -> None:
    assert IMAGE_SUFFIXES == {suffix for suffix, name in FORMATS.items() if name == "image"}
    assert DOCUMENT_SUFFIXES | IMAGE_SUFFIXES | suffixes_of("audio") == set(FORMATS)
    with pytest.raises(ValueError, match="videos"):
        suffixes_of("videos")


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError("no subcommands")


def _choices(parser: argparse.ArgumentParser, dest: str) -> list[str]:
    return next(list(action.choices) for action in parser._actions if action.dest == dest)
