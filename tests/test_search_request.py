"""One search request for the language server and the companion, and one root for every error."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import cognivault
from cognivault.errors import CogniVaultError
from cognivault.index.scope import Scope, ScopeError
from cognivault.search_request import MAX_K, MAX_QUERY_CHARS, SearchRequest, parse_scope
from cognivault.vault.guard import VaultPathError


def test_limits_are_the_same_for_every_front_end(tmp_path: Path) -> None:
    assert SearchRequest.build(tmp_path, "cells", k=MAX_K).k == MAX_K
    for bad_k in (0, MAX_K + 1, True, "10", 2.5):
        with pytest.raises(CogniVaultError, match="k: expected an integer from 1 to 200"):
            SearchRequest.build(tmp_path, "cells", k=bad_k)
    for bad_query in ("", "   ", None, 7, "x" * (MAX_QUERY_CHARS + 1)):
        with pytest.raises(CogniVaultError, match="query"):
            SearchRequest.build(tmp_path, bad_query)
    with pytest.raises(CogniVaultError, match="unknown search mode 'fuzzy': use one of hybrid, lexical, dense"):
        SearchRequest.build(tmp_path, "cells", mode="fuzzy")


def test_both_scope_forms_read_alike_and_paths_stay_inside_the_vault(tmp_path: Path) -> None:
    listed = parse_scope(tmp_path, ["folder:Biology/", "tag:#exam", "file:Cells.md", "property:course=bio1"])
    written = parse_scope(tmp_path, {"folders": "Biology", "tags": ["exam"], "files": ["Cells.md"],
                                     "properties": {"course": "bio1"}})
    assert listed == written == Scope(["Biology"], ["exam"], ["Cells.md"], [("course", "bio1")])
    assert parse_scope(tmp_path, None) is None and parse_scope(tmp_path, {}) is None
    assert parse_scope(tmp_path, "folder:Biology") == Scope(folders=["Biology"])
    for outside in ({"folders": "/etc"}, {"files": ["../secrets.md"]}, ["folder:../elsewhere"]):
        with pytest.raises(VaultPathError):
            parse_scope(tmp_path, outside)
    with pytest.raises(ScopeError) as unknown:
        parse_scope(tmp_path, ["colour:red"])
    assert unknown.value.code == "bad_scope" and unknown.value.status == 400
    with pytest.raises(CogniVaultError, match="scope: expected"):
        parse_scope(tmp_path, 42)


def test_every_exception_class_of_the_project_derives_from_the_root() -> None:
    """Except the private signals that never leave their module."""
    outside = set()
    for module in pkgutil.walk_packages(cognivault.__path__, "cognivault."):
        if module.name.startswith("cognivault.shipped") or module.name.endswith("__main__"):
            continue
        try:
            loaded = importlib.import_module(module.name)
        except ImportError as exc:  # an optional third-party part of an extractor or model (llama_cpp, ...)
            assert not str(exc.name or "").startswith("cognivault"), exc
            continue
        for name, value in vars(loaded).items():
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == module.name \
                    and not issubclass(value, CogniVaultError) and not name.startswith("_"):
                outside.add(f"{module.name}.{name}")
    assert outside == set()
