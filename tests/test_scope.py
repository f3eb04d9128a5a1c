"""Scope filters: parsing and the combination rules."""

import pytest

from cognivault.index.scope import Scope, ScopeError


def test_parse_all_kinds():
    scope = Scope.parse(['folder:"Obsidian Sync"', "tag:#howto", "file:/Plugins/Search.md",
                         "property:status=done", "prop:draft"])
    assert scope.folders == ["Obsidian Sync"]
    assert scope.tags == ["howto"]
    assert scope.files == ["Plugins/Search.md"]
    assert scope.properties == [("status", "done"), ("draft", None)]


@pytest.mark.parametrize("bad", ["folder", "color:red", "tag:"])
def test_parse_errors_say_what_is_expected(bad):
    with pytest.raises(ScopeError, match="scope"):
        Scope.parse([bad])


def test_from_dict_validates_types():
    assert Scope.from_dict({"folders": "A/", "tags": ["x"]}).folders == ["A"]
    with pytest.raises(ScopeError):
        Scope.from_dict({"folders": [1]})
    assert Scope.from_dict(None).is_empty()
