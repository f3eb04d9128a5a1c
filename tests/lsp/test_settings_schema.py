"""vault_schema/lsp-settings.schema.json documents exactly what the server reads."""

from __future__ import annotations

import json
from pathlib import Path

from cognivault.lsp.options import LspOptions, parse_options

SCHEMA = Path(__file__).resolve().parents[2] / "vault_schema" / "lsp-settings.schema.json"


def _settings() -> dict:
    return json.loads(SCHEMA.read_text("utf-8"))["$defs"]["settings"]["properties"]


def test_defaults_match_the_server() -> None:
    props = _settings()
    defaults = LspOptions()
    assert props["embeddings"]["default"] is defaults.embeddings
    assert props["search"]["properties"]["mode"]["default"] == defaults.search_mode
    assert props["search"]["properties"]["k"]["default"] == defaults.search_k
    assert props["diagnostics"]["properties"]["enabled"]["default"] is defaults.diagnostics
    assert props["diagnostics"]["properties"]["debounceMs"]["default"] == defaults.diagnostics_debounce_ms
    assert props["codeLens"]["properties"]["enabled"]["default"] is defaults.code_lens
    assert props["completion"]["properties"]["maxItems"]["default"] == defaults.completion_max_items
    assert props["indexing"]["properties"]["onStart"]["default"] is defaults.index_on_start
    assert props["indexing"]["properties"]["debounceMs"]["default"] == defaults.debounce_ms


def test_examples_parse_cleanly_and_both_shapes_agree() -> None:
    for example in json.loads(SCHEMA.read_text("utf-8"))["examples"]:
        _, problems = parse_options(example)
        assert problems == []
    flat, _ = parse_options({"embeddings": False, "search": {"k": 3, "scope": "tag:x"}, "study": {"folder": "S"}})
    wrapped, _ = parse_options({"cognivault": {"embeddings": False, "search": {"k": 3, "scope": "tag:x"},
                                               "study": {"folder": "S"}}})
    assert flat == wrapped and flat.search_scope == ["tag:x"] and flat.settings == {"study": {"folder": "S"}}


def test_bad_values_are_reported_and_skipped() -> None:
    options, problems = parse_options({"embedding": {"provider": "psychic"}, "search": {"k": 0, "mode": "x"},
                                       "diagnostics": {"enabled": "yes"}, "completion": {"maxItems": 5}})
    assert len(problems) == 4
    assert options.completion_max_items == 5 and options.search_k == LspOptions().search_k
    none, problems = parse_options({"embedding": {"provider": "none"}})
    assert problems == [] and none.embeddings is False
