"""Scope filters: parsing and the combination rules."""

import pytest

from cognivault.index.scope import Scope, ScopeError, query_tags


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


def test_query_tags_take_only_tags_a_note_carries():
    carried = {"biology/cells", "exam"}.__contains__
    assert query_tags("#biology/cells membrane", carried) == ("membrane", ["biology/cells"])
    assert query_tags("#biology/cells", carried) == ("biology cells", ["biology/cells"])
    assert query_tags("#exam #biology/cells", carried) == ("exam biology cells", ["exam", "biology/cells"])
    assert query_tags("#photosynthesis light", carried) == ("#photosynthesis light", [])  # no note has it
    assert query_tags("C# #1 #", carried) == ("C# #1 #", [])


def test_a_tag_in_the_query_keeps_the_search_to_the_notes_carrying_it(indexed_notes):
    engine = indexed_notes({
        "Cells.md": "# Cells\n\n#biology/cells\n\nThe membrane holds the cell together.\n",
        "Plant cells.md": "---\ntags: [biology/cells/plant]\n---\n# Plant cells\n\nA wall outside the membrane.\n",
        "Soap.md": "# Soap\n\nSoap bubbles have a thin membrane of water. Biology of cells: none.\n"})
    tagged = engine.search("#biology/cells membrane", k=10, mode="lexical")
    assert {r.path for r in tagged.results} == {"Cells.md", "Plant cells.md"}
    assert tagged.query == "#biology/cells membrane" and "only notes tagged #biology/cells" in tagged.notes
    only_tag = engine.search("#biology/cells", k=10, mode="lexical", per_note=True)
    assert {r.path for r in only_tag.results} == {"Cells.md", "Plant cells.md"}
    within = engine.search("#biology/cells membrane", k=10, mode="lexical", scope=Scope.parse(["file:Soap.md"]))
    assert within.results == []  # both filters hold
    untagged = engine.search("#soap membrane", k=10, mode="lexical")  # no note carries #soap: a word
    assert untagged.results[0].path == "Soap.md" and not untagged.notes
